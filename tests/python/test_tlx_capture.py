"""Checks of TLX capture: the stand-in torch and driver, launch interception, one tutorial against its committed
capture, the compiler switch (re-exec under the other venv) and the tutorial table of tests/inputs/tlx/README.md.

Plain unittest: ``python3 tests/python/test_tlx_capture.py`` from anywhere.  Needs fbtriton (TLX): under a Python
without it the script re-executes itself under ``$TLX_SIM_PYTHON_FBTRITON`` or ``.venv-tlx/bin/python3``; exit 77
(skipped) when there is none.  No GPU, no torch.
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

from tlx_sim import capture  # noqa: E402

if capture.current_compiler() != "fbtriton":
    try:
        python = capture.compiler_python("fbtriton")
    except capture.MissingCompiler as err:
        print(f"skipped: {err}")
        sys.exit(77)
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

from tlx_sim import fake_torch, kernel_module, launch_capture, tlx_tutorials  # noqa: E402
from tlx_sim.fake_torch import FakeTensor  # noqa: E402

INPUTS = ROOT / "tests" / "inputs" / "tlx"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}
H200, B200 = kernel_module.parse_target("cuda:90"), kernel_module.parse_target("cuda:100")
MI300X, MI355X = kernel_module.parse_target("hip:gfx942"), kernel_module.parse_target("hip:gfx950")


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n),
             mask=offs < n)


def _block_hook(nargs):
    nargs["x_desc"].block_shape = [nargs["BM"], 64]


@triton.autotune(configs=[triton.Config({"BM": 64}, num_warps=4, pre_hook=_block_hook),
                          triton.Config({"BM": 128}, num_warps=4, pre_hook=_block_hook)], key=["M"])
@triton.jit
def _desc_copy_kernel(x_desc, out_ptr, M, BM: tl.constexpr):
    tile = x_desc.load([tl.program_id(0) * BM, 0])
    offs = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(out_ptr + offs[:, None] * 64 + tl.arange(0, 64)[None, :], tile)


class FakeTorch(unittest.TestCase):

    def test_tensor_shape_strides_and_views(self):
        a = FakeTensor([4096, 1024], "float16")
        self.assertEqual((a.shape, a.stride(), a.data_ptr(), a.ptr_range()), ((4096, 1024), (1024, 1), 0, 2**23))
        self.assertTrue(a.is_contiguous())
        self.assertEqual((a.T.shape, a.T.stride(), a.T.is_contiguous()), ((1024, 4096), (1, 1024), False))
        self.assertEqual(a.view(-1, 64).shape, (65536, 64))
        self.assertEqual(FakeTensor([8, 16, 32], "float32").sum(dim=0).shape, (16, 32))
        self.assertEqual(str(a.dtype), "torch.float16")

    def test_integer_tensor_from_python_data_keeps_its_values(self):
        # what a grouped GEMM's host code passes: the kernel loads these as scalars (launch.json ptrs.NAME.values)
        sizes = fake_torch._tensor([[1024, 512, 256], [128, 64, 32]], dtype=fake_torch.DTYPES["int32"])
        self.assertEqual(sizes.values, [1024, 512, 256, 128, 64, 32])
        self.assertEqual((sizes.cuda().values, sizes.view(-1).values), (sizes.values, sizes.values))
        self.assertIsNone(sizes.T.contiguous().values)  # reordered: the values are not computed
        self.assertIsNone((sizes + 1).values)
        self.assertIsNone(sizes.to(fake_torch.DTYPES["float32"]).values)
        self.assertIsNone(fake_torch._tensor([0.5, 1.5]).values)
        flat = sizes.view(-1)
        flat[0] = 7  # written in place through a view: neither is the values it was made with any more
        self.assertEqual((flat.values, sizes.values), (None, None))
        self.assertIsNone(fake_torch._tensor([300]).to(fake_torch.DTYPES["int8"]).values)  # does not fit

    def test_device_properties_of_each_target(self):
        with launch_capture.intercepting(H200):
            import torch
            self.assertEqual(torch.cuda.get_device_properties("cuda").multi_processor_count, 132)
            self.assertEqual(triton.runtime.driver.active.get_current_target(), H200)
        for target, sms in ((B200, 148), (MI300X, 304), (MI355X, 256)):
            self.assertEqual(fake_torch.device_props(target).multi_processor_count, sms)
        with self.assertRaises(ValueError):
            fake_torch.device_props(kernel_module.parse_target("cuda:80"))
        self.assertNotIn("torch", sys.modules)  # restored after the capture


class LaunchCapture(unittest.TestCase):

    def test_direct_launch_specializes_like_a_real_launch(self):
        x, y, out = (FakeTensor([8192], "float16") for _ in range(3))
        [launch] = launch_capture.capture_launch(_add_kernel, lambda meta: (triton.cdiv(8192, meta["BLOCK"]), ), x, y,
                                                 out, 8192, BLOCK=1024, target=H200)
        self.assertEqual(launch.grid, (8, 1, 1))
        self.assertEqual(launch.signature["x_ptr"], "*fp16")
        self.assertEqual(launch.attribute("tt.divisibility"), {"x_ptr": 16, "y_ptr": 16, "out_ptr": 16, "n": 16})
        self.assertEqual(launch.scalar_args(), {"n": 8192})
        self.assertEqual(launch.ptrs()["x_ptr"], {"shape": [8192], "dtype": "fp16"})
        with launch_capture.intercepting(H200):
            import torch
            table = torch.tensor([3, 1, 2], dtype=torch.int32, device="cuda")
        [loaded] = launch_capture.capture_launch(_add_kernel, (1, ), table, y, out, 3, BLOCK=1024, target=H200)
        self.assertEqual(loaded.ptrs()["x_ptr"], {"shape": [3], "dtype": "i32", "values": [3, 1, 2]})
        self.assertIn('ttg.target = "cuda:90"', launch.compiled.asm["ttgir"])
        [one] = launch_capture.capture_launch(_add_kernel, (1, ), x, y, out, 1, BLOCK=1024, target=H200)
        self.assertEqual(one.constexpr_values()["n"], 1)  # an integer argument equal to 1 is specialized

    def test_hip_pointer_range(self):
        x, y, out = (FakeTensor([8192], "float16") for _ in range(3))
        [launch] = launch_capture.capture_launch(_add_kernel, (8, ), x, y, out, 8192, BLOCK=1024, target=MI300X)
        self.assertEqual(launch.attribute("tt.pointer_range"), {"x_ptr": 32, "y_ptr": 32, "out_ptr": 32})
        self.assertTrue(launch.compiled.asm["hsaco"].startswith(b"\x7fELF"))

    def test_autotuned_launch_runs_each_configs_pre_hook(self):
        x = FakeTensor([1024, 64], "float16")
        desc = TensorDescriptor(x, x.shape, x.stride(), [1, 1])
        launches = launch_capture.capture_launch(_desc_copy_kernel, lambda meta: (1024 // meta["BM"], ), desc,
                                                 FakeTensor([1024, 64], "float16"), 1024, target=H200)
        self.assertEqual([(l.constexpr_values()["BM"], l.grid[0], l.descs["x_desc"]["block"]) for l in launches],
                         [(64, 16, [64, 64]), (128, 8, [128, 64])])
        self.assertEqual([l.signature["x_desc"] for l in launches],
                         ["tensordesc<fp16[64, 64]>", "tensordesc<fp16[128, 64]>"])
        self.assertTrue(all(l.kept_by_prune for l in launches))


class Tutorials(unittest.TestCase):
    NAME, CONFIG = "hopper_gemm_pipelined", "bn256_s3"

    def test_fresh_capture_matches_the_committed_one(self):
        committed = INPUTS / "hopper" / self.NAME / self.CONFIG
        with tempfile.TemporaryDirectory() as tmp:
            [fresh] = tlx_tutorials.capture(self.NAME, [self.CONFIG], H200, Path(tmp))
            for file in ("matmul_kernel_pipelined_hopper.ttgir", "launch.json", "matmul_kernel_pipelined_hopper.json"):
                self.assertEqual((fresh / file).read_bytes(), (committed / file).read_bytes(), file)
        spec = json.loads((committed / "launch.json").read_text())
        self.assertEqual((spec["compiler"], spec["triton_version"], spec["tutorial"], spec["entry"]),
                         ("fbtriton", triton.__version__, self.NAME, "matmul"))
        self.assertEqual(spec["grid"], [16 * 32, 1, 1])  # 4096^2 in 128x256 tiles
        self.assertEqual(spec["options"], {"num_ctas": 1, "num_stages": 3})

    def test_locations_are_the_tutorials_own_lines(self):
        source = (tlx_tutorials.tutorials_dir() / f"{self.NAME}.py").read_text().splitlines()
        ttgir = (INPUTS / "hopper" / self.NAME / self.CONFIG / "matmul_kernel_pipelined_hopper.ttgir").read_text()
        path = f"triton/language/extra/tlx/tutorials/{self.NAME}.py"
        lines = {int(n) for n in re.findall(re.escape(f'loc("{path}":') + r'(\d+):\d+\)', ttgir)}
        self.assertTrue(lines and max(lines) <= len(source))
        self.assertTrue(any("tlx.async_dot(" in source[n - 1] for n in lines), "a location on the async_dot line")
        self.assertNotIn('loc("/', ttgir)

    def test_every_recipe_config_selects_one_config(self):
        for name, rcp in tlx_tutorials.RECIPES.items():
            self.assertTrue(rcp.configs, name)
            for target in rcp.targets:
                kernel_module.parse_target(target)
            self.assertTrue((tlx_tutorials.tutorials_dir() / rcp.file).is_file(), rcp.file)

    def test_bad_selector_is_a_usage_error(self):
        rcp = tlx_tutorials.RECIPES[self.NAME]
        with self.assertRaises(kernel_module.UsageError):
            tlx_tutorials.match_config(tlx_tutorials.Recipe(rcp.file, rcp.entry, rcp.inputs, rcp.shape, rcp.kernel,
                                                            {"x": {"BLOCK_SIZE_M": 7}}, rcp.targets), "x", [])


class CommandLine(unittest.TestCase):

    def test_reexec_from_the_triton_venv(self):
        python = capture.compiler_python("triton")
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run([str(python), "-m", "tlx_sim.capture", "--tutorial", "hopper_gemm_pipelined",
                                   "--target", "cuda:90", "-o", tmp], cwd=ROOT, env=ENV, capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            spec = json.loads((Path(tmp) / "bn256_s3" / "launch.json").read_text())
            self.assertEqual(spec["compiler"], "fbtriton")

    def test_one_target_recipe_needs_no_target_with_o(self):
        # hopper_gemm_pipelined is written for cuda:90 only: -o names one folder without --target; a recipe of two
        # targets (vector-add2: cuda:90, cuda:100) still asks for one
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run([sys.executable, "-m", "tlx_sim.capture", "--tutorial", "hopper_gemm_pipelined",
                                   "-o", tmp], cwd=ROOT, env=ENV, capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertEqual(json.loads((Path(tmp) / "bn256_s3" / "launch.json").read_text())["target"], "cuda:90")
            proc = subprocess.run([sys.executable, "-m", "tlx_sim.capture", "--tutorial", "vector-add2", "-o", tmp],
                                  cwd=ROOT, env=ENV, capture_output=True, text=True)
            self.assertEqual(proc.returncode, 2)
            self.assertIn("--target", proc.stderr)

    def test_unknown_tutorial_exits_2(self):
        proc = subprocess.run([sys.executable, "-m", "tlx_sim.capture", "--tutorial", "no_such_tutorial"], cwd=ROOT,
                              env=ENV, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no TLX tutorial recipe 'no_such_tutorial'", proc.stderr)


class TutorialTable(unittest.TestCase):

    def test_readme_lists_every_tutorial_and_capture(self):
        readme = (INPUTS / "README.md").read_text()
        tutorials = tlx_tutorials.tutorials_dir()
        files = sorted(p.relative_to(tutorials).as_posix() for p in tutorials.rglob("*.py")
                       if p.name != "__init__.py" and "testing" not in p.parts and p.name != "bench.py")
        for file in files:
            self.assertIn(f"`{file}`", readme, f"{file} missing from tests/inputs/tlx/README.md")
        for launch in INPUTS.rglob("launch.json"):
            spec = json.loads(launch.read_text())
            self.assertIn(f"`{spec['config']}`", readme, launch)
            self.assertEqual(spec["tutorial"], launch.parent.parent.name)


if __name__ == "__main__":
    unittest.main()
