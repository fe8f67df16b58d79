"""Summary of a sweep.py result: findings, proof verdict counts and Z3 time per kernel, as markdown.

usage: summary.py SWEEP.json
Prints the totals (kernels clean / with findings, verdicts by kind, Z3 time median and maximum per kernel over the
kernels with verdicts), then one table row per kernel whose verdicts are not all `proved` (with its first proof
note: why the prover gave no verdict or only a weaker one), then every finding on a correct kernel.
"""
import collections
import json
import statistics
import sys


def main():
    data = json.load(open(sys.argv[1]))
    kernels = data["kernels"]
    totals = collections.Counter()
    z3 = []
    rows = []
    dirty = []
    for name, rec in sorted(kernels.items()):
        counts = collections.Counter(p["verdict"] for p in rec.get("proofs", []))
        totals.update(counts)
        if rec.get("proofs"):
            z3.append((rec.get("z3_s") or 0, name))
        if rec["exit"] != 0 or rec.get("findings"):
            dirty.append((name, rec))
        if set(counts) != {"proved"}:
            notes = [n for n in rec.get("proof_notes", []) if "not analyzed" in n or "no mbarrier" in n or
                     "not encoded" in n] or rec.get("proof_notes", [])
            rows.append((name, dict(counts), (notes[0] if notes else "")[:220]))
    walls = [rec["wall_s"] for rec in kernels.values()]
    print(f"kernels: {len(kernels)}; clean (exit 0, no finding): {len(kernels) - len(dirty)}; "
          f"total wall {data.get('total_wall_s')} s (sum of per-kernel {sum(walls):.0f} s, max {max(walls):.1f} s)")
    print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(totals.items())) +
          f" (all kinds: {sum(totals.values())})")
    if z3:
        times = sorted(t for t, _ in z3)
        top = max(z3)
        print(f"Z3 time per kernel over the {len(z3)} kernels with verdicts: median {statistics.median(times):.2f} s, "
              f"max {top[0]:.2f} s ({top[1]})")
    print("\n| kernel | verdicts | note |\n|---|---|---|")
    for name, counts, note in rows:
        text = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"
        print(f"| {name} | {text} | {note.replace('|', '/')} |")
    print("\nfindings on correct kernels:")
    for name, rec in dirty:
        print(f"- {name}: exit {rec['exit']} {rec.get('error', '')}")
        for f in rec.get("findings", []):
            print(f"  - {f['class']} ({f['schedule']}) at {f['location']}: {f['message'][:200]}")
    if not dirty:
        print("- none")


if __name__ == "__main__":
    main()
