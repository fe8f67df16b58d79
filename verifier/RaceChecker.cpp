#include "verifier/RaceChecker.h"

namespace tlxsim::verifier {

using namespace tlxsim::sim;

namespace {
const char *opName(Op op, bool write, bool amd = false) {
  switch (op) {
  case Op::TmaLoad: return "the TMA load";
  case Op::TmaStore: return "the TMA store";
  case Op::WgmmaIssue: return "the wgmma";
  case Op::Tc05Mma: return "the tcgen05 MMA";
  case Op::TensorOp: return write ? "the tmem_store" : "the tmem_load"; // only tcgen05.ld/st (sub 3) access memory
  case Op::AsyncCopy: return amd ? "the async copy (direct-to-LDS load)" : "the cp.async copy";
  case Op::LocalStore: return "the local_store";
  case Op::LocalLoad: return "the local_load";
  case Op::RemoteStore: return "the remote shared-memory store";
  case Op::ClcTryCancel: return "the CLC try_cancel response";
  case Op::ClcQuery: case Op::ClcLoad: return "the CLC response read";
  default: return write ? "the write" : "the read";
  }
}
} // namespace

void RaceChecker::onAgentStart(const AgentInfo &info, Cycle t) {
  CheckerBase::onAgentStart(info, t);
  warps_[info.id] = {info.firstWarp, info.numWarps};
  if (info.warpGroup >= 0)
    warpGroup_[info.id] = info.warpGroup;
  if (info.waveGroupOf >= 0)
    waveGroup_[info.id] = info.waveGroupOf;
  if (!tracked(info.cta))
    return;
  VectorClock &clock = clockOf(info.id);
  if (info.parent >= 0) {
    parentOf_[info.id] = info.parent;
    clock = clockOf(info.parent); // fork: the worker starts after everything its parent did
    clockOf(info.parent).tick(info.parent);
  }
  clock.tick(info.id);
}

void RaceChecker::onAgentEnd(int32_t agent, Cycle t) {
  CheckerBase::onAgentEnd(agent, t);
  auto it = parentOf_.find(agent);
  if (it != parentOf_.end())
    finishedWorkers_[it->second].push_back(agent);
}

void RaceChecker::onJoin(int32_t agent, Cycle) {
  auto it = finishedWorkers_.find(agent);
  if (it == finishedWorkers_.end())
    return;
  for (int32_t worker : it->second)
    clockOf(agent).join(clockOf(worker));
  finishedWorkers_.erase(it);
}

void RaceChecker::onBarrier(const BarrierEvent &e) {
  if (!tracked(e.barrier.cta))
    return;
  BarrierClocks &bar = barriers_[e.barrier];
  switch (e.action) {
  case BarrierAction::Init:
    bar = BarrierClocks{};
    break;
  case BarrierAction::Arrive:
  case BarrierAction::ExpectArrive: // release
    if (e.asyncOp >= 0) { // a completed tcgen05 op or commit releases the op's clock
      bar.pending.join(asyncClock(e.agent, e.asyncOp));
      break;
    }
    releaseLoc_[{e.agent, clockOf(e.agent).get(e.agent)}] = e.loc;
    bar.pending.join(clockOf(e.agent));
    clockOf(e.agent).tick(e.agent);
    break;
  case BarrierAction::CompleteTx: // the TMA copy's write is released by its completion
    if (e.asyncOp >= 0) {
      bar.pending.join(clockOf(asyncThread(e.asyncOp)));
      clocks_.erase(asyncThread(e.asyncOp)); // a copy completes once: nothing acquires it again
    }
    break;
  case BarrierAction::PhaseFlip:
    bar.completed[(e.phase - 1) & 1] = bar.pending;
    bar.pending.clear();
    break;
  case BarrierAction::WaitPass:
  case BarrierAction::WaitResume: // acquire the completed phase of the waited parity
    clockOf(e.agent).join(bar.completed[e.amount & 1]);
    break;
  default:
    break;
  }
}

void RaceChecker::onClusterBarrier(const ClusterBarrierEvent &e) {
  BarrierClocks &bar = clusters_[e.cluster];
  switch (e.action) {
  case ClusterBarrierEvent::Arrive:
    if (tracked(cta(e.agent))) {
      bar.pending.join(clockOf(e.agent));
      clockOf(e.agent).tick(e.agent);
    }
    break;
  case ClusterBarrierEvent::Complete:
    bar.completed[0] = bar.pending;
    bar.pending.clear();
    break;
  case ClusterBarrierEvent::WaitPass:
    if (tracked(cta(e.agent)))
      clockOf(e.agent).join(bar.completed[0]);
    break;
  default:
    break;
  }
}

void RaceChecker::onNamedBarrier(const NamedBarrierEvent &e) {
  if (!tracked(e.cta))
    return;
  NamedClocks &bar = named_[{e.cta, e.id}];
  if (e.threads > 0) { // 0: a wave group that ended (Events.h): it releases nothing to the survivors
    releaseLoc_[{e.agent, clockOf(e.agent).get(e.agent)}] = e.loc;
    bar.pending.join(clockOf(e.agent));
    clockOf(e.agent).tick(e.agent);
  }
  if (e.sync)
    bar.syncers.push_back(e.agent);
  if (!e.completed)
    return;
  for (int32_t agent : bar.syncers) // blocked since their arrival (or the completing one): nothing to order after
    clockOf(agent).join(bar.pending);
  named_.erase({e.cta, e.id});
}

void RaceChecker::collect() {
  std::set<ThreadId> live;
  for (const auto &[key, views] : shadow_)
    for (const Shadow &view : views) {
      if (view.write)
        live.insert(view.write->thread);
      for (const Epoch &read : view.reads)
        live.insert(read.thread);
    }
  auto dead = [&](ThreadId t) { return t < 0 && !live.count(t); };
  for (auto &[thread, clock] : clocks_)
    clock.eraseIf(dead);
  for (auto &[key, bar] : barriers_) {
    bar.pending.eraseIf(dead);
    bar.completed[0].eraseIf(dead);
    bar.completed[1].eraseIf(dead);
  }
  for (auto &[key, bar] : named_)
    bar.pending.eraseIf(dead);
  for (auto &[key, bar] : clusters_) {
    bar.pending.eraseIf(dead);
    bar.completed[0].eraseIf(dead);
  }
  issuesSinceCollect_ = 0;
  collectThreshold_ = std::max<int64_t>(4096, 2 * static_cast<int64_t>(live.size()));
}

void RaceChecker::onAsyncIssue(int32_t agent, int64_t op, int64_t after, Cycle) {
  if (!tracked(cta(agent)))
    return;
  if (++issuesSinceCollect_ > collectThreshold_)
    collect();
  VectorClock &clock = clockOf(asyncThread(op));
  clock = clockOf(agent);
  if (after >= 0) // completes after `after`: whoever sees this op complete sees that one too
    if (auto it = clocks_.find(asyncThread(after)); it != clocks_.end())
      clock.join(it->second);
  clock.set(asyncThread(op), 1);
  clockOf(agent).tick(agent);
}

void RaceChecker::onAsyncRetired(int32_t agent, int64_t op, Cycle) {
  if (!tracked(cta(agent)))
    return;
  auto it = clocks_.find(asyncThread(op));
  if (it != clocks_.end()) {
    clockOf(agent).join(it->second);
    retired_[agent] = {op, std::move(it->second)}; // a later commit may still name it
    clocks_.erase(it);
  }
}

const VectorClock &RaceChecker::asyncClock(int32_t agent, int64_t op) {
  if (auto it = clocks_.find(asyncThread(op)); it != clocks_.end())
    return it->second;
  if (auto it = retired_.find(agent); it != retired_.end() && it->second.first == op)
    return it->second.second;
  return clockOf(asyncThread(op));
}

RaceChecker::RaceChecker(const Program &program, int64_t maxCtas)
    : CheckerBase(program), maxCtas_(maxCtas), aliases_(program.allocs.size()) {
  auto placed = [&](const Alloc &a) { return a.sharedOffset >= 0 && !a.isBarrier && !a.inTensorMemory && a.bytes > 0; };
  for (size_t i = 0; i < program.allocs.size(); ++i)
    for (size_t j = i + 1; j < program.allocs.size(); ++j) {
      const Alloc &a = program.allocs[i], &b = program.allocs[j];
      if (placed(a) && placed(b) && a.sharedOffset < b.sharedOffset + b.bytes &&
          b.sharedOffset < a.sharedOffset + a.bytes) {
        aliases_[i].push_back(static_cast<int32_t>(j));
        aliases_[j].push_back(static_cast<int32_t>(i));
      }
    }
}

void RaceChecker::checkAliases(const AccessEvent &e, const Epoch &now, llvm::function_ref<bool(const Epoch &)> ordered,
                               const VectorClock &clock) {
  const Alloc &a = program_.allocs[e.alloc];
  int64_t lo = a.sharedOffset + e.offset * a.elementBytes, hi = lo + e.size * a.elementBytes;
  Shadow region{e.offset, e.size, std::nullopt, {}, {}};
  for (int32_t other : aliases_[e.alloc]) {
    auto it = shadow_.find({e.cta, other});
    if (it == shadow_.end())
      continue;
    const Alloc &b = program_.allocs[other];
    std::string shared = ", in bytes " + b.name + (b.loc.valid() ? " (" + b.loc.str() + ")" : std::string()) +
                         " shares: Triton's allocator placed both buffers there, the old one's async accesses not "
                         "waited for";
    for (const Shadow &view : it->second) {
      int64_t viewLo = b.sharedOffset + view.offset * b.elementBytes, viewHi = viewLo + view.size * b.elementBytes;
      if (viewHi <= lo || hi <= viewLo)
        continue;
      if (view.write && !ordered(*view.write))
        report(e.write ? "race-waw" : "race-raw", e, now, *view.write, region, e.write ? "overwrites" : "reads",
               "while " + describe(*view.write) + " may still be writing " + b.name + shared, clock);
      if (e.write)
        for (const Epoch &read : view.reads)
          if (read.thread != now.thread && !ordered(read))
            report("race-war", e, now, read, region, "overwrites",
                   "while " + describe(read) + " may still be reading " + b.name + shared, clock);
    }
  }
}

void RaceChecker::onProxyFence(int32_t agent, Cycle) {
  if (!tracked(cta(agent)))
    return;
  const VectorClock &clock = clockOf(agent);
  auto firstFence = [&](const std::vector<std::pair<int32_t, int64_t>> &fences) {
    return std::none_of(fences.begin(), fences.end(), [&](const auto &f) { return f.first == agent; });
  };
  for (auto &[key, views] : shadow_)
    if (key.first == cta(agent))
      for (Shadow &view : views) {
        if (view.write && !view.write->asyncProxy && view.write->clock <= clock.get(view.write->thread) &&
            firstFence(view.fences))
          view.fences.emplace_back(agent, clock.get(agent)); // an agent's first fence after the write suffices
        for (Epoch &read : view.reads)
          if (!read.asyncProxy && read.clock <= clock.get(read.thread) && firstFence(read.fences))
            read.fences.emplace_back(agent, clock.get(agent));
      }
}

void RaceChecker::onPendingUse(const PendingUseEvent &e) {
  if (!tracked(cta(e.agent)) || !reported_.insert({"race-raw", loc(e.loc).str(), loc(e.issueLoc).str()}).second)
    return;
  Finding f;
  f.cls = "race-raw";
  f.location = loc(e.loc);
  std::string it = e.iteration >= 0 ? " (iteration " + std::to_string(e.iteration) + ")" : "";
  f.message = "partition '" + partition(e.agent) + "'" + it +
              " reads the accumulator of an asynchronous wgmma before a wgmma wait retired its group: the tensor "
              "core may still be writing it (warpgroup_mma_wait / wgmma.wait_group with fewer pendings needed) (CTA " +
              std::to_string(cta(e.agent)) + ")";
  f.related.push_back(Related{loc(e.issueLoc), partition(e.agent), e.iteration, "the wgmma",
                              "the wgmma that writes the accumulator is issued here"});
  findings_.push_back(std::move(f));
}

bool RaceChecker::amd() const { return program_.target.rfind("hip:", 0) == 0; }

void RaceChecker::onInstr(const InstrEvent &e) {
  if (!e.instr || !tracked(cta(e.agent)))
    return;
  if (e.instr->op == Op::CtaBarrier) {
    lastCtaBarrier_[e.agent] = {e.instr->loc, clockOf(e.agent).get(e.agent)};
  }
}

namespace {
std::string ranges(const std::bitset<512> &bits, size_t n) {
  std::string out;
  for (size_t i = 0; i < n;) {
    if (!bits.test(i)) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j + 1 < n && bits.test(j + 1))
      ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(i) + (j > i ? "-" + std::to_string(j) : "");
    i = j + 1;
  }
  return out;
}
std::bitset<512> widen(const std::bitset<128> &rows) {
  std::bitset<512> out;
  for (size_t i = 0; i < 128; ++i)
    out[i] = rows[i];
  return out;
}
} // namespace

