// proveProtocol (Prover.h): the prover's stages in order. Extraction (Protocol.h), the transition encoding
// (Encoder.h: Exec*.cpp, Transition.cpp, Ghost.cpp, Properties.cpp), and the driver (Driver.h: Driver.cpp with its
// budgets in Budget.h, lemmas in Lemmas.h, counterexamples in Counterexample.cpp). verifier/README.md maps
// each concept to its file.
#include "verifier/proof/Prover.h"

#include "verifier/proof/Budget.h"
#include "verifier/proof/Driver.h"
#include "verifier/proof/Protocol.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace tlxsim::verifier::proof {

std::string parseAssumption(const std::string &text, Assumption &out) {
  static const char *ops[] = {">=", "<=", "==", "!=", ">", "<"};
  for (const char *op : ops) {
    size_t pos = text.find(op);
    if (pos == std::string::npos)
      continue;
    std::string lhs = text.substr(0, pos), rhs = text.substr(pos + strlen(op));
    auto trim = [](std::string s) {
      while (!s.empty() && isspace(static_cast<unsigned char>(s.front())))
        s.erase(s.begin());
      while (!s.empty() && isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
      return s;
    };
    lhs = trim(lhs);
    rhs = trim(rhs);
    auto isInt = [](const std::string &s, int64_t &v) {
      if (s.empty())
        return false;
      char *end = nullptr;
      errno = 0;
      long long x = strtoll(s.c_str(), &end, 10);
      if (errno || *end)
        return false;
      v = x;
      return true;
    };
    int64_t v;
    std::string o = op;
    auto isName = [](const std::string &n) {
      if (n.empty() || !(isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_'))
        return false;
      for (char ch : n)
        if (!(isalnum(static_cast<unsigned char>(ch)) || ch == '_'))
          return false;
      return true;
    };
    if (!(isName(lhs) && isInt(rhs, v)) && !(isInt(lhs, v) && isName(rhs)))
      return "expected NAME OP INTEGER (OP one of >= <= > < == !=) in '" + text + "'";
    if (isInt(rhs, v) && !lhs.empty() && !isInt(lhs, v)) {
      isInt(rhs, v);
      out = {lhs, o, v};
      return "";
    }
    if (isInt(lhs, v) && !rhs.empty()) { // 64<=K  ==  K>=64
      std::string flipped = o == ">=" ? "<=" : o == "<=" ? ">=" : o == ">" ? "<" : o == "<" ? ">" : o;
      out = {rhs, flipped, v};
      return "";
    }
    return "expected NAME" + o + "INTEGER in '" + text + "'";
  }
  return "expected NAME OP INTEGER (OP one of >= <= > < == !=) in '" + text + "'";
}

ProofReport proveProtocol(ModuleOp module, const ProofOptions &options) {
  try {
    QueryBudget budget(options);
    budget.start(); // the budget counts from here (encoding included)
    ProofReport report;
    if (allocatesNoMbarrier(module)) {
      report.notes.push_back(kNoMbarrierNote);
      return report;
    }
    Protocol protocol;
    try {
      protocol = extractProtocol(module);
    } catch (const Unsupported &u) {
      report.notes.push_back("not analyzed: " + u.why);
      return report;
    }
    if (!protocol.namedNote.empty())
      report.notes.push_back(protocol.namedNote);
    Driver driver(std::move(protocol), options, budget, std::move(report));
    return driver.run();
  } catch (const z3::exception &e) {
    ProofReport r;
    r.notes.push_back(std::string("not analyzed: Z3 error: ") + e.msg());
    return r;
  } catch (const Unsupported &u) {
    ProofReport r;
    r.notes.push_back("not analyzed: " + u.why);
    return r;
  }
}

} // namespace tlxsim::verifier::proof
