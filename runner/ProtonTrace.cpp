#include "runner/ProtonTrace.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>
#include <set>

namespace tlxsim::runner::proton {

std::string ScopeTable::name(unsigned id) const {
  auto it = names.find(id);
  return it != names.end() ? it->second : "scope_" + std::to_string(id);
}

uint64_t ScopeTable::timeShiftCycles() const {
  return llvm::StringRef(mode).contains("time_shift") ? 7 : 0;
}

llvm::Expected<ScopeTable> parseScopeTable(llvm::StringRef text, llvm::StringRef where) {
  auto doc = llvm::json::parse(text);
  if (!doc)
    return llvm::createStringError("%s: not JSON: %s", where.str().c_str(), llvm::toString(doc.takeError()).c_str());
  const llvm::json::Object *root = doc->getAsObject();
  const llvm::json::Array *scopes = root ? root->getArray("scopes") : nullptr;
  if (!scopes)
    return llvm::createStringError("%s: expected an object with a \"scopes\" array", where.str().c_str());
  ScopeTable table;
  if (auto mode = root->getString("mode"))
    table.mode = mode->str();
  for (size_t i = 0; i < scopes->size(); ++i) {
    const llvm::json::Object *s = (*scopes)[i].getAsObject();
    auto id = s ? s->getInteger("id") : std::nullopt;
    auto name = s ? s->getString("name") : std::nullopt;
    if (!id || !name || *id < 0 || *id >= int64_t(kMaxScopes))
      return llvm::createStringError("%s: scopes[%zu]: needs \"id\" (0..255) and \"name\"", where.str().c_str(), i);
    if (table.names.count(unsigned(*id))) // a name may repeat: Proton numbers each region's scopes apart
      return llvm::createStringError("%s: scopes[%zu]: id %lld given twice", where.str().c_str(), i, (long long)*id);
    table.names[unsigned(*id)] = name->str();
    table.parents[unsigned(*id)] = int(s->getInteger("parent").value_or(-1));
  }
  return table;
}

llvm::Expected<ScopeTable> readScopeTable(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError("%s: cannot read: %s", path.str().c_str(), buffer.getError().message().c_str());
  return parseScopeTable((*buffer)->getBuffer(), path);
}

llvm::Expected<PartitionMap> partitionsFromTtgir(llvm::StringRef ttgir) {
  PartitionMap map;
  llvm::SmallVector<llvm::StringRef> m;
  if (!llvm::Regex("\"ttg.num-warps\" = ([0-9]+)").match(ttgir, &m))
    return llvm::createStringError("TTGIR has no \"ttg.num-warps\" module attribute");
  map.defaultWarps = unsigned(std::stoul(m[1].str()));
  size_t ws = ttgir.find("ttg.warp_specialize(");
  if (ws == llvm::StringRef::npos)
    return map;
  llvm::Regex partition("^[ \t]*partition([0-9]+)\\(.*\\) num_warps\\(([0-9]+)\\)");
  llvm::SmallVector<llvm::StringRef> lines;
  ttgir.substr(ws).split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (!partition.match(line, &m))
      continue;
    unsigned index = unsigned(std::stoul(m[1].str()));
    if (index != map.workerWarps.size())
      break; // partition0 again: the next warp_specialize
    map.workerWarps.push_back(unsigned(std::stoul(m[2].str())));
  }
  return map;
}

namespace {

/// Each event's line (TraceWriter.cpp assignLineIds): by start time, the first line whose last event
/// it does not overlap.
std::vector<int> assignLines(const std::vector<ScopeEvent> &events) {
  std::vector<size_t> order(events.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return events[a].startCycle < events[b].startCycle; });
  std::vector<int> line(events.size(), 0);
  std::vector<std::pair<uint64_t, uint64_t>> lastOnLine; // (start, end) of each line's last event
  for (size_t i : order) {
    const ScopeEvent &e = events[i];
    size_t l = 0;
    while (l < lastOnLine.size() && e.startCycle < lastOnLine[l].second && e.endCycle > lastOnLine[l].first)
      ++l;
    if (l == lastOnLine.size())
      lastOnLine.emplace_back();
    lastOnLine[l] = {e.startCycle, std::max(e.endCycle, lastOnLine[l].second)};
    line[i] = int(l);
  }
  return line;
}

