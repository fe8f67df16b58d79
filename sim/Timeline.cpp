#include "sim/Timeline.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace tlxsim::sim {

const char *sliceCssClass(TimelineSlice::Kind kind) {
  switch (kind) {
  case TimelineSlice::Issue: return "issue";
  case TimelineSlice::BarrierOp: return "barop";
  case TimelineSlice::BarrierWait: return "barwait";
  case TimelineSlice::AsyncWait: return "asyncwait";
  case TimelineSlice::Mma: return "mma";
  case TimelineSlice::TmaLoad: return "tmaload";
  case TimelineSlice::TmaStore: return "tmastore";
  }
  return "issue";
}

Timeline::Timeline(const Program &program, int32_t sm) : program_(program), sm_(sm) {}

Timeline::AgentState &Timeline::agent(int32_t id) {
  if (agents_.size() <= static_cast<size_t>(id))
    agents_.resize(id + 1);
  return agents_[id];
}

int32_t Timeline::addSlice(TimelineSlice slice) {
  slices_.push_back(std::move(slice));
  return static_cast<int32_t>(slices_.size() - 1);
}

void Timeline::onAgentStart(const AgentInfo &info, Cycle) {
  AgentState &a = agent(info.id);
  a.partition = info.partition;
  if (info.sm != sm_)
    return;
  if (!ctaSlot_.count(info.cta)) {
    auto free = std::find(slotBusy_.begin(), slotBusy_.end(), false);
    int32_t slot = static_cast<int32_t>(free - slotBusy_.begin());
    if (free == slotBusy_.end())
      slotBusy_.push_back(true);
    else
      *free = true;
    ctaSlot_[info.cta] = slot;
  }
  ++ctaLive_[info.cta];
  auto key = std::make_pair(info.cta, info.partition);
  auto it = partitionTracks_.find(key);
  if (it == partitionTracks_.end()) {
    int32_t order = 0;
    for (const auto &[k, track] : partitionTracks_)
      order += k.first == info.cta;
    TimelineTrack track{TimelineTrack::Partition, info.partition, info.cta, ctaSlot_[info.cta], order, 0,
                        info.numWarps};
    tracks_.push_back(track);
    it = partitionTracks_.emplace(key, static_cast<int32_t>(tracks_.size() - 1)).first;
  }
  a.track = it->second;
}

void Timeline::onAgentEnd(int32_t id, Cycle) {
  AgentState &a = agent(id);
  if (a.track < 0)
    return;
  a.openIssue = -1;
  int64_t cta = tracks_[a.track].cta;
  if (--ctaLive_[cta] == 0)
    slotBusy_[ctaSlot_[cta]] = false;
}

void Timeline::addWait(int32_t agentId, int32_t loc, const std::string &what, Cycle span) {
  WaitSite &site = sites_[{loc, agent(agentId).partition}];
  site.loc = loc;
  site.partition = agent(agentId).partition;
  site.what = what;
  site.total += span;
  ++site.count;
}

void Timeline::onInstr(const InstrEvent &e) {
  AgentState &a = agent(e.agent);
  bool asyncWait = e.instr->op == Op::WgmmaWait || e.instr->op == Op::TmaStoreWait || e.instr->op == Op::TmaStoreTokenWait;
  if (asyncWait && e.end > e.start)
    addWait(e.agent, e.instr->loc, e.instr->op == Op::WgmmaWait ? "wgmma" : "TMA store", e.end - e.start);
  if (a.track < 0)
    return;
  a.lastStart = e.start;
  a.lastEnd = e.end;
  a.lastOp = e.instr->op;
  if (e.end == e.start)
    return;
  if (asyncWait) {
    a.openIssue = -1;
    addSlice({TimelineSlice::AsyncWait, a.track, e.start, e.end,
              e.instr->op == Op::WgmmaWait ? "wgmma wait" : "TMA store wait", e.instr->loc});
    return;
  }
  if (a.openIssue >= 0 && slices_[a.openIssue].end == e.start) {
    slices_[a.openIssue].end = e.end;
    return;
  }
  a.openIssue = addSlice({TimelineSlice::Issue, a.track, e.start, e.end, "issue"});
}

