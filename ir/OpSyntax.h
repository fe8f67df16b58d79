// Declarative syntax of Triton ops: one table entry per op, read by the shim dialects'
// parse hooks and by everyone who needs an operand by its Triton name.
//
// An entry mirrors the op's ODS definition in Triton 3.6, fbtriton 3.7 and Triton 3.9 (the union
// of their arguments, results and `assemblyFormat`), written in a subset of ODS's format language:
//   `lit`              a literal (punctuation or keyword); `` (empty) is a spacing hint
//   $name              an operand group, a positional attribute or a region
//   ( ... )?           an optional group; present if its first element is (ODS's `^`
//                      anchors are accepted and ignored)
//   oilist(a | b ...)  clauses in any order, each at most once; each starts with a literal
//   attr-dict, attr-dict-with-keyword
//   type($name), type(operands), type(results), qualified(...)
//                      the type(s) of a group; `qualified` is accepted and ignored (the
//                      parser reads `!ttg.memdesc<...>` and its stripped form `<...>`)
//   functional-type(operands, results)  (any spelling of the two arguments)
//   operands           every operand, comma separated
//   custom<Name>(...)  a directive of Triton's C++ (Token, BarriersAndPreds, Offsets), or tlx-sim's
//                      LeadingType(type($a), type($b)): `B` or `A -> B` (a syntax two versions differ in)
//
// Operand and result declarations, space separated, in ODS order:
//   name               exactly one value
//   name?              an optional value (Optional<...>)
//   name*              a variadic group (Variadic<...>)
//   name:T             a type that is never printed: i1, i16, i32, i64, token (!ttg.async.token)
//   name=other         the same type(s) as group `other`
//   name=other~F       derived from group `other` as ODS's TypesMatchWith does: F = i1 or
//                      i32 (same shape, that element type), pointee (of a pointer or a
//                      tensor of pointers), elem (tensor element), ptrto (pointer to the
//                      element, same shape), elemptr (scalar pointer to the element), baseptr (!tt.ptr<T> from !tt.ptr<tensor<..xT>>)
//   name!K             printed stripped: type($name) may be written `<...>` for K = memdesc,
//                      tensordesc or ptr (ODS prints a TypeDef without its prefix unless
//                      `qualified`)
// A leading `~` on the operand list marks ODS SameVariadicOperandSize (no segment sizes;
// the variadic groups have equal sizes). A leading `+` forces `operandSegmentSizes` (ODS AttrSizedOperandSegments
// with a single non-single group); it is otherwise added exactly when ODS requires it
// (more than one optional or variadic group).
//
// Attribute declarations (attributes written positionally in the format; the rest go
// through attr-dict):
//   name:i32 / name:i64            an integer printed bare (`4`), stored as IntegerAttr
//   name:enum(a=1|b=2|c)           an I32EnumAttr printed as its keyword; stored as the
//                                  i32 value (values default to the previous one plus 1)
//   name:unit                      a UnitAttr (present when its optional group is)
//   name:dense_i32 / name:dense_i64  a DenseI{32,64}ArrayAttr printed stripped: `[1, 2]`
//   name:any                       any attribute (strings, bools, arrays, ...)
#pragma once

#include "mlir/IR/Operation.h"

#include <optional>

namespace tlxsim::ir {

/// A hand-written parser for an op whose syntax the format language cannot express.
using CustomParser = mlir::ParseResult (*)(mlir::OpAsmParser &, mlir::OperationState &);

/// One op of the table. All strings are static.
struct OpSpec {
  const char *name;              ///< full op name, e.g. "ttng.wait_barrier"
  const char *operands;          ///< operand groups in ODS order
  const char *attrs;             ///< attributes written positionally in the format
  const char *results;           ///< result groups
  const char *format;            ///< assembly format; nullptr for generic-only or custom ops
  CustomParser custom = nullptr; ///< hand-written parser (CustomOps.h), used when format is null
  const char *regions = "";      ///< region names in ODS order (for `$region` in formats)
};

/// The entry for `opName`, or nullptr for an op the table does not know.
const OpSpec *lookupOpSpec(llvm::StringRef opName);

/// All entries (for tests and `tlx-sim ir --list-ops`).
llvm::ArrayRef<OpSpec> allOpSpecs();

/// Why the entry `spec` is malformed (its declarations or format do not compile), or
/// an empty string when it is well formed.
std::string checkOpSpec(const OpSpec &spec);

/// The operands of the group named `group` of `op`, following the table entry and the
/// op's `operandSegmentSizes`; std::nullopt if the op or the group is unknown.
std::optional<mlir::OperandRange> getOperandGroup(mlir::Operation *op, llvm::StringRef group);

/// Parses `op` written with the table entry `spec` into `state` (OpAsmParser hook).
mlir::ParseResult parseWithSpec(const OpSpec &spec, mlir::OpAsmParser &parser, mlir::OperationState &state);

} // namespace tlxsim::ir