/// (first start, last end) over a warp's kept events, cycles (its events are in record order, so a scope nested in
/// an earlier one may start before the first event's start); nullopt when it has none.
std::optional<std::pair<uint64_t, uint64_t>> warpSpan(const WarpTrace &w) {
  if (w.events.empty())
    return std::nullopt;
  uint64_t start = std::numeric_limits<uint64_t>::max(), end = 0;
  for (const ScopeEvent &e : w.events) {
    start = std::min(start, e.startCycle);
    end = std::max(end, e.endCycle);
  }
  return std::make_pair(start, end);
}

/// (first start, last end) over a CTA's events, cycles; nullopt when it has none.
std::optional<std::pair<uint64_t, uint64_t>> ctaSpan(const CtaTrace &cta) {
  std::optional<std::pair<uint64_t, uint64_t>> span;
  for (const WarpTrace &w : cta.warps)
    if (auto ws = warpSpan(w))
      span = span ? std::make_pair(std::min(span->first, ws->first), std::max(span->second, ws->second)) : *ws;
  return span;
}

/// Whether every warp of the CTA kept all its entries (no circular segment overflowed).
bool complete(const CtaTrace &cta) {
  return std::none_of(cta.warps.begin(), cta.warps.end(), [](const WarpTrace &w) { return w.droppedEntries > 0; });
}

bool isWait(llvm::StringRef name) { return name.starts_with("wait_") || name.ends_with("_wait"); }

} // namespace

llvm::json::Value chromeTrace(const DecodedProfile &profile, const ScopeTable &scopes, llvm::StringRef kernel,
                              size_t maxCtas) {
  llvm::json::Array events;
  size_t written = 0;
  for (const CtaTrace &cta : profile.ctas) {
    auto span = ctaSpan(cta);
    if (!span)
      continue;
    if (maxCtas && written++ >= maxCtas)
      break;
    std::string pid = llvm::formatv("{0} Core{1} CTA{2}", kernel, cta.smId,
                                    cta.blockId);
    for (const WarpTrace &w : cta.warps) {
      std::vector<int> lines = assignLines(w.events);
      for (size_t i = 0; i < w.events.size(); ++i) {
        const ScopeEvent &e = w.events[i];
        events.push_back(llvm::json::Object{
            {"name", scopes.name(e.scopeId)},
            {"cat", kernel},
            {"ph", "X"},
            {"pid", pid},
            {"tid", llvm::formatv("warp {0} (line {1})", w.warp, lines[i]).str()},
            {"ts", double(e.startCycle - span->first) / 1000.0},
            {"dur", double(e.endCycle - e.startCycle) / 1000.0},
            {"args", llvm::json::Object{{"Unit", "GPU cycle"}, {"sm", cta.smId}, {"cta", cta.blockId}}}});
      }
    }
  }
  return llvm::json::Object{{"displayTimeUnit", "ns"}, {"traceEvents", std::move(events)}};
}

