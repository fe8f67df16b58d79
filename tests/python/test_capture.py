"""Checks of the kernel-module convention and of the committed captures under tests/inputs.

``hopper/ws_gemm`` in detail; then every kernel kind (Gluon for sm_90 and sm_100, plain ``@triton.jit`` over
pointers and over TMA descriptors, Triton's automatic warp specialization, hip targets with hsaco): one fresh
capture per kind equals the committed one, no absolute paths, binaries for the right arch.

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

from tlx_sim import capture, kernel_module, ttgir_ops  # noqa: E402

MODULE = "kernels/hopper/ws_gemm.py"
CAPTURES = ROOT / "tests" / "inputs" / "hopper" / "ws_gemm"
CONFIGS = ["s2", "s3", "s4", "s3_bug_expect_bytes", "s3_bug_producer_parity", "s3_bug_empty_count",
           "s3_bug_release_early", "s3_bug_missing_fence", "s3_bug_no_ready_wait"]
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
        self.assertEqual([km.config(n)["S"] for n in CONFIGS], [2, 3, 4, 3, 3, 3, 3, 3, 3])
        self.assertEqual([km.config(n)["BUG"] for n in CONFIGS], [0, 0, 0, 1, 2, 3, 4, 5, 6])


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


# One module per kernel kind; (module, target, config re-captured by the test, committed capture dir, configs).
KINDS = [
    ("kernels/hopper/persistent_ws_gemm.py", "cuda:90", "s3", "hopper/persistent_ws_gemm", ["s2", "s3", "s4"]),
    ("kernels/hopper/attention_fwd.py", "cuda:90", "bn64_s2", "hopper/attention_fwd", ["bn64_s2", "bn64_s3", "bn128_s2"]),
    ("kernels/blackwell/ws_gemm.py", "cuda:100", "s2", "blackwell/ws_gemm", ["s2", "s4", "s3_bk128"]),
    ("kernels/blackwell/attention_fwd.py", "cuda:100", "bn128_s2", "blackwell/attention_fwd",
     ["bn128_s2", "bn128_s3", "bn64_s2"]),
    ("kernels/triton/gemm.py", "cuda:90", "s3", "hopper/triton_gemm", ["s2", "s3", "s4"]),
    ("kernels/triton/tma_gemm.py", "cuda:90", "s3", "hopper/triton_tma_gemm", ["s3", "s4", "s3_c2"]),
    ("kernels/triton/tma_gemm.py", "cuda:100", "s4", "blackwell/triton_tma_gemm", ["s3", "s4", "s3_c2"]),
    ("kernels/hopper/cga_tma_scale.py", "cuda:90", "c4_b128x128", "hopper/cga_tma_scale",
     ["c2_b128x128", "c4_b128x128", "c2_b128x128_bug_full_box"]),
    ("kernels/hopper/cga_gemm.py", "cuda:90", "c2_s3", "hopper/cga_gemm", ["c2_s3", "c2_s3_bug_full_box"]),
    ("kernels/triton/autows_gemm.py", "cuda:100", "s3", "blackwell/triton_autows_gemm", ["s3", "s4"]),
    ("kernels/amd/gemm.py", "hip:gfx942", "s2", "amd-gfx942/gemm", ["s2", "s3", "s2_bk32"]),
    ("kernels/amd/gemm.py", "hip:gfx950", "s3", "amd-gfx950/gemm", ["s2", "s3", "s2_bk32"]),
]
INPUTS = ROOT / "tests" / "inputs"


def _kernel_name(capture_dir: Path) -> str:
    return json.loads(next(capture_dir.glob("*/launch.json")).read_text())["kernel"]


class KernelKinds(unittest.TestCase):
    """The kernel modules beyond hopper/ws_gemm and their committed captures."""

    def test_modules_follow_the_convention(self):
        seen = set()
        for module, target, _, _, configs in KINDS:
            km = kernel_module.load_module(str(ROOT / module))
            self.assertIn(target, km.targets, module)
            self.assertEqual(list(km.configs), configs, module)
            if module in seen:
                continue
            seen.add(module)
            self.assertEqual(km.path, module)
            params = [p.name for p in km.kernel.params]
            for name in configs:
                spec = km.launch(name, km.default_shape)
                named = [*spec["args"], *spec["descs"], *spec.get("ptrs", {}), *km.constexprs(name)]
                self.assertCountEqual(named, params, f"{module} {name}: every kernel argument named exactly once")
                self.assertLessEqual(set(km.launch_options(name)), {"num_stages", "num_ctas"}, f"{module} {name}")

    def test_modules_import_without_torch(self):
        modules = sorted({m for m, *_ in KINDS})
        code = ("import importlib, sys\n"
                "class NoTorch:\n"
                "    def find_spec(self, name, path=None, target=None):\n"
                "        if name.split('.')[0] == 'torch':\n"
                "            raise ImportError('torch must not be imported at import time')\n"
                "sys.meta_path.insert(0, NoTorch())\n"
                f"for m in {[m[:-3].replace('/', '.') for m in modules]!r}:\n"
                "    importlib.import_module(m)\n"
                "assert 'torch' not in sys.modules\n")
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_capture_dirs(self):
        for module, target, _, where, _ in KINDS:
            km = kernel_module.load_module(str(ROOT / module))
            self.assertEqual(km.capture_dir(kernel_module.parse_target(target)), INPUTS / where, module)
        km = kernel_module.load_module(str(ROOT / MODULE))
        self.assertEqual(km.capture_dir(), CAPTURES)

    def test_fresh_capture_matches_one_config_of_each_kind(self):
        for module, target, config, where, _ in KINDS:
            with self.subTest(module=module, target=target):
                km = kernel_module.load_module(str(ROOT / module))
                committed = INPUTS / where / config
                with tempfile.TemporaryDirectory() as tmp:
                    fresh = capture.capture_config(km, config, km.default_shape, kernel_module.parse_target(target),
                                                   Path(tmp))
                    for file in (f"{km.kernel_name}.ttgir", "launch.json"):
                        self.assertEqual((fresh / file).read_bytes(), (committed / file).read_bytes(),
                                         f"{where}/{config}/{file}")

    def test_every_capture_is_complete_and_machine_independent(self):
        launches = sorted(INPUTS.rglob("launch.json"))
        for launch_file in launches:
            with self.subTest(capture=str(launch_file.parent.relative_to(INPUTS))):
                spec = json.loads(launch_file.read_text())
                cdir, kernel = launch_file.parent, spec["kernel"]
                for key in LAUNCH_KEYS:
                    self.assertIn(key, spec)
                target = kernel_module.parse_target(spec["target"])
                binary = cdir / f"{kernel}.{capture.binary_kind(target)}"
                # each capture's cubin disassembled by its own compiler's cuobjdump (fbtriton's is CUDA 13)
                self.assertIsNone(capture.check_binary(binary, target, capture.launch_compiler(spec)), binary)
                ttgir = (cdir / f"{kernel}.ttgir").read_text()
                self.assertIn(f'ttg.target = "{spec["target"]}"', ttgir)
                files = set(re.findall(r'loc\("([^"]*)":\d+:\d+\)', ttgir))
                if spec["module"] not in files:
                    # a module that runs a sibling module's @jit kernel (kernels/amd/pingpong_gemm.py: gemm.py's
                    # kernel with 8 waves) is located by the sibling's lines
                    module = ROOT / spec["module"]
                    self.assertTrue(module.is_file(), spec["module"])
                    siblings = {str(Path(spec["module"]).parent / f"{name}.py")
                                for name in re.findall(r"^from \. import (\w+)", module.read_text(), re.M)}
                    self.assertTrue(files & siblings, f"{spec['module']}: no line of it or of {sorted(siblings)}")
                self.assertEqual([f for f in files if f.startswith("/")], [])
                self.assertNotIn(str(ROOT), ttgir)
                self.assertNotIn('"/', (cdir / f"{kernel}.json").read_text())

    def test_ttgir_count_over_the_four_targets(self):
        targets = {}
        for launch_file in INPUTS.rglob("launch.json"):
            target = json.loads(launch_file.read_text())["target"]
            targets[target] = targets.get(target, 0) + 1
        for target in ("cuda:90", "cuda:100", "hip:gfx942", "hip:gfx950"):
            self.assertGreaterEqual(targets.get(target, 0), 3, target)
        self.assertGreaterEqual(sum(targets.values()), 20)

    def test_pointer_kernels(self):
        spec = json.loads((INPUTS / "hopper/triton_gemm/s3/launch.json").read_text())
        self.assertEqual(spec["signature"]["a_ptr"], "*fp16")
        self.assertEqual(spec["ptrs"]["a_ptr"], {"shape": [8192, 8192], "dtype": "fp16"})
        self.assertEqual(spec["options"], {"num_stages": 3})
        self.assertEqual({k: spec["divisibility"][k] for k in ("a_ptr", "b_ptr", "c_ptr")},
                         {"a_ptr": 16, "b_ptr": 16, "c_ptr": 16})
        self.assertEqual(spec["constexprs"]["stride_ak"], 1)  # an integer argument equal to 1 is specialized
        self.assertNotIn("pointer_range", spec)
        ttgir = (INPUTS / "hopper/triton_gemm/s3/gemm_kernel.ttgir").read_text()
        self.assertIn("%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}", ttgir)
        amd = json.loads((INPUTS / "amd-gfx942/gemm/s2/launch.json").read_text())
        self.assertEqual(amd["pointer_range"], {"a_ptr": 32, "b_ptr": 32, "c_ptr": 32})
        self.assertIn("tt.pointer_range = 32 : i32",
                      (INPUTS / "amd-gfx942/gemm/s2/gemm_kernel.ttgir").read_text())

    def test_ws_kernels_are_warp_specialized(self):
        for where in ("hopper/persistent_ws_gemm/s3", "hopper/attention_fwd/bn64_s2", "blackwell/ws_gemm/s2",
                      "blackwell/attention_fwd/bn128_s2", "blackwell/triton_autows_gemm/s3"):
            cdir = INPUTS / where
            ttgir = (cdir / f"{_kernel_name(cdir.parent)}.ttgir").read_text()
            self.assertIn("ttg.warp_specialize(", ttgir, where)
        bw = (INPUTS / "blackwell/ws_gemm/s2/ws_gemm_kernel.ttgir").read_text()
        for op in ("ttng.tmem_alloc", "ttng.tc_gen5_mma", "ttng.tc_gen5_commit", "ttng.tmem_load"):
            self.assertIn(op, bw)

    def test_check_hsaco_rejects_other_binaries(self):
        gfx942 = kernel_module.parse_target("hip:gfx942")
        hsaco = INPUTS / "amd-gfx942/gemm/s2/gemm_kernel.hsaco"
        self.assertIsNone(capture.check_hsaco(hsaco, gfx942))
        self.assertIn("gfx950", capture.check_hsaco(hsaco, kernel_module.parse_target("hip:gfx950")))
        self.assertIsNotNone(capture.check_hsaco(CAPTURES / "s3" / "ws_gemm_kernel.cubin", gfx942))
        sm90 = kernel_module.parse_target("cuda:90")
        self.assertIsNotNone(capture.check_cubin(INPUTS / "blackwell/ws_gemm/s2/ws_gemm_kernel.cubin", sm90))

    def test_check_command_on_hip_and_sm100(self):
        for where in ("amd-gfx950/gemm", "blackwell/triton_autows_gemm"):
            proc = subprocess.run([sys.executable, "-m", "tlx_sim.capture", "--check", str(INPUTS / where)],
                                  cwd=ROOT, env=ENV, capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertEqual(proc.stdout.count(": ok ("), len(list((INPUTS / where).glob("*/launch.json"))))


class TtgirOps(unittest.TestCase):

    def test_ops_of(self):
        text = ('#blocked = #ttg.blocked<{sizePerThread = [1]}>\n'
                '    %m = "tt.reduce"(%qk) <{axis = 1 : i32}> ({\n'
                '      tt.reduce.return %x : f32 loc(#loc1)\n'
                '    %acc:2 = scf.for %k = %c0 to %n step %c1 iter_args(%a = %b) -> (i32) : i32 {\n'
                '      ttng.wait_barrier %b, %p : !ttg.memdesc<1xi64, #shared, #smem, mutable>\n'
                '#loc1 = loc("kernels/x.py":1:2)\n')
        self.assertEqual(ttgir_ops.ops_of(text), {"tt.reduce", "tt.reduce.return", "scf.for", "ttng.wait_barrier"})

    def test_inputs_per_arch(self):
        found = ttgir_ops.collect(INPUTS)
        self.assertLessEqual({"hopper", "blackwell", "amd-gfx942", "amd-gfx950"}, set(found))
        blackwell = set().union(*found["blackwell"].values())
        self.assertLessEqual({"ttng.tc_gen5_mma", "ttng.tmem_alloc", "ttg.warp_specialize"}, blackwell)
        self.assertIn("amdg.buffer_load", set().union(*found["amd-gfx942"].values()))


if __name__ == "__main__":
    unittest.main()
