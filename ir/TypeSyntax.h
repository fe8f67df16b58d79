// Parsing and printing of Triton types and encodings inside the shim dialects (internal).
#pragma once

#include "mlir/IR/DialectImplementation.h"

namespace tlxsim::ir {

/// Parses the body of `!<dialect>.<mnemonic>...` for a Triton type; emits an error naming
/// the construct (and the Triton version tlx-sim reads) for unknown mnemonics.
mlir::Type parseTritonType(llvm::StringRef dialect, mlir::DialectAsmParser &parser);
void printTritonType(mlir::Type type, mlir::DialectAsmPrinter &printer);
/// Parses the stripped form `<...>` of a Triton type of kind `kind` ("memdesc",
/// "tensordesc" or "ptr"), as ODS prints `type($x)` without `qualified`.
mlir::Type parseStrippedTritonType(llvm::StringRef kind, mlir::AsmParser &parser);
/// Parses `#<dialect>.<mnemonic>[<{k = v, ...}[, k = v]> | <k = v, ...> | <[i:+p] {...}>]` into an
/// EncodingAttr; unknown mnemonics are an error naming the construct and the Triton version.
mlir::Attribute parseEncodingAttr(llvm::StringRef dialect, mlir::DialectAsmParser &parser);
void printEncodingAttr(mlir::Attribute attr, mlir::DialectAsmPrinter &printer);

/// The Triton releases whose TTGIR syntax this reader follows; named in every
/// "unsupported construct" error.
inline constexpr const char *kTritonVersion = "3.6, fbtriton 3.7 and Triton 3.9";

} // namespace tlxsim::ir