llvm::json::Value partitionSummary(const DecodedProfile &profile, const ScopeTable &scopes, const PartitionMap &parts) {
  std::map<std::string, std::map<std::string, double>> sums; // partition -> scope -> sum of per-warp fractions
  std::map<std::string, uint64_t> warps;                     // partition -> warps (over all CTAs)
  std::map<std::string, double> observed;                    // partition -> sum of per-warp window / lifetime
  std::vector<double> lifetimes;
  for (const CtaTrace &cta : profile.ctas) {
    auto span = ctaSpan(cta);
    if (!span)
      continue;
    const double life = double(span->second - span->first);
    lifetimes.push_back(life / 1000.0);
    std::vector<unsigned> workers;
    for (const WarpTrace &w : cta.warps)
      if (w.warp >= parts.defaultWarps && !w.events.empty())
        workers.push_back(w.warp);
    for (const WarpTrace &w : cta.warps) {
      if (w.events.empty())
        continue;
      std::string part = "default";
      if (w.warp >= parts.defaultWarps) {
        size_t rank = size_t(std::find(workers.begin(), workers.end(), w.warp) - workers.begin());
        size_t index = 0;
        while (index < parts.workerWarps.size() && rank >= parts.workerWarps[index])
          rank -= parts.workerWarps[index++];
        part = "partition" + std::to_string(index);
      }
      warps[part]++;
      // A warp's fractions are taken over its own life, as the simulator's partition lifetime is (an agent's start
      // to its exit, sim/SummaryView.cpp): from the CTA's first start to the warp's own last end, so that a
      // producer that exits while the consumers finish their last stages is not counted busy after its exit.
      // A warp whose circular segment overflowed kept only its newest entries: its window starts at its first
      // kept start, not at the CTA's first start, which the other warps' older entries may reach back to
      // (Proton's own summary divides by the lifetime: a wait share that shrinks with the share of the entries
      // dropped, and with the time after the warp's exit).
      const auto own = warpSpan(w);
      const double window = double(own->second - (w.droppedEntries ? own->first : span->first));
      observed[part] += life > 0 ? window / life : 0.0;
      for (const ScopeEvent &e : w.events)
        sums[part][scopes.name(e.scopeId)] += window > 0 ? double(e.endCycle - e.startCycle) / window : 0.0;
    }
  }
  llvm::json::Object partitions;
  for (const auto &[part, byScope] : sums) {
    llvm::json::Object fractions;
    double waits = 0;
    for (const auto &[name, total] : byScope) {
      double f = total / double(warps[part]);
      fractions[name] = f;
      if (isWait(name))
        waits += f;
    }
    partitions[part] = llvm::json::Object{{"warps_per_cta", int64_t(warps[part] / std::max<size_t>(1, lifetimes.size()))},
                                          {"wait_frac", waits},
                                          {"observed_frac", observed[part] / double(warps[part])},
                                          {"scopes", std::move(fractions)}};
  }
  llvm::json::Value mean = nullptr;
  if (!lifetimes.empty()) {
    double total = 0;
    for (double l : lifetimes)
      total += l;
    mean = total / double(lifetimes.size());
  }
  return llvm::json::Object{
      {"ctas", int64_t(lifetimes.size())}, {"lifetime_us_mean", std::move(mean)}, {"partitions", std::move(partitions)}};
}

llvm::json::Value globalTimerSummary(const DecodedProfile &profile) {
  double ns = 0, cycles = 0;
  size_t n = 0;
  for (const CtaTrace &cta : profile.ctas) {
    auto span = ctaSpan(cta);
    if (!span || cta.preFinalTimeNs <= cta.initTimeNs || !complete(cta))
      continue;
    ns += double(cta.preFinalTimeNs - cta.initTimeNs);
    cycles += double(span->second - span->first);
    ++n;
  }
  if (!n)
    return llvm::json::Object{{"ctas", 0}};
  return llvm::json::Object{{"ctas", int64_t(n)},
                            {"init_to_prefinal_ns_mean", ns / double(n)},
                            {"cycles_per_ns", cycles / ns}};
}