void RaceChecker::checkWarpTiles(const AccessEvent &e) {
  auto [firstWarp, numWarps] = warps_[e.agent];
  const std::vector<TmemWarpTile> &tiles = *e.warpTiles;
  if (static_cast<int32_t>(tiles.size()) != numWarps)
    return; // the layout is for another warp count: Triton's verifier rejects it; nothing to map
  const std::string &name = program_.allocs[e.alloc].name;
  std::string it = e.iteration >= 0 ? " (iteration " + std::to_string(e.iteration) + ")" : "";
  std::string what = std::string(e.write ? "the tmem_store" : "the tmem_load") + " of partition '" +
                     partition(e.agent) + "'" + it;
  // lane ownership: warp id w reaches lanes 32 * (w % 4) .. + 31 only
  for (int32_t i = 0; i < numWarps; ++i) {
    int32_t warpId = firstWarp + i, quarter = warpId % 4;
    std::bitset<128> allowed;
    for (int32_t l = 32 * quarter; l < 32 * quarter + 32; ++l)
      allowed.set(l);
    std::bitset<128> outside = tiles[i].rows & ~allowed;
    if (outside.none())
      continue;
    const char *cls = e.write ? "race-waw" : "race-raw";
    if (!reported_.insert({cls, loc(e.loc).str(), "lanes of warp " + std::to_string(i)}).second)
      continue;
    std::string owners;
    for (int32_t j = 0; j < numWarps; ++j) {
      int32_t q = (firstWarp + j) % 4;
      bool owns = false;
      for (int32_t l = 32 * q; l < 32 * q + 32; ++l)
        owns = owns || outside.test(l);
      if (j != i && owns)
        owners += (owners.empty() ? "" : ", ") + std::to_string(firstWarp + j);
    }
    Finding f;
    f.cls = cls;
    f.location = loc(e.loc);
    f.message = what + ": warp " + std::to_string(warpId) + " " + (e.write ? "writes" : "reads") + " TMEM lanes " +
                ranges(widen(outside), 128) + " of " + name + ", but tcgen05." + (e.write ? "st" : "ld") +
                " lets warp " + std::to_string(warpId) + " access only lanes " + std::to_string(32 * quarter) + "-" +
                std::to_string(32 * quarter + 31) + " (warp id % 4 = " + std::to_string(quarter) +
                "); those lanes belong to " + (owners.empty() ? "warps of another partition" : "warp(s) " + owners) +
                " (CTA " + std::to_string(e.cta) + ")";
    findings_.push_back(std::move(f));
  }
}

