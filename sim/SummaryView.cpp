#include "sim/SummaryView.h"

#include "sim/Occupancy.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace tlxsim::sim {

SummaryView::SummaryView(const Program &program, const GpuModel &model) : program_(program), model_(model) {
  tensorCoreWait_ = waitId("tensor core");
  operandsWait_ = waitId("operands");
  wgmmaWait_ = waitId("wgmma");
  cpAsyncWait_ = waitId("cp.async");
  tmaStoreWait_ = waitId("tma store");
  // Two allocations of one Python name (TLX's fused attention allocates a barrier array `k` for the K tiles'
  // TMA copies and another `k` that the MMA releases) are two things to wait on: a shared name would merge their
  // waits, and the bound would call a wait on the other one a wait for TMA copies. After the first, such a name
  // gets the allocation's index among all allocations ("k#5"; the prover numbers its barrier groups apart, so its
  // suffixes may differ).
  std::set<std::string> seen;
  for (size_t i = 0; i < program.allocs.size(); ++i) {
    const std::string &name = program.allocs[i].name;
    allocWait_.push_back(waitId(seen.insert(name).second ? name : name + "#" + std::to_string(i)));
  }
  txFilled_.resize(waitNames_.size());
}

void SummaryView::onBarrier(const BarrierEvent &e) {
  if (e.barrier.alloc < 0 || static_cast<size_t>(e.barrier.alloc) >= allocWait_.size())
    return;
  int32_t id = allocWait_[e.barrier.alloc];
  if (e.action == BarrierAction::CompleteTx)
    txFilled_[id] = 1;
  // Arrivals by partition: an Arrive's amount is its arrival count; an ExpectArrive's is the tx bytes it registers,
  // so it counts as the one arrival it makes.
  if ((e.action == BarrierAction::Arrive || e.action == BarrierAction::ExpectArrive) && e.agent >= 0 &&
      static_cast<size_t>(e.agent) < agentPartition_.size()) {
    if (arrivals_.size() <= static_cast<size_t>(id))
      arrivals_.resize(id + 1);
    arrivals_[id][agentPartition_[e.agent]] +=
        e.action == BarrierAction::ExpectArrive ? 1.0 : static_cast<double>(e.amount);
  }
}

int32_t SummaryView::releaser(int32_t waitIdOf, size_t waiter) const {
  if (static_cast<size_t>(waitIdOf) >= arrivals_.size())
    return -1;
  int32_t best = -1;
  double most = 0;
  for (const auto &[part, count] : arrivals_[waitIdOf])
    if (static_cast<size_t>(part) != waiter && count > most)
      best = part, most = count;
  return best;
}

std::string SummaryView::releaseChain(size_t start, int32_t barrier) const {
  // Follow who releases what the partition waits on: a partition blocked on its free slots (a producer) only shows
  // that its consumers are slow; the chain ends at a partition that mostly works, or at a wait whose phases TMA
  // copies complete, or where it would revisit a partition. At most partitions_.size() hops.
  std::string chain;
  std::vector<uint8_t> seen(partitions_.size(), 0);
  seen[start] = 1;
  for (size_t hop = 0; hop < partitions_.size(); ++hop) {
    int32_t next = releaser(barrier, start);
    if (next < 0 || seen[next])
      break;
    seen[next] = 1;
    const PartitionStats &s = partitions_[next];
    double life = std::max(1.0, s.lifetime);
    int32_t top = -1;
    for (size_t id = 0; id < s.waited.size(); ++id)
      if (s.waited[id] && isBarrierWait(id) && (top < 0 || s.waitSpan[id] > s.waitSpan[top]))
        top = static_cast<int32_t>(id);
    chain += llvm::formatv("; {0} is released by {1} (busy {2:f1} %", waitNames_[barrier], s.name,
                           100 * s.busy / life)
                 .str();
    if (top < 0 || s.waitSpan[top] / life < 0.5) {
      chain += top < 0 ? ")" : llvm::formatv(", its longest wait {0:f1} % on {1})", 100 * s.waitSpan[top] / life,
                                             waitNames_[top]).str();
      break;
    }
    chain += llvm::formatv(", waiting {0:f1} % on {1}{2})", 100 * s.waitSpan[top] / life, waitNames_[top],
                           static_cast<size_t>(top) < txFilled_.size() && txFilled_[top]
                               ? ", which TMA copies complete"
                               : "")
                 .str();
    if (static_cast<size_t>(top) < txFilled_.size() && txFilled_[top])
      break;
    start = static_cast<size_t>(next);
    barrier = top;
  }
  return chain;
}

