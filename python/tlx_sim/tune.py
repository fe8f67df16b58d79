"""Rank a user's autotune config space with tlx-sim, no GPU, on Ray: ``tlx-sim-tune user.py --kernel NAME``.

    tlx-sim-tune user.py --kernel matmul_kernel --shape M=4096,N=4096,K=4096 [--top-k 4] [--model h200]
                 [--workers N] [--ray-address ADDR] [--sequential] [--json] [-- script args]

The script runs as written under the fake driver (``launch_capture.intercepting``, stand-in torch) with its own
arguments (after ``--``; ``$TLXSIM_TUNE_SHAPE`` holds ``--shape`` for scripts that want to read it).  The first
launch of the autotuned kernel ``NAME`` whose scalar arguments equal every ``--shape`` entry that names one
(``M``, ``N``, ``K``) is the launch tuned; the script is stopped there.  Its config space is the autotuner's
``configs`` after the kernel's own ``early_config_prune`` (``--all-configs``: before it).

Each config is one task: compile for that launch (no launch), ``tlx-sim check --max-ctas 2 --no-proofs``,
``tlx-sim predict`` (``autotune.evaluate``; cached in ``$TLXSIM_TUNE_CACHE``).  Tasks run on Ray (``ray.remote``,
one CPU each): ``ray.init()`` locally uses every core (``--workers N``: ``num_cpus=N``), ``--ray-address`` joins an
existing cluster (``--workers N`` then caps the tasks in flight).  Each Ray worker process loads the job (runs the
script up to the launch) once and keeps it for its later tasks.  ``--sequential`` runs the same task function in
this process, one config after another.  The script, tlx_sim and the tlx-sim binary must exist on every node
(same paths), or be shipped with Ray's ``runtime_env``.

Prints the ranking (fastest first; dropped configs with their reason) and the top-k, a progress bar on stderr
(tqdm if installed, else a counter).  Exit 0 when some config was predicted, 1 when none, 2 on bad usage.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from tlx_sim import autotune
from tlx_sim import kernel_module as kmod


class _Found(BaseException):
    """Raised from the autotuner to stop the user's script once the tuned launch is seen."""


def parse_shape(text: str | None) -> dict:
    """``M=4096,N=4096,K=4096`` -> ``{"M": 4096, ...}`` (ints where they parse)."""
    shape = {}
    for item in filter(None, (text or "").split(",")):
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise kmod.UsageError(f"--shape expects NAME=VALUE pairs, got {item!r}")
        value = value.strip()
        shape[name.strip()] = int(value) if value.lstrip("-").isdigit() else value
    return shape


def make_job(script, kernel, shape=None, argv=(), target="cuda:90", model=None, max_ctas=2, all_configs=False,
             use_cache=True) -> dict:
    """The picklable description of one tuning job (what every task gets)."""
    return {"script": str(Path(script).resolve()), "kernel": kernel, "shape": dict(shape or {}), "argv": list(argv),
            "target": target, "model": model, "max_ctas": max_ctas, "all_configs": all_configs,
            "use_cache": use_cache}


class LoadedJob:
    """The tuned launch of a job: its autotuner, positional args, keywords (grid included) and config space."""

    def __init__(self, autotuner, args, kwargs, configs, seen):
        self.autotuner, self.args, self.kwargs, self.configs, self.seen = autotuner, args, kwargs, configs, seen


_LOADED: dict[str, LoadedJob] = {}  # per process (a Ray worker keeps its job for its later tasks)


def load(job: dict) -> LoadedJob:
    """Run the job's script until the tuned launch (cached per process); UsageError if it never comes."""
    ident = json.dumps(job, sort_keys=True)
    if ident in _LOADED:
        return _LOADED[ident]
    from tlx_sim import launch_capture as lc
    from tlx_sim import run_script
    target = kmod.parse_target(job["target"])
    found, seen = [], []

    def select(tuner, pruned):
        if tuner.base_fn.__name__ != job["kernel"]:
            return [(None, pruned[0])]
        args, kwargs = tuner.tlx_sim_call
        named = {**dict(zip(tuner.arg_names, args)), **kwargs}
        scalars = [k for k in job["shape"] if k in named]
        seen.append({k: v for k, v in named.items() if isinstance(v, int) and not isinstance(v, bool)
                     and k in tuner.keys})
        if all(named[k] == job["shape"][k] for k in scalars):
            found.append(LoadedJob(tuner, list(args), kwargs, list(tuner.configs if job["all_configs"] else pruned),
                                   seen))
            raise _Found()
        return []

    os.environ["TLXSIM_TUNE_SHAPE"] = ",".join(f"{k}={v}" for k, v in job["shape"].items())
    try:
        with lc.intercepting(target, select):
            run_script._run_path(Path(job["script"]), job["argv"])
    except _Found:
        pass
    if not found:
        raise kmod.UsageError(f"{job['script']}: no launch of autotuned kernel {job['kernel']!r} at "
                              f"{job['shape'] or 'any shape'} (launches seen at: {seen or 'none'})")
    _LOADED[ident] = found[0]
    return found[0]