std::string RaceChecker::describe(const Epoch &e) const {
  std::string text = std::string(opName(e.op, e.write, amd())) + " of partition '" + partition(e.agent) + "'";
  if (program_.clusterSize() > 1) // a cluster: another CTA may issue the access (DSMEM, multicast, 2-CTA MMA)
    text += " of CTA " + std::to_string(cta(e.agent));
  if (e.iteration >= 0)
    text += " (iteration " + std::to_string(e.iteration) + ")";
  return text;
}

std::string RaceChecker::regionName(int32_t alloc, const Shadow &region) const {
  const Alloc &a = program_.allocs[alloc];
  int64_t total = 1;
  for (int64_t d : a.shape)
    total *= d;
  if (a.inTensorMemory && a.shape.size() >= 2 && region.size > 0) { // buffer, then the columns of a part of it
    // the TMEM geometry (sim/Program.h Alloc::shape): buffer dims, lanes, 32-bit columns of one buffer
    int64_t columns = std::max<int64_t>(1, a.shape.back());
    int64_t buffers = total / std::max<int64_t>(1, a.shape[a.shape.size() - 2] * columns);
    int64_t first = region.offset % columns;
    std::string name = a.name + (buffers > 1 ? "[" + std::to_string(region.offset / columns) + "]" : "");
    if (first > 0 || region.size < columns)
      name += " columns " + std::to_string(first) + "-" + std::to_string(first + region.size - 1);
    return name;
  }
  if (region.size >= total || region.size <= 0)
    return a.name;
  return a.name + "[" + std::to_string(region.offset / region.size) + "]";
}

