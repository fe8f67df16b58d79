"""`tlx-sim run --dry-run --json` packs every captured kernel's parameters as Triton 3.6's own launcher does.

For each capture under tests/inputs (hopper, blackwell, amd), the expected parameter list is derived from
Triton's code for the same signature, not re-derived by hand:

* the order and C types of the parameters: the C source that ``make_launcher`` (triton/backends/nvidia/driver.py,
  triton/backends/amd/driver.py) generates for the launch's signature and ``tensordesc_meta``: its ``_launch(...)``
  declaration and ``void *params[] = {...}`` (constexprs removed, descriptors expanded, trailing scratch pointers);
* the values: the launch's arguments go through Triton's ``wrap_handle_tensordesc`` / ``make_tensordesc_arg``, and
  the CUtensorMap arguments through ``fillTMADescriptor`` of Triton's driver.c itself, compiled here against a
  stand-in libcuda.so.1 whose ``cuTensorMapEncodeTiled`` records its arguments (no GPU involved);
* the byte offsets and sizes: the cubin's own parameter table (EIATTR_KPARAM_INFO of ``.nv.info.<kernel>``, read
  here with a separate decoder); for hsaco, natural alignment from offset 0.

Plain unittest: ``python3 tests/python/test_runner_params.py [path/to/tlx-sim]`` (ctest passes the binary).
Needs triton==3.6.0, a C compiler and Python's headers (python3-dev); no GPU, no torch.
"""
import ctypes
import json
import os
import re
import struct
import subprocess
import sys
import sysconfig
import tempfile
import types
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TLX_SIM = Path(sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("TLX_SIM", ROOT / "build/tools/tlx-sim"))
CAPTURES = sorted(p.parent for p in (ROOT / "tests" / "inputs").glob("*/*/*/launch.json"))

C_SIZES = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "int64_t": 8,
           "uint64_t": 8, "CUdeviceptr": 8, "hipDeviceptr_t": 8, "CUtensorMap": 128}
C_ALIGN = {**C_SIZES, "CUtensorMap": 64}

FAKE_LIBCUDA = r"""
#include <stdint.h>
#include <string.h>
struct Encode { int dataType; unsigned rank; uint64_t address; uint64_t globalDim[5]; uint64_t globalStrides[5];
                uint32_t boxDim[5]; uint32_t elementStrides[5]; int interleave, swizzle, l2Promotion, oobFill; };
struct Encode tlx_last_encode;
int cuTensorMapEncodeTiled(void *map, int dataType, unsigned rank, void *address, const uint64_t *globalDim,
                           const uint64_t *globalStrides, const uint32_t *boxDim, const uint32_t *elementStrides,
                           int interleave, int swizzle, int l2Promotion, int oobFill) {
  memset(&tlx_last_encode, 0, sizeof tlx_last_encode);
  tlx_last_encode.dataType = dataType; tlx_last_encode.rank = rank;
  tlx_last_encode.address = (uint64_t)(uintptr_t)address;
  for (unsigned i = 0; i < rank && i < 5; ++i) {
    tlx_last_encode.globalDim[i] = globalDim[i]; tlx_last_encode.globalStrides[i] = globalStrides[i];
    tlx_last_encode.boxDim[i] = boxDim[i]; tlx_last_encode.elementStrides[i] = elementStrides[i];
  }
  tlx_last_encode.interleave = interleave; tlx_last_encode.swizzle = swizzle;
  tlx_last_encode.l2Promotion = l2Promotion; tlx_last_encode.oobFill = oobFill;
  memset(map, 0, 128);
  return 0;
}
int cuGetErrorString(int code, const char **text) { *text = "stand-in libcuda"; return 0; }
"""


class Encode(ctypes.Structure):
    _fields_ = [("dataType", ctypes.c_int), ("rank", ctypes.c_uint), ("address", ctypes.c_uint64),
                ("globalDim", ctypes.c_uint64 * 5), ("globalStrides", ctypes.c_uint64 * 5),
                ("boxDim", ctypes.c_uint32 * 5), ("elementStrides", ctypes.c_uint32 * 5), ("interleave", ctypes.c_int),
                ("swizzle", ctypes.c_int), ("l2Promotion", ctypes.c_int), ("oobFill", ctypes.c_int)]


