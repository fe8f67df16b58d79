// The simulator's event stream and its listener interface (as llvm-mca's HWEventListener).
// Checkers, views and trace writers are listeners; none reaches into the engine.
#pragma once

#include "sim/MBarrier.h"
#include "sim/Program.h"
#include "sim/ProtonSegment.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tlxsim::sim {

using Cycle = uint64_t;

/// One partition instance of one CTA.
struct AgentInfo {
  int32_t id;
  /// CTA id in launch order: cluster index * CTAs per cluster + %cluster_ctarank (Engine: whole clusters start
  /// together); without clusters, or with clusters along x only, the linear %ctaid (x + y * gx + z * gx * gy)
  int64_t cta;
  int32_t sm;
  std::string partition; ///< "default", "partition0", ...
  int32_t numWarps;
  int32_t rootBlock;     ///< the block the partition starts in
  int32_t parent = -1;   ///< the agent that forked this worker partition (-1 for a CTA's first agent)
  int32_t firstWarp = 0; ///< the partition's first warp id in the CTA (WarpSpecialize::Worker::firstWarp)
  /// A partition whose warps can diverge runs as one agent per warp (WarpSpecialize::Worker::perWarp): this agent's
  /// warp in the partition (0 .. numWarps - 1; it runs thread 32 x warp's path), -1 for an agent running the whole
  /// partition. `numWarps` and `firstWarp` stay the partition's (its costs are the partition's).
  int32_t warp = -1;
  int32_t warpGroup = -1; ///< per-warp agents: the agent id of the partition's warp 0 (the same for all its warps)
  /// Wave-group agents of a main function (Program::waveGroups): the agent id of the CTA's first group (the same for
  /// all groups), -1 otherwise. Such an agent runs its group's `numWarps` warps on thread 32 x `warp`'s path (`warp`
  /// = the group's first warp); its execution barriers are rendezvous of all the CTA's waves.
  int32_t waveGroupOf = -1;
};

/// An mbarrier of one CTA: allocation plus slot index in it.
struct BarrierKey {
  int64_t cta;
  int32_t alloc;
  int64_t index;
  bool operator==(const BarrierKey &) const = default;
};

/// Hash of a BarrierKey, for per-barrier state in listeners.
struct BarrierKeyHash {
  size_t operator()(const BarrierKey &k) const {
    return std::hash<int64_t>()(k.cta * 1000003 + k.alloc * 7919 + k.index);
  }
};

enum class BarrierAction : uint8_t { Init, Inval, Arrive, ExpectArrive, CompleteTx, PhaseFlip, WaitPass, WaitBlock, WaitResume };

/// A barrier operation with the barrier's state after it.
struct BarrierEvent {
  Cycle cycle;
  BarrierAction action;
  BarrierKey barrier;
  int32_t agent;  ///< acting agent (for CompleteTx: the agent that issued the TMA)
  int32_t loc;    ///< Program::locs index of the op (-1 if none)
  int64_t amount; ///< arrivals, tx bytes or waited parity
  BarrierStatus status;
  int64_t phase, pending, expected, tx;
  int64_t asyncOp = -1; ///< CompleteTx: the TMA operation whose bytes landed
};

/// An access to shared memory: elements [offset, offset + size) of an allocation, by an
/// agent itself (generic proxy: local_store / local_load) or by an asynchronous operation
/// it issued (async proxy: a TMA copy, a wgmma reading its operands).
struct AccessEvent {
  Cycle cycle;
  int64_t cta;
  int32_t agent;        ///< the agent, or the agent that issued the async operation
  int64_t asyncOp;      ///< -1 for the agent's own access
  int32_t alloc;
  int64_t offset, size; ///< in elements of the allocation
  bool write;
  bool asyncProxy;
  int32_t loc;
  int64_t iteration;    ///< the issuing agent's innermost loop iteration, -1 outside loops
  Op op;                ///< the instruction (TmaLoad, TmaStore, WgmmaIssue, LocalStore, LocalLoad)
  /// tcgen05.ld / st: the tile of each warp of the agent (Program::tmemWarpTiles), or null if not known
  const std::vector<TmemWarpTile> *warpTiles = nullptr;
  const Instr *instr = nullptr; ///< the instruction (Program::blocks), when the engine made the access
};

