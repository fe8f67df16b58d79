#!/usr/bin/env python3
"""Measures CTAs per SM of the captured Hopper kernels on the GPU this runs on (an H200).

Run from the repository root on the GPU host (CUDA driver, PyTorch; no LLVM needed):
    python3 tests/occupancy/measure_h200.py            # rewrites tests/occupancy/h200.json
    python3 tests/occupancy/measure_h200.py --out F    # writes F instead

For every config of tests/occupancy/h200.json it loads the captured cubin
(tests/inputs/<input>/<kernel>.cubin) with the CUDA driver API (cuModuleLoadData), raises the
function's dynamic shared-memory limit to the config's `dynamic_shared_bytes`
(cuFuncSetAttribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) and records
cuOccupancyMaxActiveBlocksPerMultiprocessor(function, threads_per_cta, dynamic_shared_bytes)
as `ctas_per_sm`, with `status` naming the device, driver and date. The unit test
tests/unit/test_occupancy.cpp compares the simulator's occupancy to these values.
"""
import argparse
import ctypes
import datetime
import json
import pathlib
import sys

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="tests/occupancy/h200.json")
    parser.add_argument("--out", default=None, help="output JSON (default: rewrite --configs)")
    args = parser.parse_args()

    import torch  # creates and makes current the device's primary context

    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    device_name = torch.cuda.get_device_name(0)
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(result, what):
        if result != 0:
            message = ctypes.c_char_p()
            cuda.cuGetErrorString(result, ctypes.byref(message))
            raise RuntimeError(f"{what}: CUDA error {result} ({message.value.decode() if message.value else '?'})")

    driver = ctypes.c_int()
    check(cuda.cuDriverGetVersion(ctypes.byref(driver)), "cuDriverGetVersion")
    optin = ctypes.c_int()
    check(cuda.cuDeviceGetAttribute(ctypes.byref(optin), CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0),
          "cuDeviceGetAttribute")

    doc = json.loads(pathlib.Path(args.configs).read_text())
    stamp = datetime.date.today().isoformat()
    for config in doc["configs"]:
        cubin = pathlib.Path("tests/inputs") / config["input"] / (config["kernel"] + ".cubin")
        data = cubin.read_bytes()
        module = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(data)), f"cuModuleLoadData {cubin}")
        function = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(function), module, config["kernel"].encode()),
              f"cuModuleGetFunction {config['kernel']}")
        shared = int(config["dynamic_shared_bytes"])
        if shared > 48 * 1024:
            check(cuda.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          min(shared, optin.value)), "cuFuncSetAttribute")
        blocks = ctypes.c_int()
        check(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(blocks), function,
                                                                int(config["threads_per_cta"]), ctypes.c_size_t(shared)),
              "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        previous = config.get("ctas_per_sm")
        config["ctas_per_sm"] = blocks.value
        config["status"] = (f"measured on {device_name} (driver {driver.value}) {stamp} with "
                            "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        print(f"{config['input']:32} threads {config['threads_per_cta']:4} shared {shared:7}: "
              f"{blocks.value} CTAs/SM (was {previous})")
        check(cuda.cuModuleUnload(module), "cuModuleUnload")
    out = pathlib.Path(args.out or args.configs)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
