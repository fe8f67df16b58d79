// Interpreter for the declarative op syntax of OpSyntax.h.
#include "ir/OpSyntax.h"
#include "ir/TypeSyntax.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <mutex>

using namespace mlir;

namespace tlxsim::ir {
namespace {

/// One operand, result or attribute declaration of a table entry.
struct Decl {
  enum Kind { One, Optional, Variadic } kind = One;
  std::string name;
  std::string fixedType; ///< "i1", "i32", "i64" or empty
  std::string sameAs;    ///< another group's name or empty
  std::string attrKind;  ///< attributes: "i32", "i64", "any" or "enum"
  llvm::SmallVector<std::string> enumValues;
};

/// One element of a compiled assembly format.
struct Elem {
  enum Kind { Literal, Var, AttrDict, AttrDictKw, TypeOf, FunctionalType, Group } kind;
  std::string text;
  std::vector<Elem> children;
};

struct CompiledSpec {
  std::vector<Decl> operands, attrs, results;
  std::vector<Elem> format;
  std::string error; ///< non-empty if the table entry itself is malformed
};

std::vector<Decl> parseDecls(llvm::StringRef text, bool isAttr) {
  std::vector<Decl> decls;
  llvm::SmallVector<llvm::StringRef> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef word : words) {
    Decl decl;
    auto [head, type] = word.split(':');
    auto [name, same] = head.split('=');
    if (name.ends_with("?")) {
      decl.kind = Decl::Optional;
      name = name.drop_back();
    } else if (name.ends_with("*")) {
      decl.kind = Decl::Variadic;
      name = name.drop_back();
    }
    decl.name = name.str();
    decl.sameAs = same.str();
    if (isAttr) {
      if (type.starts_with("enum(")) {
        decl.attrKind = "enum";
        llvm::SmallVector<llvm::StringRef> values;
        type.drop_front(5).drop_back().split(values, '|');
        for (llvm::StringRef value : values)
          decl.enumValues.push_back(value.str());
      } else {
        decl.attrKind = type.empty() ? "any" : type.str();
      }
    } else {
      decl.fixedType = type.str();
    }
    decls.push_back(std::move(decl));
  }
  return decls;
}

/// Compiles an assembly format; returns false (with `error`) on a malformed format.
bool compileFormat(llvm::StringRef &text, std::vector<Elem> &out, bool inGroup, std::string &error) {
  while (true) {
    text = text.ltrim();
    if (text.empty()) {
      if (inGroup)
        error = "unterminated optional group";
      return !inGroup;
    }
    if (text.consume_front("`")) {
      size_t end = text.find('`');
      out.push_back({Elem::Literal, text.substr(0, end).str(), {}});
      text = text.substr(end + 1);
    } else if (text.consume_front("attr-dict-with-keyword")) {
      out.push_back({Elem::AttrDictKw, "", {}});
    } else if (text.consume_front("attr-dict")) {
      out.push_back({Elem::AttrDict, "", {}});
    } else if (text.consume_front("functional-type(operands, results)")) {
      out.push_back({Elem::FunctionalType, "", {}});
    } else if (text.consume_front("type(")) {
      size_t end = text.find(')');
      llvm::StringRef name = text.substr(0, end);
      name.consume_front("$");
      out.push_back({Elem::TypeOf, name.str(), {}});
      text = text.substr(end + 1);
      text.consume_front("^");
    } else if (text.consume_front("$")) {
      size_t end = text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
      out.push_back({Elem::Var, text.substr(0, end).str(), {}});
      text = text.substr(end);
      text.consume_front("^");
    } else if (text.consume_front("(")) {
      Elem group{Elem::Group, "", {}};
      if (!compileFormat(text, group.children, true, error))
        return false;
      out.push_back(std::move(group));
    } else if (text.consume_front(")?")) {
      if (!inGroup) {
        error = "unbalanced ')?'";
        return false;
      }
      return true;
    } else {
      error = ("unexpected format text '" + text.take_front(12) + "'").str();
      return false;
    }
  }
}

const CompiledSpec &compile(const OpSpec &spec) {
  static std::mutex mutex;
  static llvm::DenseMap<const OpSpec *, std::unique_ptr<CompiledSpec>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto &slot = cache[&spec];
  if (!slot) {
    slot = std::make_unique<CompiledSpec>();
    slot->operands = parseDecls(spec.operands, false);
    slot->attrs = parseDecls(spec.attrs, true);
    slot->results = parseDecls(spec.results, false);
    if (spec.format) {
      llvm::StringRef text(spec.format);
      compileFormat(text, slot->format, false, slot->error);
    }
  }
  return *slot;
}

enum class Outcome { Ok, Absent, Error };

Outcome fromParse(ParseResult result) { return failed(result) ? Outcome::Error : Outcome::Ok; }
Outcome fromOptional(ParseResult result) { return failed(result) ? Outcome::Absent : Outcome::Ok; }

/// Parses a literal; with `optional` a missing literal is Absent rather than an error.
Outcome parseLiteral(OpAsmParser &parser, llvm::StringRef lit, bool optional) {
  if (lit == ",")
    return optional ? fromOptional(parser.parseOptionalComma()) : fromParse(parser.parseComma());
  if (lit == ":")
    return optional ? fromOptional(parser.parseOptionalColon()) : fromParse(parser.parseColon());
  if (lit == "->")
    return optional ? fromOptional(parser.parseOptionalArrow()) : fromParse(parser.parseArrow());
  if (lit == "[")
    return optional ? fromOptional(parser.parseOptionalLSquare()) : fromParse(parser.parseLSquare());
  if (lit == "]")
    return optional ? fromOptional(parser.parseOptionalRSquare()) : fromParse(parser.parseRSquare());
  if (lit == "(")
    return optional ? fromOptional(parser.parseOptionalLParen()) : fromParse(parser.parseLParen());
  if (lit == ")")
    return optional ? fromOptional(parser.parseOptionalRParen()) : fromParse(parser.parseRParen());
  if (lit == "{")
    return optional ? fromOptional(parser.parseOptionalLBrace()) : fromParse(parser.parseLBrace());
  if (lit == "}")
    return optional ? fromOptional(parser.parseOptionalRBrace()) : fromParse(parser.parseRBrace());
  if (lit == "=")
    return optional ? fromOptional(parser.parseOptionalEqual()) : fromParse(parser.parseEqual());
  if (lit == "*")
    return optional ? fromOptional(parser.parseOptionalStar()) : fromParse(parser.parseStar());
  if (lit == "<")
    return optional ? fromOptional(parser.parseOptionalLess()) : fromParse(parser.parseLess());
  if (lit == ">")
    return optional ? fromOptional(parser.parseOptionalGreater()) : fromParse(parser.parseGreater());
  return optional ? fromOptional(parser.parseOptionalKeyword(lit)) : fromParse(parser.parseKeyword(lit));
}

struct Interpreter {
  const OpSpec &spec;
  const CompiledSpec &compiled;
  OpAsmParser &parser;
  OperationState &state;
  llvm::StringMap<llvm::SmallVector<OpAsmParser::UnresolvedOperand>> operands;
  llvm::StringMap<llvm::SmallVector<Type>> types;
  bool haveFunctionalType = false;
  FunctionType functionalType;

