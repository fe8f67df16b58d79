"""Checks `tlx-sim trace --proton`'s alignment: the measured process holds every event of the measured CTA, in
cycles drawn at the simulated clock, shifted so that the measured steady-state window's first wait (the 65th
'wait_ready' of warp 0) starts where the predicted one (the 65th 'wait ready[...]' of CTA 0's default partition)
does."""
import json
import sys

trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
mhz = trace["otherData"]["clock_mhz"]
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] in ("process_name", "thread_name")}
measured_pid = next(p for (p, t), n in names.items() if t is None and n.startswith("measured (Proton): ws_gemm_kernel Core124 CTA0"))
cta0_pid = next(p for (p, t), n in names.items() if t is None and n.startswith("CTA 0 "))
default_tid = next(t for (p, t), n in names.items() if p == cta0_pid and n.startswith("default"))

measured = [e for e in events if e.get("ph") == "X" and e["pid"] == measured_pid]
assert len(measured) == 1152, len(measured)  # every event of CTA0 in the fixture
warp0 = sorted((e for e in measured if e["tid"] == 1 and e["name"] == "wait_ready"), key=lambda e: e["ts"])
assert len(warp0) == 128, len(warp0)
predicted = sorted((e for e in events if e.get("ph") == "X" and e["pid"] == cta0_pid and e["tid"] == default_tid
                    and e["name"].startswith("wait ready[")), key=lambda e: e["ts"])
assert len(predicted) == 128, len(predicted)
# Aligned at the windows' starts (occurrence 65 of 128), within the 0.1 ns rounding of the trace's timestamps.
assert abs(warp0[64]["ts"] - predicted[64]["ts"]) < 1e-3, (warp0[64]["ts"], predicted[64]["ts"])
# Durations are the measured cycles at the simulated clock.
e = warp0[64]
assert abs(e["dur"] - e["args"]["cycles"] / mhz) < 1e-3, (e["dur"], e["args"]["cycles"], mhz)
print("ok: measured CTA aligned at the steady-state window;", len(measured), "events")