def build_triton_cuda_utils(tmp: Path):
    """Triton's driver.c (fillTMADescriptor) as a Python module over a stand-in libcuda.so.1 that records the
    cuTensorMapEncodeTiled call; returns (module, recorded-arguments struct)."""
    import triton
    nvidia = Path(triton.__file__).parent / "backends" / "nvidia"
    cc = os.environ.get("CC", "cc")
    (tmp / "fake_cuda.c").write_text(FAKE_LIBCUDA)
    subprocess.run([cc, "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", str(tmp / "libcuda.so.1"),
                    str(tmp / "fake_cuda.c")], check=True)
    # Every other driver entry point driver.c names: stubs that fail (none is called here).
    subprocess.run([cc, "-c", "-fPIC", "-o", str(tmp / "driver.o"), str(nvidia / "driver.c"), "-I",
                    str(nvidia / "include"), "-I", sysconfig.get_paths()["include"]], check=True)
    undefined = subprocess.run(["nm", "-u", str(tmp / "driver.o")], capture_output=True, text=True,
                               check=True).stdout.split()
    stubs = [s for s in undefined if s.startswith("cu") and s not in ("cuTensorMapEncodeTiled", "cuGetErrorString")]
    (tmp / "stubs.c").write_text("".join(f"int {s}(void) {{ return 999; }}\n" for s in stubs))
    lib = tmp / "libcuda.so.1"
    subprocess.run([cc, "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", str(lib), str(tmp / "fake_cuda.c"),
                    str(tmp / "stubs.c")], check=True)
    ext = tmp / ("cuda_utils" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(ext), str(tmp / "driver.o"), str(lib),
                    f"-Wl,-rpath,{tmp}"], check=True)
    recorder = ctypes.CDLL(str(lib))  # the same loaded object the extension and dlopen("libcuda.so.1") use
    sys.path.insert(0, str(tmp))
    import importlib
    module = importlib.import_module("cuda_utils")
    return module, Encode.in_dll(recorder, "tlx_last_encode")


def cubin_param_table(cubin: Path, kernel: str):
    """[(offset, size)] by ordinal from the cubin's .nv.info.<kernel> EIATTR_KPARAM_INFO records."""
    data = cubin.read_bytes()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = sections[shstrndx][4]
    params = {}
    for name_off, _, _, _, offset, size, *_ in sections:
        end = data.index(b"\0", strtab + name_off)
        if data[strtab + name_off:end].decode() != f".nv.info.{kernel}":
            continue
        blob, i = data[offset:offset + size], 0
        while i + 4 <= len(blob):
            fmt, attr, value = struct.unpack_from("<BBH", blob, i)
            if fmt == 4:
                if attr == 0x17:
                    _, ordinal, poff, flags = struct.unpack_from("<IHHI", blob, i + 4)
                    params[ordinal] = (poff, (flags >> 18) & 0x3FFF)
                i += 4 + value
            else:
                i += 4
    return [params[k] for k in sorted(params)]


def launcher_c_types(launch: dict, meta: dict):
    """(expanded-signature index, C type) of each kernel parameter, from the C source make_launcher generates."""
    signature = dict(launch["signature"])
    tensordesc_meta = meta.get("tensordesc_meta") or None
    if launch["target"].startswith("cuda"):
        from triton.backends.nvidia import driver
        src = driver.make_launcher({}, signature, tensordesc_meta)
    else:
        from triton.backends.amd import driver
        saved = driver._get_path_to_hip_runtime_dylib
        driver._get_path_to_hip_runtime_dylib = lambda: "libamdhip64.so"  # only printed into the source
        try:
            src = driver.make_launcher({}, signature, meta["warp_size"], tensordesc_meta)
        finally:
            driver._get_path_to_hip_runtime_dylib = saved
    decl = re.search(r"static void _launch\((.*?)\) \{", src, re.S).group(1)
    types_by_arg = {}
    for item in decl.split(","):
        ctype, _, name = item.strip().rpartition(" ")
        if re.fullmatch(r"arg\d+", name):
            types_by_arg[name] = ctype
    params = re.search(r"void \*params\[\] = \{(.*?)\};", src, re.S).group(1).split(",")
    out = []
    for p in (p.strip().lstrip("&") for p in params):
        if p in ("global_scratch", "profile_scratch"):
            out.append((p, "hipDeviceptr_t" if launch["target"].startswith("hip") else "CUdeviceptr"))
        else:
            out.append((int(p[3:]), types_by_arg[p]))
    return out


def scalar_bits(ctype: str, triton_type: str, value):
    """The bytes Triton's launcher stores for a scalar, as an unsigned integer."""
    if triton_type == "fp16":
        return struct.unpack("<H", struct.pack("<e", value))[0]
    if triton_type == "bf16":
        return struct.unpack("<I", struct.pack("<f", value))[0] >> 16
    if triton_type in ("fp32", "f32"):
        return struct.unpack("<I", struct.pack("<f", value))[0]
    if triton_type == "fp64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    return int(value) & ((1 << (8 * C_SIZES[ctype])) - 1)


