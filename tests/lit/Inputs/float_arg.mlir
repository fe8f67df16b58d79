// A kernel with a float scalar argument (Triton passes fp32 scalars such as sm_scale by value): `scale` only
// feeds tensor math, `n` bounds the loop. Used by launch_float_args.test.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @float_arg(%scale: f32 loc("scale"), %n: i32 loc("n")) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %one = arith.constant dense<1.000000e+00> : tensor<64x64xf32, #blocked>
    %s = tt.splat %scale : f32 -> tensor<64x64xf32, #blocked>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (tensor<64x64xf32, #blocked>) : i32 {
      %m = arith.mulf %acc, %s : tensor<64x64xf32, #blocked>
      scf.yield %m : tensor<64x64xf32, #blocked>
    }
    tt.return
  }
}
