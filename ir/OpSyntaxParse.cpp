// Interpreter of a compiled op syntax table entry: parses an op written in the entry's
// assembly format through MLIR's OpAsmParser (OpSyntax.h: parseWithSpec).
#include "ir/OpSyntaxCompiled.h"
#include "ir/TypeSyntax.h"
#include "ir/Types.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace tlxsim::ir {
namespace {

using namespace syntax;

enum class Outcome { Ok, Absent, Error };

Outcome fromParse(ParseResult result) { return failed(result) ? Outcome::Error : Outcome::Ok; }
Outcome fromOptional(ParseResult result) { return failed(result) ? Outcome::Absent : Outcome::Ok; }

/// Parses a literal; with `optional` a missing literal is Absent rather than an error.
Outcome parseLiteral(OpAsmParser &parser, llvm::StringRef lit, bool optional) {
#define TLXSIM_PUNCT(TEXT, NAME)                                                                                       \
  if (lit == TEXT)                                                                                                     \
    return optional ? fromOptional(parser.parseOptional##NAME()) : fromParse(parser.parse##NAME());
  TLXSIM_PUNCT(",", Comma)
  TLXSIM_PUNCT(":", Colon)
  TLXSIM_PUNCT("->", Arrow)
  TLXSIM_PUNCT("[", LSquare)
  TLXSIM_PUNCT("]", RSquare)
  TLXSIM_PUNCT("(", LParen)
  TLXSIM_PUNCT(")", RParen)
  TLXSIM_PUNCT("{", LBrace)
  TLXSIM_PUNCT("}", RBrace)
  TLXSIM_PUNCT("=", Equal)
  TLXSIM_PUNCT("*", Star)
  TLXSIM_PUNCT("<", Less)
  TLXSIM_PUNCT(">", Greater)
  TLXSIM_PUNCT("?", Question)
  TLXSIM_PUNCT("+", Plus)
  TLXSIM_PUNCT("|", VerticalBar)
#undef TLXSIM_PUNCT
  return optional ? fromOptional(parser.parseOptionalKeyword(lit)) : fromParse(parser.parseKeyword(lit));
}

struct Interpreter {
  const OpSpec &spec;
  const CompiledSpec &compiled;
  OpAsmParser &parser;
  OperationState &state;
  llvm::StringMap<llvm::SmallVector<OpAsmParser::UnresolvedOperand>> operands;
  llvm::StringMap<llvm::SmallVector<Type>> types;
  llvm::SmallVector<OpAsmParser::UnresolvedOperand> flatOperands; ///< from the `operands` directive
  llvm::SmallVector<Type> allOperandTypes, allResultTypes;       ///< type(operands), type(results)
  bool haveAllOperandTypes = false, haveAllResultTypes = false;
  bool haveFunctionalType = false;
  FunctionType functionalType;
  std::vector<std::unique_ptr<Region>> parsedRegions;
  llvm::StringMap<size_t> regionIndex;

  Interpreter(const OpSpec &spec, const CompiledSpec &compiled, OpAsmParser &parser, OperationState &state)
      : spec(spec), compiled(compiled), parser(parser), state(state) {}

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
    if (!first.has_value()) {
      if (optional)
        return Outcome::Absent;
      return decl.kind == Decl::One ? error("expected operand") : Outcome::Ok;
    }
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

  /// `[1, 2]` (a DenseI{32,64}ArrayAttr printed stripped).
  Outcome parseIntList(llvm::SmallVector<int64_t> &values, bool optional) {
    if (optional ? failed(parser.parseOptionalLSquare()) : failed(parser.parseLSquare()))
      return optional ? Outcome::Absent : Outcome::Error;
    if (succeeded(parser.parseOptionalRSquare()))
      return Outcome::Ok;
    do {
      if (parser.parseInteger(values.emplace_back()))
        return Outcome::Error;
    } while (succeeded(parser.parseOptionalComma()));
    return fromParse(parser.parseRSquare());
  }

  Outcome parseAttrVar(const Decl &decl, bool optional) {
    Builder &b = parser.getBuilder();
    if (decl.attrKind == "unit") {
      // A unit attribute is written as nothing but the literal anchoring its group.
      state.addAttribute(decl.name, b.getUnitAttr());
      return Outcome::Ok;
    }
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
    if (decl.attrKind == "dense_i32" || decl.attrKind == "dense_i64") {
      llvm::SmallVector<int64_t> values;
      Outcome outcome = parseIntList(values, optional);
      if (outcome != Outcome::Ok)
        return outcome;
      if (decl.attrKind == "dense_i64") {
        state.addAttribute(decl.name, b.getDenseI64ArrayAttr(values));
      } else {
        llvm::SmallVector<int32_t> narrow(values.begin(), values.end());
        state.addAttribute(decl.name, b.getDenseI32ArrayAttr(narrow));
      }
      return Outcome::Ok;
    }
    if (decl.attrKind == "enum") {
      llvm::SMLoc loc = parser.getCurrentLocation();
      std::string keyword;
      if (optional ? failed(parser.parseOptionalKeywordOrString(&keyword)) : failed(parser.parseKeywordOrString(&keyword)))
        return optional ? Outcome::Absent : Outcome::Error;
      for (const auto &[name, value] : decl.enumValues)
        if (name == keyword) {
          state.addAttribute(decl.name, b.getI32IntegerAttr(static_cast<int32_t>(value)));
          return Outcome::Ok;
        }
      std::string expected;
      for (const auto &[name, value] : decl.enumValues)
        expected += (expected.empty() ? "" : ", ") + name;
      parser.emitError(loc) << "unknown value '" << keyword << "' for '" << decl.name << "' of " << spec.name
                            << " (expected one of: " << expected << ")";
      return Outcome::Error;
    }
    // As ODS does for a positional attribute: no trailing `: type` (that colon belongs
    // to the format, e.g. `tt.assert %c, "msg" : i1`).
    Attribute attr;
    Type none = b.getNoneType();
    if (optional) {
      OptionalParseResult r = parser.parseOptionalAttribute(attr, none);
      if (!r.has_value())
        return Outcome::Absent;
      if (failed(*r))
        return Outcome::Error;
    } else if (parser.parseAttribute(attr, none)) {
      return Outcome::Error;
    }
    state.addAttribute(decl.name, attr);
    return Outcome::Ok;
  }

  /// Number of types a `type($name)` directive reads; `unbounded` when not known yet.
  int typeCount(llvm::StringRef name, bool &unbounded) {
    unbounded = false;
    if (const Decl *decl = find(compiled.operands, name))
      return decl->kind == Decl::One ? 1 : static_cast<int>(operands.lookup(name).size());
    if (const Decl *decl = find(compiled.results, name)) {
      if (decl->kind == Decl::One)
        return 1;
      if (!decl->sameAs.empty() && find(compiled.operands, decl->sameAs))
        return static_cast<int>(operands.lookup(decl->sameAs).size());
    }
    unbounded = true;
    return 0;
  }

  const Decl *declOf(llvm::StringRef name) {
    if (const Decl *decl = find(compiled.operands, name))
      return decl;
    return find(compiled.results, name);
  }

  /// A type, accepting the stripped form `<...>` of a Triton TypeDef for kind `kind`.
  ParseResult parseOneType(llvm::StringRef kind, Type &type) {
    if (parser.getCurrentLocation().getPointer() && *parser.getCurrentLocation().getPointer() == '<') {
      type = parseStrippedTritonType(kind, parser);
      return success(static_cast<bool>(type));
    }
    return parser.parseType(type);
  }

  /// Whether the next token can start a type (used for optional unbounded lists).
  bool atType() {
    const char *p = parser.getCurrentLocation().getPointer();
    if (!p)
      return false;
    char c = *p;
    return c == '!' || c == '<' || c == '(' || llvm::isAlpha(c);
  }

  Outcome parseTypeList(llvm::SmallVector<Type> &list, llvm::StringRef kind, bool optional) {
    if (optional && !atType())
      return Outcome::Absent;
    do {
      if (parseOneType(kind, list.emplace_back()))
        return Outcome::Error;
    } while (succeeded(parser.parseOptionalComma()));
    return Outcome::Ok;
  }

  Outcome parseTypeOf(const Elem &elem, bool optional) {
    if (elem.text == "operands" || elem.text == "results") {
      auto &list = elem.text == "operands" ? allOperandTypes : allResultTypes;
      (elem.text == "operands" ? haveAllOperandTypes : haveAllResultTypes) = true;
      // The operands' count is known: read exactly that many.
      if (elem.text == "operands") {
        size_t count = 0;
        for (const Decl &decl : compiled.operands)
          count += decl.kind == Decl::One ? 1 : operands.lookup(decl.name).size();
        count += flatOperands.size();
        for (size_t i = 0; i < count; ++i) {
          if (i > 0 && parser.parseComma())
            return Outcome::Error;
          if (parseOneType("", list.emplace_back()))
            return Outcome::Error;
        }
        return Outcome::Ok;
      }
      return parseTypeList(list, "", optional);
    }
    const Decl *decl = declOf(elem.text);
    llvm::StringRef kind = decl ? llvm::StringRef(decl->strippedKind) : "";
    bool unbounded;
    int count = typeCount(elem.text, unbounded);
    auto &list = types[elem.text];
    if (unbounded)
      return parseTypeList(list, kind, optional);
    if (count == 0)
      return optional ? Outcome::Absent : Outcome::Ok;
    for (int i = 0; i < count; ++i) {
      if (i > 0 && parser.parseComma())
        return Outcome::Error;
      if (parseOneType(kind, list.emplace_back()))
        return Outcome::Error;
    }
    return Outcome::Ok;
  }

  Outcome parseCustom(const Elem &elem, bool optional) {
    Builder &b = parser.getBuilder();
    if (elem.text == "Token") {
      // custom<Token>($dep, type($token)): `[` [%dep] `]` when the op yields a token.
      if (failed(parser.parseOptionalLSquare()))
        return optional ? Outcome::Absent : Outcome::Ok;
      OpAsmParser::UnresolvedOperand dep;
      OptionalParseResult r = parser.parseOptionalOperand(dep);
      if (r.has_value()) {
        if (failed(*r))
          return Outcome::Error;
        operands[elem.args[0]].push_back(dep);
        types[elem.args[0]] = {AsyncTokenType::get(parser.getContext())};
      }
      if (parser.parseRSquare())
        return Outcome::Error;
      types[elem.args[1]] = {AsyncTokenType::get(parser.getContext())};
      return Outcome::Ok;
    }
    if (elem.text == "BarriersAndPreds") {
      // custom<BarriersAndPreds>($barriers, $barrier_preds): (`,` %bar `[` %pred `]`)*
      auto &barriers = operands[elem.args[0]];
      auto &preds = operands[elem.args[1]];
      bool any = false;
      while (succeeded(parser.parseOptionalComma())) {
        any = true;
        if (parser.parseOperand(barriers.emplace_back()) || parser.parseLSquare() ||
            parser.parseOperand(preds.emplace_back()) || parser.parseRSquare())
          return Outcome::Error;
      }
      types[elem.args[1]].assign(preds.size(), b.getI1Type());
      return optional && !any ? Outcome::Absent : Outcome::Ok;
    }
    if (elem.text == "LeadingType") {
      // custom<LeadingType>(type($a), type($b)): `B` (Triton 3.6) or `A -> B` (3.9 also prints the pointer
      // type of amdg.buffer_load/buffer_store); a missing `A` is derived from its declaration.
      Type first;
      if (parseOneType("", first))
        return Outcome::Error;
      if (failed(parser.parseOptionalArrow())) {
        types[elem.args[1]] = {first};
        return Outcome::Ok;
      }
      Type second;
      if (parseOneType("", second))
        return Outcome::Error;
      types[elem.args[0]] = {first};
      types[elem.args[1]] = {second};
      return Outcome::Ok;
    }
    if (elem.text == "Offsets") {
      // custom<Offsets>($offsets): `0, 32` (the brackets are literals of the format).
      llvm::SmallVector<int32_t> values;
      int64_t value;
      OptionalParseResult r = parser.parseOptionalInteger(value);
      if (r.has_value()) {
        if (failed(*r))
          return Outcome::Error;
        values.push_back(static_cast<int32_t>(value));
        while (succeeded(parser.parseOptionalComma())) {
          if (parser.parseInteger(value))
            return Outcome::Error;
          values.push_back(static_cast<int32_t>(value));
        }
      } else if (optional) {
        return Outcome::Absent;
      }
      state.addAttribute(elem.args[0], b.getDenseI32ArrayAttr(values));
      return Outcome::Ok;
    }
    return error("internal: unknown custom directive " + elem.text);
  }

  Outcome parseOIList(const Elem &list) {
    std::vector<bool> seen(list.children.size(), false);
    while (true) {
      bool matched = false;
      for (size_t i = 0; i < list.children.size(); ++i) {
        if (seen[i])
          continue;
        Outcome first = parseElem(list.children[i].children.front(), /*optional=*/true);
        if (first == Outcome::Error)
          return Outcome::Error;
        if (first == Outcome::Absent)
          continue;
        for (size_t j = 1; j < list.children[i].children.size(); ++j)
          if (parseElem(list.children[i].children[j], false) == Outcome::Error)
            return Outcome::Error;
        seen[i] = matched = true;
        break;
      }
      if (!matched)
        return Outcome::Ok;
    }
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
      if (llvm::is_contained(compiled.regions, elem.text))
        return parseRegion(elem.text, optional);
      return error(llvm::Twine("internal: '$") + elem.text + "' is not declared for " + spec.name);
    case Elem::AttrDict:
      return fromParse(parser.parseOptionalAttrDict(state.attributes));
    case Elem::AttrDictKw:
      return fromParse(parser.parseOptionalAttrDictWithKeyword(state.attributes));
    case Elem::TypeOf:
      return parseTypeOf(elem, optional);
    case Elem::FunctionalType:
      if (optional && !atType())
        return Outcome::Absent;
      haveFunctionalType = true;
      return fromParse(parser.parseType(functionalType));
    case Elem::Group:
      return parseGroup(elem);
    case Elem::OIList:
      return parseOIList(elem);
    case Elem::Operands: {
      OpAsmParser::UnresolvedOperand operand;
      OptionalParseResult r = parser.parseOptionalOperand(operand);
      if (!r.has_value())
        return optional ? Outcome::Absent : Outcome::Ok;
      if (failed(*r))
        return Outcome::Error;
      flatOperands.push_back(operand);
      while (succeeded(parser.parseOptionalComma()))
        if (parser.parseOperand(flatOperands.emplace_back()))
          return Outcome::Error;
      return Outcome::Ok;
    }
    case Elem::Custom:
      return parseCustom(elem, optional);
    }
    return Outcome::Error;
  }

  Outcome parseRegion(llvm::StringRef name, bool optional) {
    auto region = std::make_unique<Region>();
    if (optional) {
      OptionalParseResult r = parser.parseOptionalRegion(*region);
      if (!r.has_value())
        return Outcome::Absent;
      if (failed(*r))
        return Outcome::Error;
    } else if (parser.parseRegion(*region)) {
      return Outcome::Error;
    }
    regionIndex[name] = parsedRegions.size();
    parsedRegions.push_back(std::move(region));
    return Outcome::Ok;
  }

  Outcome parseGroup(const Elem &group) {
    Outcome first = parseElem(group.children.front(), /*optional=*/true);
    if (first != Outcome::Ok)
      return first == Outcome::Absent ? Outcome::Ok : first;
    for (size_t i = 1; i < group.children.size(); ++i)
      if (parseElem(group.children[i], false) == Outcome::Error)
        return Outcome::Error;
    return Outcome::Ok;
  }

  Type fixedType(llvm::StringRef name) {
    Builder &b = parser.getBuilder();
    if (name == "i1")
      return b.getI1Type();
    if (name == "i16")
      return b.getIntegerType(16);
    if (name == "i32")
      return b.getI32Type();
    if (name == "i64")
      return b.getI64Type();
    if (name == "token")
      return AsyncTokenType::get(parser.getContext());
    return {};
  }

  /// Types of group `name` once known (operand or result group).
  llvm::SmallVector<Type> known(llvm::StringRef name) { return types.lookup(name); }

  /// The type ODS's TypesMatchWith computes from `from` (Triton's getI1SameShape,
  /// getPointeeType, ...).
  Type derive(llvm::StringRef fn, Type from) {
    Builder &b = parser.getBuilder();
    auto ranked = dyn_cast<RankedTensorType>(from);
    auto withElement = [&](Type element) -> Type {
      return ranked ? RankedTensorType::get(ranked.getShape(), element, ranked.getEncoding()) : element;
    };
    Type element = ranked ? ranked.getElementType() : from;
    if (fn == "i1")
      return withElement(b.getI1Type());
    if (fn == "i32")
      return withElement(b.getI32Type());
    if (fn == "elem")
      return element;
    if (fn == "pointee") {
      auto ptr = dyn_cast<PtrType>(element);
      return ptr ? withElement(ptr.getPointeeType()) : Type();
    }
    if (fn == "ptrto")
      return withElement(PtrType::get(element, 1));
    if (fn == "elemptr")
      return PtrType::get(element, 1);
    if (fn == "baseptr") {
      auto ptr = dyn_cast<PtrType>(from);
      auto block = ptr ? dyn_cast<RankedTensorType>(ptr.getPointeeType()) : nullptr;
      return block ? PtrType::get(block.getElementType(), ptr.getAddressSpace()) : Type();
    }
    return {};
  }

  /// Types of `decl` from its `=other[~fn]` declaration, empty if not known yet.
  llvm::SmallVector<Type> fromSameAs(const Decl &decl) {
    llvm::SmallVector<Type> source = known(decl.sameAs);
    if (decl.derive.empty() || source.empty())
      return source;
    Type derived = derive(decl.derive, source.front());
    if (!derived)
      return {};
    return {derived};
  }

  /// Distributes `flat` (all types of `decls`, in order) over the groups; the single
  /// variadic or optional group takes what the fixed-size groups leave.
  bool distribute(const std::vector<Decl> &decls, llvm::ArrayRef<Type> flat, bool isOperand) {
    size_t fixed = 0, open = 0;
    for (const Decl &decl : decls) {
      if (isOperand && decl.kind != Decl::One)
        fixed += operands.lookup(decl.name).size();
      else if (decl.kind == Decl::One)
        ++fixed;
      else
        ++open;
    }
    if (open > 1 || flat.size() < fixed)
      return false;
    size_t rest = flat.size() - fixed, pos = 0;
    for (const Decl &decl : decls) {
      size_t n = decl.kind == Decl::One ? 1 : isOperand ? operands.lookup(decl.name).size() : rest;
      if (pos + n > flat.size())
        return false;
      types[decl.name] = llvm::SmallVector<Type>(flat.slice(pos, n));
      pos += n;
    }
    return true;
  }

  ParseResult finish() {
    llvm::SMLoc loc = parser.getCurrentLocation();
    // The `operands` directive: hand the flat list to the declared groups in order.
    if (!flatOperands.empty()) {
      size_t fixed = 0;
      const Decl *open = nullptr;
      for (const Decl &decl : compiled.operands) {
        if (decl.kind == Decl::One)
          ++fixed;
        else
          open = &decl;
      }
      if (flatOperands.size() < fixed)
        return parser.emitError(loc) << "expected at least " << fixed << " operands for " << spec.name;
      size_t pos = 0, rest = flatOperands.size() - fixed;
      for (const Decl &decl : compiled.operands) {
        size_t n = decl.kind == Decl::One ? 1 : (&decl == open ? rest : 0);
        for (size_t i = 0; i < n; ++i)
          operands[decl.name].push_back(flatOperands[pos++]);
      }
    }
    if (haveAllOperandTypes && !distribute(compiled.operands, allOperandTypes, true))
      return parser.emitError(loc) << "wrong number of operand types for " << spec.name;
    if (haveAllResultTypes && !distribute(compiled.results, allResultTypes, false))
      return parser.emitError(loc) << "wrong number of result types for " << spec.name;
    // Results first: operands may take their type from a result (`c=d`).
    llvm::SmallVector<int32_t> resultSegments;
    int openResults = 0;
    size_t fnResult = 0;
    for (const Decl &decl : compiled.results) {
      llvm::SmallVector<Type> resultTypes = known(decl.name);
      if (resultTypes.empty() && !decl.sameAs.empty())
        resultTypes = fromSameAs(decl);
      if (resultTypes.empty() && haveFunctionalType) {
        auto fnResults = functionalType.getResults();
        size_t n = decl.kind == Decl::One ? 1 : fnResults.size() - fnResult;
        // With several groups and one open group, leave the others their share.
        if (decl.kind != Decl::One) {
          size_t later = 0;
          bool after = false;
          for (const Decl &other : compiled.results) {
            if (&other == &decl)
              after = true;
            else if (after && other.kind == Decl::One)
              ++later;
          }
          n = fnResults.size() - fnResult >= later ? fnResults.size() - fnResult - later : 0;
        }
        for (size_t i = 0; i < n && fnResult < fnResults.size(); ++i)
          resultTypes.push_back(fnResults[fnResult++]);
      }
      if (resultTypes.empty() && !decl.fixedType.empty() && decl.kind == Decl::One)
        resultTypes.push_back(fixedType(decl.fixedType));
      if (resultTypes.empty() && decl.kind == Decl::One)
        return parser.emitError(loc) << "cannot determine the type of result '" << decl.name << "' of " << spec.name;
      types[decl.name] = resultTypes;
      state.addTypes(resultTypes);
      resultSegments.push_back(static_cast<int32_t>(resultTypes.size()));
      openResults += decl.kind != Decl::One;
    }
    // ODS AttrSizedResultSegments (required with more than one optional or variadic result group, e.g.
    // ttng.tmem_load's `token?` and `red?`).
    if (openResults > 1)
      state.addAttribute("resultSegmentSizes", parser.getBuilder().getDenseI32ArrayAttr(resultSegments));
    size_t fnInput = 0;
    llvm::SmallVector<int32_t> segments;
    int openGroups = 0;
    for (const Decl &decl : compiled.operands) {
      auto list = operands.lookup(decl.name);
      openGroups += decl.kind != Decl::One;
      segments.push_back(static_cast<int32_t>(list.size()));
      if (decl.kind == Decl::One && list.size() != 1)
        return parser.emitError(loc) << "expected operand '" << decl.name << "' of " << spec.name;
      llvm::SmallVector<Type> operandTypes = known(decl.name);
      if (operandTypes.empty() && haveFunctionalType) {
        for (size_t i = 0; i < list.size() && fnInput < functionalType.getNumInputs(); ++i)
          operandTypes.push_back(functionalType.getInput(fnInput++));
      }
      if (operandTypes.empty() && !decl.fixedType.empty())
        operandTypes.push_back(fixedType(decl.fixedType));
      if (operandTypes.empty() && !decl.sameAs.empty())
        operandTypes = fromSameAs(decl);
      if (!list.empty() && operandTypes.empty())
        return parser.emitError(loc) << "cannot determine the type of operand '" << decl.name << "' of " << spec.name;
      while (operandTypes.size() < list.size())
        operandTypes.push_back(operandTypes.front());
      types[decl.name] = operandTypes;
      if (parser.resolveOperands(list, llvm::ArrayRef(operandTypes).take_front(list.size()), loc, state.operands))
        return failure();
    }
    if (haveFunctionalType && (fnInput != functionalType.getNumInputs() || fnResult != functionalType.getNumResults()))
      return parser.emitError(loc) << "the functional type of " << spec.name << " does not match its operands and results";
    if ((openGroups > 1 && !compiled.sameVariadicSize) || compiled.forceSegments)
      state.addAttribute("operandSegmentSizes", parser.getBuilder().getDenseI32ArrayAttr(segments));
    // Regions in declaration order; ones the format did not mention stay empty.
    for (const std::string &name : compiled.regions) {
      auto it = regionIndex.find(name);
      if (it != regionIndex.end())
        state.addRegion(std::move(parsedRegions[it->second]));
      else
        state.addRegion();
    }
    return success();
  }
};

} // namespace

ParseResult parseWithSpec(const OpSpec &spec, OpAsmParser &parser, OperationState &state) {
  const CompiledSpec &compiled = compile(spec);
  if (!compiled.error.empty())
    return parser.emitError(parser.getCurrentLocation())
           << "internal: malformed syntax table entry for " << spec.name << ": " << compiled.error;
  Interpreter interp(spec, compiled, parser, state);
  for (const Elem &elem : compiled.format)
    if (interp.parseElem(elem, false) == Outcome::Error)
      return failure();
  return interp.finish();
}

} // namespace tlxsim::ir
