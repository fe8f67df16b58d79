#include "ir/Stats.h"

#include "ir/OpSyntax.h"

namespace tlxsim::ir {

OpStats collectOpStats(mlir::ModuleOp module) {
  OpStats stats;
  module->walk([&](mlir::Operation *op) {
    if (op == module.getOperation())
      return;
    std::string name = op->getName().getStringRef().str();
    ++stats.counts[name];
    ++stats.total;
    // The partitions holder is part of ttg.warp_specialize's structure, never printed.
    if (!op->isRegistered() && !lookupOpSpec(name) && name != "ttg.warp_specialize.partitions")
      stats.unknown.insert(name);
  });
  return stats;
}

} // namespace tlxsim::ir
