# Emits the wgmma wrappers of tools/bench/wgmma_wrappers.cuh (inline PTX needs one operand per accumulator register).
out = []
for n in (64, 128, 256):
    r = n // 2
    regs = ", ".join(f"%{i}" for i in range(r))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(r))
    out.append(f"""/// One wgmma.mma_async.m64n{n}k16.f32.f16.f16 (PTX ISA 9.7.15.5), A and B from shared memory, D = A*B + (scaleD ? D : 0).
__device__ __forceinline__ void wgmma{n}(float (&d)[{r}], uint64_t da, uint64_t db, int scaleD = 1) {{
  asm volatile("{{ .reg .pred p; setp.ne.b32 p, %{r+2}, 0;\\n"
               "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {{{regs}}}, %{r}, %{r+1}, p, 1, 1, 0, 1; }}"
               : {outs}
               : "l"(da), "l"(db), "r"(scaleD));
}}
""")
open("wrappers.inc", "w").write("\n".join(out))
