"""Compare `tlx-sim run --proton` summaries with the Proton summaries record.py committed (traces/h200/*.json).

Usage: ``python3 tools/proton_compare.py DIR [TRACES_DIR]``: for every ``DIR/*.summary.json`` (written by
``tlx-sim run CAPTURE --proton DIR/NAME.json``, tools/h200-proton.sh) prints one line per partition and scope:
the native fraction of the CTA lifetime, record.py's for the same kernel, config and shape (records with a
"proton" entry in ``TRACES_DIR/<kernel>.json``, default traces/h200; "-" where there is none), their difference,
and each run's CTA lifetime (cycles / 1000) and decode warnings. Standard library only; exit 0 (2: no summaries).
"""
import json
import sys
from pathlib import Path


def recorded(traces: Path, kernel: str, config: str, shape: dict):
    """record.py's proton summary for (kernel, config, shape), or None."""
    path = traces / f"{kernel}.json"
    if not path.is_file():
        return None
    for rec in json.loads(path.read_text()).get("records", []):
        if rec.get("config") == config and rec.get("shape") == shape and "proton" in rec:
            return rec["proton"]["summary"]
    return None


def fmt(x):
    return "-" if x is None else f"{x:.4f}"


def main(argv) -> int:
    if not argv:
        print(__doc__)
        return 2
    out = Path(argv[0])
    traces = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "traces" / "h200"
    files = sorted(out.glob("*.summary.json"))
    if not files:
        print(f"no *.summary.json in {out}")
        return 2
    print(f"{'capture':44} {'partition':10} {'scope':12} {'native':>8} {'record.py':>9} {'diff':>8}")
    for f in files:
        doc = json.loads(f.read_text())
        ours = doc["proton"]["summary"]
        kernel = Path(doc.get("module", "")).stem  # the kernel module names the trace file (ws_gemm.json)
        theirs = recorded(traces, kernel, doc["config"], doc.get("shape", {}))
        name = f.name[:-len(".summary.json")]
        life = theirs["lifetime_us_mean"] if theirs else None
        print(f"{name:44} {'lifetime':10} {'(kcycles)':12} {fmt(ours['lifetime_us_mean']):>8} {fmt(life):>9}   "
              f"ctas {ours['ctas']}, {doc['globaltimer'].get('cycles_per_ns', 0):.3f} cycles/ns")
        for part, p in ours["partitions"].items():
            tp = (theirs or {}).get("partitions", {}).get(part, {})
            rows = [("wait_frac", p["wait_frac"], tp.get("wait_frac"))]
            rows += [(s, v, tp.get("scopes", {}).get(s)) for s, v in p["scopes"].items()]
            for scope, mine, other in rows:
                diff = "" if other is None else f"{mine - other:+.4f}"
                print(f"{'':44} {part:10} {scope:12} {fmt(mine):>8} {fmt(other):>9} {diff:>8}")
        for w in doc.get("warnings", []):
            print(f"{'':44} warning: {w}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
