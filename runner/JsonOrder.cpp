#include "runner/JsonOrder.h"

#include "llvm/Support/JSON.h"

namespace tlxsim::runner {
namespace {

/// A minimal scanner over valid JSON: it only needs to find string keys at one nesting level
/// and to skip values (strings with escapes, nested objects/arrays, literals).
class Scanner {
public:
  explicit Scanner(llvm::StringRef text) : text(text) {}

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\r' || text[pos] == '\t'))
      ++pos;
  }
  bool eat(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  /// Reads a string token (pos at its opening quote) and returns its decoded value.
  std::optional<std::string> string() {
    skipSpace();
    size_t start = pos;
    if (pos >= text.size() || text[pos] != '"')
      return std::nullopt;
    ++pos;
    while (pos < text.size() && text[pos] != '"')
      pos += text[pos] == '\\' ? 2 : 1;
    if (pos >= text.size())
      return std::nullopt;
    ++pos;
    auto value = llvm::json::parse(text.slice(start, pos));
    if (!value) {
      llvm::consumeError(value.takeError());
      return std::nullopt;
    }
    return value->getAsString()->str();
  }
  /// Skips one value of any kind.
  bool skipValue() {
    skipSpace();
    if (pos >= text.size())
      return false;
    char c = text[pos];
    if (c == '"')
      return string().has_value();
    if (c == '{' || c == '[') {
      int depth = 0;
      while (pos < text.size()) {
        char d = text[pos];
        if (d == '"') {
          if (!string())
            return false;
          continue;
        }
        if (d == '{' || d == '[')
          ++depth;
        else if (d == '}' || d == ']')
          --depth;
        ++pos;
        if (depth == 0)
          return true;
      }
      return false;
    }
    while (pos < text.size() && !llvm::StringRef(",}] \n\r\t").contains(text[pos]))
      ++pos;
    return true;
  }
  /// Reads the keys of the object starting at pos; when `wanted` is non-empty, stops at that
  /// key with pos at its value and returns the keys read so far ending with it.
  std::optional<std::vector<std::string>> objectKeys(llvm::StringRef wanted) {
    std::vector<std::string> keys;
    if (!eat('{'))
      return std::nullopt;
    if (eat('}'))
      return keys;
    do {
      auto key = string();
      if (!key || !eat(':'))
        return std::nullopt;
      keys.push_back(*key);
      if (!wanted.empty() && *key == wanted)
        return keys;
      if (!skipValue())
        return std::nullopt;
    } while (eat(','));
    if (!eat('}'))
      return std::nullopt;
    return keys;
  }

private:
  llvm::StringRef text;
  size_t pos = 0;
};

} // namespace

llvm::Expected<std::vector<std::string>> orderedMemberKeys(llvm::StringRef text, llvm::StringRef member) {
  Scanner scanner(text);
  auto top = scanner.objectKeys(member);
  if (!top || top->empty() || top->back() != member)
    return llvm::createStringError("no top-level member \"%s\"", member.str().c_str());
  auto keys = scanner.objectKeys("");
  if (!keys)
    return llvm::createStringError("member \"%s\" is not a JSON object", member.str().c_str());
  return *keys;
}

} // namespace tlxsim::runner
