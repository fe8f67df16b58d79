"""Checks of the kernel-module convention and of the committed captures (tests/inputs/hopper/ws_gemm).

Plain unittest, no pytest: ``python3 tests/python/test_capture.py`` from anywhere (ctest runs it from the
repository root); exit code 0 when everything passes, 1 otherwise.  Needs triton==3.6.0, no GPU, no torch.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

from tlx_sim import capture, kernel_module  # noqa: E402

MODULE = "kernels/hopper/ws_gemm.py"
CAPTURES = ROOT / "tests" / "inputs" / "hopper" / "ws_gemm"
CONFIGS = ["s2", "s3", "s4", "s3_bug_expect_bytes", "s3_bug_producer_parity", "s3_bug_empty_count"]
LAUNCH_KEYS = ["schema_version", "kernel", "module", "config", "target", "num_warps", "grid", "args", "descs",
               "constexprs"]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}


class KernelModuleConvention(unittest.TestCase):

    def test_imports_without_torch(self):
        code = ("import sys\n"
                "class NoTorch:\n"
                "    def find_spec(self, name, path=None, target=None):\n"
                "        if name.split('.')[0] == 'torch':\n"
                "            raise ImportError('torch must not be imported at import time')\n"
                "sys.meta_path.insert(0, NoTorch())\n"
                "import kernels.hopper.ws_gemm\n"
                "assert 'torch' not in sys.modules\n")
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_configs(self):
        km = kernel_module.load_module(str(ROOT / MODULE))
        self.assertEqual(list(km.configs), CONFIGS)
        self.assertEqual(km.targets[0], "cuda:90")
        self.assertEqual(km.num_warps, 4)
        self.assertEqual(km.default_shape, {"M": 8192, "N": 8192, "K": 8192})
        params = [p.name for p in km.kernel.params]
        for name in CONFIGS:
            spec = km.launch(name, km.default_shape)
            named = [*spec["args"], *spec["descs"], *km.config(name)]
            self.assertCountEqual(named, params, f"{name}: every kernel argument named exactly once")
        self.assertEqual([km.config(n)["S"] for n in CONFIGS], [2, 3, 4, 3, 3, 3])
        self.assertEqual([km.config(n)["BUG"] for n in CONFIGS], [0, 0, 0, 1, 2, 3])


class CommittedCaptures(unittest.TestCase):

    def test_fresh_capture_of_s3_matches(self):
        km = kernel_module.load_module(str(ROOT / MODULE))
        target = kernel_module.parse_target("cuda:90")
        with tempfile.TemporaryDirectory() as tmp:
            fresh = capture.capture_config(km, "s3", km.default_shape, target, Path(tmp))
            for file in ("ws_gemm_kernel.ttgir", "launch.json"):
                self.assertEqual((fresh / file).read_bytes(), (CAPTURES / "s3" / file).read_bytes(), file)

    def test_launch_json(self):
        for name in CONFIGS:
            spec = json.loads((CAPTURES / name / "launch.json").read_text())
            for key in LAUNCH_KEYS:
                self.assertIn(key, spec, f"{name}/launch.json")
            self.assertEqual(spec["schema_version"], 1)
            self.assertEqual((spec["kernel"], spec["module"], spec["config"], spec["target"], spec["num_warps"]),
                             ("ws_gemm_kernel", MODULE, name, "cuda:90", 4))
            self.assertEqual(spec["grid"], [64 * 64, 1, 1])  # 8192^2 output in 128x128 tiles
            self.assertEqual(spec["args"], {"M": 8192, "N": 8192, "K": 8192})
            blocks = {"a_desc": [128, 64], "b_desc": [64, 128], "c_desc": [128, 128]}
            self.assertEqual(set(spec["descs"]), set(blocks))
            for desc, block in blocks.items():
                d = spec["descs"][desc]
                self.assertEqual((d["shape"], d["strides"], d["block"], d["dtype"]),
                                 ([8192, 8192], [8192, 1], block, "fp16"), f"{name} {desc}")
            self.assertEqual(spec["divisibility"], {"M": 16, "N": 16, "K": 16})
            meta = json.loads((CAPTURES / name / "ws_gemm_kernel.json").read_text())
            # Triton counts all partitions: 4 (default) + 1 (producer), rounded up to whole warp groups.
            self.assertEqual(meta["num_warps"], 8)

    def test_no_absolute_paths(self):
        for name in CONFIGS:
            ttgir = (CAPTURES / name / "ws_gemm_kernel.ttgir").read_text()
            files = set(re.findall(r'loc\("([^"]*)":\d+:\d+\)', ttgir))
            self.assertIn(MODULE, files)
            self.assertEqual([f for f in files if f.startswith("/") or re.match(r"[A-Za-z]:\\", f)], [], name)
            self.assertNotIn(str(ROOT), ttgir)
            meta = (CAPTURES / name / "ws_gemm_kernel.json").read_text()
            self.assertNotIn('"/', meta, f"{name}: absolute path in metadata")

    def test_seeded_bugs_change_the_ttgir(self):
        clean = (CAPTURES / "s3" / "ws_gemm_kernel.ttgir").read_text()
        for name in CONFIGS[3:]:
            self.assertNotEqual((CAPTURES / name / "ws_gemm_kernel.ttgir").read_text(), clean, name)

    def test_check_command(self):
        proc = subprocess.run([sys.executable, "-m", "tlx_sim.capture", "--check", str(CAPTURES)], cwd=ROOT,
                              env=ENV, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)


if __name__ == "__main__":
    unittest.main()
