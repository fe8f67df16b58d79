// Register math sunk to its first use, as ptxas schedules it: the engine issues a partition's ops in program order,
// and a warp stalls on an operand that is not ready (a reduction over exp2 results still streaming from the SFUs).
// ptxas does not issue in TTGIR order: it places a computation's instructions near their first use, so that
// independent work issues while a long-latency result is produced (Gluon attention_fwd's running sum
// `l_i = l_i * alpha + sum(p)`: its tail among the P V HGMMAs, traces/h200/ncu/README.md). Moving pure register ops
// down to their first user in the same block does what the engine can, keeping every dependence. The module is
// reordered in place: every later reader of it (the checks, the reports) sees this order, which computes the same.
#include "sim/lowering/Lowerer.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tlxsim::sim::lowering {

namespace {

/// A pure register op on tensors from MLIR's own dialects (`arith`, `math`: elementwise math, SFU math included).
/// Triton's dialects are read as unregistered ops (ir/Dialects.cpp) without a side-effect interface, so their ops
/// (reductions, expand_dims / broadcast, converts) keep their TTGIR order. Measured 2026-12-05 (xcheck, H100):
/// sinking them too (by name) moved Gluon attention_fwd from +2 % to +9 % cycles against Nsight and the partitions'
/// max difference from 6.7 to 8.5 points: its row sum's first use is the running sum's update at the loop's end,
/// after the P @ V wait, where the SASS has it between the dot's issue and that wait (the place
/// lowering/AsyncIssue.cpp gives it, 2026-12-06); a reduction's result that goes through tt.expand_dims before its
/// consumer therefore still waits where the TTGIR (or AsyncIssue) puts it.
bool sinkable(Operation &op) {
  StringRef name = op.getName().getStringRef();
  if (!isRegisterTensorOp(name) || !op.isRegistered() || op.getNumResults() == 0 || !mlir::isMemoryEffectFree(&op))
    return false;
  for (mlir::Value r : op.getResults())
    if (!isa<mlir::RankedTensorType>(r.getType()))
      return false;
  return true;
}

} // namespace

void sinkRegisterOps(mlir::Block &block) {
  std::vector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) { // last first: a chain follows its sunk consumer down
    Operation &op = **it;
    if (!sinkable(op))
      continue;
    Operation *first = nullptr;
    for (mlir::Value r : op.getResults())
      for (Operation *user : r.getUsers())
        if (Operation *inBlock = block.findAncestorOpInBlock(*user); inBlock && (!first || inBlock->isBeforeInBlock(first)))
          first = inBlock;
    if (first && first != op.getNextNode())
      op.moveBefore(first);
  }
}

} // namespace tlxsim::sim::lowering