int32_t SummaryView::waitId(const std::string &name) {
  auto it = std::find(waitNames_.begin(), waitNames_.end(), name);
  if (it != waitNames_.end())
    return static_cast<int32_t>(it - waitNames_.begin());
  waitNames_.push_back(name);
  return static_cast<int32_t>(waitNames_.size() - 1);
}

void SummaryView::addWait(PartitionStats &s, int32_t id, double span) {
  if (s.waitSpan.size() <= static_cast<size_t>(id)) {
    s.waitSpan.resize(waitNames_.size());
    s.waited.resize(waitNames_.size());
  }
  s.waitSpan[id] += span;
  s.waited[id] = 1;
}

std::map<std::string, double> SummaryView::waitsOf(const PartitionStats &s) const {
  std::map<std::string, double> waits;
  for (size_t id = 0; id < s.waited.size(); ++id)
    if (s.waited[id])
      waits[waitNames_[id]] = s.waitSpan[id];
  return waits;
}

void SummaryView::onAgentStart(const AgentInfo &info, Cycle t) {
  if (agentPartition_.size() <= static_cast<size_t>(info.id)) {
    agentPartition_.resize(info.id + 1);
    agentStart_.resize(info.id + 1);
  }
  auto it = std::find(partitionNames_.begin(), partitionNames_.end(), info.partition);
  if (it == partitionNames_.end()) {
    partitionNames_.push_back(info.partition);
    partitions_.emplace_back();
    partitions_.back().name = info.partition;
    it = std::prev(partitionNames_.end());
  }
  agentPartition_[info.id] = static_cast<int32_t>(it - partitionNames_.begin());
  agentStart_[info.id] = t;
  stats(info.id).numWarps = info.numWarps;
}

void SummaryView::onAgentEnd(int32_t agent, Cycle t) {
  stats(agent).lifetime += static_cast<double>(t - agentStart_[agent]);
}

void SummaryView::onAgentWork(int32_t agent, const AgentWork &w) {
  PartitionStats &s = stats(agent);
  s.tensorQueueBlocked += static_cast<double>(w.tensorQueueBlocked);
  s.mufuHeld += static_cast<double>(w.mufuHeld);
  s.join += static_cast<double>(w.joinWait);
  // Proton's window: the agent's start to its last record, or, where its warps' circular segments overflowed, the
  // stretch their newest entries cover (runner/ProtonTrace.cpp partitionSummary).
  std::vector<Cycle> kept;
  Cycle keptWindow = 0;
  bool overflowed = w.protonSegment.overflowed();
  if (overflowed)
    w.protonSegment.decode(kept, keptWindow);
  const std::vector<Cycle> &scopes = overflowed ? kept : w.protonScope;
  if (s.protonScope.size() < scopes.size())
    s.protonScope.resize(scopes.size());
  for (size_t id = 0; id < scopes.size(); ++id)
    s.protonScope[id] += static_cast<double>(scopes[id]);
  if (overflowed)
    s.protonWindow += static_cast<double>(keptWindow);
  else if (w.protonLast >= 0)
    s.protonWindow += std::max(0.0, static_cast<double>(w.protonLast) - static_cast<double>(agentStart_[agent]));
  for (size_t i = 0; i < kNumOps; ++i) {
    Op op = static_cast<Op>(i);
    if (w.operandWait[i] > 0) { // stalls on operands: a register scoreboard, or the tensor cores (register MMAs)
      double span = static_cast<double>(w.operandWait[i]);
      s.wait += span;
      addWait(s, op == Op::Dot ? tensorCoreWait_ : operandsWait_, span);
    }
    if (w.spans[i] == 0)
      continue;
    double span = static_cast<double>(w.cycles[i]);
    if (op == Op::WgmmaWait || op == Op::TmaStoreWait || op == Op::TmaStoreTokenWait || op == Op::AsyncWait) {
      s.wait += span;
      addWait(s, op == Op::WgmmaWait ? wgmmaWait_ : op == Op::AsyncWait ? cpAsyncWait_ : tmaStoreWait_, span);
    } else {
      s.busy += span;
    }
  }
  for (size_t alloc = 0; alloc < w.barrierWait.size(); ++alloc) {
    if (w.barrierResumes[alloc] == 0)
      continue;
    double span = static_cast<double>(w.barrierWait[alloc]);
    s.wait += span;
    addWait(s, allocWait_[alloc], span);
  }
}

