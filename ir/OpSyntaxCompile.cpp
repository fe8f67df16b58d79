// Compiles an op syntax table entry (OpSyntax.h notation): operand, attribute and result
// declarations and the ODS-style assembly format.
#include "ir/OpSyntaxCompiled.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <mutex>

namespace tlxsim::ir::syntax {
namespace {

const llvm::StringSet<> kFixedTypes = {"i1", "i16", "i32", "i64", "token"};
const llvm::StringSet<> kAttrKinds = {"i32", "i64", "any", "unit", "dense_i32", "dense_i64"};
const llvm::StringSet<> kStrippedKinds = {"memdesc", "tensordesc", "ptr"};
const llvm::StringSet<> kDerivations = {"i1", "i32", "pointee", "elem", "ptrto", "elemptr", "baseptr"};
const llvm::StringSet<> kCustomDirectives = {"Token", "BarriersAndPreds", "Offsets", "LeadingType"};

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

} // namespace

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

const Decl *findDecl(const std::vector<Decl> &decls, llvm::StringRef name) {
  for (const Decl &decl : decls)
    if (decl.name == name)
      return &decl;
  return nullptr;
}

} // namespace tlxsim::ir::syntax

namespace tlxsim::ir {

std::string checkOpSpec(const OpSpec &spec) { return syntax::compile(spec).error; }

} // namespace tlxsim::ir