/// Every warp of an agent arrived on a hardware named barrier (`bar.arrive`, or `bar.sync`, which also
/// waits), with the barrier's state after the arrival.
struct NamedBarrierEvent {
  Cycle cycle;
  int64_t cta;
  int32_t agent, loc;
  int64_t id;          ///< barrier id (the hardware has 16, 0-15); negative: a partition barrier (partitionBarrierId)
  int64_t count;       ///< the op's thread count
  int64_t threads;     ///< threads that arrived (the agent's warps x warp size); 0: a wave group of an AMD
                       ///< workgroup ended, and the CTA's s_barrier waits for its waves no more (`count` lowered)
  bool sync;           ///< bar.sync (waits) rather than bar.arrive
  int64_t expected;    ///< the rendezvous' thread count (its first arrival's)
  int64_t arrived;     ///< threads arrived in this rendezvous so far
  int64_t generation;  ///< index of the rendezvous on this id
  bool completed;      ///< this arrival completed the rendezvous
};

/// The named-barrier id the engine gives the partition-wide barrier (`ttg.barrier` / `gpu.barrier`, bar.sync over the
/// partition's threads) of a partition run as per-warp agents whose warp 0 is agent `warpGroup`: negative, so it
/// never meets a kernel's own ids (Triton reserves one hardware id per partition for it), nor a bad negative one.
inline int64_t partitionBarrierId(int32_t warpGroup) { return -(int64_t(1) << 32) - warpGroup; }
/// Whether a named-barrier id is a partitionBarrierId.
inline bool isPartitionBarrier(int64_t id) { return id <= -(int64_t(1) << 32); }

/// A cluster-barrier step of an agent (`barrier.cluster.arrive` / `wait`).
struct ClusterBarrierEvent {
  /// ExitedPeer: the agent's op accesses the shared memory of a CTA of its cluster that has exited (the op is
  /// dropped); `generation` then holds that CTA's id.
  enum Action : uint8_t { Arrive, DoubleArrive, WaitPass, WaitBlock, WaitWithoutArrive, Complete, ExitedPeer } action;
  Cycle cycle;
  int64_t cluster;    ///< cluster index (CTA id / CTAs per cluster, AgentInfo::cta)
  int32_t agent, loc; ///< -1 for Complete
  int64_t generation; ///< the barrier's generation after the step (ExitedPeer: the exited CTA)
};

/// An asynchronous operation that delivers bytes into a CTA of the cluster and completes them (complete-tx) on a
/// barrier there: one event per destination CTA of a TMA multicast (`.multicast::cluster`), a 2-CTA TMA copy
/// signalling the pair's leader, or a DSMEM st.async / bulk copy into a peer CTA. Emitted at issue, before the
/// operation's AccessEvent on that CTA.
struct ClusterDeliveryEvent {
  Cycle cycle;
  int32_t agent;      ///< the issuing agent
  int64_t asyncOp;    ///< the operation (one per destination CTA)
  BarrierKey barrier; ///< the destination's barrier (its `cta` is the destination CTA)
  int64_t bytes;
  int32_t loc;
  Op op;              ///< TmaLoad or RemoteStore
};

/// An instruction read the result of an asynchronous operation (a wgmma accumulator) that its issuer has not
/// waited for yet (wgmma.wait_group with too many pendings, or none).
struct PendingUseEvent {
  Cycle cycle;
  int32_t agent;
  int64_t asyncOp;
  int32_t issueLoc, loc;
  int64_t iteration;
};