void SummaryView::Overlap::add(bool load, Cycle start, Cycle end) {
  Span &cur = load ? curLoad : curMma;
  bool &have = load ? haveLoad : haveMma;
  if (have && start <= cur.end) {
    cur.end = std::max(cur.end, end);
    return;
  }
  if (have) {
    (load ? loads : mmas).push_back(cur);
    (load ? loadTotal : mmaTotal) += static_cast<double>(cur.end - cur.start);
  }
  cur = Span{start, end};
  have = true;
  drain(false);
}

void SummaryView::Overlap::drain(bool final) {
  if (final) {
    for (bool load : {true, false}) {
      bool &have = load ? haveLoad : haveMma;
      Span &cur = load ? curLoad : curMma;
      if (have) {
        (load ? loads : mmas).push_back(cur);
        (load ? loadTotal : mmaTotal) += static_cast<double>(cur.end - cur.start);
        have = false;
      }
    }
  }
  while (true) {
    if (!loads.empty() && !mmas.empty()) {
      Span a = loads.front(), b = mmas.front();
      if (std::min(a.end, b.end) > std::max(a.start, b.start))
        both += static_cast<double>(std::min(a.end, b.end) - std::max(a.start, b.start));
      if (a.end <= b.end)
        loads.pop_front();
      else
        mmas.pop_front();
      continue;
    }
    // A lone finalized span overlaps nothing later once the other kind's open span starts
    // after it (spans of one kind arrive in start order).
    if (!loads.empty() && (final || (haveMma && curMma.start >= loads.front().end))) {
      loads.pop_front();
      continue;
    }
    if (!mmas.empty() && (final || (haveLoad && curLoad.start >= mmas.front().end))) {
      mmas.pop_front();
      continue;
    }
    break;
  }
}

void SummaryView::onFinish(Cycle) {
  for (Overlap &o : overlap_)
    o.drain(true);
}

void SummaryView::onAsync(const AsyncEvent &e) {
  if (e.sm >= 0) {
    if (overlap_.size() <= static_cast<size_t>(e.sm))
      overlap_.resize(e.sm + 1);
    if (e.unit == AsyncEvent::TensorCore || e.unit == AsyncEvent::TmaLoad || e.unit == AsyncEvent::LsuLoad)
      overlap_[e.sm].add(e.unit != AsyncEvent::TensorCore, e.start, e.end);
  }
  if (e.unit == AsyncEvent::TensorCore) {
    tensorBusy_ += static_cast<double>(e.end - e.start);
    flops_ += static_cast<double>(e.flops);
    return;
  }
  if (e.unit == AsyncEvent::LsuLoad || e.unit == AsyncEvent::LsuStore)
    lsuBytes_ += static_cast<double>(e.bytes);
  else
    tmaBytes_ += static_cast<double>(e.bytes);
  if (!e.l2Hit || e.unit == AsyncEvent::TmaStore || e.unit == AsyncEvent::LsuStore)
    hbmBytes_ += static_cast<double>(e.bytes);
}

