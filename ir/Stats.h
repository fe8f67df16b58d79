// Op statistics of a module read by the reader (`tlx-sim ir --stats`).
#pragma once

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <set>
#include <string>

namespace tlxsim::ir {

struct OpStats {
  std::map<std::string, int64_t> counts; ///< op name -> occurrences
  /// Ops the reader does not know: neither registered upstream MLIR ops nor in the Triton
  /// op table (they were read in generic form and are kept as-is).
  std::set<std::string> unknown;
  int64_t total = 0;
};

OpStats collectOpStats(mlir::ModuleOp module);

} // namespace tlxsim::ir
