"""Validate a `tlx-sim trace` Chrome/Perfetto trace and print a summary for FileCheck.

Checks (exit 1 with a message on the first failure):
  * the file is one JSON object with a `traceEvents` array; every event has ph, pid and (except process
    metadata) tid; X events have ts >= 0 and dur >= 0;
  * X events of one thread nest properly (a slice starting inside another ends inside it);
  * every flow has exactly one start ("s") and one end ("f", bp "e"), each strictly inside an X slice of its
    thread, and the arrival (source slice) ends no later than the wait it releases (target slice) ends.
Prints: process and thread names, slice counts by category, flow counts by barrier array.

Usage: python3 check_trace.py TRACE.json
"""
import bisect
import collections
import json
import re
import sys


def fail(message):
    print(f"check_trace: FAIL: {message}")
    sys.exit(1)


def main(path):
    with open(path) as f:
        trace = json.load(f)
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        fail("not a JSON object with a traceEvents array")
    events = trace["traceEvents"]
    names = {}
    slices = collections.defaultdict(list)
    flows = collections.defaultdict(dict)
    for e in events:
        for key in ("ph", "pid"):
            if key not in e:
                fail(f"event without {key}: {e}")
        if e["ph"] == "M":
            if e["name"] == "process_name":
                names[(e["pid"], None)] = e["args"]["name"]
            elif e["name"] == "thread_name":
                names[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e["ph"] == "X":
            if e["ts"] < 0 or e["dur"] < 0:
                fail(f"negative time: {e}")
            slices[(e["pid"], e["tid"])].append(e)
        elif e["ph"] in ("s", "f"):
            if e["id"] in flows and e["ph"] in flows[e["id"]]:
                fail(f"flow {e['id']} has two '{e['ph']}' events")
            if e["ph"] == "f" and e.get("bp") != "e":
                fail(f"flow end without bp=e: {e}")
            flows[e["id"]][e["ph"]] = e
        else:
            fail(f"unexpected phase {e['ph']}")
    eps = 1e-9
    for thread, xs in slices.items():
        if thread not in names:
            fail(f"slices on an unnamed thread {thread}")
        xs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in xs:
            while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - eps:
                stack.pop()
            if stack and e["ts"] + e["dur"] > stack[-1]["ts"] + stack[-1]["dur"] + eps:
                fail(f"{names[thread]}: slice {e['name']} at {e['ts']} overlaps {stack[-1]['name']} without nesting")
            stack.append(e)

    starts = {thread: [e["ts"] for e in xs] for thread, xs in slices.items()}  # xs sorted by ts above

    def enclosing(point):
        best = None
        thread = (point["pid"], point["tid"])
        xs = slices.get(thread, [])
        # Enclosing slices start before the point: scan back from the last one starting before it; once the
        # deepest enclosing slice is found, stop at the first slice that ended before the point.
        i = bisect.bisect_left(starts.get(thread, []), point["ts"]) - 1
        while i >= 0:
            e = xs[i]
            if e["ts"] + eps < point["ts"] < e["ts"] + e["dur"] - eps:
                if best is None or e["dur"] < best["dur"]:
                    best = e
            elif e["ts"] + e["dur"] <= point["ts"] and best is not None:
                break
            i -= 1
        if best is None:
            fail(f"flow point {point} is not strictly inside a slice of its thread")
        return best

    by_barrier = collections.Counter()
    for fid, pair in sorted(flows.items()):
        if set(pair) != {"s", "f"}:
            fail(f"flow {fid} lacks its {'start' if 's' not in pair else 'end'}")
        source, target = enclosing(pair["s"]), enclosing(pair["f"])
        if source["ts"] + source["dur"] > target["ts"] + target["dur"] + eps:
            fail(f"flow {fid}: the arrival {source['name']} ends after the wait {target['name']} it releases")
        if not target["name"].startswith("wait "):
            fail(f"flow {fid} ends on {target['name']}, not a wait")
        by_barrier[re.sub(r"\[\d+\]$", "", pair["s"]["name"].removeprefix("release "))] += 1
        by_barrier["sources: " + re.sub(r" .*", "", source["name"])] += 1

    for (pid, tid), name in sorted(names.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        print(f"{'process' if tid is None else 'thread'} {pid}:{tid or 0} {name}")
    cats = collections.Counter(e["cat"] for xs in slices.values() for e in xs)
    for cat in sorted(cats):
        print(f"slices {cat} {cats[cat]}")
    for key in sorted(by_barrier):
        print(f"flows {key} {by_barrier[key]}")
    print(f"flows total {len(flows)}")
    print("check_trace: OK")


if __name__ == "__main__":
    main(sys.argv[1])
