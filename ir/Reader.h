// Reading TTGIR text into an MLIR module.
#pragma once

#include "ir/InputPath.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace tlxsim::ir {

/// Reads the TTGIR at `path` (a `.ttgir` file in pretty or generic form, or a Triton cache
/// directory holding exactly one `.ttgir`) into a verified module of `ctx` (see
/// Dialects.h). Diagnostics go to `diag` as `file:line:col: error: ...` with the source
/// line; returns null on any error (unreadable file, syntax, unknown construct, failed
/// verification). Never aborts on malformed input.
mlir::OwningOpRef<mlir::ModuleOp> readTTGIR(llvm::StringRef path, mlir::MLIRContext &ctx, llvm::raw_ostream &diag);

/// Reads TTGIR text held in memory; `name` is the file name diagnostics use.
mlir::OwningOpRef<mlir::ModuleOp> readTTGIRText(llvm::StringRef text, llvm::StringRef name, mlir::MLIRContext &ctx,
                                                llvm::raw_ostream &diag);

/// Like readTTGIR for a file holding several modules separated by `// -----` lines (as
/// `mlir-opt --split-input-file`); each chunk keeps its line numbers in the whole file.
/// Every chunk is read and diagnosed; the result is empty if any chunk fails.
std::vector<mlir::OwningOpRef<mlir::ModuleOp>> readTTGIRSplit(llvm::StringRef path, mlir::MLIRContext &ctx,
                                                               llvm::raw_ostream &diag);

} // namespace tlxsim::ir
