// Which warps execute an op: the default partition (`ttg.num-warps`) or a worker partition of
// `ttg.warp_specialize` (its `partitionNumWarps` entry), and the arrivals a barrier arrive makes.
#pragma once

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace tlxsim::ir {

/// The threads of the partition that executes `op`: its warps (the enclosing
/// `ttg.warp_specialize.partitions` region's `partitionNumWarps` entry, else the module's `ttg.num-warps`,
/// default 4) x the module's `ttg.threads-per-warp` (default 32).
int64_t partitionThreads(mlir::Operation &op);

/// Whether `op` is a TLX warp-barrier arrive (`ttng.arrive_barrier ... {perThread}`, tlx.alloc_warp_barrier):
/// every thread of the partition arrives with the op's count, not one elected thread (PTX ISA 9.1 9.7.13.15.13:
/// mbarrier.arrive counts one arrival per executing thread).
bool isPerThreadArrive(mlir::Operation &op);

} // namespace tlxsim::ir
