"""Checks predict's L2 utilization against its TMA utilization when every byte comes through TMA (no LSU
traffic): the L2 runs in its own clock domain, so L2 = TMA x (tma_rate x sms x clock_mhz) / (l2_rate x clock_max)
where clock_mhz is the run's sustained SM clock. Before the fix the summary divided by the L2 rate per SM clock at
clock_max_mhz, overstating L2 by clock_max / clock_mhz.

usage: check_l2_clock.py PREDICT.json --tma-rate B/clk/SM --l2-rate B/clk --clock-max MHZ --sms N
"""
import argparse
import json

ap = argparse.ArgumentParser()
ap.add_argument("json")
ap.add_argument("--tma-rate", type=float, required=True)
ap.add_argument("--l2-rate", type=float, required=True)
ap.add_argument("--clock-max", type=float, required=True)
ap.add_argument("--sms", type=float, required=True)
a = ap.parse_args()
d = json.load(open(a.json))
units = {u["name"]: u["utilization"] for u in d["units"]}
if units["LSU"] != 0:
    raise SystemExit("FAIL: the kernel has LSU traffic; pick a TMA-only kernel")
clock = d["clock_mhz"]
expected = units["TMA"] * a.tma_rate * a.sms * clock / (a.l2_rate * a.clock_max)
ok = abs(units["L2"] - expected) <= 0.005 * expected and clock < a.clock_max
print("%s: L2 %.4f, expected %.4f at %.0f MHz (clock_max %.0f)" % ("ok" if ok else "FAIL", units["L2"], expected,
                                                                     clock, a.clock_max))