SummaryView::Derived SummaryView::derive(const SimResult &r) const {
  Derived d;
  double cycles = std::max<double>(1, static_cast<double>(r.cycles));
  double seconds = cycles / (r.clockMhz * 1e6);
  d.timeUs = seconds * 1e6;
  d.tflops = flops_ / seconds / 1e12;
  d.bytesPerS = hbmBytes_ / seconds;
  double sms = r.numSms;
  d.units = {
      {"tensor core", tensorBusy_ / (cycles * sms)},
      {"TMA", tmaBytes_ / model_.get("tma_bytes_per_clk_sm") / (cycles * sms)},
      {"LSU", lsuBytes_ / model_.get("lsu_bytes_per_clk_sm") / (cycles * sms)},
      // The L2 runs in its own clock domain: l2_bytes_per_clk is its rate per SM clock at clock_max_mhz, a
      // bandwidth in bytes per second that a lower SM clock does not lower (the engine's Costs::l2BytesPerClkNow).
      {"L2", (tmaBytes_ + lsuBytes_) /
                 (model_.get("l2_bytes_per_clk") * model_.get("clock_max_mhz") * 1e6 * seconds)},
      {"HBM", hbmBytes_ / (model_.get("hbm_bytes_per_s") * seconds)},
  };
  for (auto &unit : d.units)
    unit.second = std::min(1.0, unit.second);
  double loadOnly = 0, mmaOnly = 0;
  for (const Overlap &o : overlap_) {
    loadOnly += o.loadTotal - o.both;
    mmaOnly += o.mmaTotal - o.both;
  }
  double smCycles = cycles * std::max(1.0, sms);
  d.exposedTmaFrac = std::min(1.0, loadOnly / smCycles);
  d.exposedMmaFrac = std::min(1.0, mmaOnly / smCycles);
  d.exposedTmaUs = d.exposedTmaFrac * d.timeUs;
  d.exposedMmaUs = d.exposedMmaFrac * d.timeUs;
  // Issue: the busiest partition's share of its lifetime spent issuing.
  d.issueFrac = 0;
  const PartitionStats *issuer = nullptr; // the partition that issues the largest share of its life
  for (const PartitionStats &s : partitions_)
    if (s.lifetime > 0 && std::min(1.0, s.busy / s.lifetime) > d.issueFrac) {
      d.issueFrac = std::min(1.0, s.busy / s.lifetime);
      issuer = &s;
    }
  auto top = std::max_element(d.units.begin(), d.units.end(),
                              [](const auto &a, const auto &b) { return a.second < b.second; });
  static const std::map<std::string, std::string> boundOf = {
      {"tensor core", "MMA"}, {"TMA", "TMA"}, {"LSU", "LSU"}, {"L2", "L2"}, {"HBM", "HBM"}};
  // A tensor core 60-80 % busy while a partition waits half its life or more for TMA-filled stages is as much held
  // by its loads as by its MMA: the actionable verdict is the wait's (more stages), not "MMA" (ws_gemm S = 3 at
  // K = 16384: tensor core 60.0 %, its consumer waiting 62 % on `ready`, where K = 8192's 59.4 % read TMA latency).
  Derived starved = d;
  bool loadStarved = false;
  if (top->first == "tensor core" && top->second >= 0.6 && top->second < 0.8) {
    waitBound(starved, r);
    loadStarved = starved.bound == "TMA latency" && starved.txWaitShare >= 0.5;
  }
  if (loadStarved) {
    d.bound = starved.bound;
    d.boundEvidence = llvm::formatv("tensor core {0:f1} % busy, below 80 %, while ", 100 * top->second).str() +
                      starved.waitEvidence + unmeasuredRate(top->first);
  } else if (top->second >= 0.6) {
    d.bound = boundOf.at(top->first);
    d.boundEvidence = llvm::formatv("{0} {1:f1} % busy", top->first, 100 * top->second).str();
    // The partition the critical unit holds: for the tensor core, the one whose warps wait longest at wgmma issue
    // (for a full queue, or for each wgmma of a serialized pipeline).
    const PartitionStats *held = nullptr;
    for (const PartitionStats &s : partitions_)
      if (s.lifetime > 0 && s.tensorQueueBlocked > 0 && (!held || s.tensorQueueBlocked / s.lifetime >
                                                                      held->tensorQueueBlocked / held->lifetime))
        held = &s;
    if (top->first == "tensor core" && held)
      d.boundEvidence += llvm::formatv("; partition {0} held at wgmma issue by the tensor pipe {1:f1} % of "
                                       "its life", held->name, 100 * held->tensorQueueBlocked / held->lifetime).str();
    d.boundEvidence += unmeasuredRate(top->first);
  } else if (d.issueFrac >= 0.6) {
    d.bound = "issue"; // no unit saturated, but some partition's warps issue most of the time
  } else {
    waitBound(d, r);
    d.boundEvidence += llvm::formatv("; most busy unit: {0} {1:f1} %", top->first, 100 * top->second).str();
  }
  if (d.bound == "issue" && issuer) {
    d.boundEvidence = llvm::formatv("no unit 60 % busy; partition {0} issues {1:f1} % of its life: its own "
                                    "instructions (register math, MUFU, wgmma issue) are the critical path",
                                    issuer->name, 100 * d.issueFrac);
    // Held behind its MUFU instructions for a sizable part: the SFUs' rate sets the pace (fewer exp2-class ops on
    // the MUFU, e.g. a polynomial exp2 on the FMA pipe as FlashAttention-4 does, would shorten it).
    if (double held = issuer->mufuHeld / issuer->lifetime; held >= 0.05)
      d.boundEvidence += llvm::formatv("; {0:f1} % of its life held behind its MUFU instructions (exp2-class math "
                                       "at the SFUs' rate)", 100 * held).str();
  }
  return d;
}

