// A named-barrier hand-off over a loop of N iterations (the shape of TLX's ping-pong consumers and of FlashMLA's
// decode hand-off): the producer warp group (partition0) writes a tile and `bar.arrive 2, 256`s, the consumer warp
// group (default) `bar.sync 2, 256`s, reads the tile and gives it back with `bar.arrive 3, 256`, which the
// producer `bar.sync 3, 256`s on before its next store. Each id's 256 threads are one arrival of each warp group.
// The bugs of named_balance.test replace the line GUARD: the producer's bar.arrive 2 skipped for odd N (then the
// consumer's first bar.sync 2 never completes), or in iteration 7 only (a deadlock for N >= 8).
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @named_pingpong(%N: i32 loc("N")) attributes {noinline = false} {
    %tile = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("tile")
    ttg.warp_specialize(%tile, %N) attributes {requestedRegisters = array<i32: 232>}
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %id2 = arith.constant 2 : i32
      %id3 = arith.constant 3 : i32
      %n256 = arith.constant 256 : i32
      scf.for %i = %c0 to %N step %c1 : i32 {
        ttng.wait_barrier_named %id2, %n256 : i32, i32
        %v = ttg.local_load %tile : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
        ttng.arrive_barrier_named %id3, %n256 : i32, i32
      }
      ttg.warp_yield
    }
    partition0(%t: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %n: i32) num_warps(4) {
      %k0 = arith.constant 0 : i32
      %k1 = arith.constant 1 : i32
      %k7 = arith.constant 7 : i32
      %id2 = arith.constant 2 : i32
      %id3 = arith.constant 3 : i32
      %n256 = arith.constant 256 : i32
      %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
      scf.for %j = %k0 to %n step %k1 : i32 {
        ttg.local_store %one, %t : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        %late = arith.constant true // GUARD
        scf.if %late {
          ttng.arrive_barrier_named %id2, %n256 : i32, i32
        }
        ttng.wait_barrier_named %id3, %n256 : i32, i32
      }
      ttg.warp_return
    } : (!ttg.memdesc<64x64xf16, #shared, #smem, mutable>, i32) -> ()
    tt.return
  }
}
