"""The static runner-only `tlx-sim` (TLXSIM_RUNNER_STATIC, target tlx-sim-run-static, build/static/tlx-sim): the
binary copied to a GPU host that has no Python, LLVM, MLIR or Z3 shared libraries.

* it needs only glibc's libraries at run time (`ldd`: libc, libm, libdl, libpthread, librt, the loader; libstdc++
  and libgcc are linked in);
* `run --dry-run --json` of every capture under tests/inputs prints exactly what the full tlx-sim prints (whose
  parameter packing tests/python/test_runner_params.py checks against Triton's launcher);
* it has only the `run` subcommand, and bad input is exit 2 with a message.
The launch path of the static binary (dlopen of the driver and CUPTI) is covered by ctest's
runner-static-fake-driver, which runs cases of test_runner_params_fake_driver.py with it.

Plain unittest: ``python3 tests/python/test_runner_static.py STATIC_TLX_SIM TLX_SIM``.
"""
import json
import re
import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATIC = Path(sys.argv.pop(1) if len(sys.argv) > 1 else ROOT / "build/static/tlx-sim")
FULL = Path(sys.argv.pop(1) if len(sys.argv) > 1 else ROOT / "build/tools/tlx-sim")

# glibc's own libraries (libdl, libpthread and librt are empty stubs since glibc 2.34) and the kernel's vDSO.
SYSTEM_LIBRARIES = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
                    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}


def captures():
    return sorted(p.parent for p in (ROOT / "tests/inputs").glob("*/*/*/launch.json"))


class StaticRunner(unittest.TestCase):
    def test_needs_only_system_libraries(self):
        out = subprocess.run(["ldd", str(STATIC)], capture_output=True, text=True, check=True).stdout
        libraries = {Path(line.split()[0]).name for line in out.splitlines() if line.strip()}
        self.assertIn("libc.so.6", libraries, out)
        self.assertLessEqual(libraries, SYSTEM_LIBRARIES, out)

    def test_dry_run_equals_the_full_tool_on_every_capture(self):
        dirs = captures()
        self.assertGreaterEqual(len(dirs), 10)
        for capture in dirs:
            with self.subTest(capture=str(capture.relative_to(ROOT))):
                runs = [subprocess.run([str(tool), "run", str(capture), "--dry-run", "--json"], capture_output=True,
                                       text=True) for tool in (STATIC, FULL)]
                self.assertEqual([r.returncode for r in runs], [0, 0], runs[0].stderr + runs[1].stderr)
                static, full = (json.loads(r.stdout) for r in runs)
                self.assertEqual(static, full)
                self.assertEqual(static["command"], "run")
                self.assertTrue(static["layout"]["params"])
        text = [subprocess.run([str(tool), "run", str(dirs[0]), "--dry-run"], capture_output=True, text=True).stdout
                for tool in (STATIC, FULL)]
        self.assertEqual(text[0], text[1])
        self.assertRegex(text[0], r"parameters, \d+ bytes")

    def test_only_run_and_bad_input_is_exit_2(self):
        proc = subprocess.run([str(STATIC), "check", str(ROOT / "kernels")], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("expected a subcommand: run", proc.stderr)
        proc = subprocess.run([str(STATIC), "run", str(ROOT / "tests/inputs/no-such-capture"), "--dry-run"],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertTrue(re.match(r"tlx-sim: error: .*no-such-capture: no such capture folder or launch\.json",
                                 proc.stderr), proc.stderr)


if __name__ == "__main__":
    unittest.main()