void Timeline::onBarrier(const BarrierEvent &e) {
  AgentState &a = agent(e.agent);
  const std::string array = e.barrier.alloc >= 0 && e.barrier.alloc < static_cast<int32_t>(program_.allocs.size())
                                ? program_.allocs[e.barrier.alloc].name
                                : std::string("<barrier>");
  // Statistics over all SMs.
  if (e.action == BarrierAction::WaitBlock) {
    a.blockedSince = e.cycle;
  } else if (e.action == BarrierAction::WaitResume || e.action == BarrierAction::WaitPass) {
    Cycle span = e.action == BarrierAction::WaitResume ? e.cycle - a.blockedSince : 0;
    WaitHistogram &h = histograms_[array];
    h.barrier = array;
    size_t bucket = span == 0 ? 0 : static_cast<size_t>(std::bit_width(span));
    if (h.buckets.size() <= bucket)
      h.buckets.resize(bucket + 1);
    ++h.buckets[bucket];
    ++h.waits;
    h.total += span;
    h.max = std::max(h.max, span);
    if (span > 0)
      addWait(e.agent, e.loc, array, span);
  }

  // Slices and flows of the recorded SM. Asynchronous signals (TMA completion, tcgen05
  // arrives) carry the agent that issued them, which runs on the same SM as the barrier.
  if (a.track < 0)
    return;
  const std::string name = program_.barrierName(e.barrier.alloc, e.barrier.index);
  BarrierFlows &flows = barrierFlows_[e.barrier];
  auto flowTo = [&](int32_t to) {
    for (int32_t from : flows.completed) {
      flows_.emplace_back(from, to);
      flowBarrier_.push_back(name);
    }
  };
  auto opSlice = [&](const char *what) {
    return addSlice({TimelineSlice::BarrierOp, a.track, a.lastStart, std::max(a.lastEnd, a.lastStart + 1),
                     std::string(what) + " " + name, e.loc, 1});
  };
  switch (e.action) {
  case BarrierAction::Init:
  case BarrierAction::Inval:
    flows.phase.clear();
    flows.completed.clear();
    if (a.lastEnd == e.cycle)
      opSlice(e.action == BarrierAction::Init ? "init" : "inval");
    break;
  case BarrierAction::Arrive:
  case BarrierAction::ExpectArrive:
  case BarrierAction::CompleteTx: {
    int32_t from = -1;
    if (e.asyncOp >= 0) {
      auto it = asyncSlice_.find(e.asyncOp);
      if (it != asyncSlice_.end())
        from = it->second;
    } else if (e.action != BarrierAction::CompleteTx && a.lastEnd == e.cycle &&
               (a.lastOp == Op::ArriveBarrier || a.lastOp == Op::BarrierExpect)) {
      from = opSlice(e.action == BarrierAction::Arrive ? "arrive" : "expect");
    }
    if (from >= 0)
      flows.phase.push_back(from);
    break;
  }
  case BarrierAction::PhaseFlip:
    flows.completed = std::move(flows.phase);
    flows.phase.clear();
    break;
  case BarrierAction::WaitPass:
    flowTo(opSlice("wait"));
    break;
  case BarrierAction::WaitBlock:
    a.openIssue = -1;
    break;
  case BarrierAction::WaitResume:
    flowTo(addSlice({TimelineSlice::BarrierWait, a.track, a.blockedSince, e.cycle, "wait " + name, e.loc}));
    break;
  }
}

int32_t Timeline::unitTrack(int32_t order, const std::string &base, Cycle start, Cycle end) {
  int32_t lane = 0;
  while (true) {
    auto it = laneEnd_.find({order, lane});
    if (it == laneEnd_.end() || it->second <= start)
      break;
    ++lane;
  }
  laneEnd_[{order, lane}] = end;
  auto [it, inserted] = laneTrack_.emplace(std::make_pair(order, lane), static_cast<int32_t>(tracks_.size()));
  if (inserted)
    tracks_.push_back(TimelineTrack{TimelineTrack::Unit, base + (order == 0 && lane == 0 ? "" : " " + std::to_string(lane)),
                                    -1, -1, order, lane, 0});
  return it->second;
}