bool SummaryView::isBarrierWait(size_t id) const {
  for (int32_t other : {tensorCoreWait_, operandsWait_, wgmmaWait_, cpAsyncWait_, tmaStoreWait_})
    if (id == static_cast<size_t>(other))
      return false;
  return true;
}

std::string SummaryView::unmeasuredRate(const std::string &unit) const {
  static const std::map<std::string, std::string> rateOf = {{"tensor core", "tensor_flops_per_clk_sm_fp16"},
                                                            {"TMA", "tma_bytes_per_clk_sm"},
                                                            {"LSU", "lsu_bytes_per_clk_sm"},
                                                            {"L2", "l2_bytes_per_clk"},
                                                            {"HBM", "hbm_bytes_per_s"}};
  auto rate = rateOf.find(unit);
  if (rate == rateOf.end())
    return "";
  auto param = model_.params().find(rate->second);
  if (param == model_.params().end() || !llvm::StringRef(param->second.source).starts_with("U"))
    return "";
  return llvm::formatv("; its rate {0} is not measured on {1} (marked U in the model file): the bound is as "
                       "uncertain as that number",
                       rate->second, model_.name())
      .str();
}

std::string SummaryView::sharedHeadroom(const SimResult &r) const {
  double perSm = model_.get("smem_per_sm_bytes");
  if (r.sharedBytesPerCta <= 0 || r.ctasPerSm <= 0 || !(perSm > 0))
    return "";
  double used = sharedFootprintPerCta(r.sharedBytesPerCta, model_) * r.ctasPerSm; // as occupancy counts it
  return llvm::formatv(", where shared memory allows: {0:f1} of {1:f1} KB per SM in use", used / 1024, perSm / 1024)
      .str();
}

void SummaryView::waitBound(Derived &d, const SimResult &r) const {
  // No unit is saturated: the time goes to waiting. Barrier waits mean the pipeline starves; otherwise it is
  // exposed latency. A producer waiting for free stages is the normal state of a full ring; a consumer waiting for
  // a stage its TMA copies fill says the copies in flight do not cover their latency, which more stages fix.
  struct Worst {
    double share = -1, span = 0;
    std::string partition, barrier;
    size_t part = 0;
    int32_t barrierId = -1;
  } anyWait, txWait;
  double barrierWait = 0, total = 0;
  for (size_t p = 0; p < partitions_.size(); ++p) {
    const PartitionStats &s = partitions_[p];
    total += s.lifetime;
    double mine = 0, top = 0, topTx = 0;
    int32_t topId = -1, topTxId = -1;
    for (size_t id = 0; id < s.waited.size(); ++id) {
      if (!s.waited[id] || !isBarrierWait(id))
        continue;
      mine += s.waitSpan[id];
      if (s.waitSpan[id] > top)
        top = s.waitSpan[id], topId = static_cast<int32_t>(id);
      if (id < txFilled_.size() && txFilled_[id] && s.waitSpan[id] > topTx)
        topTx = s.waitSpan[id], topTxId = static_cast<int32_t>(id);
    }
    barrierWait += mine;
    if (s.lifetime <= 0)
      continue;
    if (top > 0 && mine / s.lifetime > anyWait.share)
      anyWait = {mine / s.lifetime, top / s.lifetime, s.name, waitNames_[topId], p, topId};
    if (topTx > 0 && topTx / s.lifetime > txWait.share)
      txWait = {topTx / s.lifetime, topTx / s.lifetime, s.name, waitNames_[topTxId], p, topTxId};
  }
  double share = total > 0 ? barrierWait / total : 0;
  if (share <= 0.3 || anyWait.share < 0) {
    d.bound = "latency";
    d.boundEvidence = llvm::formatv("no unit 60 % busy; mbarrier waits {0:f1} % of partition time", 100 * share);
    return;
  }
  bool tma = txWait.share >= 0.2;
  d.txWaitShare = tma ? txWait.share : 0;
  const Worst &w = tma ? txWait : anyWait;
  d.bound = tma ? "TMA latency" : "synchronization";
  d.waitEvidence =
      llvm::formatv("partition {0} waits {1:f1} % of its life on {2}{3}; mbarrier waits {4:f1} % of partition time",
                    w.partition, 100 * w.span, w.barrier,
                    tma ? ", whose phases TMA copies complete: the copies in flight do not cover their latency (more "
                          "stages would" + sharedHeadroom(r) + ")"
                        : ", released by other partitions' arrives" + releaseChain(w.part, w.barrierId),
                    100 * share)
          .str();
  d.boundEvidence = "no unit 60 % busy; " + d.waitEvidence;
}