/// A span during which an agent issued an instruction (busy) or waited.
struct InstrEvent {
  int32_t agent;
  const Instr *instr;
  Cycle start, end;
  /// The span waited for operands: a register scoreboard stall on a global load or register
  /// MMA in flight, or the SM's tensor cores busy with another partition's MMA.
  bool operandWait = false;
};

/// Work of an asynchronous unit.
struct AsyncEvent {
  /// LsuLoad / LsuStore: global loads, stores, atomics and cp.async through the SM's LSU.
  enum Unit : uint8_t { TensorCore, TmaLoad, TmaStore, LsuLoad, LsuStore } unit;
  int32_t sm, agent, loc;
  Cycle start, end;
  int64_t bytes, flops;
  bool l2Hit;
  int64_t asyncOp = -1; ///< the operation's id (as in onAsyncIssue), -1 if none
};

/// What one agent's instructions cost it over its run, by op: the sum of its InstrEvent spans. `cycles[op]` is
/// the time ops of kind `op` held it (issuing, or waiting inside a wgmma / TMA store / cp.async wait op) and
/// `spans[op]` how many InstrEvents that was; `operandWait[op]` the time it stalled before ops of kind `op` for
/// their operands (InstrEvent::operandWait). Cycles are exact integers, so a view that sums these per agent gets
/// the same totals as one that sums every InstrEvent.
/// `barrierWait[alloc]` is the time it spent blocked on mbarriers of allocation `alloc` (from its WaitBlock to its
/// WaitResume BarrierEvent), over `barrierResumes[alloc]` waits.
/// `tensorQueueBlocked` is the part of cycles[WgmmaIssue] it spent held at issue because the tensor pipe's wgmma
/// queue was full (units/TensorPipe.h issueWgmmas) or, in a binary whose wgmma pipeline ptxas serialized
/// (SimOptions::wgmmaSerialized), waiting for each wgmma before the next: busy for the partition, and the evidence that
/// the tensor core bounds it.
struct AgentWork {
  std::array<Cycle, kNumOps> cycles{}, operandWait{};
  Cycle tensorQueueBlocked = 0;
  /// The part of cycles[TensorOp] its warps spent held behind their own MUFU instructions (exp2-class math issuing at
  /// the SFUs' rate) with no register math left to issue in their shadow (ops/Register.cpp awaitMufuIssue).
  Cycle mufuHeld = 0;
  /// Cycles the agent running a warp_specialize's default partition waited at its join for the workers to end
  /// (ttg.warp_specialize's implicit end-of-region barrier): neither its ops' time nor an mbarrier wait.
  Cycle joinWait = 0;
  std::array<uint32_t, kNumOps> spans{};
  std::vector<Cycle> barrierWait;
  std::vector<uint32_t> barrierResumes;
  /// One blocking wait on an mbarrier of allocation `alloc` that lasted `span` cycles.
  void addBarrierWait(int32_t alloc, Cycle span) {
    if (alloc < 0)
      return;
    if (barrierWait.size() <= static_cast<size_t>(alloc)) {
      barrierWait.resize(alloc + 1);
      barrierResumes.resize(alloc + 1);
    }
    barrierWait[alloc] += span;
    ++barrierResumes[alloc];
  }
  /// Proton instrumentation (Op::ProtonRecord): cycles between each start record of scope `id` (Program::protonScopes)
  /// and its end record, summed, as Proton's decoder measures a scope (from the start record's clock read to the end
  /// record's); `protonOpen[id]` the time of the open start record, or -1.
  std::vector<Cycle> protonScope;
  std::vector<int64_t> protonOpen;
  /// The cycle of the agent's last proton.record (-1: none): where Proton's window of its warps ends (the decoder
  /// takes a warp's fractions from the CTA's first record to the warp's own last one, runner/ProtonTrace.cpp).
  int64_t protonLast = -1;
  /// The agent's newest records as its warps' circular segments keep them (SimOptions::protonSegmentEntries): where
  /// they overflowed, Proton sees only these, and a view takes the scopes and window from them.
  ProtonSegment protonSegment;
  /// A proton.record of scope `id` at `now`: opens the scope (`start`) or closes it, adding its span.
  void protonRecord(int32_t id, bool start, Cycle now) {
    if (id < 0)
      return;
    protonLast = static_cast<int64_t>(now);
    protonSegment.record(id, start, now);
    if (protonScope.size() <= static_cast<size_t>(id)) {
      protonScope.resize(id + 1);
      protonOpen.resize(id + 1, -1);
    }
    if (start) {
      protonOpen[id] = static_cast<int64_t>(now);
    } else if (protonOpen[id] >= 0) {
      protonScope[id] += now - static_cast<Cycle>(protonOpen[id]);
      protonOpen[id] = -1;
    }
  }
};