def tune_config(job: dict, index: int) -> dict:
    """One task: evaluate config ``index`` of the job's space; returns ``ConfigResult.as_json()``."""
    from tlx_sim import launch_capture as lc
    loaded = load(job)
    with lc.intercepting(kmod.parse_target(job["target"])):
        result = autotune.evaluate(loaded.autotuner, loaded.args, loaded.kwargs, loaded.configs[index],
                                   loaded.kwargs.get("grid"), model=job["model"], max_ctas=job["max_ctas"],
                                   use_cache=job["use_cache"], index=index, shape=job["shape"] or None)
    out = result.as_json()
    out["pid"] = os.getpid()
    return out


class _Bar:
    """tqdm when installed, else ``N/M`` on stderr."""

    def __init__(self, total):
        self.total, self.done = total, 0
        try:
            from tqdm import tqdm
            self.bar = tqdm(total=total, unit="config", file=sys.stderr)
        except ImportError:
            self.bar = None

    def step(self, what=""):
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix_str(what[:40])
            self.bar.update(1)
        else:
            sys.stderr.write(f"\r{self.done}/{self.total} configs {what[:60]:<60}")
            sys.stderr.flush()

    def close(self):
        if self.bar is not None:
            self.bar.close()
        else:
            sys.stderr.write("\n")


def init_ray(address=None, workers=None, **kwargs):
    """``ray.init`` for a sweep: local with ``num_cpus=workers`` (None: every core) or joining ``address``;
    passes TLX_SIM, TLXSIM_MODELS, TLXSIM_TUNE_CACHE and PYTHONPATH (with tlx_sim's folder) to the workers."""
    import ray
    if ray.is_initialized():
        return ray
    package_root = str(Path(__file__).resolve().parents[1])
    env = {k: os.environ[k] for k in ("TLX_SIM", "TLXSIM_MODELS", "TLXSIM_TUNE_CACHE") if os.environ.get(k)}
    env["PYTHONPATH"] = os.pathsep.join([package_root, *filter(None, [os.environ.get("PYTHONPATH")])])
    if "TLX_SIM" not in env:
        from tlx_sim import api
        env["TLX_SIM"] = api.find_tlx_sim()
    runtime_env = {"env_vars": env}
    if address:
        ray.init(address=address, runtime_env=runtime_env, **kwargs)
    else:
        ray.init(num_cpus=workers, include_dashboard=False, runtime_env=runtime_env, **kwargs)
    return ray


def sweep(job: dict, n_configs: int, ray_address=None, workers=None, sequential=False, progress=True) -> list[dict]:
    """Evaluate every config of the job (``n_configs`` of them) on Ray or in this process; results in config
    order."""
    bar = _Bar(n_configs) if progress else None
    results = [None] * n_configs
    if sequential:
        for i in range(n_configs):
            results[i] = tune_config(job, i)
            if bar:
                bar.step(f"{results[i]['config']}: {results[i]['status']}")
    else:
        ray = init_ray(ray_address, workers)
        import tlx_sim.tune as by_name  # pickled by reference, also when this file runs as __main__
        task = ray.remote(num_cpus=1)(by_name.tune_config)
        job_ref = ray.put(job)
        window = workers if (ray_address and workers) else n_configs
        pending, nxt = {}, 0
        while nxt < n_configs or pending:
            while nxt < n_configs and len(pending) < window:
                pending[task.remote(job_ref, nxt)] = nxt
                nxt += 1
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                i = pending.pop(ref)
                results[i] = ray.get(ref)
                if bar:
                    bar.step(f"{results[i]['config']}: {results[i]['status']}")
    if bar:
        bar.close()
    return results


