"""``python -m tlx_sim.capture --proton``: kernels compiled under Proton's instrumentation mode with no GPU
(tlx_sim/proton_capture.py), with both compilers: triton 3.6.0 (.venv) and fbtriton 3.7.4 (.venv-tlx).

Checks the instrumented capture (Proton records in the TTGIR, a non-zero ``profile_scratch_size`` of the size
``tlx-sim run --proton`` decodes, the scope table with the kernel's own ``pl.enter_scope`` names), that the committed
instrumented captures under traces/h200/proton-captures re-capture identically (``--check`` recognises them by
their scope table), what a TLX tutorial without scopes gets (no records, no profile scratch), and ``--proton-waits``
(a TLX tutorial's captured TTGIR with a scope around every wait, compiled from that TTGIR).

Plain unittest: ``python3 tests/python/test_proton_capture.py`` from anywhere (each capture runs as a child process
under the compiler's venv; the fbtriton cases skip where .venv-tlx is missing). No GPU.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

from tlx_sim import capture  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}
WS_GEMM_SCOPES = ["wait_ready", "wgmma_wait", "wait_empty"]  # kernels/hopper/ws_gemm.py, in id order
COMMITTED = ROOT / "traces" / "h200" / "proton-captures"


def has(compiler: str) -> bool:
    try:
        capture.compiler_python(compiler)
        return True
    except capture.MissingCompiler:
        return False


def run_capture(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tlx_sim.capture", *map(str, args)], capture_output=True, text=True,
                          env=ENV, cwd=ROOT)


class ProtonCapture(unittest.TestCase):

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="tlx-sim-proton-capture-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def check_ws_gemm(self, cdir: Path, compiler: str):
        meta = json.loads((cdir / "ws_gemm_kernel.json").read_text())
        # 40-byte header + 8 warp counts, 8 warps x 8 KiB segments, rounded up to the 128-byte alignment
        self.assertEqual((meta["profile_scratch_size"], meta["profile_scratch_align"]), (65664, 128))
        self.assertTrue(meta["instrumentation_mode"].startswith("default:"), meta["instrumentation_mode"])
        table = json.loads((cdir / "ws_gemm_kernel.proton.json").read_text())
        self.assertEqual([s["name"] for s in table["scopes"]], WS_GEMM_SCOPES)
        self.assertEqual([(s["id"], s["parent"]) for s in table["scopes"]], [(0, -1), (1, -1), (2, -1)])
        ttgir = (cdir / "ws_gemm_kernel.ttgir").read_text()
        self.assertIn('proton.record start "wait_ready"', ttgir)
        self.assertEqual(json.loads((cdir / "launch.json").read_text()).get("compiler", "triton"), compiler)

    def test_gluon_kernel_with_triton(self):
        proc = run_capture("kernels/hopper/ws_gemm.py", "--config", "s3", "--proton", "-o", self.tmp,
                           "--compiler", "triton")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.check_ws_gemm(self.tmp / "s3", "triton")
        plain = json.loads((ROOT / "tests/inputs/hopper/ws_gemm/s3/ws_gemm_kernel.json").read_text())
        self.assertEqual(plain["profile_scratch_size"], 0)  # the scopes are no-ops without --proton

    def test_proton_needs_an_output_folder(self):
        proc = run_capture("kernels/hopper/ws_gemm.py", "--config", "s3", "--proton")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--proton needs -o", proc.stderr)

    def test_committed_captures_recapture_identically(self):
        proc = run_capture("--check", COMMITTED / "ws_gemm-M8192_N8192_K8192" / "s3", "--compiler", "triton")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("s3: ok", proc.stdout)

    @unittest.skipUnless(has("fbtriton"), "no fbtriton venv (.venv-tlx)")
    def test_gluon_kernel_with_fbtriton(self):
        proc = run_capture("kernels/hopper/ws_gemm.py", "--config", "s3", "--proton", "-o", self.tmp,
                           "--compiler", "fbtriton")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.check_ws_gemm(self.tmp / "s3", "fbtriton")

    @unittest.skipUnless(has("fbtriton"), "no fbtriton venv (.venv-tlx)")
    def test_tlx_tutorial_without_scopes_gets_no_instrumentation(self):
        # TLX's Hopper tutorials declare no Proton scopes and Proton adds none by default (no warp-level default
        # scope): the instrumentation passes leave the kernel as it is and the metadata asks for no scratch.
        proc = run_capture("--tutorial", "hopper_gemm_ws", "--target", "cuda:90", "--config", "bn128_s4", "--proton",
                           "-o", self.tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        cdir = self.tmp / "bn128_s4"
        self.assertEqual(json.loads((cdir / "matmul_kernel_tlx_ws.proton.json").read_text())["scopes"], [])
        meta = json.loads((cdir / "matmul_kernel_tlx_ws.json").read_text())
        self.assertEqual(meta["profile_scratch_size"], 0)
        self.assertTrue(meta["instrumentation_mode"].startswith("default:"))


    def test_instrument_waits_text(self):
        from tlx_sim import proton_capture
        text, names = proton_capture.instrument_waits(
            "  scf.for {\n    ttng.wait_barrier %full_a_44, %phase : !ttg.memdesc<1xi64> loc(#loc82)\n"
            "    %acc_45 = ttng.warp_group_dot_wait %acc_44 {pendings = 0 : i32} : tensor<64x128xf32> loc(#l)\n  }")
        self.assertEqual(names, ["wait_full_a", "wgmma_wait"])
        self.assertEqual(text.splitlines()[1:4], ['    proton.record start "wait_full_a"',
                                                  "    ttng.wait_barrier %full_a_44, %phase : !ttg.memdesc<1xi64> "
                                                  "loc(#loc82)", '    proton.record end "wait_full_a"'])
        self.assertEqual(text.count("proton.record"), 4)

    @unittest.skipUnless(has("fbtriton"), "no fbtriton venv (.venv-tlx)")
    def test_tlx_tutorial_waits_instrumented_from_its_ttgir(self):
        plain = ROOT / "tests/inputs/tlx/hopper/hopper_gemm_ws/bn128_s4"
        proc = run_capture("--proton-waits", plain, "-o", self.tmp / "bn128_s4")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        cdir, kernel = self.tmp / "bn128_s4", "matmul_kernel_tlx_ws"
        table = json.loads((cdir / f"{kernel}.proton.json").read_text())
        self.assertEqual(table["waits_from"], "tests/inputs/tlx/hopper/hopper_gemm_ws/bn128_s4")
        # the producer's three empty waits, then each consumer partition's full waits and wgmma wait (own ids)
        self.assertEqual([s["name"] for s in table["scopes"]],
                         ["wait_empty_a_1st", "wait_empty_b", "wait_empty_a_2nd", "wait_full_a", "wait_full_b",
                          "wgmma_wait", "wait_full_a", "wait_full_b", "wgmma_wait"])
        meta, plain_meta = (json.loads((d / f"{kernel}.json").read_text()) for d in (cdir, plain))
        self.assertEqual(meta["profile_scratch_size"], 49280)  # 40 + 12 x 4 + 12 warps x 4 KiB, aligned to 128
        self.assertEqual(meta["shared"], plain_meta["shared"] + 49152)  # the 48 KiB shared buffer (+ alignment)
        self.assertEqual(meta["tensordesc_meta"], plain_meta["tensordesc_meta"])
        self.assertEqual(meta["num_warps"], plain_meta["num_warps"])
        self.assertEqual((cdir / "launch.json").read_text(), (plain / "launch.json").read_text())
        proc = run_capture("--check", COMMITTED / "tlx_hopper_gemm_ws-M4096_N4096_K4096" / "bn128_s4")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("bn128_s4: ok", proc.stdout)

    @unittest.skipUnless(has("fbtriton"), "no fbtriton venv (.venv-tlx)")
    def test_recompiled_ttgir_keeps_the_capture_options(self):
        """kernel_module.recompile_ttgir (capture_waits, tests/mutation/hw_mutants.py): a capture's TTGIR compiled
        again gets its backend options and its tensordesc_meta, which a .ttgir source does not produce (without it
        the launcher packs the host descriptors as device-side ones: the runner saw 20 kernel parameters against
        35 packed on 2026-12-05)."""
        plain = ROOT / "tests/inputs/tlx/hopper/hopper-persistent-gemm-ws-cooperative/bm128_bn256_s3"
        kernel = "matmul_kernel_tlx_ws_persistent"
        script = ("import json, pathlib, sys\nfrom tlx_sim import kernel_module as kmod\n"
                  "plain = pathlib.Path(sys.argv[1])\n"
                  "_, meta = kmod.recompile_ttgir(plain, (plain / sys.argv[2]).read_text(), pathlib.Path.cwd())\n"
                  "print(json.dumps(meta))\n")
        proc = subprocess.run([capture.compiler_python("fbtriton"), "-c", script, plain, f"{kernel}.ttgir"],
                              capture_output=True, text=True, env=ENV, cwd=ROOT)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        meta = json.loads(proc.stdout.strip().splitlines()[-1])
        plain_meta = json.loads((plain / f"{kernel}.json").read_text())
        self.assertEqual(len(meta["tensordesc_meta"]), 3)  # a_desc, b_desc, c_desc
        for key in ("tensordesc_meta", "num_stages", "num_warps", "shared", "maxnreg"):
            self.assertEqual(meta.get(key), plain_meta.get(key), key)


if __name__ == "__main__":
    unittest.main()
