// Interpreter for the declarative op syntax of OpSyntax.h.
#include "ir/OpSyntax.h"
#include "ir/TypeSyntax.h"
#include "ir/Types.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <mutex>

using namespace mlir;

namespace tlxsim::ir {
namespace {

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

const llvm::StringSet<> kFixedTypes = {"i1", "i16", "i32", "i64", "token"};
const llvm::StringSet<> kAttrKinds = {"i32", "i64", "any", "unit", "dense_i32", "dense_i64"};
const llvm::StringSet<> kStrippedKinds = {"memdesc", "tensordesc", "ptr"};
const llvm::StringSet<> kDerivations = {"i1", "i32", "pointee", "elem", "ptrto", "elemptr", "baseptr"};
const llvm::StringSet<> kCustomDirectives = {"Token", "BarriersAndPreds", "Offsets"};

bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

std::vector<Decl> parseDecls(llvm::StringRef text, bool isAttr, std::string &error) {
  std::vector<Decl> decls;
  llvm::SmallVector<llvm::StringRef> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef word : words) {
    Decl decl;
    if (isAttr) {
      auto [name, type] = word.split(':');
      decl.name = name.str();
      if (type.starts_with("enum(") && type.ends_with(")")) {
        decl.attrKind = "enum";
        llvm::SmallVector<llvm::StringRef> values;
        type.drop_front(5).drop_back().split(values, '|');
        int64_t next = 0;
        for (llvm::StringRef value : values) {
          auto [keyword, number] = value.split('=');
          int64_t v = next;
          if (!number.empty() && number.getAsInteger(0, v)) {
            error = ("bad enum value '" + value + "'").str();
            return {};
          }
          decl.enumValues.push_back({keyword.str(), v});
          next = v + 1;
        }
      } else {
        decl.attrKind = type.empty() ? "any" : type.str();
        if (!kAttrKinds.contains(decl.attrKind)) {
          error = "unknown attribute kind '" + decl.attrKind + "'";
          return {};
        }
      }
      decls.push_back(std::move(decl));
      continue;
    }
    size_t end = 0;
    while (end < word.size() && isIdentChar(word[end]))
      ++end;
    decl.name = word.take_front(end).str();
    llvm::StringRef rest = word.drop_front(end);
    if (decl.name.empty()) {
      error = ("bad declaration '" + word + "'").str();
      return {};
    }
    if (rest.consume_front("?"))
      decl.kind = Decl::Optional;
    else if (rest.consume_front("*"))
      decl.kind = Decl::Variadic;
    while (!rest.empty()) {
      char tag = rest.front();
      rest = rest.drop_front();
      size_t len = 0;
      while (len < rest.size() && isIdentChar(rest[len]))
        ++len;
      std::string value = rest.take_front(len).str();
      rest = rest.drop_front(len);
      if (tag == ':' && kFixedTypes.contains(value))
        decl.fixedType = value;
      else if (tag == '=' && !value.empty())
        decl.sameAs = value;
      else if (tag == '!' && kStrippedKinds.contains(value))
        decl.strippedKind = value;
      else if (tag == '~' && kDerivations.contains(value) && !decl.sameAs.empty())
        decl.derive = value;
      else {
        error = ("bad declaration '" + word + "'").str();
        return {};
      }
    }
    decls.push_back(std::move(decl));
  }
  return decls;
}

/// Compiles an assembly format; returns false (with `error`) on a malformed format.
/// `closer` is the text that ends the current nesting level (")?" for an optional
/// group, ")" or "|" for an oilist clause, empty at top level).
bool compileFormat(llvm::StringRef &text, std::vector<Elem> &out, llvm::StringRef closer, std::string &error) {
  while (true) {
    text = text.ltrim();
    if (text.empty()) {
      if (!closer.empty())
        error = "unterminated group";
      return closer.empty();
    }
    if (closer == ")?" && text.consume_front(")?"))
      return true;
    if (closer == "|" && (text.starts_with("|") || text.starts_with(")")))
      return true;
    if (text.consume_front("`")) {
      size_t end = text.find('`');
      if (end == llvm::StringRef::npos) {
        error = "unterminated literal";
        return false;
      }
      if (end > 0)
        out.push_back({Elem::Literal, text.substr(0, end).str(), {}, {}});
      text = text.substr(end + 1);
    } else if (text.consume_front("attr-dict-with-keyword")) {
      out.push_back({Elem::AttrDictKw, "", {}, {}});
    } else if (text.consume_front("attr-dict")) {
      out.push_back({Elem::AttrDict, "", {}, {}});
    } else if (text.consume_front("functional-type(")) {
      size_t end = text.find(')');
      if (end == llvm::StringRef::npos) {
        error = "unterminated functional-type";
        return false;
      }
      out.push_back({Elem::FunctionalType, "", {}, {}});
      text = text.substr(end + 1);
    } else if (text.consume_front("qualified(")) {
      // qualified(type(...)): the inner directive, then the extra ')'.
      std::vector<Elem> inner;
      llvm::StringRef innerText = text;
      size_t depth = 1, i = 0;
      for (; i < innerText.size() && depth > 0; ++i)
        depth += innerText[i] == '(' ? 1 : innerText[i] == ')' ? -1 : 0;
      if (depth != 0) {
        error = "unterminated qualified(...)";
        return false;
      }
      llvm::StringRef body = innerText.take_front(i - 1);
      if (!compileFormat(body, inner, "", error))
        return false;
      out.insert(out.end(), inner.begin(), inner.end());
      text = text.drop_front(i);
      text.consume_front("^");
    } else if (text.consume_front("type(")) {
      size_t end = text.find(')');
      if (end == llvm::StringRef::npos) {
        error = "unterminated type(...)";
        return false;
      }
      llvm::StringRef name = text.substr(0, end).trim();
      name.consume_front("$");
      out.push_back({Elem::TypeOf, name.str(), {}, {}});
      text = text.substr(end + 1);
      text.consume_front("^");
    } else if (text.consume_front("custom<")) {
      size_t end = text.find('>');
      if (end == llvm::StringRef::npos || end + 1 >= text.size() || text[end + 1] != '(') {
        error = "bad custom directive";
        return false;
      }
      Elem custom{Elem::Custom, text.substr(0, end).str(), {}, {}};
      if (!kCustomDirectives.contains(custom.text)) {
        error = "unknown custom directive '" + custom.text + "'";
        return false;
      }
      text = text.substr(end + 2);
      size_t close = text.find(')');
      // Arguments may contain type($x): find the matching ')'.
      size_t depth = 1, i = 0;
      for (; i < text.size() && depth > 0; ++i)
        depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
      (void)close;
      llvm::SmallVector<llvm::StringRef> args;
      text.take_front(i - 1).split(args, ',');
      for (llvm::StringRef arg : args) {
        arg = arg.trim();
        arg.consume_front("type(");
        arg.consume_back(")");
        arg.consume_front("$");
        custom.args.push_back(arg.str());
      }
      text = text.drop_front(i);
      out.push_back(std::move(custom));
    } else if (text.consume_front("oilist(")) {
      Elem list{Elem::OIList, "", {}, {}};
      while (true) {
        Elem clause{Elem::Group, "", {}, {}};
        if (!compileFormat(text, clause.children, "|", error))
          return false;
        if (clause.children.empty() || clause.children.front().kind != Elem::Literal) {
          error = "an oilist clause must start with a literal";
          return false;
        }
        list.children.push_back(std::move(clause));
        if (text.consume_front("|"))
          continue;
        text.consume_front(")");
        break;
      }
      out.push_back(std::move(list));
    } else if (text.consume_front("operands")) {
      out.push_back({Elem::Operands, "", {}, {}});
    } else if (text.consume_front("$")) {
      size_t end = 0;
      while (end < text.size() && isIdentChar(text[end]))
        ++end;
      out.push_back({Elem::Var, text.substr(0, end).str(), {}, {}});
      text = text.substr(end);
      text.consume_front("^");
    } else if (text.consume_front("(")) {
      Elem group{Elem::Group, "", {}, {}};
      if (!compileFormat(text, group.children, ")?", error))
        return false;
      if (group.children.empty()) {
        error = "empty optional group";
        return false;
      }
      out.push_back(std::move(group));
    } else {
      error = ("unexpected format text '" + text.take_front(12) + "'").str();
      return false;
    }
  }
}

/// Checks that every `$x` and `type($x)` of a compiled format is declared.
void checkNames(const std::vector<Elem> &elems, const CompiledSpec &spec, std::string &error) {
  auto declared = [&](llvm::StringRef name) {
    for (const auto *decls : {&spec.operands, &spec.attrs, &spec.results})
      for (const Decl &decl : *decls)
        if (decl.name == name)
          return true;
    return llvm::is_contained(spec.regions, name);
  };
  for (const Elem &elem : elems) {
    if (!error.empty())
      return;
    if (elem.kind == Elem::Var && !declared(elem.text))
      error = "'$" + elem.text + "' is not declared";
    if (elem.kind == Elem::TypeOf && elem.text != "operands" && elem.text != "results" && !declared(elem.text))
      error = "'type($" + elem.text + ")' names an undeclared group";
    if (elem.kind == Elem::Custom)
      for (const std::string &arg : elem.args)
        if (!declared(arg))
          error = "custom<" + elem.text + "> argument '" + arg + "' is not declared";
    checkNames(elem.children, spec, error);
  }
}

const CompiledSpec &compile(const OpSpec &spec) {
  static std::mutex mutex;
  static llvm::DenseMap<const OpSpec *, std::unique_ptr<CompiledSpec>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto &slot = cache[&spec];
  if (!slot) {
    slot = std::make_unique<CompiledSpec>();
    llvm::StringRef operandText(spec.operands);
    slot->forceSegments = operandText.consume_front("+");
    slot->sameVariadicSize = operandText.consume_front("~");
    slot->operands = parseDecls(operandText, false, slot->error);
    if (slot->error.empty())
      slot->attrs = parseDecls(spec.attrs, true, slot->error);
    if (slot->error.empty())
      slot->results = parseDecls(spec.results, false, slot->error);
    llvm::SmallVector<llvm::StringRef> regions;
    llvm::StringRef(spec.regions ? spec.regions : "").split(regions, ' ', -1, false);
    for (llvm::StringRef region : regions)
      slot->regions.push_back(region.str());
    if (slot->error.empty() && spec.format) {
      llvm::StringRef text(spec.format);
      compileFormat(text, slot->format, "", slot->error);
      if (slot->error.empty())
        checkNames(slot->format, *slot, slot->error);
    }
    if (slot->error.empty() && !spec.format && !spec.custom && !slot->regions.empty())
      ; // generic-only op with regions: nothing to compile
  }
  return *slot;
}

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
    }
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

