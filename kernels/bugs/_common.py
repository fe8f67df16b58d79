"""Launch specs shared by the bug-class kernels (kernels/bugs/README.md); no torch, no GPU.

The leading underscore keeps ``tlx_sim.capture kernels`` from taking this file for a kernel module.
"""


def fp16_desc(shape, block):
    """One row-major fp16 tensor descriptor with Gluon's default NVMMA shared layout for its block."""
    from triton.experimental.gluon import language as gl
    return {"shape": list(shape), "strides": [shape[1], 1], "block": list(block), "dtype": "fp16",
            "layout": gl.NVMMASharedLayout.get_default_for(list(block), gl.float16)}


def tile_launch(config, shape, descs, args=()):
    """One CTA; descriptors `descs` = {name: (rows, cols)} over a [T, T] fp16 tile (T = config["T"]) whose
    global shape is the tile times shape["TILES"] along the columns; `args` are scalar arguments taken from
    `shape` by name."""
    T = config["T"]
    cols = T * shape.get("TILES", 1)
    return {
        "grid": [1, 1, 1],
        "args": {name: shape[name] for name in args},
        "descs": {name: fp16_desc([T, cols], [T, T]) for name in descs},
    }


def pointer_pair_launch(config, shape):
    """One CTA, K_ITERS steps (shape["K_ITERS"]) over flat [K_ITERS * T * T] fp16 pointers `a_ptr` and `b_ptr`
    (T = config["T"]): the launch of the cp.async / direct-to-LDS pipelines (async_group_count, amd_async_wait)."""
    n = shape["K_ITERS"] * config["T"] * config["T"]
    return {"grid": [1, 1, 1], "args": {"K_ITERS": shape["K_ITERS"]}, "descs": {},
            "ptrs": {"a_ptr": {"shape": [n], "dtype": "fp16"}, "b_ptr": {"shape": [n], "dtype": "fp16"}}}
