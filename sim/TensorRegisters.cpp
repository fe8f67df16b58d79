#include "sim/TensorRegisters.h"

#include "ir/Cga.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;

namespace tlxsim::sim {

int64_t threadsRunning(Operation *op, int32_t baseWarps, int32_t threadsPerWarp) {
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp()) {
    if (parent->getName().getStringRef() != "ttg.warp_specialize.partitions")
      continue;
    auto ws = parent->getParentOp();
    auto warps = ws ? ws->getAttrOfType<DenseI32ArrayAttr>("partitionNumWarps") : DenseI32ArrayAttr();
    Region *region = op->getParentRegion();
    while (region && region->getParentOp() != parent)
      region = region->getParentOp()->getParentRegion();
    if (warps && region && region->getRegionNumber() < warps.size())
      return int64_t(warps[region->getRegionNumber()]) * threadsPerWarp;
  }
  return int64_t(baseWarps) * threadsPerWarp;
}

int64_t tensorRegisters(Type type, int64_t threads) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isIntOrFloat() || threads <= 0)
    return 0;
  int64_t bits = ir::elementsPerCta(tensor) * std::max<int64_t>(tensor.getElementTypeBitWidth(), 8);
  return llvm::divideCeil(bits, 32 * threads);
}

int64_t peakLiveTensorRegisters(ModuleOp module, int32_t baseWarps, int32_t threadsPerWarp) {
  // ops numbered in program order; `last`: the highest number inside an op (its nested regions included)
  llvm::DenseMap<Operation *, int64_t> index, last;
  int64_t count = 0;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) { index[op] = count++; });
  module.walk<WalkOrder::PostOrder>([&](Operation *op) {
    int64_t end = index[op];
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &inner : block)
          end = std::max(end, last[&inner]);
    last[op] = end;
  });
  std::vector<int64_t> delta(count + 1, 0);
  auto liveRange = [&](Value value, Operation *definer) {
    int64_t start = index[definer], end = start;
    Block *block = value.getParentBlock();
    for (OpOperand &use : value.getUses()) {
      Operation *ancestor = block ? block->findAncestorOpInBlock(*use.getOwner()) : nullptr;
      if (ancestor)
        end = std::max(end, ancestor == use.getOwner() ? index[ancestor] : last[ancestor]);
    }
    int64_t regs = tensorRegisters(value.getType(), threadsRunning(definer, baseWarps, threadsPerWarp));
    if (Operation *op = value.getDefiningOp()) {
      StringRef name = op->getName().getStringRef();
      if (name == "tt.splat" || name == "arith.constant" || name == "tt.broadcast" || name == "tt.expand_dims" ||
          name == "tt.make_range")
        regs = std::min<int64_t>(regs, 1);
    }
    if (regs > 0 && end > start) {
      delta[start] += regs;
      delta[end] -= regs;
    }
  };
  module.walk([&](Operation *op) {
    for (Value result : op->getResults())
      liveRange(result, op);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          liveRange(arg, op);
  });
  int64_t live = 0, peak = 0;
  for (int64_t d : delta)
    peak = std::max(peak, live += d);
  return peak;
}

} // namespace tlxsim::sim
