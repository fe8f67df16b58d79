// Which warps execute an op: the default partition (`ttg.num-warps`) or a worker partition of
// `ttg.warp_specialize` (its `partitionNumWarps` entry), the values its partitions capture, and the arrivals a barrier
// arrive makes.
#pragma once

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <cstdint>

namespace tlxsim::ir {

/// The threads of the partition that executes `op`: its warps (the enclosing
/// `ttg.warp_specialize.partitions` region's `partitionNumWarps` entry, else the module's `ttg.num-warps`,
/// default 4) x the module's `ttg.threads-per-warp` (default 32).
int64_t partitionThreads(mlir::Operation &op);

/// The op whose operands the partitions of `ttg.warp_specialize` `ws` receive as their block arguments: its
/// `ttg.warp_specialize.partitions` op where that has operands (Triton 3.7+), else `ws` itself.
mlir::Operation *partitionCaptures(mlir::Operation *ws);

/// The value `v` stands for outside its warp-specialize partition: a partition region's block argument is the
/// captured operand of the same position (partitionCaptures); any other value is itself.
mlir::Value capturedValue(mlir::Value v);

/// Whether `op` is a TLX warp-barrier arrive (`ttng.arrive_barrier ... {perThread}`, tlx.alloc_warp_barrier):
/// every thread of the partition arrives with the op's count, not one elected thread (PTX ISA 9.1 9.7.13.15.13:
/// mbarrier.arrive counts one arrival per executing thread).
bool isPerThreadArrive(mlir::Operation &op);

} // namespace tlxsim::ir
