// Python source locations and variable names recovered from MLIR locations, and a kernel argument's divisibility.
//
// Triton writes `loc("file.py":line:col)` for each op, wraps it as `loc("var"(...))` when
// the result is bound to a Python variable, and as `loc(callsite(callee at caller))` for
// code inlined from a @jit function (partition bodies, Triton's own library such as
// `triton/language/standard.py`).
#pragma once

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace tlxsim::ir {

/// A file position; line and column are 1-based, 0 when unknown.
struct SourceLoc {
  std::string file;
  unsigned line = 0, col = 0;
  bool valid() const { return !file.empty() && line > 0; }
  /// `file:line:col`, or `<unknown>`.
  std::string str() const;
  bool operator==(const SourceLoc &) const = default;
};

/// The user-facing position of `loc`: walking a call-site chain from the innermost frame
/// outwards, the first frame outside Triton's own Python library (paths under `triton/`);
/// the innermost frame if all are inside it. Name and fused locations are looked through.
SourceLoc pythonLocation(mlir::Location loc);

/// The Python variable named by the outermost NameLoc of `loc` ("ready", "acc"), if any.
std::optional<std::string> variableName(mlir::Location loc);

/// The `tt.divisibility` of argument `i` of kernel `func` (its `arg_attrs`: Triton specializes an int divisible by
/// 16 so and compiles the kernel assuming it), if given.
std::optional<int64_t> argDivisibility(mlir::Operation *func, unsigned i);

} // namespace tlxsim::ir
