// The bar.sync that Triton's shared-memory barrier analysis puts after an mbarrier arrive (Lowerer::membarSyncs).
#include "sim/lowering/Lowerer.h"

namespace tlxsim::sim::lowering {

namespace {

/// Whether Triton's ODS gives `name` a memory effect on shared memory (MemRead / MemWrite on SharedMemory):
/// barrier ops, shared loads and stores, TMA and cp.async copies, and the MMAs that read shared operands. Views
/// (memdesc_index, subslices), fences and register ops have none; ops that need scratch (layout conversions,
/// cross-warp reductions) are left out: the barrier then lands on the next op listed here, at the same cost.
bool touchesShared(Operation &op) {
  StringRef name = op.getName().getStringRef();
  if (name == "ttg.local_alloc") // with an initial value it writes the buffer; without, it only allocates
    return op.getNumOperands() > 0;
  return llvm::is_contained(
      {"ttng.init_barrier", "ttng.inval_barrier", "ttng.barrier_expect", "ttng.wait_barrier", "ttng.arrive_barrier",
       "ttg.local_load", "ttg.local_store", "ttng.async_tma_copy_global_to_local",
       "ttng.async_tma_copy_local_to_global", "ttng.async_tma_reduce", "ttng.async_tma_gather",
       "ttng.async_tma_scatter", "ttg.async_copy_global_to_local", "ttng.warp_group_dot", "ttng.tc_gen5_mma",
       "ttng.tc_gen5_mma_scaled", "ttng.tmem_copy"},
      name);
}

/// Whether `op` is an execution barrier of the partition's warps, which completes every shared-memory access
/// before it (Membar's own gpu.barrier, ttg.barrier / local_barrier, a named bar.sync; a named bar.arrive does not
/// wait, so it orders nothing for the arriving warps). The names lowering/NamedBarrier.cpp lowers.
bool isExecutionBarrier(StringRef name) {
  return llvm::is_contained({"gpu.barrier", "ttg.barrier", "ttg.local_barrier", "ttng.wait_barrier_named"}, name);
}

/// The forward walk: `pending` is "an arrive since the last barrier" on entry; returns it on exit and adds the
/// ops that get a barrier to `out` when `record`.
bool walkRegion(Region &region, bool pending, llvm::DenseSet<const Operation *> &out, bool record);

bool walkOp(Operation &op, bool pending, llvm::DenseSet<const Operation *> &out, bool record) {
  StringRef name = op.getName().getStringRef();
  if (name == "ttg.warp_specialize") {
    // The default region goes on from here; each worker partition is its own function body (fresh state).
    for (unsigned i = 0; i < op.getNumRegions(); ++i) {
      Region &r = op.getRegion(i);
      if (i == 0)
        pending = walkRegion(r, pending, out, record);
      else
        for (Operation &partitions : r.getOps())
          for (Region &part : partitions.getRegions())
            walkRegion(part, false, out, record);
    }
    return pending;
  }
  if (name == "scf.for" || name == "scf.while") {
    auto body = [&](bool in, bool rec) {
      for (Region &r : op.getRegions())
        in = walkRegion(r, in, out, rec);
      return in;
    };
    // The loop's entry state joins the state before it with the body's end (the back edge). The state is one
    // boolean and the join an `or`, so one pass from the state before the loop reaches the fixed point.
    bool entry = pending || body(pending, /*rec=*/false);
    bool end = body(entry, record);
    return entry || end; // zero trips leave the state before the loop
  }
  if (name == "scf.if") {
    bool any = false;
    bool hasElse = op.getNumRegions() > 1 && !op.getRegion(1).empty();
    for (Region &r : op.getRegions())
      if (!r.empty())
        any = walkRegion(r, pending, out, record) || any;
    return any || (!hasElse && pending);
  }
  if (isExecutionBarrier(name))
    return false;
  if (touchesShared(op)) {
    if (pending && record)
      out.insert(&op);
    pending = false;
  }
  return pending || name == "ttng.arrive_barrier";
}

bool walkRegion(Region &region, bool pending, llvm::DenseSet<const Operation *> &out, bool record) {
  for (mlir::Block &block : region)
    for (Operation &op : block)
      pending = walkOp(op, pending, out, record);
  return pending;
}

} // namespace

llvm::DenseSet<const Operation *> Lowerer::membarSyncs(Operation *func) {
  llvm::DenseSet<const Operation *> out;
  for (Region &r : func->getRegions())
    walkRegion(r, false, out, /*record=*/true);
  return out;
}

} // namespace tlxsim::sim::lowering
