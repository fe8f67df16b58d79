"""Check the partition comparison of `tlx-sim xcheck --proton --json` (stdin) and print what it read.

Per partition of every native Proton summary: busy = 1 - wait (predicted and measured) and diff_points =
100 x (predicted - measured wait); summary.partitions.count equals the number of partitions compared. Prints one
line per partition (kernel, config, name, measured wait and busy to 4 digits, "consistent") and a summary line.
"""
import json
import sys

doc = json.load(sys.stdin)
count = 0
for s in doc["proton_summaries"]:
    for p in s["partitions"]:
        ok = abs(p["proton_busy_frac"] - (1 - p["proton_wait_frac"])) < 1e-12
        ok &= abs(p["predicted_busy_frac"] - (1 - p["predicted_wait_frac"])) < 1e-12
        ok &= abs(p["diff_points"] - 100 * (p["predicted_wait_frac"] - p["proton_wait_frac"])) < 1e-9
        count += 1
        print(f'{s["kernel"]} {s["config"]} {p["name"]} proton_wait {p["proton_wait_frac"]:.4f} '
              f'proton_busy {p["proton_busy_frac"]:.4f} {"consistent" if ok else "INCONSISTENT"}')
part = doc["summary"]["partitions"]
assert part["count"] == count, (part["count"], count)
gate = part["max_partition_diff"]
print(f'summary: {count} partitions, gate {"none" if gate is None else gate}, pass {str(doc["pass"]).lower()}')
