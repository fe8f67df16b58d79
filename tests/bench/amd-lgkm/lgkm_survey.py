"""Issue 16 (d): at which s_barrier of an AMD capture's hsaco may a wave still have LDS reads in flight?

usage: lgkm_survey.py [--objdump PATH] HSACO...

Disassembles each hsaco (LLVM's llvm-objdump, amdgcn target; --mcpu from the path: gfx950 or gfx942) and walks it
in address order, counting the wave's outstanding LGKM operations: every ds_read* / ds_load* (an LDS read), other
ds_* and s_load* (other LGKM ops). `s_waitcnt lgkmcnt(k)` leaves the k youngest in flight (AMD CDNA3 ISA 4.4
"Data Dependency Resolution": LDS returns in issue order, so lgkmcnt(k) retires all but the k newest when only LDS
ops are counted; scalar loads may return out of order, which only makes this count an upper bound). At every
s_barrier it reports the LDS reads still outstanding: S_BARRIER orders execution only (CDNA3 ISA 4.5 "s_barrier";
gfx90a / gfx942 / gfx950 have back-off barriers, so LLVM's SIInsertWaitcnts adds no wait before it); a workgroup
release fence (the `ttg.barrier local` / `gpu.barrier` lowering) is what puts `s_waitcnt lgkmcnt(0)` in front.
For each such barrier it prints whether it is a conditional one (`amdg.cond_barrier`: s_cbranch_execz before it)
and how far the next lgkmcnt(0) is. A linear walk: branches are ignored (the loop back-edge resets nothing), so it
is a survey, not a proof.
"""
import pathlib
import re
import subprocess
import sys


def survey(objdump, hsaco):
    mcpu = "gfx950" if "gfx950" in str(hsaco) else "gfx942"
    text = subprocess.run([objdump, "-d", f"--mcpu={mcpu}", str(hsaco)], capture_output=True, text=True,
                          check=True).stdout
    lines = [l.split("//")[0].strip() for l in text.splitlines()]
    lgkm = []  # outstanding LGKM ops, oldest first: ("r", line) for an LDS read, ("o", line) otherwise
    barriers, hits = 0, []
    for i, ins in enumerate(lines):
        if not ins or ins.endswith(">:"):
            continue
        op = ins.split()[0]
        if op.startswith(("ds_read", "ds_load")):
            lgkm.append(("r", i))
        elif op.startswith(("ds_", "s_load", "s_buffer_load")):
            lgkm.append(("o", i))
        elif op == "s_waitcnt" and (m := re.search(r"lgkmcnt\((\d+)\)", ins)):
            k = int(m.group(1))
            lgkm = lgkm[len(lgkm) - k:] if 0 < k < len(lgkm) else ([] if k == 0 else lgkm)
        elif op == "s_endpgm":
            lgkm = []
        elif op == "s_barrier":
            barriers += 1
            reads = [j for kind, j in lgkm if kind == "r"]
            if reads:
                prev = [l for l in lines[max(0, i - 3):i] if l]
                cond = any(l.startswith("s_cbranch_execz") for l in prev)
                drain = next((j for j in range(i + 1, len(lines)) if re.search(r"lgkmcnt\(0\)", lines[j])), None)
                hits.append((i, len(reads), lines[reads[0]], cond, None if drain is None else drain - i))
    return barriers, hits


def main():
    argv = sys.argv[1:]
    objdump = "/usr/lib/llvm-22/bin/llvm-objdump"
    if argv[:1] == ["--objdump"]:
        objdump, argv = argv[1], argv[2:]
    for hsaco in map(pathlib.Path, argv):
        barriers, hits = survey(objdump, hsaco)
        print(f"{hsaco}: {barriers} s_barrier, {len(hits)} with LDS reads outstanding")
        for line, n, first, cond, drain in hits:
            print(f"  line {line}: {n} LDS reads in flight (oldest: {first}); "
                  f"{'conditional' if cond else 'unconditional'} s_barrier; next lgkmcnt(0) "
                  f"{'none' if drain is None else f'{drain} lines later'}")


if __name__ == "__main__":
    main()