llvm::json::Object SummaryView::toJson(const SimResult &r) const {
  Derived d = derive(r);
  llvm::json::Array parts;
  for (const PartitionStats &s : partitions_) {
    double life = std::max(1.0, s.lifetime);
    llvm::json::Array waits;
    for (const auto &[what, span] : waitsOf(s))
      waits.push_back(llvm::json::Object{{"barrier", what}, {"frac", std::min(1.0, span / life)}});
    llvm::json::Object part{{"name", s.name},
                            {"num_warps", s.numWarps},
                            {"busy_frac", std::min(1.0, s.busy / life)},
                            {"wait_frac", std::min(1.0, s.wait / life)},
                            {"waits", std::move(waits)}};
    if (s.join > 0)
      part["join_frac"] = std::min(1.0, s.join / life);
    if (!program_.protonScopes.empty()) { // an instrumented capture: the time in its scopes, as Proton measures it
      double inScopes = 0, window = s.protonWindow > 0 ? s.protonWindow : life;
      llvm::json::Object byScope; // per scope name, as Proton's summary `partitions.<name>.scopes`
      for (size_t id = 0; id < s.protonScope.size(); ++id) {
        inScopes += s.protonScope[id];
        if (s.protonScope[id] > 0 && id < program_.protonScopes.size())
          byScope[program_.protonScopes[id]] = std::min(1.0, s.protonScope[id] / window);
      }
      part["proton_scope_frac"] = std::min(1.0, inScopes / window);
      part["proton_scopes"] = std::move(byScope);
    }
    parts.push_back(std::move(part));
  }
  llvm::json::Array units;
  for (const auto &[name, utilization] : d.units)
    units.push_back(llvm::json::Object{{"name", name}, {"utilization", utilization}});
  return llvm::json::Object{{"schema_version", 1},
                            {"kernel", program_.kernelName},
                            {"model", model_.name()},
                            {"time_us", d.timeUs},
                            {"cycles", static_cast<int64_t>(r.cycles)},
                            {"clock_mhz", r.clockMhz},
                            {"tflops", d.tflops},
                            {"bytes_per_s", d.bytesPerS},
                            {"bound", d.bound},
                            {"bound_evidence", d.boundEvidence},
                            {"ctas", r.ctasSimulated},
                            {"grid_ctas", r.gridCtas},
                            {"partial_grid", r.partialGrid},
                            {"ctas_per_sm", r.ctasPerSm},
                            {"occupancy_limit", r.occupancyLimit},
                            {"shared_bytes_per_cta", r.sharedBytesPerCta},
                            {"registers_per_thread", r.registersPerThread},
                            {"shared_bytes_from", r.sharedSource},
                            {"registers_from", r.registersSource},
                            {"exposed_tma_us", d.exposedTmaUs},
                            {"exposed_mma_us", d.exposedMmaUs},
                            {"exposed_tma_frac", d.exposedTmaFrac},
                            {"exposed_mma_frac", d.exposedMmaFrac},
                            {"partitions", std::move(parts)},
                            {"units", std::move(units)}};
}