  const Decl *find(const std::vector<Decl> &decls, llvm::StringRef name) {
    for (const Decl &decl : decls)
      if (decl.name == name)
        return &decl;
    return nullptr;
  }

  Outcome error(const llvm::Twine &message) {
    parser.emitError(parser.getCurrentLocation()) << message;
    return Outcome::Error;
  }

  Outcome parseOperandVar(const Decl &decl, bool optional) {
    auto &list = operands[decl.name];
    if (decl.kind == Decl::One && !optional)
      return fromParse(parser.parseOperand(list.emplace_back()));
    OpAsmParser::UnresolvedOperand operand;
    OptionalParseResult first = parser.parseOptionalOperand(operand);
    if (!first.has_value())
      return (optional || decl.kind == Decl::One) ? (optional ? Outcome::Absent : error("expected operand"))
                                                  : Outcome::Ok;
    if (failed(*first))
      return Outcome::Error;
    list.push_back(operand);
    if (decl.kind == Decl::Variadic) {
      while (succeeded(parser.parseOptionalComma()))
        if (parser.parseOperand(list.emplace_back()))
          return Outcome::Error;
    }
    return Outcome::Ok;
  }

  Outcome parseAttrVar(const Decl &decl, bool optional) {
    Builder &b = parser.getBuilder();
    if (decl.attrKind == "i32" || decl.attrKind == "i64") {
      int64_t value;
      if (optional) {
        OptionalParseResult r = parser.parseOptionalInteger(value);
        if (!r.has_value())
          return Outcome::Absent;
        if (failed(*r))
          return Outcome::Error;
      } else if (parser.parseInteger(value)) {
        return Outcome::Error;
      }
      state.addAttribute(decl.name, decl.attrKind == "i32" ? b.getI32IntegerAttr(value) : b.getI64IntegerAttr(value));
      return Outcome::Ok;
    }
    if (decl.attrKind == "enum") {
      llvm::SMLoc loc = parser.getCurrentLocation();
      std::string keyword;
      if (optional ? failed(parser.parseOptionalKeywordOrString(&keyword)) : failed(parser.parseKeywordOrString(&keyword)))
        return optional ? Outcome::Absent : Outcome::Error;
      for (size_t i = 0; i < decl.enumValues.size(); ++i)
        if (decl.enumValues[i] == keyword) {
          state.addAttribute(decl.name, b.getI32IntegerAttr(static_cast<int32_t>(i)));
          return Outcome::Ok;
        }
      parser.emitError(loc) << "unknown value '" << keyword << "' for '" << decl.name << "' of " << spec.name;
      return Outcome::Error;
    }
    Attribute attr;
    if (optional) {
      OptionalParseResult r = parser.parseOptionalAttribute(attr);
      if (!r.has_value())
        return Outcome::Absent;
      if (failed(*r))
        return Outcome::Error;
    } else if (parser.parseAttribute(attr)) {
      return Outcome::Error;
    }
    state.addAttribute(decl.name, attr);
    return Outcome::Ok;
  }

