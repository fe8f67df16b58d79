#include "verifier/Finding.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace tlxsim::verifier {

static llvm::json::Value locationJson(const ir::SourceLoc &loc) {
  if (!loc.valid())
    return nullptr;
  return llvm::json::Object{{"file", loc.file}, {"line", loc.line}, {"col", loc.col}};
}

void print(const Finding &f, llvm::raw_ostream &os) {
  os << f.location.str() << ": error: " << f.cls << ": " << f.message << "\n";
  for (const Related &r : f.related)
    os << r.location.str() << ": note: " << r.message << "\n";
  for (const auto &[loc, text] : f.notes)
    os << loc.str() << ": note: " << text << "\n";
  if (f.schedule != "default" && f.schedule != "proof") // --schedules keeps the first schedule exposing it
    os << f.location.str() << ": note: exposed by schedule '" << f.schedule
       << "' of --schedules; the default schedule does not show it\n";
}

llvm::json::Object toJson(const Finding &f) {
  llvm::json::Array related;
  for (const Related &r : f.related)
    related.push_back(llvm::json::Object{{"location", locationJson(r.location)},
                                         {"partition", r.partition},
                                         {"iteration", r.iteration},
                                         {"op", r.op},
                                         {"message", r.message}});
  llvm::json::Value barrier = nullptr;
  if (f.barrier)
    barrier = llvm::json::Object{{"name", f.barrier->name},
                                 {"phase", f.barrier->phase},
                                 {"pending", f.barrier->pending},
                                 {"expected", f.barrier->expected},
                                 {"tx", f.barrier->tx}};
  llvm::json::Array notes;
  for (const auto &[loc, text] : f.notes)
    notes.push_back(llvm::json::Object{{"location", locationJson(loc)}, {"message", text}});
  return llvm::json::Object{{"class", f.cls},       {"message", f.message},   {"location", locationJson(f.location)},
                            {"related", std::move(related)}, {"barrier", std::move(barrier)},
                            {"schedule", f.schedule}, {"notes", std::move(notes)}};
}

bool mentions(const Finding &f, llvm::StringRef name) {
  name = name.split('#').first;
  if (name.empty())
    return true;
  auto word = [&](llvm::StringRef text) {
    auto ident = [](char c) { return llvm::isAlnum(c) || c == '_'; };
    for (size_t at = text.find(name); at != llvm::StringRef::npos; at = text.find(name, at + 1))
      if ((at == 0 || !ident(text[at - 1])) && (at + name.size() == text.size() || !ident(text[at + name.size()])))
        return true;
    return false;
  };
  if ((f.barrier && word(f.barrier->name)) || word(f.message))
    return true;
  return llvm::any_of(f.notes, [&](const auto &n) { return word(n.second); }) ||
         llvm::any_of(f.related, [&](const Related &r) { return word(r.message); });
}

} // namespace tlxsim::verifier
