"""Compile the TLX mutants of tests/mutation/mutate.py into capture folders that `tlx-sim run` can time on a GPU.

Issue 16 asks, for each seeded bug whose behaviour on the H200 is measurable, what the hardware does (a hang, a
wrong result, a clean run) next to what `tlx-sim check` says. This script does the half that needs fbtriton and no
GPU: for every mutant of `mutate.py --corpus tlx` whose subject targets the device's architecture (default
cuda:90, the H200), it writes STAGING/<n>/ = the subject's launch.json, the mutated TTGIR, and the cubin plus
Triton metadata that fbtriton compiles from that TTGIR (kernel_module.recompile_ttgir: `triton.compile` of the .ttgir
file with the subject's backend options and its `tensordesc_meta`, which a .ttgir source does not produce), and `base_<subject>` folders with the unmutated TTGIR compiled the same way. STAGING/plan.tsv has one
row per folder: folder, mutant id (or "base"), the kind, and the finding classes `tlx-sim check` gives it
(mutations_tlx.json; "equivalent" where the mutant is justified equivalent there).

The device half is tools/h200-run-mutants.sh (the static runner, no Python there); tests/mutation/hw_table.py joins
its summary with the schedules of `tlx-sim check` that expose each mutant (traces/h100-sxm/bug-runs/).

usage (fbtriton's venv, from the repository root):
  PYTHONPATH=python .venv-tlx/bin/python tests/mutation/hw_mutants.py STAGING [--target cuda:90] [--only SUBSTR]
      [--jobs N]
  PYTHONPATH=python .venv/bin/python tests/mutation/hw_mutants.py STAGING --tma-store-exit
--tma-store-exit (triton 3.6's venv: Gluon kernels) stages instead the question of a CTA that exits while its TMA store
still reads its shared memory (Triton adds no cp.async.bulk.wait_group at exit): the Gluon tma_scale captures
(tests/inputs/hopper/tma_scale/*, 4096 CTAs, several per SM, each checked element by element against factor * X) as
they are and with their `ttng.async_tma_store_wait` deleted.
A mutant fbtriton refuses to compile (the mutation broke the IR's verifier) is listed with folder "-" and the
compiler's first error line; it has no hardware behaviour to measure.
"""
import argparse
import concurrent.futures
import json
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import mutate  # noqa: E402  (the mutants: the one definition of kinds and sites)

COMPILE = r"""
import pathlib, sys
from tlx_sim import kernel_module as kmod
src, out, plain = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
compiled, meta = kmod.recompile_ttgir(plain, src.read_text(), pathlib.Path.cwd())
name = compiled.metadata.name
kind = "cubin" if compiled.metadata.target.backend == "cuda" else "hsaco"
(out / f"{name}.{kind}").write_bytes(compiled.asm[kind])
(out / f"{name}.json").write_text(kmod.dump_json(meta))
"""


def compile_folder(root, folder, ttgir_name, text, launch_json):
    """Writes `folder` (launch.json, TTGIR, binary, metadata); returns None or the compiler's first error line."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(launch_json, folder / "launch.json")
    src = folder / ttgir_name
    src.write_text(text)
    try:
        proc = subprocess.run([sys.executable, "-c", COMPILE, str(src), str(folder), str(launch_json.parent)],
                              cwd=root, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        shutil.rmtree(folder)
        return "fbtriton did not compile it within 600 s"
    if proc.returncode == 0:
        return None
    lines = [l for l in proc.stderr.splitlines() if "error" in l.lower()] or proc.stderr.splitlines() or ["?"]
    shutil.rmtree(folder)
    return lines[0][:200]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("staging")
    ap.add_argument("--target", default="cuda:90")
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tma-store-exit", action="store_true")
    args = ap.parse_args()
    root = HERE.parent.parent
    staging = pathlib.Path(args.staging).resolve()
    staging.mkdir(parents=True, exist_ok=True)
    jobs = store_exit_jobs(root) if args.tma_store_exit else mutant_jobs(root, args)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        errors = list(pool.map(lambda j: compile_folder(root, staging / j[0], j[4], j[5], j[6]), jobs))
    with open(staging / "plan.tsv", "w") as plan:
        for job, error in zip(jobs, errors):
            folder, mid, kind, verdict = job[:4]
            plan.write("\t".join([folder if error is None else "-", mid, kind, verdict, error or ""]) + "\n")
    print(f"{sum(e is None for e in errors)} of {len(jobs)} folders compiled under {staging}")
    return 0


def store_exit_jobs(root):
    """(folder, id, kind, check verdict, TTGIR name, text, launch.json) of each tma_scale capture and its mutant
    without the TMA store's wait (`tlx-sim check` finds nothing on it: the question is open)."""
    jobs = []
    for cdir in sorted((root / "tests" / "inputs" / "hopper" / "tma_scale").iterdir()):
        ttgir = cdir / "tma_scale_kernel.ttgir"
        text = ttgir.read_text()
        cut = "\n".join(l for l in text.split("\n") if "ttng.async_tma_store_wait" not in l)
        jobs.append((f"base_{cdir.name}", "base", "-", "-", ttgir.name, text, cdir / "launch.json"))
        jobs.append((f"nowait_{cdir.name}", f"{cdir.name}: async_tma_store_wait deleted", "tma-store-exit", "clean",
                     ttgir.name, cut, cdir / "launch.json"))
    return jobs


def mutant_jobs(root, args):
    """(folder, id, kind, check verdict, TTGIR name, text, launch.json) of the unmutated subjects and their mutants."""
    db = {e["id"]: e for e in json.loads((HERE / "mutations_tlx.json").read_text())["mutants"]}
    jobs, subjects = [], {}
    for m in mutate.mutants(root, tlx=True):
        launch = root / m["launch"][m["launch"].index("--launch") + 1]
        if args.only not in m["subject"] or json.loads(launch.read_text()).get("target") != args.target:
            continue
        ttgir = root / m["subject"]
        entry = db.get(m["id"], {})
        verdict = ("unknown" if not entry else "equivalent" if "equivalent" in entry
                   else ",".join(entry.get("classes", [])) or "clean")
        if m["subject"] not in subjects:
            subjects[m["subject"]] = f"base_{len(subjects):02d}"
            jobs.append((subjects[m["subject"]], "base", "-", "-", ttgir.name, ttgir.read_text(), launch))
        jobs.append((f"m{len(jobs):03d}", m["id"], m["kind"], verdict, ttgir.name, m["text"], launch))
    return jobs


if __name__ == "__main__":
    sys.exit(main())
