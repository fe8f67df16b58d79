#!/usr/bin/env python3
"""Measures how the CUDA driver counts a cubin's 1 KB `.nv.shared.<kernel>` section (ptxas's reserved shared memory,
`.nv.reservedSmem.cap` = 0x400) against the per-CTA and per-SM shared-memory limits, on the GPU this runs on.

usage: python3 tests/occupancy/probe_reserved_smem.py CUBIN KERNEL THREADS
Prints the device's limits, the function's static shared size (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), then for each
dynamic size around the opt-in limit whether cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) accepts it and the
occupancy (cuOccupancyMaxActiveBlocksPerMultiprocessor). Only the CUDA driver (libcuda.so.1, ctypes) is needed.
"""
import ctypes
import sys

ATTR_SHARED_SIZE_BYTES = 1
ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
DEV_MAX_SHARED_PER_BLOCK = 8
DEV_MAX_SHARED_PER_SM = 81
DEV_MAX_SHARED_PER_BLOCK_OPTIN = 97
DEV_RESERVED_SHARED_PER_BLOCK = 111


def main():
    cubin, kernel, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(result, what):
        if result != 0:
            message = ctypes.c_char_p()
            cuda.cuGetErrorString(result, ctypes.byref(message))
            raise RuntimeError(f"{what}: CUDA error {result} ({message.value.decode() if message.value else '?'})")

    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    name = ctypes.create_string_buffer(256)
    cuda.cuDeviceGetName(name, 256, dev)
    attrs = {}
    for label, attr in (("per_block", DEV_MAX_SHARED_PER_BLOCK), ("per_sm", DEV_MAX_SHARED_PER_SM),
                        ("per_block_optin", DEV_MAX_SHARED_PER_BLOCK_OPTIN),
                        ("reserved_per_block", DEV_RESERVED_SHARED_PER_BLOCK)):
        v = ctypes.c_int()
        check(cuda.cuDeviceGetAttribute(ctypes.byref(v), attr, dev), label)
        attrs[label] = v.value
    print(f"device {name.value.decode()}: {attrs}")
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(open(cubin, "rb").read())), "load")
    fn = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, kernel.encode()), "function")
    static = ctypes.c_int()
    check(cuda.cuFuncGetAttribute(ctypes.byref(static), ATTR_SHARED_SIZE_BYTES, fn), "static")
    print(f"static shared (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES): {static.value}")
    optin = attrs["per_block_optin"]
    for dynamic in (optin - static.value - 128, optin - static.value, optin - static.value + 128, optin - 1024 + 296,
                    optin, optin + 128, attrs["per_sm"] // 2 - 1024 - static.value, attrs["per_sm"] // 2 - static.value):
        ok = cuda.cuFuncSetAttribute(fn, ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic)
        blocks = ctypes.c_int(-1)
        occ = cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(blocks), fn, threads, ctypes.c_size_t(dynamic))
        print(f"dynamic {dynamic}: set_max_dynamic rc={ok}, occupancy rc={occ} ctas_per_sm={blocks.value}")


if __name__ == "__main__":
    main()
