"""`tlx-sim run` end to end over a stand-in CUDA driver (tests/python/fake_libcuda.c) and HIP runtime
(tests/python/fake_libamdhip64.c), with no GPU.

The stand-in is built here as libcuda.so.1 and found through LD_LIBRARY_PATH, so the real code path runs:
dlopen + cuGetProcAddress_v2, the shared-memory attributes of Triton's load_binary, tensor-map encoding,
cuLaunchKernelEx, the NaN-poisoned checked launch, event timing and the trace record. Its kernels compute the
GEMM on the CPU, so the captures are shrunk to 128 x 128 x 128 (the cubin and its parameter layout are the
captured ones; shapes are runtime arguments). The stand-in logs the calls it receives; the tests assert them.
A stand-in libcupti.so (tests/python/fake_libcupti.c, named by TLXSIM_CUPTI) reports kernel durations of exactly
60 + k us for the k-th launch it sees, delivered newest first over several buffers together with a decoy kernel
and a memset record, so the tests assert the exact CUPTI measurement; every other run names a missing
TLXSIM_CUPTI, so the runner falls back to its events (1.25 ms apart).

Plain unittest: ``python3 tests/python/test_runner_params_fake_driver.py [path/to/tlx-sim]``. Needs a C compiler
and cuda.h (the CUDA toolkit's, else the one Triton's wheel ships).
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TLX_SIM = Path(sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("TLX_SIM", ROOT / "build/tools/tlx-sim"))
SIZE = 128


def cuda_include() -> str:
    for candidate in (os.environ.get("CUDA_HOME", "/usr/local/cuda") + "/include",):
        if Path(candidate, "cuda.h").is_file():
            return candidate
    import triton
    return str(Path(triton.__file__).parent / "backends" / "nvidia" / "include")


def shrink(capture: Path, dest: Path) -> Path:
    """A copy of a GEMM capture at M = N = K = SIZE (one CTA)."""
    shutil.copytree(capture, dest)
    launch = json.loads((dest / "launch.json").read_text())
    launch["grid"] = [1, 1, 1]
    for key in ("M", "N", "K"):
        launch["args"][key] = SIZE
        launch["shape"][key] = SIZE
    for stride in ("stride_am", "stride_bk", "stride_cm"):
        if stride in launch["args"]:
            launch["args"][stride] = SIZE
    for group in ("descs", "ptrs"):
        for t in launch.get(group, {}).values():
            t["shape"] = [SIZE, SIZE]
            if "strides" in t:
                t["strides"] = [SIZE, 1]
    (dest / "launch.json").write_text(json.dumps(launch, indent=1))
    return dest


def shrink_scale(capture: Path, dest: Path) -> Path:
    """A copy of a tma_scale capture at R = C = SIZE (one CTA of the b128x128 config)."""
    shutil.copytree(capture, dest)
    launch = json.loads((dest / "launch.json").read_text())
    launch["grid"] = [1, 1, 1]
    for key in ("R", "C"):
        launch["args"][key] = SIZE
        launch["shape"][key] = SIZE
    for t in launch["descs"].values():
        t["shape"], t["strides"] = [SIZE, SIZE], [SIZE, 1]
    (dest / "launch.json").write_text(json.dumps(launch, indent=1))
    return dest


class FakeDriverRun(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="tlx-sim-fake-cuda-"))
        cc = os.environ.get("CC", "cc")
        subprocess.run([cc, "-shared", "-fPIC", "-I", cuda_include(), "-Wl,-soname,libcuda.so.1", "-o",
                        str(cls.tmp / "libcuda.so.1"), str(ROOT / "tests/python/fake_libcuda.c"), "-lm"], check=True)
        subprocess.run([cc, "-shared", "-fPIC", "-I", cuda_include(), "-o", str(cls.tmp / "fake_libcupti.so"),
                        str(ROOT / "tests/python/fake_libcupti.c"), "-ldl"], check=True)
        subprocess.run([cc, "-shared", "-fPIC", "-o", str(cls.tmp / "libamdhip64.so"),
                        str(ROOT / "tests/python/fake_libamdhip64.c"), "-lm"], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def run_tool(self, capture: Path, *args, wrong=False, cupti=None, drop=False, proton=None, hang=False):
        """Runs tlx-sim run; `cupti`: the TLXSIM_CUPTI library (default: a missing file, so events time)."""
        log = self.tmp / f"log-{capture.name}-{wrong}.txt"
        log.unlink(missing_ok=True)
        env = {**os.environ, "LD_LIBRARY_PATH": str(self.tmp), "FAKE_CUDA_LOG": str(log), "FAKE_HIP_LOG": str(log),
               "PATH": "/usr/bin:/bin", "TLXSIM_CUPTI": str(cupti or self.tmp / "missing" / "libcupti.so")}
        for key in ("FAKE_CUDA_WRONG", "FAKE_CUPTI_DROP", "FAKE_CUDA_PROTON", "FAKE_CUDA_HANG"):
            env.pop(key, None)
        if hang:
            env["FAKE_CUDA_HANG"] = "1"
        if proton:
            env["FAKE_CUDA_PROTON"] = proton
        if wrong:
            env["FAKE_CUDA_WRONG"] = "1"
        if drop:
            env["FAKE_CUPTI_DROP"] = "1"
        proc = subprocess.run([str(TLX_SIM), "run", str(capture), "--json", "--iters", "4", "--warmup-ms", "1",
                               "--rounds", "2", *map(str, args)], capture_output=True, text=True, env=env)
        return proc, (log.read_text().splitlines() if log.exists() else [])

    def test_tma_gemm_runs_checks_times_and_records(self):
        capture = shrink(ROOT / "tests/inputs/hopper/ws_gemm/s3", self.tmp / "ws_gemm_s3")
        record = self.tmp / "traces" / "h200" / "ws_gemm.json"
        proc, log = self.run_tool(capture, "--record", record)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = json.loads(proc.stdout)
        self.assertEqual(out["device"]["name"], "Fake H200")
        self.assertTrue(out["reference"]["ok"])
        self.assertEqual(out["reference"]["samples"], 4)  # 2 x 2 cells of 64 x 64
        self.assertEqual(out["timing"]["median_us"], 1250.0)  # the stand-in's events are 1.25 ms apart
        self.assertEqual(out["timing"]["iters_per_round"], 4)
        self.assertEqual(out["timing"]["timer"], "events")  # TLXSIM_CUPTI names a missing library
        self.assertIn("missing/libcupti.so", out["timing"]["timer_note"])
        self.assertEqual(out["registers"], 168)
        # Triton's load_binary: prefer shared memory, dynamic limit = opt-in maximum - static shared memory.
        self.assertIn("cache_config 1", log)
        self.assertIn("func_attribute 8 232448", log)
        # Tensor maps: fp16 (6), innermost dimension first, byte stride, the metadata's block, 128B swizzle, L2 128B.
        self.assertIn("encode type=6 rank=2 dims=128,128 stride=256 box=64,128 swizzle=3 l2=2 fill=0", log)
        self.assertIn("encode type=6 rank=2 dims=128,128 stride=256 box=64,64 swizzle=3 l2=2 fill=0", log)
        # 32 x num_warps (8 in the metadata) threads, the metadata's shared memory, no cluster attribute.
        self.assertEqual([l for l in log if l.startswith("launch")],
                         ["launch ws_gemm_kernel grid=1,1,1 block=256,1,1 shared=131132 attrs=0"] * 2)
        doc = json.loads(record.read_text())
        self.assertEqual((doc["gpu"], doc["kernel"], doc["module"]), ("h200", "ws_gemm", "kernels/hopper/ws_gemm.py"))
        (rec,) = doc["records"]
        self.assertEqual((rec["config"], rec["measured_us"], rec["correct"], rec["split"]), ("s3", 1250.0, True, "fit"))
        self.assertEqual((rec["timing"], rec["do_bench_us"]), ("events", 1250.0))
        copied = record.parent / rec["capture"]
        self.assertEqual((copied / "ws_gemm_kernel.cubin").read_bytes(), (capture / "ws_gemm_kernel.cubin").read_bytes())

    def proton_capture(self, name: str, ctas: int = 2) -> Path:
        """The committed instrumented ws_gemm s3 capture (tlx_sim.capture --proton), shrunk, on `ctas` CTAs."""
        capture = shrink(ROOT / "traces/h200/proton-captures/ws_gemm-M8192_N8192_K8192/s3", self.tmp / name)
        launch = json.loads((capture / "launch.json").read_text())
        launch["grid"] = [ctas, 1, 1]
        (capture / "launch.json").write_text(json.dumps(launch, indent=1))
        return capture

    def test_proton_profile_is_decoded_into_a_trace_and_the_partition_summary(self):
        capture = self.proton_capture("ws_gemm_s3_proton")
        meta = json.loads((capture / "ws_gemm_kernel.json").read_text())
        self.assertEqual((meta["profile_scratch_size"], meta["num_warps"]), (65664, 8))
        out = self.tmp / "proton" / "ws_gemm-s3.json"
        out.parent.mkdir(exist_ok=True)
        proc, log = self.run_tool(capture, "--proton", out, proton="19,65664,8")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("scope id 7 has no name in the scope table", proc.stderr)
        self.assertEqual(len([line for line in log if line.startswith("launch ws_gemm_kernel grid=2,1,1")]), 2)
        events = json.loads(out.read_text())["traceEvents"]
        self.assertEqual(len(events), 19)  # CTA 0: 4 x 2 + scope_7 + wait_empty; CTA 1: 9
        first = events[0]
        self.assertEqual((first["name"], first["pid"], first["tid"], first["ts"], first["dur"]),
                         ("wait_ready", "ws_gemm_kernel Core7 CTA0",
                          "warp 0 (line 0)", 0.05, 0.2))
        self.assertIn("scope_7", {e["name"] for e in events})
        doc = json.loads(out.with_suffix(".summary.json").read_text())
        self.assertEqual(doc["proton"]["timeline"], "ws_gemm-s3.json")
        self.assertEqual(doc["warps"], {"total": 8, "default": 4, "workers": [1]})
        summary = doc["proton"]["summary"]
        self.assertEqual(summary["ctas"], 2)
        self.assertAlmostEqual(summary["lifetime_us_mean"], 0.3)
        default, worker = summary["partitions"]["default"], summary["partitions"]["partition0"]
        self.assertEqual((default["warps_per_cta"], worker["warps_per_cta"]), (4, 1))
        self.assertAlmostEqual(default["scopes"]["wait_ready"], 200 / 300)
        self.assertAlmostEqual(default["scopes"]["wgmma_wait"], 50 / 300)
        self.assertAlmostEqual(default["scopes"]["scope_7"], 20 / 300 / 8)
        self.assertAlmostEqual(default["wait_frac"], 250 / 300)
        # the worker's shares are over its own life (the CTA's start to its last scope end, as the simulator's
        # partition lifetime): its one scope covers all of it
        self.assertAlmostEqual(worker["scopes"]["wait_empty"], 1.0)
        self.assertAlmostEqual(doc["globaltimer"]["cycles_per_ns"], 1.0)

    def test_proton_only_one_cta_in_the_trace(self):
        capture = self.proton_capture("ws_gemm_s3_proton_only", ctas=3)
        out = self.tmp / "proton-only.json"
        raw = self.tmp / "proton-only.bin"
        proc, log = self.run_tool(capture, "--proton", out, "--proton-only", "--proton-trace-ctas", "1",
                                  "--proton-raw-out", raw, "--proton-raw-ctas", "2", proton="19,65664,8")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(raw.stat().st_size, 2 * 65664)
        again = self.tmp / "proton-again.json"
        proc2, _ = self.run_tool(capture, "--proton", again, "--proton-raw-in", raw)
        self.assertEqual(proc2.returncode, 0, proc2.stderr)
        self.assertEqual(json.loads(again.with_suffix(".summary.json").read_text())["ctas_decoded"], 2)
        self.assertEqual({e["pid"] for e in json.loads(out.read_text())["traceEvents"]},
                         {"ws_gemm_kernel Core7 CTA0"})
        self.assertEqual(json.loads(out.with_suffix(".summary.json").read_text())["proton"]["summary"]["ctas"], 3)

    def test_proton_bad_captures_and_buffers_are_clear_errors(self):
        out = self.tmp / "bad-proton.json"
        plain = shrink(ROOT / "tests/inputs/hopper/ws_gemm/s3", self.tmp / "ws_gemm_s3_plain_proton")
        proc, log = self.run_tool(plain, "--proton", out)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("profile_scratch_size is 0", proc.stderr)
        self.assertEqual(log, [])  # refused before any launch
        unwritten = self.proton_capture("ws_gemm_s3_proton_unwritten")
        proc, _ = self.run_tool(unwritten, "--proton", out)  # the stand-in kernel writes no profile
        self.assertEqual(proc.returncode, 2)
        self.assertIn("none of the 2 CTAs has a valid header", proc.stderr)
        no_table = self.proton_capture("ws_gemm_s3_proton_no_table")
        (no_table / "ws_gemm_kernel.proton.json").unlink()
        proc, _ = self.run_tool(no_table, "--proton", out, "--dry-run")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("ws_gemm_kernel.proton.json: cannot read", proc.stderr)
        proc, _ = self.run_tool(self.proton_capture("ws_gemm_s3_proton_record"), "--proton", out, "--record",
                                self.tmp / "never.json")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--record with --proton", proc.stderr)
        self.assertFalse((self.tmp / "never.json").exists())
        proc, _ = self.run_tool(self.proton_capture("ws_gemm_s3_proton_dry"), "--proton", out, "--dry-run")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("3 scopes, 2 CTAs x 65664 bytes of profile scratch, 8 warps (4 default)", proc.stderr)

    def test_proton_raw_buffer_of_a_real_h200_trace_gives_each_warps_own_life_summary(self):
        # The two CTAs of Proton's own trace of ws_gemm s3 on the H200 (record.py --proton) written back into a
        # profile buffer of the instrumented capture's layout, decoded by --proton-raw-in (no device): the summary
        # gives record.py's CTA count and lifetime, and each warp's scopes over its own life (cycles are the trace's
        # ts x 1000, rounded).
        sys.path[:0] = [str(ROOT / "python"), str(ROOT)]
        from tlx_sim import record
        excerpt = json.loads((ROOT / "traces/h200/proton/ws_gemm-s3-M8192_N8192_K8192.json").read_text())
        scopes = {s["name"]: s["id"] for s in json.loads(
            (ROOT / "traces/h200/proton-captures/ws_gemm-M8192_N8192_K8192/s3/ws_gemm_kernel.proton.json").read_text())["scopes"]}
        scratch, warps = 65664, 8
        seg = (scratch - 40 - 4 * warps) // warps // 8 * 8
        pids = sorted({e["pid"] for e in excerpt["traceEvents"]})
        buf = bytearray(scratch * len(pids))
        for i, pid in enumerate(pids):
            base = i * scratch
            cta, core = int(pid.split("CTA")[1].split()[0]), int(pid.split("Core")[1].split()[0])
            struct.pack_into("<IIII", buf, base, 0xdeadbeef, cta, core, seg * warps)
            per_warp = {}
            for e in excerpt["traceEvents"]:
                if e["pid"] == pid:
                    per_warp.setdefault(int(e["tid"].split()[1]), []).append(e)
            for w, events in per_warp.items():
                n = 0
                for e in sorted(events, key=lambda e: e["ts"]):
                    start, end = round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)
                    for is_start, cycle in ((True, start), (False, end)):
                        word0 = (0 if is_start else 0x80000000) | scopes[e["name"]] << 23 | (cycle >> 32) & 0x7FF
                        struct.pack_into("<II", buf, base + 40 + 4 * warps + w * seg + 8 * n, word0, cycle & 0xFFFFFFFF)
                        n += 1
                struct.pack_into("<I", buf, base + 40 + 4 * w, 2 * n)
        raw = self.tmp / "h200-s3.bin"
        raw.write_bytes(bytes(buf))
        out = self.tmp / "h200-s3.json"
        proc, log = self.run_tool(ROOT / "traces/h200/proton-captures/ws_gemm-M8192_N8192_K8192/s3", "--proton", out,
                                  "--proton-raw-in", raw)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(log, [])  # no driver call
        ours = json.loads(out.with_suffix(".summary.json").read_text())["proton"]["summary"]
        theirs = record.proton_summary(excerpt, 4, [1])
        self.assertEqual(ours["ctas"], theirs["ctas"])
        self.assertAlmostEqual(ours["lifetime_us_mean"], theirs["lifetime_us_mean"], places=2)
        self.assertEqual(ours["partitions"].keys(), theirs["partitions"].keys())
        # record.py divides every warp's scopes by the CTA's lifetime; the runner by the warp's own life (the CTA's
        # first start to the warp's last end: runner/ProtonTrace.h). Recomputed here from the excerpt's events.
        own = {}  # partition -> scope -> sum of per-warp fractions, and warps
        for pid in pids:
            cta = [e for e in excerpt["traceEvents"] if e["pid"] == pid]
            start = min(round(e["ts"] * 1000) for e in cta)
            for w in sorted({int(e["tid"].split()[1]) for e in cta}):
                events = [e for e in cta if int(e["tid"].split()[1]) == w]
                end = max(round((e["ts"] + e["dur"]) * 1000) for e in events)
                part = "default" if w < 4 else "partition0"
                acc = own.setdefault(part, {"warps": 0, "scopes": {}})
                acc["warps"] += 1
                for e in events:
                    dur = round((e["ts"] + e["dur"]) * 1000) - round(e["ts"] * 1000)
                    acc["scopes"][e["name"]] = acc["scopes"].get(e["name"], 0) + dur / (end - start)
        moved = 0
        for part, p in theirs["partitions"].items():
            self.assertEqual(ours["partitions"][part]["warps_per_cta"], p["warps_per_cta"])
            for scope, frac in p["scopes"].items():
                expect = own[part]["scopes"][scope] / own[part]["warps"]
                self.assertAlmostEqual(ours["partitions"][part]["scopes"][scope], expect, places=4)
                self.assertGreaterEqual(expect, frac - 1e-9)  # a warp's own life is never longer than the CTA's
                moved += expect > frac + 1e-4
        self.assertGreater(moved, 0)  # the producer warp exits before the CTA's last scope ends
        self.assertEqual(len(json.loads(out.read_text())["traceEvents"]), len(excerpt["traceEvents"]))
        proc, _ = self.run_tool(ROOT / "traces/h200/proton-captures/ws_gemm-M8192_N8192_K8192/s3", "--proton", out,
                                "--proton-raw-in", self.tmp / "missing.bin")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("missing.bin: cannot read", proc.stderr)
        raw.write_bytes(bytes(buf[:-1]))
        proc, _ = self.run_tool(ROOT / "traces/h200/proton-captures/ws_gemm-M8192_N8192_K8192/s3", "--proton", out,
                                "--proton-raw-in", raw)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("not a whole number of 65664-byte CTA slices", proc.stderr)

    def test_cupti_kernel_durations(self):
        capture = shrink(ROOT / "tests/inputs/hopper/ws_gemm/s3", self.tmp / "ws_gemm_s3_cupti")
        record = self.tmp / "traces-cupti" / "h200" / "ws_gemm.json"
        cupti = self.tmp / "fake_libcupti.so"
        proc, log = self.run_tool(capture, "--timer-iters", 6, "--record", record, cupti=cupti)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        timing = json.loads(proc.stdout)["timing"]
        # 6 launches of 60..65 us in 2 groups: medians 61 and 64, their median 62.5; the decoy (999 us) and the
        # memset records are left out, the records are put back in launch order across 6 buffers of 3.
        self.assertEqual((timing["timer"], timing["timer_iters"], timing["timer_note"]), ("cupti", 6, None))
        self.assertEqual(timing["timer_library"], f"cupti ({cupti})")
        self.assertEqual(timing["round_medians_us"], [61.0, 64.0])
        self.assertEqual((timing["median_us"], timing["min_us"], timing["max_us"]), (62.5, 60.0, 65.0))
        self.assertEqual(timing["events_median_us"], 1250.0)  # the do_bench rounds before, with events
        cupti_log = [l for l in log if l.startswith("cupti")]
        self.assertEqual(cupti_log, ["cupti register 1", "cupti enable 10", "cupti disable 10",
                                     "cupti flush buffers=6", "cupti flush flag=1"])
        (rec,) = json.loads(record.read_text())["records"]
        self.assertEqual((rec["timing"], rec["measured_us"], rec["times_us"], rec["do_bench_us"]),
                         ("cupti", 62.5, [61.0, 64.0], 1250.0))

    def test_cupti_failures_fall_back_to_events_or_stop_when_required(self):
        capture = shrink(ROOT / "tests/inputs/hopper/ws_gemm/s3", self.tmp / "ws_gemm_s3_nocupti")
        proc, _ = self.run_tool(capture, "--timer", "cupti")  # TLXSIM_CUPTI names a missing file
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--timer cupti: no usable CUPTI library", proc.stderr)
        self.assertIn("missing/libcupti.so", proc.stderr)
        # Dropped records: the measurement falls back to the events and says why.
        proc, _ = self.run_tool(capture, "--timer-iters", 6, cupti=self.tmp / "fake_libcupti.so", drop=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        timing = json.loads(proc.stdout)["timing"]
        self.assertEqual((timing["timer"], timing["median_us"]), ("events", 1250.0))
        self.assertIn("CUPTI dropped 6 activity records", timing["timer_note"])
        proc, _ = self.run_tool(capture, "--timer-iters", 6, "--timer", "cupti", cupti=self.tmp / "fake_libcupti.so",
                                drop=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("CUPTI dropped 6 activity records", proc.stderr)
        # --timer events does not load CUPTI at all.
        proc, log = self.run_tool(capture, "--timer", "events", cupti=self.tmp / "fake_libcupti.so")
        self.assertEqual(json.loads(proc.stdout)["timing"]["timer"], "events")
        self.assertFalse([l for l in log if l.startswith("cupti")])

    def test_tma_scale_is_checked_against_its_declared_reference(self):
        capture = shrink_scale(ROOT / "tests/inputs/hopper/tma_scale/b128x128", self.tmp / "tma_scale_b128x128")
        proc, log = self.run_tool(capture)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        ref = json.loads(proc.stdout)["reference"]
        # launch.json "reference" (kernels/hopper/tma_scale.py REFERENCE): y_desc = alpha (2.0) * x_desc, every element.
        self.assertEqual((ref["kind"], ref["operands"], ref["ok"], ref["samples"], ref["non_finite"]),
                         ("scale", ["x_desc", "y_desc"], True, SIZE * SIZE, 0))
        self.assertLess(ref["max_rel_err"], 1e-3)  # fp16 rounding of 2 x is exact
        self.assertIn("launch tma_scale_kernel grid=1,1,1 block=128,1,1 shared=32776 attrs=0", log)
        proc, _ = self.run_tool(capture, wrong=True)  # the stand-in scales by 3
        self.assertEqual(proc.returncode, 1)
        self.assertIn("wrong result: y_desc[0, ", proc.stderr)

    def test_pointer_gemm_and_a_wrong_result(self):
        capture = shrink(ROOT / "tests/inputs/hopper/triton_gemm/s3", self.tmp / "triton_gemm_s3")
        proc, log = self.run_tool(capture, "--no-flush")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(json.loads(proc.stdout)["reference"]["ok"])
        self.assertIn("launch gemm_kernel grid=1,1,1 block=128,1,1 shared=98304 attrs=0", log)
        proc, _ = self.run_tool(capture, "--no-flush", wrong=True)
        self.assertEqual(proc.returncode, 1)
        out = json.loads(proc.stdout)
        self.assertFalse(out["reference"]["ok"])
        self.assertIn("wrong result: c_ptr[", proc.stderr)
        self.assertEqual(out["timing"]["iters_per_round"], 0)  # a wrong kernel is not timed

    def test_a_hanging_kernel_is_reported_after_the_hang_timeout(self):
        capture = shrink(ROOT / "tests/inputs/hopper/triton_gemm/s3", self.tmp / "triton_gemm_s3_hang")
        proc, log = self.run_tool(capture, "--no-flush", "--hang-timeout", "0.2", hang=True)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("the kernel has not finished after 0.2 s (--hang-timeout): it hangs", proc.stderr)
        self.assertIn("tlx-sim check", proc.stderr)
        launches = [line for line in log if line.startswith("launch ")]
        self.assertEqual(launches, ["launch gemm_kernel grid=1,1,1 block=128,1,1 shared=98304 attrs=0"])  # not timed
        proc, _ = self.run_tool(capture, "--hang-timeout", "0")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--hang-timeout must be a positive number of seconds", proc.stderr)

    def test_hsaco_gemm_through_hip(self):
        capture = shrink(ROOT / "tests/inputs/amd-gfx942/gemm/s2", self.tmp / "amd_gemm_s2")
        proc, log = self.run_tool(capture, "--no-flush")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = json.loads(proc.stdout)
        self.assertEqual(out["device"]["name"], "Fake MI300X")
        self.assertTrue(out["reference"]["ok"])
        self.assertEqual(out["timing"]["median_us"], 1250.0)
        # warp_size 64 x num_warps 4 threads and the metadata's LDS bytes, as triton/backends/amd/driver.py.
        self.assertEqual(log, ["launch gemm_kernel grid=1,1,1 block=256,1,1 shared=32768"] * 2)

    def test_capture_for_another_architecture_is_refused(self):
        capture = self.tmp / "bw_ws_gemm"
        shutil.copytree(ROOT / "tests/inputs/blackwell/ws_gemm/s2", capture)
        proc, _ = self.run_tool(capture)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("compiled for sm_100 but the GPU (Fake H200) is sm_90", proc.stderr)


if __name__ == "__main__":
    unittest.main()
