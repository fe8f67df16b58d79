// Declarative syntax of Triton ops: one table entry per op, read by the shim dialects'
// parse hooks and by everyone who needs an operand by its Triton name.
//
// An entry mirrors the op's ODS definition in Triton 3.6 (arguments, results and
// `assemblyFormat`), written in a subset of ODS's format language:
//   `lit`            a literal (punctuation or keyword)
//   $name            an operand group or a positional attribute
//   ( ... )?         an optional group; present if its first element is
//   attr-dict, attr-dict-with-keyword
//   type($name)      the type(s) of an operand or result group
//   functional-type(operands, results)
// Operand groups: `name` (one), `name?` (optional), `name*` (variadic); a suffix `:T`
// gives a type that is never printed (i1, i32, i64), `=other` the type of another group.
// Attributes: `name:i32`, `name:i64`, `name:enum(a|b|c)` (stored as the i32 index), `name:any`.
#pragma once

#include "mlir/IR/Operation.h"

#include <optional>

namespace tlxsim::ir {

/// A hand-written parser for an op whose syntax the format language cannot express.
using CustomParser = mlir::ParseResult (*)(mlir::OpAsmParser &, mlir::OperationState &);

/// One op of the table. All strings are static.
struct OpSpec {
  const char *name;             ///< full op name, e.g. "ttng.wait_barrier"
  const char *operands;         ///< operand groups in ODS order
  const char *attrs;            ///< attributes written positionally in the format
  const char *results;          ///< result groups
  const char *format;           ///< assembly format; nullptr when `custom` parses the op
  CustomParser custom = nullptr; ///< hand-written parser (CustomOps.h), used when format is null
};

/// The entry for `opName`, or nullptr for an op the table does not know.
const OpSpec *lookupOpSpec(llvm::StringRef opName);

/// All entries (for tests and `tlx-sim ir --list-ops`).
llvm::ArrayRef<OpSpec> allOpSpecs();

/// The operands of the group named `group` of `op`, following the table entry and the
/// op's `operandSegmentSizes`; std::nullopt if the op or the group is unknown.
std::optional<mlir::OperandRange> getOperandGroup(mlir::Operation *op, llvm::StringRef group);

/// Parses `op` written with the table entry `spec` into `state` (OpAsmParser hook).
mlir::ParseResult parseWithSpec(const OpSpec &spec, mlir::OpAsmParser &parser, mlir::OperationState &state);

} // namespace tlxsim::ir