std::string checkOpSpec(const OpSpec &spec) { return compile(spec).error; }

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

std::optional<OperandRange> getOperandGroup(Operation *op, llvm::StringRef group) {
  const OpSpec *spec = lookupOpSpec(op->getName().getStringRef());
  if (!spec)
    return std::nullopt;
  const CompiledSpec &compiled = compile(*spec);
  if (!compiled.error.empty())
    return std::nullopt;
  auto segments = op->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
  if (!segments)
    if (auto props = op->getPropertiesAsAttribute())
      if (auto dict = dyn_cast<DictionaryAttr>(props))
        segments = dict.getAs<DenseI32ArrayAttr>("operandSegmentSizes");
  if (segments && static_cast<size_t>(segments.size()) != compiled.operands.size())
    return std::nullopt;
  size_t singles = 0, open = 0, variadic = 0;
  for (const Decl &decl : compiled.operands) {
    singles += decl.kind == Decl::One;
    open += decl.kind != Decl::One;
    variadic += decl.kind == Decl::Variadic;
  }
  // Without segment sizes the printing ODS had one non-single group (or SameVariadicOperandSize): an optional group
  // next to a variadic one was added later (e.g. TLX's multicast mask on a Triton 3.6 TMA copy) and is absent.
  bool optionalAbsent = !segments && !compiled.sameVariadicSize && variadic > 0 && open > variadic;
  if (optionalAbsent)
    open = variadic;
  unsigned start = 0;
  for (size_t i = 0; i < compiled.operands.size(); ++i) {
    const Decl &decl = compiled.operands[i];
    unsigned size = 1;
    if (segments)
      size = segments[i];
    else if (decl.kind == Decl::Optional && optionalAbsent)
      size = 0;
    else if (decl.kind != Decl::One) // the only non-single group, or equal groups (SameVariadicOperandSize)
      size = op->getNumOperands() >= singles ? (op->getNumOperands() - singles) / std::max<size_t>(open, 1) : 0;
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