/// An agent that cannot progress when the simulation stalls.
struct BlockedAgent {
  int32_t agent;
  int32_t loc;            ///< the wait op
  bool onBarrier;         ///< on an mbarrier (false: see `kind`)
  enum Kind : uint8_t { MBarrier, Join, Named, Cluster } kind = MBarrier; ///< what it waits for
  int64_t namedId = -1;   ///< Named: the barrier id
  BarrierKey barrier;
  int64_t parity;
  std::vector<std::pair<int32_t, int64_t>> iterations; ///< (loop op loc, iteration) outermost first
};

class Listener {
public:
  virtual ~Listener() = default;
  virtual void onAgentStart(const AgentInfo &, Cycle) {}
  virtual void onAgentEnd(int32_t /*agent*/, Cycle) {}
  virtual void onInstr(const InstrEvent &) {}
  /// The agent's InstrEvent spans summed by op (AgentWork), once per agent: when it ends (before onAgentEnd), or
  /// at the end of the run for an agent that never ended (before onStall). A view that needs only totals takes
  /// this instead of onInstr, and the engine then builds no InstrEvent at all.
  virtual void onAgentWork(int32_t /*agent*/, const AgentWork &) {}
  virtual void onBarrier(const BarrierEvent &) {}
  virtual void onAsync(const AsyncEvent &) {}
  /// `agent` issued the asynchronous operation `asyncOp` (ids are unique in a run); its
  /// accesses follow as AccessEvents. `after` is an earlier operation that is guaranteed to
  /// complete before this one (tcgen05 ops of one issuer complete in order), or -1.
  virtual void onAsyncIssue(int32_t /*agent*/, int64_t /*asyncOp*/, int64_t /*after*/, Cycle) {}
  /// `agent` waited for `asyncOp` to complete (wgmma wait, TMA store wait): what it did
  /// is now ordered before the agent's next steps.
  virtual void onAsyncRetired(int32_t /*agent*/, int64_t /*asyncOp*/, Cycle) {}
  virtual void onAccess(const AccessEvent &) {}
  /// `agent` executed fence.proxy.async (generic-proxy writes before it become visible to
  /// the async proxy).
  virtual void onProxyFence(int32_t /*agent*/, Cycle) {}
  /// `agent` resumed after all worker partitions it forked finished (end of warp_specialize).
  virtual void onJoin(int32_t /*agent*/, Cycle) {}
  virtual void onNamedBarrier(const NamedBarrierEvent &) {}
  virtual void onClusterBarrier(const ClusterBarrierEvent &) {}
  virtual void onPendingUse(const PendingUseEvent &) {}
  virtual void onClusterDelivery(const ClusterDeliveryEvent &) {}
  /// An op without simulator semantics was executed (once per op).
  virtual void onUnknownOp(const std::string & /*name*/, int32_t /*loc*/) {}
  /// No agent can progress; `blocked` lists every unfinished agent.
  virtual void onStall(Cycle, const std::vector<BlockedAgent> & /*blocked*/) {}
  virtual void onFinish(Cycle) {}
};

} // namespace tlxsim::sim