void SummaryView::print(const SimResult &r, llvm::raw_ostream &os) const {
  Derived d = derive(r);
  // AMD's terms on a CDNA target (the JSON keeps its documented names): compute units, and the direct global ->
  // LDS copies that the "TMA" unit models there (models/mi300x.json tma_bytes_per_clk_sm).
  bool amd = llvm::StringRef(program_.target).starts_with("hip");
  const char *sm = amd ? "CU" : "SM";
  os << "Kernel:            " << program_.kernelName << " (" << program_.target << ")\n";
  os << "Model:             " << model_.name() << " (" << r.numSms << " " << sm << "s at "
     << llvm::format("%.0f", r.clockMhz) << " MHz)\n";
  os << "CTAs:              " << r.ctasSimulated;
  if (r.partialGrid) // --max-ctas: the time is not the launch's
    os << " of the grid's " << r.gridCtas << " (--max-ctas: time and throughput are those of these CTAs alone)";
  os << ", " << r.ctasPerSm << " per " << sm << " (limited by " << r.occupancyLimit << ")\n";
  if (r.sharedSource != "metadata" || r.registersSource != "binary")
    os << "Occupancy from:    " << r.sharedBytesPerCta << " B shared memory per CTA (" << r.sharedSource << "), "
       << (r.registersPerThread > 0 ? std::to_string(r.registersPerThread) + " registers per thread (" +
                                          r.registersSource + ")"
                                    : std::string("registers unknown (no binary; not a limit)"))
       << "\n";
  if (r.clcRequests > 0)
    os << "CLC:               " << r.clcRequests << " try_cancel requests, " << r.clcCanceled
       << " clusters canceled (responses decided by the simulator's CTA dispatcher: the next not-yet-started "
          "cluster in launch order, failing once none is left)\n";
  os << "Cycles:            " << r.cycles << "\n";
  os << "Time:              " << llvm::format("%.2f", d.timeUs) << " us\n";
  os << "Throughput:        " << llvm::format("%.1f", d.tflops) << " TFLOP/s, "
     << llvm::format("%.2f", d.bytesPerS / 1e12) << " TB/s from HBM\n";
  os << "Bound:             " << d.bound << " (" << d.boundEvidence << ")\n";
  os << "Exposed loads:     " << llvm::format("%.2f", d.exposedTmaUs) << " us ("
     << llvm::format("%.1f%%", 100 * d.exposedTmaFrac) << " of " << sm << " time: "
     << (amd ? "async global loads" : "TMA / cp.async") << " in flight, no MMA)\n";
  os << "Exposed MMA:       " << llvm::format("%.2f", d.exposedMmaUs) << " us ("
     << llvm::format("%.1f%%", 100 * d.exposedMmaFrac) << " of " << sm
     << " time: MMA with no load in flight)\n\nPartitions:\n";
  for (const PartitionStats &s : partitions_) {
    double life = std::max(1.0, s.lifetime);
    os << "  " << llvm::format("%-12s", s.name.c_str()) << " warps " << s.numWarps << "  busy "
       << llvm::format("%5.1f%%", 100 * s.busy / life) << "  waiting " << llvm::format("%5.1f%%", 100 * s.wait / life);
    for (const auto &[what, span] : waitsOf(s))
      if (100 * span / life >= 0.05) // what would print as 0.0 % says nothing (the JSON keeps every wait)
        os << "  [" << what << " " << llvm::format("%.1f%%", 100 * span / life) << "]";
    if (100 * s.join / life >= 0.05) // the rest of its life: at the join, for the other partitions to end
      os << "  join " << llvm::format("%.1f%%", 100 * s.join / life);
    os << "\n";
  }
  os << "\nUnit utilization:\n";
  for (const auto &[name, utilization] : d.units)
    os << "  " << llvm::format("%-12s", (amd && name == "TMA" ? "global->LDS" : name).c_str())
       << llvm::format("%5.1f%%", 100 * utilization) << "\n";
}

} // namespace tlxsim::sim
