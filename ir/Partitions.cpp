#include "ir/Partitions.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

namespace tlxsim::ir {

/// `name` of the enclosing module as an integer, `fallback` if absent.
static int64_t moduleInt(mlir::Operation &op, llvm::StringRef name, int64_t fallback) {
  auto module = op.getParentOfType<mlir::ModuleOp>();
  auto attr = module ? module->getAttrOfType<mlir::IntegerAttr>(name) : mlir::IntegerAttr();
  return attr ? attr.getInt() : fallback;
}

int64_t partitionThreads(mlir::Operation &op) {
  int64_t warps = moduleInt(op, "ttg.num-warps", 4);
  for (mlir::Operation *child = &op, *parent = op.getParentOp(); parent; child = parent, parent = parent->getParentOp())
    if (parent->getName().getStringRef() == "ttg.warp_specialize.partitions") {
      mlir::Region *region = child->getParentRegion();
      mlir::Operation *ws = parent->getParentOp();
      auto numWarps = ws ? ws->getAttrOfType<mlir::DenseI32ArrayAttr>("partitionNumWarps") : mlir::DenseI32ArrayAttr();
      if (numWarps && region && region->getRegionNumber() < numWarps.size())
        warps = numWarps[region->getRegionNumber()];
      break;
    }
  return warps * moduleInt(op, "ttg.threads-per-warp", 32);
}

bool isPerThreadArrive(mlir::Operation &op) {
  return op.getName().getStringRef() == "ttng.arrive_barrier" && op.hasAttr("perThread");
}

mlir::Operation *partitionCaptures(mlir::Operation *ws) {
  for (mlir::Region &region : ws->getRegions())
    for (mlir::Block &block : region)
      for (mlir::Operation &op : block)
        if (op.getName().getStringRef() == "ttg.warp_specialize.partitions" && op.getNumOperands() > 0)
          return &op;
  return ws;
}

mlir::Value capturedValue(mlir::Value v) {
  auto arg = mlir::dyn_cast<mlir::BlockArgument>(v);
  if (!arg)
    return v;
  mlir::Operation *parent = arg.getOwner()->getParentOp();
  if (!parent || parent->getName().getStringRef() != "ttg.warp_specialize.partitions" || !parent->getParentOp())
    return v;
  mlir::Operation *captures = partitionCaptures(parent->getParentOp());
  return arg.getArgNumber() < captures->getNumOperands() ? captures->getOperand(arg.getArgNumber()) : v;
}

} // namespace tlxsim::ir
