#include "ir/Compiler.h"

namespace tlxsim::ir {

bool compiledByFbtriton(mlir::ModuleOp module) {
  for (mlir::NamedAttribute attr : module->getAttrs()) {
    llvm::StringRef name = attr.getName().getValue();
    if (name.starts_with("tlx.") || name.starts_with("ttg.cluster-dim-") || name.ends_with("_reg_auto_ws") ||
        name == "ttg.early_tma_store_lowering")
      return true;
  }
  return false;
}

} // namespace tlxsim::ir