void RaceChecker::report(const char *cls, const AccessEvent &now, const Epoch &nowEpoch, const Epoch &before,
                         const Shadow &region, const std::string &verb, const std::string &tail,
                         const VectorClock &clock) {
  if (!reported_.insert({cls, loc(now.loc).str(), loc(before.loc).str()}).second)
    return;
  Finding f;
  f.cls = cls;
  f.location = loc(now.loc);
  f.message = describe(nowEpoch) + " " + verb + " " + regionName(now.alloc, region) + " " + tail + " (CTA " +
              std::to_string(now.cta) + ")";
  f.related.push_back(Related{loc(before.loc), partition(before.agent), before.iteration,
                              opName(before.op, before.write, amd()), describe(before) + " accesses it here"});
  // An execution barrier between an agent's own async copy and its read orders the warps, not the copy:
  // s_barrier / bar.sync do not wait for outstanding vector-memory operations (AMD vmcnt, cp.async groups).
  if (std::string(cls) == "race-raw" && before.op == Op::AsyncCopy && before.agent == nowEpoch.agent)
    if (auto it = lastCtaBarrier_.find(before.agent);
        it != lastCtaBarrier_.end() && it->second.second > before.issuerClock && it->second.first >= 0)
      f.notes.emplace_back(loc(it->second.first),
                           std::string(amd() ? "this s_barrier" : "this barrier") +
                               " orders the warps' execution only: it does not wait for outstanding async copies (" +
                               (amd() ? "vmcnt" : "cp.async groups") +
                               "); an async_wait (wait_group) that retires the copy's group must come before the read");
  // If the accessing side did synchronize with the other agent after it issued its access,
  // name that release: it is where the protocol lets the access through too early.
  int64_t seen = clock.get(before.agent);
  if (before.thread != before.agent && before.agent != nowEpoch.agent && seen > before.issuerClock) {
    auto it = releaseLoc_.upper_bound({before.agent, seen});
    bool lds = amd() && before.op == Op::LocalLoad; // an LDS read in flight at a bare s_barrier (lgkmcnt)
    if (it != releaseLoc_.begin() && (--it)->first.first == before.agent && it->first.second > before.issuerClock)
      f.notes.emplace_back(
          loc(it->second),
          lds ? "partition '" + partition(nowEpoch.agent) + "' synchronized with partition '" + partition(before.agent) +
                    "' through this s_barrier, which orders the waves' execution only: it does not wait for the LDS "
                    "reads of " + describe(before) + " (lgkmcnt); a fenced barrier (ttg.barrier local / gpu.barrier: "
                    "s_waitcnt lgkmcnt(0) first) or a use of the loaded values must come before it"
              : "partition '" + partition(nowEpoch.agent) + "' synchronized with partition '" +
                    partition(before.agent) + "' through this release, which does not wait for " + describe(before) +
                    " to complete");
  } else if (std::string(cls) == "race-war" && before.agent != nowEpoch.agent && seen < before.issuerClock) {
    // The writer's newest synchronization with the reader is a release the reader made before the read: a buffer
    // handed back ahead of its reads (an arrive before `async_dot` or its wait). An agent's clock advances at each
    // of its releases, so the release the writer acquired last is the one keyed by the reader's clock it knows.
    if (auto it = releaseLoc_.find({before.agent, seen}); it != releaseLoc_.end())
      f.notes.emplace_back(loc(it->second),
                           "partition '" + partition(nowEpoch.agent) + "' synchronized with partition '" +
                               partition(before.agent) + "' last through this release, made before " +
                               describe(before) +
                               " was issued: it hands the buffer back before that read; a release belongs after the "
                               "reads it covers (for an async read, after the wait that retires it)");
  }
  findings_.push_back(std::move(f));
}

