#include "tools/PredictSweep.h"

#include <set>

#include "tools/CommandLine.h"
#include "tools/Simulation.h"

#include "sim/SummaryView.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace tlxsim::tool {

cl::opt<std::string> sweepArgOpt("sweep-arg",
                                 cl::desc("Predict once per value of a launch scalar: NAME=A:B:xF (geometric), "
                                          "NAME=A:B:+S (arithmetic) or NAME=A,B,C"),
                                 cl::value_desc("NAME=SPEC"), cl::cat(launchCategory()), cl::sub(predictCommand()));

Expected<std::vector<int64_t>> parseSweepValues(StringRef spec) {
  constexpr size_t kMaxValues = 1000;
  auto bad = [&](const Twine &why) {
    return createStringError("--sweep-arg: bad values '%s': %s", spec.str().c_str(), why.str().c_str());
  };
  std::vector<int64_t> values;
  SmallVector<StringRef> parts;
  if (!spec.contains(':')) {
    spec.split(parts, ',');
    for (StringRef p : parts) {
      int64_t v;
      if (p.trim().getAsInteger(0, v))
        return bad("'" + p + "' is not an integer");
      values.push_back(v);
    }
    if (values.size() > kMaxValues)
      return bad("more than 1000 values");
    return values;
  }
  spec.split(parts, ':');
  int64_t first, last;
  if (parts.size() != 3 || parts[0].trim().getAsInteger(0, first) || parts[1].trim().getAsInteger(0, last))
    return bad("expected A:B:xF, A:B:+S or A,B,C");
  StringRef step = parts[2].trim();
  if (last < first)
    return bad("the last value is below the first");
  bool geometric = step.consume_front("x");
  step.consume_front("+");
  int64_t s;
  if (step.getAsInteger(0, s) || s <= (geometric ? 1 : 0))
    return bad(geometric ? "the factor must be an integer above 1" : "the step must be a positive integer");
  if (geometric && first <= 0)
    return bad("a geometric sweep starts at a positive value");
  for (int64_t v = first; v <= last;) {
    values.push_back(v);
    if (values.size() > kMaxValues)
      return bad("more than 1000 values");
    int64_t next;
    if (geometric ? __builtin_mul_overflow(v, s, &next) : __builtin_add_overflow(v, s, &next))
      break;
    v = next;
  }
  return values;
}

int runPredictSweep() {
  auto [name, spec] = StringRef(sweepArgOpt).split('=');
  if (name.empty() || spec.empty())
    return badInput("--sweep-arg expects NAME=A:B:xF, NAME=A:B:+S or NAME=A,B,C, got '" + sweepArgOpt + "'");
  auto values = parseSweepValues(spec);
  if (!values)
    return badInput(toString(values.takeError()));

  json::Array rows;
  bool anyFindings = false;
  // The table's header comes with its first row: a sweep whose first point fails prints only the error.
  bool headerPrinted = false;
  std::set<std::string> warned;
  auto header = [&] {
    if (!jsonOpt && !headerPrinted)
      outs() << formatv("{0,12} {1,12} {2,10} {3,-16} {4,12}\n", name, "time_us", "TFLOP/s", "bound", "cycles");
    headerPrinted = true;
  };
  for (int64_t value : *values) {
    argOpts.push_back((name + "=" + Twine(value)).str());
    PreparedSimulation prepared;
    int code = prepareSimulation(prepared);
    argOpts.erase(std::prev(argOpts.end()));
    if (code)
      return code;
    for (const std::string &w : prepared.warnings) // each distinct warning once (a K below 16's divisibility, ...)
      if (warned.insert(w).second)
        errs() << w << "\n";
    sim::SummaryView summary(*prepared.program, *prepared.model);
    prepared.engine->addListener(&summary);
    auto result = prepared.engine->run();
    if (!result)
      return badInput(name + "=" + Twine(value) + ": " + toString(result.takeError()));
    size_t findings = 0; // as predict: only a stall has findings (the checkers run again to explain it)
    if (result->stalled) {
      auto stallFindings = findingsOfStall(prepared);
      if (!stallFindings)
        return badInput(name + "=" + Twine(value) + ": " + toString(stallFindings.takeError()));
      findings = stallFindings->size();
    }
    anyFindings |= findings > 0;
    json::Object row = findings ? json::Object{{"schema_version", 1}, {"kernel", prepared.program->kernelName}}
                                : summary.toJson(*result);
    row["command"] = "predict";
    row["findings_count"] = static_cast<int64_t>(findings);
    row["sweep_arg"] = json::Object{{"name", name}, {"value", value}};
    row["warnings"] = json::Array(llvm::ArrayRef<std::string>(prepared.warnings));
    if (!jsonOpt) {
      header();
      if (findings)
        outs() << formatv("{0,12} {1} finding(s): no time predicted (run `tlx-sim check`)\n", value, findings);
      else
        outs() << formatv("{0,12} {1,12:F2} {2,10:F1} {3,-16} {4,12}\n", value, *row.getNumber("time_us"),
                          *row.getNumber("tflops"), *row.getString("bound"), *row.getInteger("cycles"));
    }
    rows.push_back(std::move(row));
  }
  if (jsonOpt)
    outs() << formatv("{0:2}", json::Value(std::move(rows))) << "\n";
  return anyFindings ? kFindings : kClean;
}

} // namespace tlxsim::tool
