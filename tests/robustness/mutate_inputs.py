"""Bad input is normal input: truncate and corrupt every captured TTGIR, run `tlx-sim ir`.

For each input (tests/inputs/**/*.ttgir; for the first input also its generic form) the
script cuts the text at 50 offsets and corrupts 20 tokens (deterministic, seeded), runs
the variants in parallel, and requires for every variant:
exit code 2, exactly one `file:line:col: error:` line on stderr, and no sanitizer report
(AddressSanitizer / UndefinedBehaviorSanitizer / LeakSanitizer) and no signal.

usage: mutate_inputs.py TLX_SIM INPUT_ROOT [--cuts 50] [--corruptions 20] [--exclude DIR] [--one-per-kernel]
Prints one line per failing variant and a summary; exits 1 on any failure.
"""
import argparse
import concurrent.futures
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile

ERROR_LINE = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)
SANITIZER = re.compile(r"(AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|runtime error:)")
# Corruptions that can never leave valid TTGIR: they break a token the grammar needs.
CORRUPTIONS = [
    lambda tok: tok + "}",        # unbalanced brace
    lambda tok: "@" + tok + "(",  # a symbol where none may stand
    lambda tok: tok + " %",       # a dangling value sigil
    lambda tok: tok + "q9",       # an op or type name no dialect has
]
# Op names where an op starts (after "= " or the indentation) and type names, where every
# corruption above breaks the text (attribute keys such as {tt.divisibility = 16} are not ops).
TOKEN = re.compile(r'!ttg\.memdesc|!tt\.tensordesc|(?<=(?:= |  ))"?(?:ttng|ttg|tt|scf|arith)\.[a-z_]+"?(?=[ (<])')


def variants(text: str, cuts: int, corruptions: int, rng: random.Random):
    # Cuts fall inside the module: a prefix holding only alias definitions is a valid
    # (empty) module, not a truncated kernel.
    body_start = text.find("module")
    body_end = text.rfind("\n} loc(") if "\n} loc(" in text else len(text) // 2
    for i in range(cuts):
        offset = rng.randrange(body_start + 1, max(body_start + 2, body_end))
        yield f"cut@{offset}", text[:offset]
    tokens = [m for m in TOKEN.finditer(text[:body_end])]
    for i in range(min(corruptions, len(tokens))):
        m = rng.choice(tokens)
        how = rng.randrange(len(CORRUPTIONS))
        yield f"corrupt@{m.start()}#{how}", text[: m.start()] + CORRUPTIONS[how](m.group(0)) + text[m.end():]


def check(tlx_sim: str, label: str, text: str, workdir: pathlib.Path) -> str | None:
    variant = workdir / (re.sub(r"[^A-Za-z0-9_.@#-]", "_", label) + ".ttgir")
    variant.write_text(text)
    try:
        proc = subprocess.run([tlx_sim, "ir", str(variant)], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "hang (> 60 s)"
    if proc.returncode < 0:
        return f"signal {-proc.returncode}"
    if SANITIZER.search(proc.stderr):
        return "sanitizer report: " + SANITIZER.search(proc.stderr).group(0)
    if proc.returncode != 2:
        return f"exit {proc.returncode}, expected 2"
    errors = ERROR_LINE.findall(proc.stderr)
    if len(errors) != 1:
        return f"{len(errors)} 'file:line:col: error:' lines, expected 1: {proc.stderr[:200]!r}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tlx_sim")
    parser.add_argument("input_root")
    parser.add_argument("--cuts", type=int, default=50)
    parser.add_argument("--corruptions", type=int, default=20)
    parser.add_argument("--exclude", action="append", default=[],
                        help="top-level folder of INPUT_ROOT to leave out (tlx: TLX's tutorials, until the reader "
                        "covers them; issue 15)")
    parser.add_argument("--one-per-kernel", action="store_true",
                        help="only the first config (sorted) of each kernel folder (ARCH/KERNEL/CONFIG/*.ttgir): a "
                        "kernel's configs differ in constants, not in the ops and syntax the reader parses")
    args = parser.parse_args()
    root = pathlib.Path(args.input_root)
    inputs = sorted(p for p in root.rglob("*.ttgir") if p.relative_to(root).parts[0] not in args.exclude)
    if args.one_per_kernel:
        first = {}
        for p in inputs:
            first.setdefault(p.parent.parent, p)
        inputs = sorted(first.values())
    if not inputs:
        print(f"no .ttgir under {args.input_root}", file=sys.stderr)
        return 1
    failures = total = 0
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        workdir = pathlib.Path(tmp)
        jobs = []
        for index, path in enumerate(inputs):
            forms = [("pretty", path.read_text())]
            if index == 0:
                generic = subprocess.run([args.tlx_sim, "ir", str(path)], capture_output=True, text=True).stdout
                forms.append(("generic", generic))
            for form, source in forms:
                rng = random.Random(f"{path.relative_to(args.input_root)}:{form}")
                for serial, (label, variant) in enumerate(variants(source, args.cuts, args.corruptions, rng)):
                    # the serial keeps two variants with the same label (two cuts at one random offset) from
                    # sharing a file that one thread rewrites while another's tlx-sim reads it (read empty: exit 0)
                    name = f"{index}-{form}-{serial}-{label}"
                    jobs.append((path, form, label, pool.submit(check, args.tlx_sim, name, variant, workdir)))
        for path, form, label, job in jobs:
            total += 1
            problem = job.result()
            if problem:
                failures += 1
                print(f"FAIL {path} [{form} {label}]: {problem}")
    print(f"{total - failures} of {total} variants of {len(inputs)} inputs rejected cleanly")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
