// Which Triton compiled a module: upstream Triton or fbtriton (Meta's fork with TLX), told apart by the module
// attributes each one's make_ttgir writes. The two lower some ops differently (shared-memory allocation, the
// bar.sync before an mbarrier arrive).
#pragma once

#include "mlir/IR/BuiltinOps.h"

namespace tlxsim::ir {

/// Whether `module` was compiled by fbtriton (3.7.4): its make_ttgir writes `tlx.*`, `ttg.cluster-dim-*`,
/// `ttg.*_reg_auto_ws` or `ttg.early_tma_store_lowering` module attributes, which upstream Triton 3.6 never
/// writes (the committed captures of both compilers).
bool compiledByFbtriton(mlir::ModuleOp module);

} // namespace tlxsim::ir
