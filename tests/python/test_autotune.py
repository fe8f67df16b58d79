"""Autotuning without a GPU (issue 19): capture_launch / FakeTensor, run_script, the early_config_prune hook,
tlx-sim-tune sequential and on a local 2-CPU Ray, and the hook in TLX's own hopper_gemm_ws tutorial.

Plain unittest: ``python3 tests/python/test_autotune.py``.  Needs fbtriton (TLX) and ray: under a Python without
them the script re-executes itself under ``$TLX_SIM_PYTHON_FBTRITON`` or ``.venv-tlx/bin/python3``; exit 77
(skipped) when there is none or it lacks ray.  Needs the tlx-sim binary (``$TLX_SIM`` or build/tools/tlx-sim).
No GPU, no torch.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

from tlx_sim import capture  # noqa: E402

if capture.current_compiler() != "fbtriton" or importlib.util.find_spec("ray") is None:
    try:
        python = capture.compiler_python("fbtriton")
    except capture.MissingCompiler as err:
        print(f"skipped: {err}")
        sys.exit(77)
    if os.environ.get("TLXSIM_TEST_AUTOTUNE_REEXEC"):
        print("skipped: no ray in the fbtriton venv (tools/setup.sh installs it)")
        sys.exit(77)
    os.environ["TLXSIM_TEST_AUTOTUNE_REEXEC"] = "1"
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

import tlx_sim  # noqa: E402
from tlx_sim import autotune, kernel_module, launch_capture, tlx_tutorials, tune  # noqa: E402

USER = ROOT / "tests" / "python" / "tune" / "user_matmul.py"
SHAPE = ["1024", "1024", "512"]
H200 = kernel_module.parse_target("cuda:90")
TMP = Path(tempfile.mkdtemp(prefix="tlx-sim-test-autotune-"))
os.environ["TLXSIM_TUNE_CACHE"] = str(TMP / "cache")
os.environ.setdefault("TLXSIM_MODELS", str(ROOT / "models"))
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}


@triton.jit
def _copy_kernel(x_desc, out_ptr, n, BM: tl.constexpr):
    tile = x_desc.load([tl.program_id(0) * BM, 0])
    offs = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(out_ptr + offs[:, None] * 64 + tl.arange(0, 64)[None, :], tile)


def _tool(*args):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, env=ENV, cwd=TMP)


class CaptureLaunch(unittest.TestCase):

    def test_fake_tensor_and_descriptor(self):
        x = tlx_sim.FakeTensor([4096, 64], "float16")
        out = tlx_sim.FakeTensor([4096, 64], "float16")
        desc = TensorDescriptor(x, x.shape, x.stride(), [128, 64])
        cdir = tlx_sim.capture_launch(_copy_kernel, (32, ), desc, out, 4096, BM=128, out_dir=TMP / "copy")
        launch = json.loads((cdir / "launch.json").read_text())
        self.assertEqual(launch["grid"], [32, 1, 1])
        self.assertEqual(launch["descs"]["x_desc"]["block"], [128, 64])
        self.assertEqual(launch["ptrs"]["out_ptr"], {"shape": [4096, 64], "dtype": "fp16"})
        self.assertTrue((cdir / "_copy_kernel.cubin").is_file() and (cdir / "_copy_kernel.ttgir").is_file())


class RunScript(unittest.TestCase):

    def test_every_launch_captured(self):
        out = TMP / "run_script"
        proc = _tool("tlx_sim.run_script", "--out", str(out), str(USER), *SHAPE)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        summary = json.loads((out / "summary.json").read_text())
        # six configs, none pruned by the user's own pruner at N=1024: six distinct launches
        self.assertEqual(len(summary["launches"]), 6)
        self.assertEqual(sorted(e["grid"][0] for e in summary["launches"]), [64, 64, 128, 128, 256, 256])
        for e in summary["launches"]:
            self.assertTrue((out / e["folder"] / "launch.json").is_file())
        self.assertFalse(summary["gpu"])

    def test_a_tlx_script_runs_under_fbtriton_from_the_plain_venv(self):
        # run as the README writes it (``.venv/bin/python3 -m tlx_sim.run_script``): a script that imports TLX
        # re-executes under fbtriton's venv, as tlx_sim.capture does (found by a new-user trial, 2026-12-04)
        plain = ROOT / ".venv" / "bin" / "python3"
        if not plain.exists():
            self.skipTest("no .venv (upstream triton) to start from")
        script = TMP / "imports_tlx.py"
        script.write_text("import triton.language.extra.tlx as tlx\nprint('imported', tlx.__name__)\n")
        env = {k: v for k, v in ENV.items() if k != "TLX_SIM_CAPTURE_REEXEC"}
        proc = subprocess.run([str(plain), "-m", "tlx_sim.run_script", "--out", str(TMP / "tlx_script"), str(script)],
                              capture_output=True, text=True, env=env, cwd=TMP)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("imported triton.language.extra.tlx", proc.stdout)


class Hook(unittest.TestCase):

    def test_hook_keeps_the_predicted_top_k_after_the_users_pruner(self):
        seq = tune.sweep(tune.make_job(USER, "matmul_kernel", {"M": 1024}, SHAPE), 6, sequential=True,
                         progress=False)
        best2 = [r["config"] for r in tune.ranked(seq)[:2]]
        out = TMP / "hooked"
        proc = subprocess.run([sys.executable, "-m", "tlx_sim.run_script", "--out", str(out), str(USER), *SHAPE],
                              capture_output=True, text=True, env={**ENV, "TLXSIM_TEST_HOOK": "1"}, cwd=TMP)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        kept = [e["config"] for e in json.loads((out / "summary.json").read_text())["launches"]]
        self.assertEqual(sorted(kept), sorted(best2))

    def test_find_autotuner_outside_triton_is_an_error(self):
        with self.assertRaises(RuntimeError):
            autotune.prune(top_k=1)([], {})


class Sweep(unittest.TestCase):

    def test_ray_two_cpus_equals_sequential(self):
        import ray
        job = tune.make_job(USER, "matmul_kernel", {"M": 1024, "N": 1024, "K": 512}, SHAPE, use_cache=False)
        seq = tune.ranked(tune.sweep(job, 6, sequential=True, progress=False))
        ray.init(num_cpus=2, include_dashboard=False,
                 runtime_env={"env_vars": {k: ENV[k] for k in ("PYTHONPATH", "TLXSIM_MODELS", "TLXSIM_TUNE_CACHE", "TLX_SIM")
                                           if k in ENV}})
        try:
            par = tune.ranked(tune.sweep(job, 6, progress=False))
        finally:
            ray.shutdown()
        self.assertEqual([r["config"] for r in par], [r["config"] for r in seq])
        self.assertEqual([r["time_us"] for r in par], [r["time_us"] for r in seq])
        self.assertTrue(all(r["status"] == "ok" for r in seq), seq)

    def test_cli_sequential_ranking(self):
        proc = _tool("tlx_sim.tune", str(USER), "--kernel", "matmul_kernel", "--shape", "M=1024,N=1024,K=512",
                     "--top-k", "2", "--sequential", "--json", "--", *SHAPE)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        got = json.loads(proc.stdout)
        times = [r["time_us"] for r in got["results"]]
        self.assertEqual(times, sorted(times))
        self.assertEqual(got["top_k"], [r["config"] for r in got["results"][:2]])

    def test_cli_shape_never_launched(self):
        proc = _tool("tlx_sim.tune", str(USER), "--kernel", "matmul_kernel", "--shape", "M=77", "--sequential",
                     "--", *SHAPE)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no launch of autotuned kernel 'matmul_kernel'", proc.stderr)


class TutorialHook(unittest.TestCase):
    """TLX's hopper_gemm_ws as it is in the wheel: its own @triton.autotune, with the hook added to the
    decorator's prune_configs_by at import (chained after its preprocess_configs), prunes with no GPU."""

    def test_hopper_gemm_ws(self):
        report = []
        real_autotune = triton.autotune

        def hooked(*args, prune_configs_by=None, **kwargs):
            own = (prune_configs_by or {}).get("early_config_prune")

            def own_then_subset(configs, named, **kw):  # a 12-config slice of the 96 its pruner keeps at 4096^3
                configs = own(configs, named, **kw) if own else configs
                return [c for c in configs if c.kwargs["NUM_CTAS"] == 1 and not c.kwargs["USE_WARP_BARRIER"]
                        and c.kwargs["EPILOGUE_SUBTILE"]]
            hook = autotune.prune(top_k=4, model="h200", after=own_then_subset, report=report)
            return real_autotune(*args, prune_configs_by={**(prune_configs_by or {}), "early_config_prune": hook},
                                 **kwargs)

        triton.autotune = hooked
        try:
            with kernel_module.fresh_triton_cache(), launch_capture.intercepting(H200) as launches:
                module = tlx_tutorials.load_tutorial("hopper_gemm_ws")
                module.matmul(tlx_sim.FakeTensor([4096, 4096], "float16"), tlx_sim.FakeTensor([4096, 4096], "float16"))
        finally:
            triton.autotune = real_autotune
        ranked = report[-1]
        self.assertEqual(len(ranked), 12)
        for r in ranked:
            self.assertIn(r.status, ("ok", "spills", "findings", "infeasible", "compile-error"))
            self.assertTrue(r.status == "ok" or r.reason, r)
            if r.status == "spills":  # ranked after every config that does not spill, with the warning as reason
                self.assertIn("binary spills registers", r.reason)
        statuses = [r.status for r in ranked]
        self.assertEqual(statuses, sorted(statuses, key=lambda s: {"ok": 0, "spills": 1}.get(s, 2)))
        ok = [r for r in ranked if r.status == "ok"]
        kept = ok + [r for r in ranked if r.status == "spills"]
        compiled = [launch.config_name for launch in launches if launch.name == "matmul_kernel_tlx_ws"]
        if ok:  # the autotuner compiled (would benchmark) exactly the predicted top 4
            self.assertEqual(len(compiled), min(4, len(kept)))
            self.assertEqual([r.time_us for r in ok], sorted(r.time_us for r in ok))
        print("hopper_gemm_ws 4096^3:", [(r.config.split("_NUM_MMA")[0], r.status, r.time_us) for r in ranked],
              file=sys.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
