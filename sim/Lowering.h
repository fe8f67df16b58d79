// Lowering of a TTGIR module (read by ir/) to the simulator's Program.
#pragma once

#include "sim/Program.h"

#include "llvm/Support/Error.h"

namespace mlir {
class ModuleOp;
}

namespace tlxsim::sim {

/// The kernel is well-formed but uses something the simulator cannot execute yet (an op
/// that signals barriers or holds synchronization in its regions without simulator
/// semantics, multi-block control flow). The tool exits 3 on it: the input is fine, the
/// tool is not there yet.
class UnsupportedError : public llvm::ErrorInfo<UnsupportedError> {
public:
  static char ID;
  explicit UnsupportedError(std::string message) : message_(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message_; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  std::string message_;
};

/// Lowers the public `tt.func` of `module`. Op semantics (which operand is the barrier,
/// what a TMA box costs in bytes, FLOPs of a wgmma) are decided here, once, from the op
/// table of ir/OpSyntax.h. Ops without semantics become Op::Unknown (reported when
/// executed). Fails on a module without a kernel, a malformed kernel or op, and with an
/// UnsupportedError where skipping an op would make the simulation wrong.
llvm::Expected<Program> lowerModule(mlir::ModuleOp module);

} // namespace tlxsim::sim