llvm::Expected<ProtonCapture> readProtonCapture(const Capture &c) {
  if (c.metadata.profileScratchSize <= 0)
    return llvm::createStringError("%s: profile_scratch_size is 0: the kernel is not instrumented (capture it with "
                                   "`python -m tlx_sim.capture ... --proton`; a kernel with no Proton scopes gets "
                                   "no instrumentation)",
                                   c.dir.c_str());
  ProtonCapture out;
  llvm::SmallString<256> table(c.dir);
  llvm::sys::path::append(table, c.kernel + ".proton.json");
  auto scopes = readScopeTable(table);
  if (!scopes)
    return scopes.takeError();
  out.scopes = std::move(*scopes);
  llvm::SmallString<256> ttgirPath(c.dir);
  llvm::sys::path::append(ttgirPath, c.kernel + ".ttgir");
  auto ttgir = llvm::MemoryBuffer::getFile(ttgirPath, /*IsText=*/true);
  if (!ttgir)
    return llvm::createStringError("%s: cannot read: %s", ttgirPath.c_str(), ttgir.getError().message().c_str());
  auto parts = partitionsFromTtgir((*ttgir)->getBuffer());
  if (!parts)
    return llvm::createStringError("%s: %s", ttgirPath.c_str(), llvm::toString(parts.takeError()).c_str());
  out.partitions = *parts;
  out.layout.scratchBytes = uint64_t(c.metadata.profileScratchSize);
  out.layout.numCtas = uint64_t(c.grid[0] * c.grid[1] * c.grid[2] * c.metadata.numCtas);
  out.layout.numWarps = unsigned(c.metadata.numWarps);
  out.layout.timeShiftCycles = out.scopes.timeShiftCycles();
  return out;
}

namespace {

llvm::Error writeJson(llvm::StringRef path, const llvm::json::Value &value) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return llvm::createStringError("%s: cannot write: %s", path.str().c_str(), ec.message().c_str());
  os << value << "\n";
  return llvm::Error::success();
}

} // namespace

llvm::Expected<ProtonOutputs> writeProtonOutputs(const Capture &c, const ProtonCapture &proton,
                                                 llvm::ArrayRef<uint8_t> buffer, llvm::StringRef outPath,
                                                 size_t traceCtas) {
  auto profile = decodeProfileBuffer(buffer, proton.layout);
  if (!profile)
    return profile.takeError();
  ProtonOutputs out;
  out.tracePath = outPath.str();
  llvm::SmallString<256> summaryPath(outPath);
  llvm::sys::path::replace_extension(summaryPath, ".summary.json");
  out.summaryPath = summaryPath.str().str();
  out.warnings = profile->warnings();
  std::set<unsigned> unnamed;
  for (const CtaTrace &cta : profile->ctas)
    for (const WarpTrace &w : cta.warps)
      for (const ScopeEvent &e : w.events)
        if (!proton.scopes.names.count(e.scopeId))
          unnamed.insert(e.scopeId);
  for (unsigned id : unnamed)
    out.warnings.push_back(llvm::formatv("scope id {0} has no name in the scope table (shown as scope_{0})", id));
  if (auto err = writeJson(out.tracePath, chromeTrace(*profile, proton.scopes, c.metadata.name, traceCtas)))
    return std::move(err);
  out.summary = partitionSummary(*profile, proton.scopes, proton.partitions);
  llvm::json::Array warnings;
  for (const std::string &w : out.warnings)
    warnings.push_back(w);
  llvm::json::Array workers;
  for (unsigned w : proton.partitions.workerWarps)
    workers.push_back(int64_t(w));
  llvm::json::Object doc{
      {"capture", c.dir},
      {"kernel", c.kernel},
      {"module", c.module},
      {"config", c.config},
      {"grid", llvm::json::Array{c.grid[0], c.grid[1], c.grid[2]}},
      {"mode", proton.scopes.mode},
      {"warps", llvm::json::Object{{"total", int64_t(proton.layout.numWarps)},
                                   {"default", int64_t(proton.partitions.defaultWarps)},
                                   {"workers", std::move(workers)}}},
      {"ctas_decoded", int64_t(profile->ctas.size())},
      {"proton", llvm::json::Object{{"summary", out.summary},
                                    {"timeline", llvm::sys::path::filename(outPath).str()}}},
      {"globaltimer", globalTimerSummary(*profile)},
      {"warnings", std::move(warnings)}};
  if (!c.shape.empty()) {
    llvm::json::Object shape;
    for (const auto &[k, v] : c.shape)
      shape[k] = v;
    doc["shape"] = std::move(shape);
  }
  if (auto err = writeJson(out.summaryPath, llvm::json::Value(std::move(doc))))
    return std::move(err);
  return out;
}

} // namespace tlxsim::runner::proton