  /// Number of types a `type($name)` directive reads.
  int typeCount(llvm::StringRef name, bool &unbounded) {
    unbounded = false;
    if (const Decl *decl = find(compiled.operands, name))
      return decl->kind == Decl::One ? 1 : static_cast<int>(operands.lookup(name).size());
    if (const Decl *decl = find(compiled.results, name)) {
      if (decl->kind == Decl::One)
        return 1;
      if (!decl->sameAs.empty())
        return static_cast<int>(operands.lookup(decl->sameAs).size());
    }
    unbounded = true;
    return 0;
  }

  Outcome parseTypeOf(const Elem &elem) {
    bool unbounded;
    int count = typeCount(elem.text, unbounded);
    auto &list = types[elem.text];
    if (unbounded) {
      do {
        if (parser.parseType(list.emplace_back()))
          return Outcome::Error;
      } while (succeeded(parser.parseOptionalComma()));
      return Outcome::Ok;
    }
    for (int i = 0; i < count; ++i) {
      if (i > 0 && parser.parseComma())
        return Outcome::Error;
      if (parser.parseType(list.emplace_back()))
        return Outcome::Error;
    }
    return Outcome::Ok;
  }

  Outcome parseElem(const Elem &elem, bool optional) {
    switch (elem.kind) {
    case Elem::Literal:
      return parseLiteral(parser, elem.text, optional);
    case Elem::Var:
      if (const Decl *decl = find(compiled.operands, elem.text))
        return parseOperandVar(*decl, optional);
      if (const Decl *decl = find(compiled.attrs, elem.text))
        return parseAttrVar(*decl, optional);
      return error(llvm::Twine("internal: '$") + elem.text + "' is not declared for " + spec.name);
    case Elem::AttrDict:
      return fromParse(parser.parseOptionalAttrDict(state.attributes));
    case Elem::AttrDictKw:
      return fromParse(parser.parseOptionalAttrDictWithKeyword(state.attributes));
    case Elem::TypeOf:
      return parseTypeOf(elem);
    case Elem::FunctionalType:
      haveFunctionalType = true;
      return fromParse(parser.parseType(functionalType));
    case Elem::Group:
      return parseGroup(elem);
    }
    return Outcome::Error;
  }

  Outcome parseGroup(const Elem &group) {
    Outcome first = parseElem(group.children.front(), /*optional=*/true);
    if (first != Outcome::Ok)
      return first == Outcome::Absent ? Outcome::Ok : first;
    // An optional operand that was absent leaves its list empty: the group is absent.
    for (size_t i = 1; i < group.children.size(); ++i)
      if (parseElem(group.children[i], false) == Outcome::Error)
        return Outcome::Error;
    return Outcome::Ok;
  }

