"""List the op names in captured TTGIR files, per architecture folder: what an IR reader must cover.

Usage (from the repository root, ``PYTHONPATH=python``)::

    python3 -m tlx_sim.ttgir_ops tests/inputs            # union per tests/inputs/<arch>, then over all
    python3 -m tlx_sim.ttgir_ops tests/inputs --per-file # one line per .ttgir
    python3 -m tlx_sim.ttgir_ops tests/inputs --json

An op is the dialect-qualified name that starts a line, after an optional ``%results = `` and an optional ``"``
(generic form, e.g. ``"tt.reduce"(...)``): ``^\\s*(%[^=]+ = )?"?([a-z_]+\\.[a-z_.0-9]+)``.  Lines of attribute
aliases (``#blocked = ...``) and locations are not ops.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

OP_LINE = re.compile(r'^\s*(%[^=]+ = )?"?([a-z_]+\.[a-z_.0-9]+)')


def ops_of(text: str) -> set[str]:
    """The op names of one TTGIR text."""
    return {m.group(2) for line in text.splitlines() if not line.startswith("#") and (m := OP_LINE.match(line))}


def collect(root: Path) -> dict[str, dict[str, set[str]]]:
    """{arch folder: {file relative to root: ops}} for every ``*.ttgir`` below ``root``."""
    out: dict[str, dict[str, set[str]]] = {}
    for file in sorted(Path(root).rglob("*.ttgir")):
        rel = file.relative_to(root)
        arch = rel.parts[0] if len(rel.parts) > 1 else "."
        out.setdefault(arch, {})[rel.as_posix()] = ops_of(file.read_text())
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tlx_sim.ttgir_ops", description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="directory searched for *.ttgir (e.g. tests/inputs)")
    parser.add_argument("--per-file", action="store_true", help="one line per file instead of per architecture")
    parser.add_argument("--json", action="store_true", help="JSON: {arch: {file: [ops]}}")
    args = parser.parse_args(argv)
    found = collect(args.root)
    if not found:
        print(f"error: no *.ttgir under {args.root}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({a: {f: sorted(o) for f, o in files.items()} for a, files in found.items()}, indent=1))
        return 0
    union: set[str] = set()
    for arch, files in found.items():
        if args.per_file:
            for file, ops in files.items():
                print(f"{file}: {' '.join(sorted(ops))}")
        else:
            ops = set().union(*files.values())
            print(f"{arch} ({len(files)} files, {len(ops)} ops): {' '.join(sorted(ops))}")
        union |= set().union(*files.values())
    if not args.per_file:
        print(f"all ({sum(map(len, found.values()))} files, {len(union)} ops): {' '.join(sorted(union))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
