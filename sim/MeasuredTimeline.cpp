#include "sim/MeasuredTimeline.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <limits>
#include <map>

namespace tlxsim::sim {

namespace {

/// The CTA number in a process name "<kernel> Core<sm> CTA<id>", or -1.
int64_t ctaNumber(llvm::StringRef pid) {
  size_t at = pid.rfind("CTA");
  int64_t n = -1;
  if (at == llvm::StringRef::npos || pid.substr(at + 3).getAsInteger(10, n))
    return -1;
  return n;
}

llvm::Error bad(llvm::StringRef path, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s", path.str().c_str(), what.str().c_str());
}

} // namespace

llvm::Expected<MeasuredTimeline> readProtonTimeline(llvm::StringRef path, llvm::StringRef cta) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return bad(path, "cannot read the Proton trace: " + buffer.getError().message());
  auto parsed = llvm::json::parse((*buffer)->getBuffer());
  if (!parsed)
    return bad(path, "not a JSON Chrome trace: " + llvm::toString(parsed.takeError()));
  const llvm::json::Array *events = nullptr;
  if (const llvm::json::Object *root = parsed->getAsObject())
    events = root->getArray("traceEvents");
  else
    events = parsed->getAsArray(); // the JSON Array Format of the Trace Event Format
  if (!events)
    return bad(path, "no \"traceEvents\" array (expected the Chrome trace `tlx-sim run --proton` writes)");

  // Choose the CTA: the one asked for, else the smallest CTA number.
  std::string chosen = cta.str();
  if (chosen.empty()) {
    int64_t best = std::numeric_limits<int64_t>::max();
    for (const llvm::json::Value &v : *events)
      if (const llvm::json::Object *e = v.getAsObject())
        if (auto pid = e->getString("pid"); pid && e->getString("ph") == llvm::StringRef("X")) {
          int64_t n = ctaNumber(*pid);
          if (n >= 0 && n < best) {
            best = n;
            chosen = pid->str();
          }
        }
    if (chosen.empty())
      return bad(path, "no complete (\"ph\": \"X\") events of a process named \"... CTA<n>\"");
  }

  MeasuredTimeline out;
  out.source = path.str();
  out.cta = chosen;
  out.begin = std::numeric_limits<double>::infinity();
  out.end = -std::numeric_limits<double>::infinity();
  bool first = true;
  for (const llvm::json::Value &v : *events) {
    const llvm::json::Object *e = v.getAsObject();
    if (!e || e->getString("ph") != llvm::StringRef("X") || e->getString("pid") != llvm::StringRef(chosen))
      continue;
    auto name = e->getString("name");
    auto tid = e->getString("tid");
    auto ts = e->getNumber("ts");
    auto dur = e->getNumber("dur");
    if (!name || !tid || !ts || !dur)
      return bad(path, "an event of " + chosen + " lacks name, tid, ts or dur");
    int32_t warp = -1;
    llvm::StringRef rest = *tid;
    if (!rest.consume_front("warp ") || rest.take_while([](char c) { return c >= '0' && c <= '9'; }).getAsInteger(10, warp))
      return bad(path, "thread '" + *tid + "' of " + chosen + " is not named \"warp <n> ...\"");
    bool cycles = false;
    if (const llvm::json::Object *args = e->getObject("args"))
      cycles = args->getString("Unit") == llvm::StringRef("GPU cycle");
    if (first)
      out.inCycles = cycles;
    else if (cycles != out.inCycles)
      return bad(path, "the events of " + chosen + " mix GPU-cycle and time units");
    first = false;
    double scale = cycles ? 1000.0 : 1.0; // Proton writes cycles / 1000
    out.scopes.push_back(MeasuredScope{name->str(), warp, *ts * scale, (*ts + *dur) * scale});
    out.begin = std::min(out.begin, out.scopes.back().start);
    out.end = std::max(out.end, out.scopes.back().end);
  }
  if (out.scopes.empty())
    return bad(path, "no complete events of CTA '" + chosen + "'");
  std::sort(out.scopes.begin(), out.scopes.end(), [](const MeasuredScope &a, const MeasuredScope &b) {
    return std::tie(a.warp, a.start, a.end) < std::tie(b.warp, b.start, b.end);
  });
  return out;
}

} // namespace tlxsim::sim