  Type fixedType(llvm::StringRef name) {
    Builder &b = parser.getBuilder();
    if (name == "i1")
      return b.getI1Type();
    if (name == "i32")
      return b.getI32Type();
    if (name == "i64")
      return b.getI64Type();
    return {};
  }

  /// Types of group `name` once known (operand or result group).
  llvm::SmallVector<Type> known(llvm::StringRef name) { return types.lookup(name); }

  ParseResult finish() {
    llvm::SMLoc loc = parser.getCurrentLocation();
    // Results first: operands may take their type from a result (`c=d`).
    size_t fnResult = 0;
    for (const Decl &decl : compiled.results) {
      llvm::SmallVector<Type> resultTypes = known(decl.name);
      if (resultTypes.empty() && types.count("results"))
        resultTypes = types.lookup("results");
      if (resultTypes.empty() && !decl.sameAs.empty())
        resultTypes = known(decl.sameAs);
      if (resultTypes.empty() && haveFunctionalType) {
        auto fnResults = functionalType.getResults();
        size_t n = decl.kind == Decl::Variadic ? fnResults.size() - fnResult : 1;
        for (size_t i = 0; i < n && fnResult < fnResults.size(); ++i)
          resultTypes.push_back(fnResults[fnResult++]);
      }
      if (resultTypes.empty() && decl.kind == Decl::One)
        return parser.emitError(loc) << "cannot determine the type of result '" << decl.name << "' of " << spec.name;
      types[decl.name] = resultTypes;
      state.addTypes(resultTypes);
    }
    size_t fnInput = 0;
    llvm::SmallVector<int32_t> segments;
    bool needSegments = false;
    for (const Decl &decl : compiled.operands) {
      auto list = operands.lookup(decl.name);
      needSegments |= decl.kind != Decl::One;
      segments.push_back(static_cast<int32_t>(list.size()));
      llvm::SmallVector<Type> operandTypes = known(decl.name);
      if (operandTypes.empty() && !decl.fixedType.empty())
        operandTypes.push_back(fixedType(decl.fixedType));
      if (operandTypes.empty() && !decl.sameAs.empty())
        operandTypes = known(decl.sameAs);
      if (operandTypes.empty() && haveFunctionalType) {
        for (size_t i = 0; i < list.size() && fnInput < functionalType.getNumInputs(); ++i)
          operandTypes.push_back(functionalType.getInput(fnInput++));
      }
      if (!list.empty() && operandTypes.empty())
        return parser.emitError(loc) << "cannot determine the type of operand '" << decl.name << "' of " << spec.name;
      while (operandTypes.size() < list.size())
        operandTypes.push_back(operandTypes.front());
      types[decl.name] = operandTypes;
      if (parser.resolveOperands(list, llvm::ArrayRef(operandTypes).take_front(list.size()), loc, state.operands))
        return failure();
    }
    if (needSegments)
      state.addAttribute("operandSegmentSizes", parser.getBuilder().getDenseI32ArrayAttr(segments));
    return success();
  }
};

} // namespace

ParseResult parseWithSpec(const OpSpec &spec, OpAsmParser &parser, OperationState &state) {
  const CompiledSpec &compiled = compile(spec);
  if (!compiled.error.empty())
    return parser.emitError(parser.getCurrentLocation())
           << "internal: malformed syntax table entry for " << spec.name << ": " << compiled.error;
  Interpreter interp{spec, compiled, parser, state, {}, {}, false, {}};
  for (const Elem &elem : compiled.format)
    if (interp.parseElem(elem, false) == Outcome::Error)
      return failure();
  return interp.finish();
}

std::optional<OperandRange> getOperandGroup(Operation *op, llvm::StringRef group) {
  const OpSpec *spec = lookupOpSpec(op->getName().getStringRef());
  if (!spec)
    return std::nullopt;
  const CompiledSpec &compiled = compile(*spec);
  auto segments = op->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
  unsigned start = 0;
  for (size_t i = 0; i < compiled.operands.size(); ++i) {
    const Decl &decl = compiled.operands[i];
    unsigned size = 1;
    if (segments && i < static_cast<size_t>(segments.size()))
      size = segments[i];
    else if (decl.kind != Decl::One)
      size = op->getNumOperands() - (compiled.operands.size() - 1); // the only non-single group
    if (decl.name == group) {
      if (start + size > op->getNumOperands())
        return std::nullopt;
      return op->getOperands().slice(start, size);
    }
    start += size;
  }
  return std::nullopt;
}

} // namespace tlxsim::ir
