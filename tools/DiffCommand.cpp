// `tlx-sim diff A.json B.json [--json]`: what changed between two `predict --json` outputs
// (design.md output contract): time and throughput, the bound, each partition's busy and
// wait fractions and the barriers it waits on, and unit utilization. Partitions, waits and
// units are matched by name; one present on a single side counts as 0 on the other.
// Exit 0; 2 when a file is unreadable, not JSON, or not a prediction (a deadlocked
// prediction has no time).
#include "tools/CommandLine.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <optional>

using namespace llvm;

namespace tlxsim::tool {
namespace {

cl::list<std::string> diffFiles(cl::Positional, cl::desc("<A.json> <B.json>"), cl::OneOrMore, cl::sub(diffCommand()));

/// A prediction read from `predict --json`.
struct Prediction {
  std::string file;
  json::Object root;
  double get(StringRef key) const { return root.getNumber(key).value_or(0); }
};

Expected<Prediction> load(const std::string &path) {
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return createStringError("%s: cannot read: %s", path.c_str(), buffer.getError().message().c_str());
  auto value = json::parse((*buffer)->getBuffer());
  if (!value)
    return createStringError("%s: invalid JSON: %s", path.c_str(), toString(value.takeError()).c_str());
  json::Object *root = value->getAsObject();
  if (!root)
    return createStringError("%s: expected a JSON object (the output of `tlx-sim predict --json`)", path.c_str());
  if (!root->getNumber("time_us")) {
    if (const json::Object *error = root->getObject("error")) // `predict --json`'s error object (exit 2)
      return createStringError("%s: an error result, not a prediction: %s", path.c_str(),
                               error->getString("message").value_or("(no message)").str().c_str());
    const json::Array *findings = root->getArray("findings");
    if (findings && !findings->empty())
      return createStringError("%s: the prediction has no time: it reports %zu finding(s)", path.c_str(),
                               findings->size());
    return createStringError("%s: no 'time_us': not the output of `tlx-sim predict --json`", path.c_str());
  }
  return Prediction{path, std::move(*root)};
}

/// name -> value of an array of objects (`partitions`, `units`, `waits`).
std::vector<std::pair<std::string, const json::Object *>> byName(const json::Object &o, StringRef array,
                                                                 StringRef nameKey = "name") {
  std::vector<std::pair<std::string, const json::Object *>> out;
  if (const json::Array *items = o.getArray(array))
    for (const json::Value &v : *items)
      if (const json::Object *item = v.getAsObject())
        out.emplace_back(std::string(item->getString(nameKey).value_or("")), item);
  return out;
}

/// Names of both sides, A's order first, then B's new ones.
std::vector<std::string> unionNames(const std::vector<std::pair<std::string, const json::Object *>> &a,
                                    const std::vector<std::pair<std::string, const json::Object *>> &b) {
  std::vector<std::string> names;
  for (const auto *side : {&a, &b})
    for (const auto &[name, obj] : *side)
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
  return names;
}

const json::Object *find(const std::vector<std::pair<std::string, const json::Object *>> &items, const std::string &n) {
  for (const auto &[name, obj] : items)
    if (name == n)
      return obj;
  return nullptr;
}

double field(const json::Object *o, StringRef key) { return o ? o->getNumber(key).value_or(0) : 0; }

json::Object pair(double a, double b) { return json::Object{{"a", a}, {"b", b}, {"delta", b - a}}; }

std::string pct(double frac) { return formatv("{0:F1} %", 100 * frac).str(); }
/// The difference of two fractions in percentage points, from the values pct() prints (1.0 % -> 1.5 % reads +0.5).
std::string pp(double a, double b) {
  double delta = std::round(1000 * b) / 10 - std::round(1000 * a) / 10;
  return formatv("{0}{1:F1} pp", delta >= 0 ? "+" : "", delta).str();
}

/// Why the two sides may not be comparable: different kernels or models, a side that simulated part of the grid
/// (`predict --max-ctas`: its time is not the launch's).
std::vector<std::string> comparabilityNotes(const json::Object &a, const json::Object &b) {
  std::vector<std::string> notes;
  auto str = [](const json::Object &o, StringRef key) { return o.getString(key).value_or("?").str(); };
  if (str(a, "kernel") != str(b, "kernel"))
    notes.push_back("A and B are different kernels (" + str(a, "kernel") + ", " + str(b, "kernel") + ")");
  if (str(a, "model") != str(b, "model"))
    notes.push_back("A and B are predicted on different GPU models (" + str(a, "model") + ", " + str(b, "model") +
                    ")");
  for (const auto &[side, o] : {std::pair<const char *, const json::Object *>{"A", &a}, {"B", &b}})
    if (o->getBoolean("partial_grid").value_or(false))
      notes.push_back(formatv("{0} simulated {1} of the grid's {2} CTAs (--max-ctas): its time is not the "
                              "launch's",
                              side, o->getInteger("ctas_simulated").value_or(0), o->getInteger("grid_ctas").value_or(0))
                          .str());
  return notes;
}
std::string rel(double a, double b) {
  if (a == 0)
    return "";
  double r = (b - a) / a;
  return formatv(" ({0}{1:F1} %)", r >= 0 ? "+" : "", 100 * r).str();
}

int runDiff() {
  if (diffFiles.size() != 2)
    return badInput("diff takes exactly two files: A.json B.json (outputs of `tlx-sim predict --json`)");
  auto a = load(diffFiles[0]);
  if (!a)
    return badInput(toString(a.takeError()));
  auto b = load(diffFiles[1]);
  if (!b)
    return badInput(toString(b.takeError()));

  std::string boundA(a->root.getString("bound").value_or("")), boundB(b->root.getString("bound").value_or(""));
  auto partsA = byName(a->root, "partitions"), partsB = byName(b->root, "partitions");
  auto unitsA = byName(a->root, "units"), unitsB = byName(b->root, "units");

  json::Array partitions, units;
  std::string text;
  raw_string_ostream os(text);
  os << "A: " << a->file << " (" << a->root.getString("kernel").value_or("?") << ", "
     << a->root.getString("model").value_or("?") << ")\n";
  os << "B: " << b->file << " (" << b->root.getString("kernel").value_or("?") << ", "
     << b->root.getString("model").value_or("?") << ")\n";
  std::vector<std::string> notes = comparabilityNotes(a->root, b->root);
  for (const std::string &note : notes)
    os << "note: " << note << "\n";
  os << formatv("time:     {0:F2} us -> {1:F2} us{2}\n", a->get("time_us"), b->get("time_us"),
                rel(a->get("time_us"), b->get("time_us")));
  os << formatv("cycles:   {0} -> {1}{2}\n", static_cast<int64_t>(a->get("cycles")),
                static_cast<int64_t>(b->get("cycles")), rel(a->get("cycles"), b->get("cycles")));
  os << formatv("TFLOP/s:  {0:F1} -> {1:F1}{2}\n", a->get("tflops"), b->get("tflops"),
                rel(a->get("tflops"), b->get("tflops")));
  os << formatv("clock:    {0:F0} MHz -> {1:F0} MHz\n", a->get("clock_mhz"), b->get("clock_mhz"));
  os << "bound:    " << boundA << (boundA == boundB ? " (unchanged)" : " -> " + boundB) << "\n";
  os << "partitions:\n";
  for (const std::string &name : unionNames(partsA, partsB)) {
    const json::Object *pa = find(partsA, name), *pb = find(partsB, name);
    os << "  " << name << (pa ? "" : " (only in B)") << (pb ? "" : " (only in A)") << ": busy "
       << pct(field(pa, "busy_frac")) << " -> " << pct(field(pb, "busy_frac")) << " ("
       << pp(field(pa, "busy_frac"), field(pb, "busy_frac")) << "), waiting " << pct(field(pa, "wait_frac"))
       << " -> " << pct(field(pb, "wait_frac")) << " (" << pp(field(pa, "wait_frac"), field(pb, "wait_frac"))
       << ")\n";
    auto waitsA = pa ? byName(*pa, "waits", "barrier") : decltype(partsA){};
    auto waitsB = pb ? byName(*pb, "waits", "barrier") : decltype(partsA){};
    json::Array waits;
    for (const std::string &barrier : unionNames(waitsA, waitsB)) {
      double wa = field(find(waitsA, barrier), "frac"), wb = field(find(waitsB, barrier), "frac");
      os << "    waits on " << barrier << ": " << pct(wa) << " -> " << pct(wb) << " (" << pp(wa, wb) << ")\n";
      json::Object w = pair(wa, wb);
      w["barrier"] = barrier;
      waits.push_back(std::move(w));
    }
    partitions.push_back(json::Object{{"name", name},
                                      {"busy_frac", pair(field(pa, "busy_frac"), field(pb, "busy_frac"))},
                                      {"wait_frac", pair(field(pa, "wait_frac"), field(pb, "wait_frac"))},
                                      {"waits", std::move(waits)}});
  }
  os << "units:\n";
  for (const std::string &name : unionNames(unitsA, unitsB)) {
    double ua = field(find(unitsA, name), "utilization"), ub = field(find(unitsB, name), "utilization");
    os << "  " << name << ": " << pct(ua) << " -> " << pct(ub) << " (" << pp(ua, ub) << ")\n";
    json::Object u = pair(ua, ub);
    u["name"] = name;
    units.push_back(std::move(u));
  }

  if (jsonOpt) {
    json::Object out{{"schema_version", 1},
                     {"command", "diff"},
                     {"a", a->file},
                     {"b", b->file},
                     {"time_us", pair(a->get("time_us"), b->get("time_us"))},
                     {"cycles", pair(a->get("cycles"), b->get("cycles"))},
                     {"tflops", pair(a->get("tflops"), b->get("tflops"))},
                     {"speedup", b->get("time_us") > 0 ? a->get("time_us") / b->get("time_us") : 0.0},
                     {"bound", json::Object{{"a", boundA}, {"b", boundB}, {"changed", boundA != boundB}}},
                     {"partitions", std::move(partitions)},
                     {"units", std::move(units)},
                     {"notes", json::Array(llvm::ArrayRef<std::string>(notes))}};
    outs() << formatv("{0:2}", json::Value(std::move(out))) << "\n";
  } else {
    outs() << text;
  }
  return kClean;
}

RegisterCommand registerDiff(diffCommand(), runDiff);

} // namespace
} // namespace tlxsim::tool