class RunnerPacking(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tlx-sim-runner-test-")
        cls.cuda_utils, cls.encode = build_triton_cuda_utils(Path(cls.tmp.name))
        import triton.runtime
        cls.saved_driver = triton.runtime.driver._active
        triton.runtime.driver.set_active(types.SimpleNamespace(
            utils=types.SimpleNamespace(fill_tma_descriptor=cls.record_fill)))

    @classmethod
    def tearDownClass(cls):
        import triton.runtime
        triton.runtime.driver._active = cls.saved_driver
        cls.tmp.cleanup()

    @classmethod
    def record_fill(cls, *args):
        """Triton's fill_tma_descriptor (driver.c), returning what cuTensorMapEncodeTiled received."""
        cls.cuda_utils.fill_tma_descriptor(*args)
        e = cls.encode
        rank = e.rank
        return ("tensormap", {"dataType": e.dataType, "rank": rank, "address": e.address,
                              "globalDim": list(e.globalDim[:rank]), "globalStrides": list(e.globalStrides[:rank]),
                              "boxDim": list(e.boxDim[:rank]), "elementStrides": list(e.elementStrides[:rank]),
                              "interleave": e.interleave, "swizzle": e.swizzle, "l2Promotion": e.l2Promotion,
                              "oobFill": e.oobFill})

    def triton_values(self, launch: dict, meta: dict, addresses: dict):
        """Every launcher argument after Triton's descriptor handling, by expanded-signature index."""
        signature = dict(launch["signature"])
        tensordesc_meta = meta.get("tensordesc_meta") or None
        args = []
        for name, ty in signature.items():
            if ty.startswith("tensordesc"):
                d = launch["descs"][name]
                base = types.SimpleNamespace(data_ptr=lambda a=addresses[name]: a, address=addresses[name])
                args.append(types.SimpleNamespace(base=base, shape=list(d["shape"]), strides=list(d["strides"]),
                                                  block_shape=list(d["block"]), padding=d.get("padding", "zero")))
            elif ty.startswith("*"):
                args.append(types.SimpleNamespace(address=addresses[name]))
            elif ty == "constexpr":
                args.append(launch["constexprs"].get(name))
            else:
                args.append(launch["args"][name])
        captured = []
        base_len = 13 if launch["target"].startswith("cuda") else 7
        if launch["target"].startswith("cuda"):
            from triton.backends.nvidia.driver import wrap_handle_tensordesc
        else:
            from triton.backends.amd.driver import wrap_handle_tensordesc
        wrapped = wrap_handle_tensordesc(lambda *a: captured.extend(a), signature, tensordesc_meta)
        wrapped(*([None] * base_len), *args)
        return captured[base_len:]

    def test_every_capture(self):
        self.assertGreaterEqual(len(CAPTURES), 30)
        for capture in CAPTURES:
            with self.subTest(capture=str(capture.relative_to(ROOT))):
                self.check_capture(capture)

    def check_capture(self, capture: Path):
        launch = json.loads((capture / "launch.json").read_text())
        meta = json.loads((capture / f"{launch['kernel']}.json").read_text())
        proc = subprocess.run([str(TLX_SIM), "run", str(capture), "--dry-run", "--json"], capture_output=True,
                              text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        ours = json.loads(proc.stdout)["layout"]["params"]

        expected_types = launcher_c_types(launch, meta)
        self.assertEqual([p["ctype"] for p in ours], [t for _, t in expected_types])

        # Sizes and offsets: the cubin's table (cuda) or natural alignment (hip).
        if launch["target"].startswith("cuda"):
            table = cubin_param_table(capture / f"{launch['kernel']}.cubin", meta["name"])
        else:
            table, offset = [], 0
            for _, ctype in expected_types:
                offset = (offset + C_ALIGN[ctype] - 1) // C_ALIGN[ctype] * C_ALIGN[ctype]
                table.append((offset, C_SIZES[ctype]))
                offset += C_SIZES[ctype]
        self.assertEqual([(p["offset"], p["size"]) for p in ours], table)
        self.assertEqual([p["size"] for p in ours], [C_SIZES[t] for _, t in expected_types])

        # Values.
        names = [n for n, t in launch["signature"].items() if t.startswith("*") or t.startswith("tensordesc")]
        addresses = {n: 0x7F0000000000 + 0x100000 * i for i, n in enumerate(names)}
        tensor_of = {a: n for n, a in addresses.items()}
        values = self.triton_values(launch, meta, addresses)
        expanded = self.expanded_types(launch, meta)
        for (index, ctype), p in zip(expected_types, ours):
            if index in ("global_scratch", "profile_scratch"):
                size = meta.get(f"{index}_size", 0)
                self.assertEqual(p["tensor"], index if size and (index == "profile_scratch" or
                                                                 launch["target"].startswith("cuda")) else None)
                continue
            value = values[index]
            if ctype == "CUtensorMap":
                kind, args = value
                self.assertEqual(kind, "tensormap")
                self.assertEqual(p["tensor"], tensor_of[args.pop("address")], p["name"])
                self.assertEqual(p["tensormap"], args, p["name"])
            elif ctype in ("CUdeviceptr", "hipDeviceptr_t"):
                address = value.address if hasattr(value, "address") else value.data_ptr()
                self.assertEqual(p["tensor"], tensor_of[address], p["name"])
            else:
                self.assertEqual(p["bits"] & ((1 << 64) - 1), scalar_bits(ctype, expanded[index], value), p["name"])

    @staticmethod
    def expanded_types(launch: dict, meta: dict):
        """Triton's expanded signature (make_launcher's _expand_signature), read back from the generated
        PyArg_ParseTuple format is not possible, so: each entry's type from the same rules, checked above by the
        C types; only used to pick the float packing of scalars."""
        out = []
        metas = meta.get("tensordesc_meta") or []
        k = 0
        for ty in launch["signature"].values():
            if ty.startswith("tensordesc"):
                ndim = ty[ty.index("["):ty.index("]")].count(",") + 1
                has_meta = bool(metas) and metas[k] is not None
                k += 1
                out += (["nvTmaDesc"] if has_meta else ["*", *["i64"] * (2 * ndim), "i1"]) + ["i32"] * ndim + \
                    ["i64"] * ndim
            else:
                out.append(ty)
        return out


class RunnerCommandLine(unittest.TestCase):
    """Exit codes and messages of `tlx-sim run` that need no GPU."""

    def run_tool(self, *args):
        return subprocess.run([str(TLX_SIM), "run", *map(str, args)], capture_output=True, text=True)

    def test_no_gpu_is_exit_2_with_a_clear_message(self):
        import ctypes.util
        try:
            ctypes.CDLL("libcuda.so.1")
            self.skipTest("this machine has a CUDA driver")
        except OSError:
            pass
        proc = self.run_tool(ROOT / "tests/inputs/hopper/ws_gemm/s3")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("libcuda.so.1", proc.stderr)
        self.assertIn("needs an NVIDIA GPU", proc.stderr)

    def test_bad_inputs_are_exit_2(self):
        proc = self.run_tool(ROOT / "tests/inputs/hopper/no_such_kernel/s3")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("launch.json", proc.stderr)
        proc = self.run_tool(ROOT / "tests/inputs/hopper/ws_gemm/s3", "--reference", "fft")
        self.assertEqual(proc.returncode, 2)
        with tempfile.TemporaryDirectory() as tmp:
            src = ROOT / "tests/inputs/hopper/ws_gemm/s3"
            for f in src.iterdir():
                (Path(tmp) / f.name).write_bytes(f.read_bytes())
            launch = json.loads((src / "launch.json").read_text())
            del launch["args"]["K"]
            (Path(tmp) / "launch.json").write_text(json.dumps(launch))
            proc = self.run_tool(tmp, "--dry-run")
            self.assertEqual(proc.returncode, 2)
            self.assertIn("scalar argument K (i32) has no value", proc.stderr)
            launch["args"]["K"] = 8192
            launch["signature"] = {"M": "i32", **launch["signature"]}  # reordered: disagrees with the cubin
            (Path(tmp) / "launch.json").write_text(json.dumps(launch))
            proc = self.run_tool(tmp, "--dry-run")
            self.assertEqual(proc.returncode, 2)
            self.assertIn("in the cubin but the launch packs it", proc.stderr)

    def test_dry_run_names_the_reference(self):
        proc = self.run_tool(ROOT / "tests/inputs/hopper/attention_fwd/bn64_s2", "--dry-run", "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = json.loads(proc.stdout)
        self.assertEqual(out["reference"]["kind"], "attention")
        self.assertEqual(out["reference"]["operands"], ["q_desc", "k_desc", "v_desc", "o_desc"])
        self.assertEqual(out["cubin_param_space"], {"offset": 0x210, "size": 800})


if __name__ == "__main__":
    unittest.main()