def ranked(results: list[dict]) -> list[dict]:
    """As ``autotune.rank``: predicted fastest first (ties by config order), then predicted configs whose binary
    spills registers, then dropped configs in order."""
    def by_time(status):
        return sorted((r for r in results if r["status"] == status), key=lambda r: (r["time_us"], r["index"]))
    return by_time("ok") + by_time("spills") + [r for r in results if r["status"] not in ("ok", "spills")]


def format_ranking(rows: list[dict], top_k: int) -> str:
    lines = [f"{'rank':>4}  {'time (us)':>10} {'TFLOP/s':>8}  config"]
    for i, r in enumerate(rows, 1):
        if r["status"] in ("ok", "spills"):
            mark = "*" if i <= top_k else " "
            note = f"  (spills: {r['reason'][:80]})" if r["status"] == "spills" else ""
            lines.append(f"{i:>3}{mark}  {r['time_us']:>10.2f} {r['tflops'] or 0:>8.1f}  {r['config']}{note}")
        else:
            lines.append(f"{'-':>4}  {r['status']:>10} {'':>8}  {r['config']}: {r['reason'][:100]}")
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    script_args = []
    if "--" in argv:
        cut = argv.index("--")
        argv, script_args = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(prog="tlx-sim-tune", description=__doc__.split("\n\n")[0])
    parser.add_argument("script", type=Path)
    parser.add_argument("--kernel", required=True, help="the autotuned kernel's name (its @triton.jit function)")
    parser.add_argument("--shape", help="NAME=VALUE,... the tuned launch's scalar arguments (M=4096,N=4096,K=4096)")
    parser.add_argument("--top-k", type=int, default=4)
    parser.add_argument("--model", help="tlx-sim model (h200, b200, ...; default from the target)")
    parser.add_argument("--target", default="cuda:90")
    parser.add_argument("--max-ctas", type=int, default=2, help="CTAs the synchronization check simulates")
    parser.add_argument("--ray-address", help="an existing Ray cluster (default: a local Ray on this machine)")
    parser.add_argument("--workers", type=int, help="local: Ray's num_cpus; cluster: tasks in flight")
    parser.add_argument("--sequential", action="store_true", help="no Ray: one config after another, here")
    parser.add_argument("--all-configs", action="store_true", help="ignore the kernel's own early_config_prune")
    parser.add_argument("--no-cache", action="store_true", help="ignore and do not write $TLXSIM_TUNE_CACHE")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args(argv)
    if not args.script.is_file():
        raise kmod.UsageError(f"{args.script}: no such script")
    job = make_job(args.script, args.kernel, parse_shape(args.shape), script_args, args.target, args.model,
                   args.max_ctas, args.all_configs, not args.no_cache)
    from tlx_sim import api
    api.find_tlx_sim()  # fail before compiling anything
    loaded = load(job)
    if not args.sequential:
        init_ray(args.ray_address, args.workers)  # not timed: configs/min is of the sweep itself
    start = time.time()
    results = sweep(job, len(loaded.configs), args.ray_address, args.workers, args.sequential)
    seconds = time.time() - start
    rows = ranked(results)
    best = [r for r in rows if r["status"] in ("ok", "spills")][:args.top_k]
    rate = 60.0 * len(rows) / max(seconds, 1e-9)
    if args.json:
        print(json.dumps({"schema_version": 1, "script": str(args.script), "kernel": args.kernel, "shape": job["shape"],
                          "model": args.model, "target": args.target, "seconds": seconds,
                          "configs_per_minute": rate, "results": rows,
                          "top_k": [r["config"] for r in best]}, indent=2))
    else:
        print(f"{args.kernel} at {args.shape or 'the script shape'}: {len(rows)} configs in {seconds:.1f} s "
              f"({rate:.1f} configs/min)")
        print(format_ranking(rows, args.top_k))
        print(f"top {args.top_k}: " + (", ".join(r["config"] for r in best) or "none"))
    return 0 if best else 1


def cli() -> int:
    """Entry point: ``main`` with usage errors as exit code 2."""
    return kmod.run_cli(main)


if __name__ == "__main__":
    sys.exit(cli())