bool RaceChecker::overlaps(int32_t, int64_t offsetA, int64_t sizeA, int64_t offsetB, int64_t sizeB) const {
  return offsetA < offsetB + sizeB && offsetB < offsetA + sizeA; // elements, or TMEM columns (all lanes)
}

void RaceChecker::onAccess(const AccessEvent &e) {
  if (!tracked(e.cta))
    return;
  if (e.warpTiles && e.asyncOp < 0 && program_.allocs[e.alloc].inTensorMemory)
    checkWarpTiles(e);
  ThreadId thread = e.asyncOp >= 0 ? asyncThread(e.asyncOp) : ThreadId(e.agent);
  const VectorClock &clock = clockOf(thread);
  Epoch now{thread, clock.get(thread), e.agent, e.loc, e.iteration, e.op, e.asyncProxy, clock.get(e.agent), e.write,
            e.instr};
  // Warps of one per-warp partition (sim AgentInfo::warpGroup) are ordered between their shared-memory accesses by
  // the bar.sync Triton's membar pass inserts there (lib/Analysis/Membar.cpp: a barrier between conflicting accesses
  // of one partition), which the TTGIR does not show yet: not checked against each other, nor against the async ops
  // (TMA, wgmma) another warp of the partition issued (warp 0 issues them and alone waits for their retirement).
  auto sameWarpGroup = [&](const Epoch &before) {
    if (before.agent == e.agent)
      return false;
    auto x = warpGroup_.find(before.agent), y = warpGroup_.find(e.agent);
    return x != warpGroup_.end() && y != warpGroup_.end() && x->second == y->second;
  };
  // An AMD LDS read in flight (an async op, sim ops/Amd.cpp) and a later access of its own issuer: a wave's LDS
  // instructions execute in order, and Triton's membar pass orders the waves of one agent.
  auto ownLdsRead = [&](const Epoch &before) {
    return before.op == Op::LocalLoad && before.thread != before.agent && before.agent == e.agent;
  };
  // Wave groups of one AMD main function (sim Program::waveGroups) executing the same op in the same iteration: the
  // op's tensor is distributed over the CTA's waves, so each group touches its own elements (the simulator gives
  // every group the whole view).
  auto sameOpOtherWaves = [&](const Epoch &before) {
    return before.agent != e.agent && before.instr && before.instr == e.instr && before.iteration == e.iteration &&
           waveGroup_.count(before.agent) && waveGroup_.count(e.agent);
  };
  auto ordered = [&](const Epoch &before) {
    return before.clock <= clock.get(before.thread) || (!warpGroup_.empty() && sameWarpGroup(before)) ||
           ownLdsRead(before) || (!waveGroup_.empty() && sameOpOtherWaves(before));
  };

  // An async-proxy write that must not overwrite an unfenced generic read: the CLC response, which the PTX ISA's
  // clusterlaunchcontrol example reads with ld.shared and then fences (fence.proxy.async) before the next
  // try_cancel may overwrite it (PTX ISA 9.1, clusterlaunchcontrol.try_cancel; CUTLASS's PersistentTileSchedulerSm100 does the same).
  // Not TMA loads: CUTLASS's and Triton's pipelines release a stage that ld.shared / local_load read to the
  // producer's next TMA fill through the mbarrier alone (the generic read's value is in registers before the
  // release), and the tool treats those kernels as correct.
  bool asyncProxyWrite = e.write && e.asyncProxy && e.op == Op::ClcTryCancel;
  auto fencedAfter = [&](const std::vector<std::pair<int32_t, int64_t>> &fences) { // a fence this access follows
    return std::any_of(fences.begin(), fences.end(), [&](const auto &f) { return clock.get(f.first) >= f.second; });
  };
  std::vector<Shadow> &views = shadow_[{e.cta, e.alloc}];
  Shadow *exact = nullptr;
  for (Shadow &view : views) {
    if (!overlaps(e.alloc, view.offset, view.size, e.offset, e.size))
      continue;
    if (view.offset == e.offset && view.size == e.size)
      exact = &view;
    if (view.write && !ordered(*view.write)) {
      if (e.write)
        report("race-waw", e, now, *view.write, view, "overwrites",
               "while " + describe(*view.write) + " may still be writing it", clock);
      else
        report("race-raw", e, now, *view.write, view, "reads",
               "before " + describe(*view.write) + " that fills it is known to be complete", clock);
    }
    if (e.write)
      for (const Epoch &read : view.reads) {
        if (read.thread != thread && !ordered(read))
          report("race-war", e, now, read, view, "overwrites",
                 "while " + describe(read) + " may still be reading it", clock);
        else if (asyncProxyWrite && !read.asyncProxy && read.thread != thread && !fencedAfter(read.fences))
          report("missing-fence", e, now, read, view, "overwrites",
                 "through the async proxy, but " + describe(read) +
                     " read it through the generic proxy with no fence_async_shared (fence.proxy.async) after it",
                 clock);
      }
    // (tensor memory is ordered by tcgen05 fences / waits, not fence.proxy.async)
    if (e.asyncProxy && !e.write && view.write && !view.write->asyncProxy && ordered(*view.write) &&
        !fencedAfter(view.fences) &&
        !program_.allocs[e.alloc].inTensorMemory)
      report("missing-fence", e, now, *view.write, view, "reads",
             "through the async proxy, but " + describe(*view.write) +
                 " wrote it through the generic proxy with no fence_async_shared (fence.proxy.async) after it",
             clock);
  }
  if (!aliases_[e.alloc].empty())
    checkAliases(e, now, ordered, clock);
  // A read of a region of a shared-memory buffer array that nothing has filled, while another region of it was
  // filled: the fill went to another stage (race-raw with no write to order against). Not in tensor memory: the
  // columns tcgen05.alloc returns hold no defined value (PTX ISA 9.1 9.7.16.7.1) and kernels read an accumulator
  // before its first MMA on purpose (attention's correction rescales it before the first P @ V, which overwrites it
  // with enable-input-d false); a read of the wrong TMEM buffer races with the MMA that fills that buffer in a
  // later round (race-war / race-raw above).
  auto filledHere = [&] {
    return std::any_of(views.begin(), views.end(), [&](const Shadow &v) {
      return v.write && overlaps(e.alloc, v.offset, v.size, e.offset, e.size);
    });
  };
  if (!e.write && !program_.allocs[e.alloc].inTensorMemory && !filledHere()) {
    auto filled = std::find_if(views.begin(), views.end(), [](const Shadow &v) { return v.write.has_value(); });
    if (filled != views.end())
      report("race-raw", e, now, *filled->write, Shadow{e.offset, e.size, std::nullopt, {}, {}}, "reads",
             "which nothing has filled yet: " + describe(*filled->write) + " filled " +
                 regionName(e.alloc, *filled) + " of the same buffer instead",
             clock);
  }
  if (!exact) {
    views.push_back(Shadow{e.offset, e.size, std::nullopt, {}, {}});
    exact = &views.back();
  }
  if (e.write) {
    exact->write = now;
    exact->reads.clear();
    exact->fences.clear();
  } else {
    // One epoch per reader: an AMD LDS read replaces its issuer's earlier ones (they retire in issue order, so
    // whatever is ordered after it is ordered after them).
    bool lds = e.op == Op::LocalLoad && e.asyncOp >= 0;
    auto same = std::find_if(exact->reads.begin(), exact->reads.end(), [&](const Epoch &read) {
      return read.thread == thread || (lds && read.op == Op::LocalLoad && read.agent == e.agent);
    });
    if (same != exact->reads.end())
      *same = now;
    else
      exact->reads.push_back(now);
  }
}

} // namespace tlxsim::verifier