void Timeline::onAsync(const AsyncEvent &e) {
  if (e.sm != sm_)
    return;
  static const char *const kBase[] = {"tensor core", "TMA load", "TMA store"};
  static const TimelineSlice::Kind kKind[] = {TimelineSlice::Mma, TimelineSlice::TmaLoad, TimelineSlice::TmaStore};
  int32_t order = e.unit == AsyncEvent::TensorCore ? 0 : e.unit == AsyncEvent::TmaLoad ? 1 : 2;
  Cycle end = std::max(e.end, e.start + 1);
  int32_t track = unitTrack(order, kBase[order], e.start, end);
  TimelineSlice slice{kKind[order], track, e.start, end, order == 0 ? "MMA" : kBase[order], e.loc};
  slice.bytes = e.bytes;
  slice.flops = e.flops;
  int32_t index = addSlice(std::move(slice));
  if (e.asyncOp >= 0)
    asyncSlice_[e.asyncOp] = index;
}

void Timeline::onStall(Cycle t, const std::vector<BlockedAgent> &blocked) {
  for (const TimelineSlice &s : slices_) // the stall shows up to the last recorded activity
    t = std::max(t, s.end);
  for (const BlockedAgent &b : blocked) {
    AgentState &a = agent(b.agent);
    if (a.track < 0 || !b.onBarrier)
      continue;
    addSlice({TimelineSlice::BarrierWait, a.track, a.blockedSince, std::max(t, a.blockedSince + 1),
              "wait " + program_.barrierName(b.barrier.alloc, b.barrier.index) + " (never released)", b.loc});
    end_ = std::max(end_, t);
  }
}

void Timeline::onFinish(Cycle t) { end_ = std::max(end_, t); }

std::vector<int32_t> Timeline::trackOrder() const {
  std::vector<int32_t> order(tracks_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) {
    const TimelineTrack &a = tracks_[x], &b = tracks_[y];
    if (a.kind != b.kind)
      return a.kind == TimelineTrack::Partition;
    if (a.kind == TimelineTrack::Unit)
      return std::tie(a.order, a.lane) < std::tie(b.order, b.lane);
    return false; // partitions: creation order (CTA start order, then partition order)
  });
  return order;
}

namespace {
/// Permutation sorting slices by (track display position, start, depth, longer first).
std::vector<int32_t> slicePermutation(const std::vector<TimelineSlice> &slices, const std::vector<int32_t> &trackOrder) {
  std::vector<int32_t> position(trackOrder.size());
  for (size_t i = 0; i < trackOrder.size(); ++i)
    position[trackOrder[i]] = static_cast<int32_t>(i);
  std::vector<int32_t> perm(slices.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int32_t x, int32_t y) {
    const TimelineSlice &a = slices[x], &b = slices[y];
    return std::make_tuple(position[a.track], a.start, a.depth, b.end) <
           std::make_tuple(position[b.track], b.start, b.depth, a.end);
  });
  return perm;
}
} // namespace

std::vector<TimelineSlice> Timeline::sortedSlices() const {
  std::vector<TimelineSlice> out;
  out.reserve(slices_.size());
  for (int32_t i : slicePermutation(slices_, trackOrder()))
    out.push_back(slices_[i]);
  return out;
}

std::vector<TimelineFlow> Timeline::sortedFlows() const {
  std::vector<int32_t> perm = slicePermutation(slices_, trackOrder());
  std::vector<int32_t> newIndex(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    newIndex[perm[i]] = static_cast<int32_t>(i);
  std::vector<TimelineFlow> out;
  for (size_t i = 0; i < flows_.size(); ++i)
    out.push_back({newIndex[flows_[i].first], newIndex[flows_[i].second], flowBarrier_[i]});
  return out;
}

std::vector<WaitHistogram> Timeline::waitHistograms() const {
  std::vector<WaitHistogram> out;
  for (const auto &[name, h] : histograms_)
    out.push_back(h);
  return out;
}

std::vector<WaitSite> Timeline::waitSites() const {
  std::vector<WaitSite> out;
  for (const auto &[key, site] : sites_)
    out.push_back(site);
  std::stable_sort(out.begin(), out.end(), [](const WaitSite &a, const WaitSite &b) { return a.total > b.total; });
  return out;
}

} // namespace tlxsim::sim
