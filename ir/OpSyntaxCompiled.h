// Compiled form of an op syntax table entry (OpSyntax.h): the declarations and the
// assembly format turned into data the interpreter (OpSyntaxParse.cpp) and the operand
// group lookup (OperandGroups.cpp) walk. Internal to ir/.
#pragma once

#include "ir/OpSyntax.h"

#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace tlxsim::ir::syntax {

/// One operand, result or attribute declaration of a table entry.
struct Decl {
  enum Kind { One, Optional, Variadic } kind = One;
  std::string name;
  std::string fixedType;    ///< "i1", "i16", "i32", "i64", "token" or empty
  std::string sameAs;       ///< another group's name or empty
  std::string strippedKind; ///< "memdesc", "tensordesc", "ptr" or empty
  std::string derive;       ///< with sameAs: "i1", "i32", "pointee", "elem", "ptrto", "elemptr", "baseptr" or empty
  std::string attrKind;     ///< attributes: "i32", "i64", "any", "enum", "unit", "dense_i32", "dense_i64"
  llvm::SmallVector<std::pair<std::string, int64_t>> enumValues;
};

/// One element of a compiled assembly format.
struct Elem {
  enum Kind {
    Literal,
    Var,
    AttrDict,
    AttrDictKw,
    TypeOf,        ///< text: a group name, "operands" or "results"
    FunctionalType,
    Group,         ///< optional group: children
    OIList,        ///< children: one Group per clause
    Operands,      ///< the `operands` directive
    Custom,        ///< text: directive name; args: its `$x` / `type($x)` arguments
  } kind;
  std::string text;
  std::vector<Elem> children;
  std::vector<std::string> args;
};

struct CompiledSpec {
  std::vector<Decl> operands, attrs, results;
  std::vector<std::string> regions;
  std::vector<Elem> format;
  bool forceSegments = false;
  bool sameVariadicSize = false; ///< ODS SameVariadicOperandSize: no segment sizes, equal groups
  std::string error; ///< non-empty if the table entry itself is malformed
};

/// The compiled form of `spec`, built once and cached (thread-safe). A malformed entry
/// yields a CompiledSpec whose `error` says why.
const CompiledSpec &compile(const OpSpec &spec);

/// Finds the declaration named `name` in `decls`, or nullptr.
const Decl *findDecl(const std::vector<Decl> &decls, llvm::StringRef name);

} // namespace tlxsim::ir::syntax
