#include "sim/Engine.h"

#include "sim/ClusterBarrier.h"
#include "sim/MBarrier.h"
#include "sim/NamedBarrier.h"
#include "sim/Occupancy.h"

#include <cmath>
#include <deque>
#include <list>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

namespace tlxsim::sim {

namespace {

/// Model parameters the engine reads, as numbers (see models/*.json for units and sources).
struct Costs {
  double numSms, clockMaxMhz, clockFullLoadMhz, smemPerSm, smemReserved, maxWarps, maxCtas, tensorFlopsPerClk,
      wgmmaIssue, wgmmaLatency, tmaIssue, tmaLatency, tmaBytesPerClk, l2BytesPerClk, l2Size, hbmBytesPerS,
      hbmExtraLatency, mbarOp, mbarWake, scalarOp, aluLanes, sfuOps, smemBytesPerClk, ctaLaunch, fence, regsPerSm,
      regAllocUnit, tmaRequestBytesPerClk, globalLoadLatency, lsuBytesPerClk, mmaSyncFlopsPerClk, ctaBarrier,
      lsuVectorBytes, mmaSyncFlopsPerInstr, smemLatency, kernelOverheadNs, clockThrottleOnset;
  // Optional knobs (NaN when the model lacks them; an op that needs one fails with its name).
  double tmemBytesPerClk, sleepUnit;
  double hbmBytesPerClk = 0; ///< derived: hbmBytesPerS at the maximum clock
};

/// One model parameter: its name, where it goes, and what values make sense.
struct Knob {
  llvm::StringLiteral name;
  double Costs::*field;
  enum Rule { Count, Positive, NonNegative } rule; ///< Count: an integer >= 1
  bool optional = false; ///< only the ops that use it require it (e.g. TMEM on Blackwell)
};

constexpr Knob kKnobs[] = {
    {"num_sms", &Costs::numSms, Knob::Count},
    {"clock_max_mhz", &Costs::clockMaxMhz, Knob::Positive},
    {"clock_full_tensor_load_mhz", &Costs::clockFullLoadMhz, Knob::Positive},
    {"clock_throttle_onset_util", &Costs::clockThrottleOnset, Knob::NonNegative},
    {"smem_per_sm_bytes", &Costs::smemPerSm, Knob::Positive},
    {"smem_reserved_per_cta_bytes", &Costs::smemReserved, Knob::NonNegative},
    {"max_warps_per_sm", &Costs::maxWarps, Knob::Count},
    {"max_ctas_per_sm", &Costs::maxCtas, Knob::Count},
    {"regs_per_sm", &Costs::regsPerSm, Knob::Count},
    {"reg_alloc_unit", &Costs::regAllocUnit, Knob::Count},
    {"tensor_flops_per_clk_sm_fp16", &Costs::tensorFlopsPerClk, Knob::Positive},
    {"wgmma_issue_cycles", &Costs::wgmmaIssue, Knob::NonNegative},
    {"wgmma_latency_cycles", &Costs::wgmmaLatency, Knob::NonNegative},
    {"tma_issue_cycles", &Costs::tmaIssue, Knob::NonNegative},
    {"tma_latency_cycles", &Costs::tmaLatency, Knob::NonNegative},
    {"tma_bytes_per_clk_sm", &Costs::tmaBytesPerClk, Knob::Positive},
    {"tma_request_bytes_per_clk", &Costs::tmaRequestBytesPerClk, Knob::Positive},
    {"l2_bytes_per_clk", &Costs::l2BytesPerClk, Knob::Positive},
    {"l2_size_bytes", &Costs::l2Size, Knob::NonNegative},
    {"hbm_bytes_per_s", &Costs::hbmBytesPerS, Knob::Positive},
    {"hbm_extra_latency_cycles", &Costs::hbmExtraLatency, Knob::NonNegative},
    {"mbarrier_op_cycles", &Costs::mbarOp, Knob::NonNegative},
    {"mbarrier_wake_cycles", &Costs::mbarWake, Knob::NonNegative},
    {"scalar_op_cycles", &Costs::scalarOp, Knob::NonNegative},
    {"alu_lanes_per_clk_sm", &Costs::aluLanes, Knob::Positive},
    {"sfu_ops_per_clk_sm", &Costs::sfuOps, Knob::Positive},
    {"smem_bytes_per_clk_sm", &Costs::smemBytesPerClk, Knob::Positive},
    {"cta_launch_cycles", &Costs::ctaLaunch, Knob::NonNegative},
    {"fence_cycles", &Costs::fence, Knob::NonNegative},
    {"global_load_latency_cycles", &Costs::globalLoadLatency, Knob::NonNegative},
    {"lsu_bytes_per_clk_sm", &Costs::lsuBytesPerClk, Knob::Positive},
    {"mma_sync_flops_per_clk_sm_fp16", &Costs::mmaSyncFlopsPerClk, Knob::Positive},
    {"cta_barrier_cycles", &Costs::ctaBarrier, Knob::NonNegative},
    {"lsu_bytes_per_thread_instr", &Costs::lsuVectorBytes, Knob::Positive},
    {"mma_sync_flops_per_instr", &Costs::mmaSyncFlopsPerInstr, Knob::Positive},
    {"smem_latency_cycles", &Costs::smemLatency, Knob::NonNegative},
    {"kernel_overhead_ns", &Costs::kernelOverheadNs, Knob::NonNegative},
    {"tmem_bytes_per_clk_sm", &Costs::tmemBytesPerClk, Knob::Positive, /*optional=*/true},
    {"s_sleep_unit_cycles", &Costs::sleepUnit, Knob::NonNegative, /*optional=*/true},
};

/// Reads and checks every knob: finite, in range, a count where a count is meant.
llvm::Expected<Costs> readCosts(const GpuModel &model) {
  if (auto err = model.require(Engine::requiredParams()))
    return err;
  Costs costs{};
  for (const Knob &knob : kKnobs) {
    if (knob.optional && !model.params().count(knob.name)) {
      costs.*knob.field = std::nan("");
      continue;
    }
    double value = model.get(knob.name);
    bool ok = std::isfinite(value) && value <= 1e18 &&
              (knob.rule == Knob::Count      ? value >= 1 && value == std::floor(value) && value <= 1e6
               : knob.rule == Knob::Positive ? value > 0
                                             : value >= 0);
    if (!ok)
      return llvm::createStringError("model '%s': parameter %s = %g must be %s", model.name().c_str(),
                                     knob.name.data(), value,
                                     knob.rule == Knob::Count      ? "an integer between 1 and 10^6"
                                     : knob.rule == Knob::Positive ? "finite and positive"
                                                                   : "finite and non-negative");
    costs.*knob.field = value;
  }
  if (costs.clockThrottleOnset >= 1)
    return llvm::createStringError("model '%s': clock_throttle_onset_util (%g) must be below 1", model.name().c_str(),
                                   costs.clockThrottleOnset);
  if (costs.clockFullLoadMhz > costs.clockMaxMhz)
    return llvm::createStringError("model '%s': clock_full_tensor_load_mhz (%g) exceeds clock_max_mhz (%g)",
                                   model.name().c_str(), costs.clockFullLoadMhz, costs.clockMaxMhz);
  // Bandwidths in bytes/s convert to bytes per SM cycle at the maximum clock; the engine
  // lowers the clock (raises bytes per cycle) as the tensor-core load becomes known.
  costs.hbmBytesPerClk = costs.hbmBytesPerS / (costs.clockMaxMhz * 1e6);
  return costs;
}

/// The power-limited SM clock (MHz) at a tensor-core utilization in [0, 1]: the maximum
/// clock up to `clock_throttle_onset_util`, then falling linearly to
/// `clock_full_tensor_load_mhz` at full utilization (a GPU at its power cap trades clock for
/// tensor-core activity; below the onset the cap does not bind). Measured on the H200:
/// kernels that keep the tensor cores a quarter busy hold 1980 MHz, GEMMs near full load
/// run at 1400-1700 MHz (traces/h200, `sm_clock_mhz`).
double sustainedClockMhz(const Costs &costs, double utilization) {
  double over = std::max(0.0, utilization - costs.clockThrottleOnset) / (1.0 - costs.clockThrottleOnset);
  return costs.clockMaxMhz - (costs.clockMaxMhz - costs.clockFullLoadMhz) * std::min(1.0, over);
}

/// A cost in cycles, rounded up; saturates (rather than overflowing) for huge or
/// non-finite costs so that the cycle limit stops the run.
Cycle cycles(double x) {
  constexpr double kMax = 4.0e18;
  if (!(x > 0))
    return 0;
  return x >= kMax ? static_cast<Cycle>(kMax) : static_cast<Cycle>(std::ceil(x));
}

/// `value` (of width `bits`) sign-extended to 64 bits.
int64_t signExtend(int64_t value, unsigned bits) {
  if (bits >= 64)
    return value;
  uint64_t v = static_cast<uint64_t>(value) & ((uint64_t(1) << bits) - 1);
  uint64_t sign = uint64_t(1) << (bits - 1);
  return static_cast<int64_t>((v ^ sign) - sign);
}

/// A `bits`-wide result as stored in a slot: i1 as 0/1, wider integers sign-extended.
int64_t truncateTo(int64_t value, unsigned bits) {
  if (bits == 1)
    return value & 1;
  return signExtend(value, bits);
}

uint64_t asUnsigned(int64_t value, unsigned bits) {
  return bits >= 64 ? static_cast<uint64_t>(value) : static_cast<uint64_t>(value) & ((uint64_t(1) << bits) - 1);
}

struct Ctl {
  enum Kind : uint8_t { Root, For, If, WsDefault, While } kind; ///< While: block is the region running now
  int32_t block;
  int32_t pc = 0;
  const Instr *owner = nullptr;
  int64_t iv = 0, lb = 0, ub = 0, step = 1;
  bool isUnsigned = false; ///< scf.for {unsignedCmp}
  unsigned bits = 64;      ///< width of the induction variable

  /// Whether the loop runs an iteration with induction value `v` (`v < ub`).
  bool inRange(int64_t v) const {
    return isUnsigned ? asUnsigned(v, bits) < asUnsigned(ub, bits) : v < ub;
  }
  /// Advances the induction variable; false when it would leave its type's range (the
  /// loop has then ended: every value below ub was visited).
  bool advance() {
    if (isUnsigned) {
      uint64_t next = asUnsigned(iv, bits) + asUnsigned(step, bits);
      if (next < asUnsigned(iv, bits) || (bits < 64 && next >> bits))
        return false;
      iv = static_cast<int64_t>(next);
      return true;
    }
    int64_t next;
    if (__builtin_add_overflow(iv, step, &next) || signExtend(next, bits) != next)
      return false;
    iv = next;
    return true;
  }
};

struct Cta;

struct Agent {
  AgentInfo info;
  Cta *cta = nullptr;
  std::vector<Value> frame;
  std::vector<Ctl> stack;
  Cycle time = 0;
  enum State : uint8_t { Ready, Blocked, Joining, Done } state = Ready;
  std::deque<std::pair<Cycle, int64_t>> wgmmaGroups, storeGroups; ///< (completion, async op id), oldest first
  /// cp.async / AMD async-copy groups: (completion, the copies' async op ids), oldest first;
  /// `openCopies` are issued but not yet committed (PTX ISA 9.1 9.7.9.25.3 cp.async.commit_group).
  struct CopyGroup {
    Cycle done = 0;
    std::vector<int64_t> ops;
    std::vector<int64_t> instrs; ///< per copy: its vector-memory instructions per thread (AMD vmcnt), 1 if unknown
    std::vector<Cycle> opDone;   ///< per copy: when it lands
  };
  std::deque<CopyGroup> copyGroups;
  CopyGroup openCopies;
  int32_t liveWorkers = 0;
  int32_t mainAgent = -1; ///< for workers: the agent running the default partition
  int32_t joinLoc = -1;   ///< the warp_specialize an agent waits to join
  /// amdg.read_barrier_phase: the last phase this agent read of each barrier (cta, alloc, index)
  std::map<std::tuple<int64_t, int32_t, int64_t>, int64_t> phasesRead;
  int64_t lastTc05Op = -1; ///< the agent's latest tcgen05 op (they complete in issue order)
  Cycle smemWritesDone = 0; ///< when the agent's register -> shared stores have drained
  Cycle lastTc05Done = 0;
  // while blocked on a barrier
  int32_t waitLoc = -1;
  BlockedAgent::Kind waitKind = BlockedAgent::MBarrier;
  int64_t waitNamed = -1; ///< the named-barrier id it waits on
  BarrierKey waitKey{};
  int64_t waitParity = 0;
};

struct Cta {
  int64_t id;
  int32_t sm;
  int64_t pid[3];   ///< tt.get_program_id: %clusterid when ttg.num-ctas > 1, else %ctaid
  int64_t ctaid[3]; ///< %ctaid, the CTA's position in the CTA grid
  int32_t liveAgents = 0;
  int32_t pendingSignals = 0;       ///< TMA loads still to complete on this CTA's barriers
  std::vector<int32_t> agentIds; ///< freed with the CTA once it is done
  Cycle lastEnd = 0;
  /// Barriers of the module's mbarrier allocations, flat (Impl::barrierBase); the maps hold
  /// any other shared memory used as a barrier.
  std::vector<MBarrier> flatBarriers;
  std::vector<std::vector<int32_t>> flatWaiters;
  std::unordered_map<uint64_t, MBarrier> barriers;
  std::unordered_map<uint64_t, std::vector<int32_t>> waiters;
  NamedBarriers named;
};

struct Sm {
  Cycle tensorCoreFree = 0, tmaFree = 0, lsuFree = 0, smemFree = 0;
  int32_t freeSlots = 0;
};

/// An asynchronous signal due on a barrier: a TMA copy's complete-tx (bytes), or the
/// arrive of a completed tcgen05 op or commit (`arrive`).
struct PendingSignal {
  int64_t op; ///< async op id
  int32_t agent;
  Cta *cta;
  BarrierKey barrier;
  int64_t bytes;
  int32_t loc;
  bool arrive = false;
};

struct Event {
  Cycle t;
  uint64_t seq;
  enum Kind : uint8_t { RunAgent, SignalDue, StartCta } kind;
  int32_t id;
  /// Time order, then issue order: one 128-bit comparison (the queue's hot path).
  unsigned __int128 key() const { return (static_cast<unsigned __int128>(t) << 64) | seq; }
  bool operator>(const Event &o) const { return key() > o.key(); }
};

uint64_t barrierSlot(int32_t alloc, int64_t index) { return (static_cast<uint64_t>(alloc) << 40) ^ static_cast<uint64_t>(index); }

} // namespace

struct Engine::Impl {
  const Program &program;
  const Launch &launch;
  SimOptions options;
  Costs costs;
  std::vector<Value> initialFrame;
  std::vector<Listener *> listeners;
  SimResult result;

  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> queue;
  uint64_t seq = 0;
  std::vector<std::unique_ptr<Agent>> agents;
  std::vector<std::unique_ptr<Cta>> ctas;
  std::vector<Sm> sms;
  std::vector<PendingSignal> signals_; ///< pending asynchronous barrier signals (reused slots)
  std::vector<int32_t> freeSignals;
  int64_t nextCta = 0, totalCtas = 0;
  std::array<int64_t, 3> ctaGrid{1, 1, 1}; ///< CUDA's gridDim (Launch::ctaGrid)
  Cycle l2Free = 0, hbmFree = 0, endCycle = 0;
  double tensorBusy = 0; ///< tensor-core busy cycles summed over SMs
  uint64_t instructions = 0;
  int64_t nextAsyncOp = 0;
  std::set<const Instr *> reportedUnknown;
  std::vector<int64_t> finishedCtas; ///< CTAs whose memory is released after the current event
  std::unordered_map<int64_t, ClusterBarrier> clusters; ///< by cluster index
  std::string error;
  // L2 residency of TMA boxes (LRU over box keys)
  std::list<std::pair<uint64_t, int64_t>> l2Lru;
  std::unordered_map<uint64_t, std::list<std::pair<uint64_t, int64_t>>::iterator> l2Index;
  int64_t l2Bytes = 0;

  Impl(const Program &p, Costs c, const Launch &l, SimOptions o, std::vector<Value> frame)
      : program(p), launch(l), options(o), costs(c), initialFrame(std::move(frame)) {}

  void push(Cycle t, Event::Kind kind, int32_t id) { queue.push(Event{t, seq++, kind, id}); }
  template <typename F> void emit(F &&f) {
    for (Listener *l : listeners)
      f(*l);
  }

  Occupancy occupancy; ///< computed by Engine::create
  std::vector<int64_t> barrierBase, barrierCount; ///< per allocation: first flat barrier slot (-1: none), slots
  int64_t barrierSlots = 0;
  std::vector<Value> scratch; ///< reused by yield()

  /// The power-limited SM clock at cycle `now` (see run()) from the tensor-core load so far;
  /// HBM's fixed bytes/s become more bytes per SM cycle as the clock drops.
  void updateClock(Cycle now) {
    if (now == 0)
      return;
    double utilization = std::min(1.0, tensorBusy / (static_cast<double>(now) * costs.numSms));
    double clock = sustainedClockMhz(costs, utilization);
    costs.hbmBytesPerClk = costs.hbmBytesPerS / (clock * 1e6);
  }

  // ---- CTAs and agents ------------------------------------------------------------------

  void startCta(int32_t smIndex, Cycle t) {
    if (nextCta >= totalCtas)
      return;
    auto cta = std::make_unique<Cta>();
    cta->id = nextCta++;
    cta->sm = smIndex;
    // CTAs start cluster by cluster (a cluster is co-scheduled, CUDA C++ Programming Guide "Thread Block
    // Clusters"): id = cluster index (linear %clusterid) * cluster size + %cluster_ctarank, where the rank is
    // x + y * cx + z * cx * cy of %cluster_ctaid (PTX ISA special registers %cluster_ctarank, %cluster_ctaid).
    // The CTA's %ctaid is its cluster's corner plus %cluster_ctaid; program ids are %clusterid when ttg.num-ctas
    // > 1, else %ctaid (Program::numCtas).
    const auto &dims = program.clusterDims;
    int64_t size = program.clusterSize(), cluster = cta->id / size, rank = cta->id % size;
    int64_t ncx = ctaGrid[0] / dims[0], ncy = ctaGrid[1] / dims[1];
    int64_t clusterId[3] = {cluster % ncx, cluster / ncx % ncy, cluster / (ncx * ncy)};
    int64_t inCluster[3] = {rank % dims[0], rank / dims[0] % dims[1], rank / (int64_t(dims[0]) * dims[1])};
    for (int i = 0; i < 3; ++i) {
      cta->ctaid[i] = clusterId[i] * dims[i] + inCluster[i];
      cta->pid[i] = program.numCtas > 1 ? clusterId[i] : cta->ctaid[i];
    }
    cta->flatBarriers.resize(barrierSlots);
    cta->flatWaiters.resize(barrierSlots);
    Agent &main = newAgent(*cta, "default", program.numWarps, program.entryBlock, t);
    main.frame = initialFrame;
    main.stack.push_back(Ctl{Ctl::Root, program.entryBlock});
    ctas.push_back(std::move(cta));
    ++result.ctasSimulated;
    emit([&](Listener &l) { l.onAgentStart(main.info, t); });
    push(t, Event::RunAgent, main.info.id);
  }

  Agent &newAgent(Cta &cta, const std::string &name, int32_t warps, int32_t block, Cycle t, int32_t parent = -1) {
    auto agent = std::make_unique<Agent>();
    agent->info = AgentInfo{static_cast<int32_t>(agents.size()), cta.id, cta.sm, name, warps, block, parent};
    agent->cta = &cta;
    agent->time = t;
    ++cta.liveAgents;
    cta.agentIds.push_back(agent->info.id);
    agents.push_back(std::move(agent));
    return *agents.back();
  }

  void finishAgent(Agent &agent) {
    if (!agent.storeGroups.empty())
      agent.time = std::max(agent.time, agent.storeGroups.back().first);
    agent.state = Agent::Done;
    agent.frame.clear();
    agent.frame.shrink_to_fit();
    emit([&](Listener &l) { l.onAgentEnd(agent.info.id, agent.time); });
    Cta &cta = *agent.cta;
    if (!clusters.empty())
      clusterProgress(cta.id / program.clusterSize(), agent.time);
    cta.lastEnd = std::max(cta.lastEnd, agent.time);
    if (agent.mainAgent >= 0) {
      Agent &main = *agents[agent.mainAgent];
      if (--main.liveWorkers == 0 && main.state == Agent::Joining) {
        main.state = Agent::Ready;
        main.time = std::max(main.time, agent.time);
        emit([&](Listener &l) { l.onJoin(main.info.id, main.time); });
        push(main.time, Event::RunAgent, main.info.id);
      }
    }
    if (--cta.liveAgents == 0) {
      endCycle = std::max(endCycle, cta.lastEnd);
      push(cta.lastEnd + cycles(costs.ctaLaunch), Event::StartCta, cta.sm);
      if (cta.pendingSignals == 0)
        finishedCtas.push_back(cta.id);
    }
  }

  // ---- values -----------------------------------------------------------------------------

  bool fail(const Instr &in, const std::string &what) {
    if (error.empty()) {
      const ir::SourceLoc &loc = program.locs[in.loc];
      error = loc.str() + ": " + what;
    }
    return false;
  }

  bool intOf(Agent &a, int32_t slot, const Instr &in, int64_t &out) {
    const Value &v = a.frame[slot];
    if (v.kind != Value::Int) {
      if (v.kind == Value::Unknown && v.alloc >= 0)
        return fail(in, "the simulator needs this scalar, but it depends on '" + program.unknownOps[v.alloc] +
                            "', which has no simulator semantics yet");
      return fail(in, "the simulator needs this scalar, but it is not an integer the simulator can compute");
    }
    out = v.i;
    return true;
  }

  /// An optional predicate operand: true when absent.
  bool predicate(Agent &a, int32_t slot, const Instr &in, bool &out) {
    out = true;
    if (slot < 0)
      return true;
    int64_t v = 0;
    if (!intOf(a, slot, in, v))
      return false;
    out = v != 0;
    return true;
  }

  bool barrierOf(Agent &a, int32_t slot, const Instr &in, BarrierKey &key) {
    const Value &v = a.frame[slot];
    if (v.kind != Value::Mem)
      return fail(in, "the barrier operand does not trace back to a shared-memory allocation");
    Cta *owner = v.rank < 0 ? a.cta : peerCta(*a.cta, v.rank, in); // a DSMEM view names a peer's barrier
    if (!owner)
      return false;
    key = BarrierKey{owner->id, v.alloc, v.i};
    return true;
  }

  // ---- clusters: distributed shared memory (PTX ISA 9.1 5.1.1; a cluster's CTAs have consecutive ids) ----

  /// The running CTA of cluster rank `rank` in the cluster of `cta`; fails naming why when the rank lies outside
  /// the cluster or that CTA does not run (not launched, or already exited).
  Cta *peerCta(const Cta &cta, int64_t rank, const Instr &in) {
    if (rank < 0 || rank >= program.clusterSize()) {
      fail(in, "cluster CTA rank " + std::to_string(rank) + " lies outside " + program.clusterText());
      return nullptr;
    }
    int64_t id = cta.id / program.clusterSize() * program.clusterSize() + rank;
    if (id < static_cast<int64_t>(ctas.size()) && ctas[id])
      return ctas[id].get();
    fail(in, "CTA " + std::to_string(id) + " (rank " + std::to_string(rank) + " of the cluster of CTA " +
                 std::to_string(cta.id) + ") is not running: " +
                 (id >= totalCtas ? "the simulated grid (--grid, --max-ctas) must hold whole clusters of " +
                                        std::to_string(program.clusterSize()) + " CTAs"
                  : id >= nextCta
                      ? std::string("it has not started yet (the simulator starts a cluster's CTAs as SMs free up); "
                                    "access a peer's shared memory only after a cluster barrier, which ensures every "
                                    "CTA of the cluster has started (CUDA C++ Programming Guide, Distributed Shared "
                                    "Memory)")
                      : std::string("it has exited, and the shared memory of an exited CTA of the "
                                    "cluster must not be accessed (PTX ISA 9.1 5.1.1)")));
    return nullptr;
  }
  /// The linear id of the CTA whose shared memory the view `v` of an agent of `cta` names.
  int64_t viewCtaId(const Cta &cta, const Value &v) const {
    return v.rank < 0 ? cta.id : cta.id / program.clusterSize() * program.clusterSize() + v.rank;
  }
  /// The CTAs of the 2-CTA pair (cta_group::2) `cta` belongs to, leader (even rank) first: the two CTAs of the
  /// cluster whose %cluster_ctarank differs in the last bit only (PTX ISA 9.3 9.7.17.5.1 "CTA Pair"; in a 2-D cluster of
  /// even cx, x-neighbours). Empty after a failure.
  std::vector<Cta *> ctaPair(const Cta &cta, const Instr &in) {
    if (program.clusterSize() < 2) {
      const auto &d = program.clusterDims;
      fail(in, "a 2-CTA (two_ctas / cta_group::2) operation needs clusters of at least 2 CTAs (" +
                   (d[0] == program.numCtas ? "ttg.num-ctas = " + std::to_string(program.numCtas)
                                            : "cluster shape " + std::to_string(d[0]) + "x" + std::to_string(d[1]) +
                                                  "x" + std::to_string(d[2])) +
                   ")");
      return {};
    }
    int64_t leader = cta.id % program.clusterSize() & ~int64_t(1);
    Cta *first = peerCta(cta, leader, in);
    Cta *second = first ? peerCta(cta, leader + 1, in) : nullptr;
    return second ? std::vector<Cta *>{first, second} : std::vector<Cta *>{};
  }
  /// Whether the CTA of cluster rank `rank` in the cluster of `cta` was launched and has exited.
  bool peerExited(const Cta &cta, int64_t rank) const {
    if (rank < 0 || rank >= program.clusterSize())
      return false;
    int64_t id = cta.id / program.clusterSize() * program.clusterSize() + rank;
    return id < nextCta && (id >= static_cast<int64_t>(ctas.size()) || !ctas[id]);
  }
  /// The id of an exited CTA of its cluster that `in` would access (a DSMEM view operand, a remote-store rank, a
  /// multicast destination, the other CTA of a 2-CTA pair), or -1.
  int64_t exitedPeerOf(Agent &a, const Instr &in) const {
    const Cta &cta = *a.cta;
    int64_t base = cta.id / program.clusterSize() * program.clusterSize();
    auto intArg = [&](size_t i) { return i < in.args.size() && in.args[i] >= 0 && a.frame[in.args[i]].kind == Value::Int
                                             ? a.frame[in.args[i]].i : int64_t(-1); };
    for (int32_t slot : in.args)
      if (slot >= 0 && a.frame[slot].kind == Value::Mem && peerExited(cta, a.frame[slot].rank))
        return base + a.frame[slot].rank;
    if (in.op == Op::RemoteStore && peerExited(cta, intArg(2)))
      return base + intArg(2);
    if (in.op == Op::TmaLoad && in.args.size() > static_cast<size_t>(in.imm2) + 4)
      for (int32_t r = 0, mask = static_cast<int32_t>(intArg(in.imm2 + 4)); mask > 0 && r < program.clusterSize();
           ++r)
        if (mask >> r & 1 && peerExited(cta, r))
          return base + r;
    bool pair = (in.op == Op::Tc05Mma && in.sub & 2) || (in.op == Op::Tc05Commit && in.sub == 1) ||
                (in.op == Op::TmaLoad && in.sub == 1);
    int64_t leader = cta.id % program.clusterSize() & ~int64_t(1);
    for (int64_t r : {leader, leader + 1})
      if (pair && peerExited(cta, r))
        return base + r;
    return -1;
  }
  /// The CTA holding the barrier `key`.
  Cta &ctaOf(const BarrierKey &key) { return *ctas[key.cta]; }

  /// Index of `key` among the flat barriers of a CTA, or -1.
  int64_t flatIndex(const BarrierKey &key) const {
    if (key.alloc < 0 || key.alloc >= static_cast<int32_t>(barrierBase.size()) || barrierBase[key.alloc] < 0 ||
        key.index < 0 || key.index >= barrierCount[key.alloc])
      return -1;
    return barrierBase[key.alloc] + key.index;
  }
  MBarrier &barrier(Cta &cta, const BarrierKey &key) {
    int64_t flat = flatIndex(key);
    return flat >= 0 ? cta.flatBarriers[flat] : cta.barriers[barrierSlot(key.alloc, key.index)];
  }
  std::vector<int32_t> &waitersOf(Cta &cta, const BarrierKey &key) {
    int64_t flat = flatIndex(key);
    return flat >= 0 ? cta.flatWaiters[flat] : cta.waiters[barrierSlot(key.alloc, key.index)];
  }

  void barrierEvent(Cycle t, BarrierAction action, const BarrierKey &key, const MBarrier &bar, int32_t agent,
                    int32_t loc, int64_t amount, BarrierStatus status, int64_t asyncOp = -1) {
    BarrierEvent e{t,   action,      key,          agent,          loc, amount, status, bar.phase(), bar.pending(),
                   bar.expected(), bar.tx(), asyncOp};
    emit([&](Listener &l) { l.onBarrier(e); });
  }

  /// Wakes every waiter whose parity test now passes (the phase flipped at `t`).
  void phaseFlipped(Cta &cta, const BarrierKey &key, MBarrier &bar, Cycle t, int32_t agent, int32_t loc) {
    barrierEvent(t, BarrierAction::PhaseFlip, key, bar, agent, loc, 0, BarrierStatus::Ok);
    std::vector<int32_t> &list = waitersOf(cta, key);
    size_t kept = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      int32_t id = list[i];
      Agent &w = *agents[id];
      if (!bar.testWaitParity(w.waitParity)) {
        list[kept++] = id;
        continue;
      }
      w.state = Agent::Ready;
      w.time = std::max(w.time, t + cycles(costs.mbarWake));
      barrierEvent(w.time, BarrierAction::WaitResume, key, bar, id, w.waitLoc, w.waitParity, BarrierStatus::Ok);
      w.stack.back().pc++;
      push(w.time, Event::RunAgent, id);
    }
    list.resize(kept);
  }

  /// Wakes an agent blocked on a named or cluster barrier at `t`.
  void wake(int32_t id, Cycle t) {
    Agent &w = *agents[id];
    w.state = Agent::Ready;
    w.time = std::max(w.time, t + cycles(costs.mbarWake));
    w.stack.back().pc++;
    push(w.time, Event::RunAgent, id);
  }

  /// Completes the cluster barrier of cluster `index` if every non-exited agent of its CTAs arrived.
  void clusterProgress(int64_t index, Cycle t) {
    auto it = clusters.find(index);
    if (it == clusters.end())
      return;
    std::vector<int32_t> live;
    int64_t first = index * program.clusterSize(), last = first + program.clusterSize();
    bool allStarted = std::min<int64_t>(last, totalCtas) <= nextCta;
    for (int64_t c = first; c < last && c < static_cast<int64_t>(ctas.size()); ++c)
      if (ctas[c])
        for (int32_t id : ctas[c]->agentIds)
          if (agents[id] && agents[id]->state != Agent::Done)
            live.push_back(id);
    bool completed = false;
    std::vector<int32_t> wakeList = it->second.tryComplete(live, allStarted, completed);
    if (!completed)
      return;
    ClusterBarrierEvent e{ClusterBarrierEvent::Complete, t, index, -1, -1, it->second.generation()};
    emit([&](Listener &l) { l.onClusterBarrier(e); });
    for (int32_t id : wakeList) {
      wake(id, t);
      ClusterBarrierEvent r{ClusterBarrierEvent::WaitPass, agents[id]->time, index, id, agents[id]->waitLoc,
                            it->second.generation()};
      emit([&](Listener &l) { l.onClusterBarrier(r); });
    }
  }

  /// Reports reads of wgmma accumulators whose group is still outstanding (their values carry the op).
  void checkPendingUses(Agent &a, const Instr &in) {
    for (int32_t slot : in.args) {
      if (slot < 0)
        continue;
      const Value &v = a.frame[slot];
      if (v.kind != Value::Tensor || v.pendingOp < 0)
        continue;
      PendingUseEvent e{a.time, a.info.id, v.pendingOp, v.pendingLoc, in.loc, iteration(a)};
      emit([&](Listener &l) { l.onPendingUse(e); });
    }
  }

  // ---- memory system -----------------------------------------------------------------------

  bool l2Lookup(uint64_t key, int64_t bytes) {
    auto it = l2Index.find(key);
    if (it != l2Index.end()) {
      l2Lru.splice(l2Lru.begin(), l2Lru, it->second);
      return true;
    }
    l2Lru.emplace_front(key, bytes);
    l2Index[key] = l2Lru.begin();
    l2Bytes += bytes;
    while (l2Bytes > costs.l2Size && !l2Lru.empty()) {
      l2Bytes -= l2Lru.back().second;
      l2Index.erase(l2Lru.back().first);
      l2Lru.pop_back();
    }
    return false;
  }

  /// Moves `bytes` between global memory and one SM's shared memory, issued at `t`;
  /// returns the completion cycle. A request streams at a bounded per-request rate after
  /// the fixed latency (a single copy does not reach the SM's fill bandwidth; hw-params.md
  /// section 7); the SM's TMA engine, the device L2 and HBM are FIFO pipes whose
  /// bandwidth delays a request only once they saturate.
  /// A store (`writeBack`) completes once L2 has taken the data; its write-back still
  /// occupies HBM bandwidth.
  Cycle transfer(Sm &sm, Cycle t, int64_t bytes, bool l2Hit, bool writeBack = false) {
    Cycle latency = cycles(costs.tmaLatency);
    Cycle done = t + latency + cycles(bytes / costs.tmaRequestBytesPerClk);
    sm.tmaFree = std::max(t, sm.tmaFree) + cycles(bytes / costs.tmaBytesPerClk);
    l2Free = std::max(t, l2Free) + cycles(bytes / costs.l2BytesPerClk);
    done = std::max({done, sm.tmaFree + latency, l2Free + latency});
    if (writeBack) {
      hbmFree = std::max(t, hbmFree) + cycles(bytes / costs.hbmBytesPerClk);
    } else if (!l2Hit) {
      hbmFree = std::max(t, hbmFree) + cycles(bytes / costs.hbmBytesPerClk);
      done = std::max(done, hbmFree + latency + cycles(costs.hbmExtraLatency));
    }
    return done;
  }

  uint64_t boxKey(Agent &a, const Instr &in) {
    uint64_t h = static_cast<uint64_t>(a.frame[in.args[0]].alloc) * 0x9E3779B97F4A7C15ull;
    for (int64_t i = 0; i < in.imm2; ++i)
      h = (h ^ static_cast<uint64_t>(a.frame[in.args[1 + i]].i)) * 0x100000001B3ull;
    return h;
  }

  // ---- memory-access events -----------------------------------------------------------------

  /// The innermost loop iteration of `a`, -1 outside loops.
  static int64_t iteration(const Agent &a) {
    for (auto it = a.stack.rbegin(); it != a.stack.rend(); ++it)
      if (it->kind == Ctl::For)
        return (it->iv - it->lb) / it->step;
    return -1;
  }

  /// Announces an async operation of `a` (to complete after `after`, or -1); returns its id.
  int64_t issueAsync(Agent &a, int64_t after = -1) {
    int64_t op = nextAsyncOp++;
    emit([&](Listener &l) { l.onAsyncIssue(a.info.id, op, after, a.time); });
    return op;
  }

  /// Schedules an asynchronous signal on a barrier at cycle `at` (see PendingSignal).
  void signalAt(Cycle at, const PendingSignal &signal) {
    int32_t id;
    if (!freeSignals.empty()) {
      id = freeSignals.back();
      freeSignals.pop_back();
    } else {
      id = static_cast<int32_t>(signals_.size());
      signals_.emplace_back();
    }
    signals_[id] = signal;
    ++signal.cta->pendingSignals;
    push(at, Event::SignalDue, id);
  }

  /// Reports an access to the shared-memory view in `slot` (`elems` elements), if it is one.
  /// `ctaId` overrides the CTA the view lies in (a multicast or 2-CTA operation's other destinations).
  void access(Agent &a, int64_t op, int32_t slot, int64_t elems, bool write, bool asyncProxy, const Instr &in,
              int64_t ctaId = -1) {
    Op kind = in.op;
    int32_t loc = in.loc;
    if (slot < 0 || elems <= 0 || a.frame[slot].kind != Value::Mem)
      return;
    const Value &view = a.frame[slot];
    AccessEvent e{a.time, ctaId >= 0 ? ctaId : viewCtaId(*a.cta, view), a.info.id, op, view.alloc, view.i, elems, write, asyncProxy, loc, iteration(a),
                  kind};
    if (in.aux >= 0 && in.aux < static_cast<int32_t>(program.tmemWarpTiles.size()))
      e.warpTiles = &program.tmemWarpTiles[in.aux];
    emit([&](Listener &l) { l.onAccess(e); });
  }


  // ---- registers, global memory, optional knobs ------------------------------------------------

  /// The fraction of the SM's 4 sub-partition (SMSP) pipes a partition of `warps` warps
  /// drives: warps are assigned to the 4 schedulers round-robin (CPG 20.8.1).
  static double smspShare(int32_t warps) { return std::min(4, std::max(1, warps)) / 4.0; }

  /// Waits until the tensor operands of `in` (from `first` on) are ready: a register
  /// scoreboard for global loads and register MMAs in flight. The stall is reported as a
  /// wait on its operands.
  void awaitOperands(Agent &a, const Instr &in, size_t first = 0) {
    Cycle ready = a.time;
    for (size_t i = first; i < in.args.size(); ++i)
      if (in.args[i] >= 0) {
        const Value &v = a.frame[in.args[i]];
        if (v.kind == Value::Tensor && static_cast<Cycle>(v.i) > ready)
          ready = static_cast<Cycle>(v.i);
      }
    if (ready > a.time) {
      InstrEvent e{a.info.id, &in, a.time, ready, /*operandWait=*/true};
      emit([&](Listener &l) { l.onInstr(e); });
      a.time = ready;
    }
  }

  /// A hash of the values `in` computes from (its first `count` operands) and, unless
  /// `valuesOnly`, of the op itself: equal in every CTA that computes the same addresses
  /// (see Value::alloc).
  int32_t provenance(Agent &a, const Instr &in, size_t count, bool valuesOnly = false, size_t first = 0) {
    uint64_t h = (valuesOnly ? 0 : static_cast<uint64_t>(in.loc) + 1) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    for (size_t i = first; i < first + count && i < in.args.size(); ++i) {
      if (in.args[i] < 0)
        continue;
      const Value &v = a.frame[in.args[i]];
      uint64_t x = v.kind == Value::Int ? static_cast<uint64_t>(v.i)
                   : v.kind == Value::Mem ? (static_cast<uint64_t>(v.alloc) << 40) ^ static_cast<uint64_t>(v.i)
                                          : static_cast<uint64_t>(static_cast<uint32_t>(v.alloc));
      h = (h ^ (x + static_cast<uint64_t>(v.kind))) * 0x100000001B3ull;
      h ^= h >> 29;
    }
    return static_cast<int32_t>(h ^ (h >> 32));
  }

  /// A knob only some ops need; fails naming it when the model lacks it.
  bool optionalKnob(double value, const char *name, const Instr &in, double &out) {
    if (std::isnan(value))
      return fail(in, std::string("this op needs model parameter '") + name + "', which the model lacks");
    out = value;
    return true;
  }

  /// A load/store of `bytes` between registers (or, for cp.async, shared memory) and global
  /// memory through the SM's LSU, the device L2 and, on an L2 miss or a write-back, HBM; the
  /// LSU, L2 and HBM are FIFO pipes. Returns when the data is back (a load) or L2 took it.
  Cycle lsuTransfer(Sm &sm, Cycle t, int64_t bytes, bool l2Hit, bool write) {
    Cycle latency = cycles(costs.globalLoadLatency);
    sm.lsuFree = std::max(t, sm.lsuFree) + cycles(bytes / costs.lsuBytesPerClk);
    l2Free = std::max(t, l2Free) + cycles(bytes / costs.l2BytesPerClk);
    Cycle done = std::max({t + latency, sm.lsuFree + latency, l2Free + latency});
    if (write || !l2Hit) {
      hbmFree = std::max(t, hbmFree) + cycles(bytes / costs.hbmBytesPerClk);
      if (!write)
        done = std::max(done, hbmFree + latency) + cycles(costs.hbmExtraLatency);
    }
    return done;
  }

  /// AMD `s_waitcnt vmcnt(n)` (`amdg.async_wait {num_inst = n}`, what Triton's UpdateAsyncWaitCount makes of
  /// `ttg.async_wait`): the wave's vector-memory counter counts outstanding instructions, not commit groups,
  /// and they complete in issue order (AMD CDNA3/CDNA4 ISA, "s_waitcnt"; commit groups do not exist in the
  /// hardware). Retires `a`'s oldest copies, committed or not, until at most `n` of their direct-to-LDS
  /// instructions (per thread, Lowering's count) are outstanding; the agent waits until the retired ones landed.
  void retireCopyInstructions(Agent &a, int64_t n) {
    auto outstanding = [&] {
      int64_t total = 0;
      for (const Agent::CopyGroup &g : a.copyGroups)
        for (int64_t k : g.instrs)
          total += k;
      for (int64_t k : a.openCopies.instrs)
        total += k;
      return total;
    };
    int64_t left = outstanding();
    auto retireFront = [&](Agent::CopyGroup &g) {
      a.time = std::max(a.time, g.opDone.front());
      left -= g.instrs.front();
      int64_t op = g.ops.front();
      emit([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
      g.ops.erase(g.ops.begin());
      g.instrs.erase(g.instrs.begin());
      g.opDone.erase(g.opDone.begin());
    };
    // A copy whose instructions retire only in part is still in flight: its remaining instructions stay counted.
    auto retire = [&](Agent::CopyGroup &g) {
      if (g.instrs.front() <= left - n) {
        retireFront(g);
      } else {
        a.time = std::max(a.time, g.opDone.front()); // (its earlier instructions landed; timing as the whole copy)
        g.instrs.front() -= left - n;
        left = n;
      }
    };
    while (left > n && !a.copyGroups.empty()) {
      Agent::CopyGroup &g = a.copyGroups.front();
      if (g.ops.empty()) {
        a.copyGroups.pop_front();
        continue;
      }
      retire(g);
    }
    while (left > n && !a.openCopies.ops.empty())
      retire(a.openCopies);
    while (!a.copyGroups.empty() && a.copyGroups.front().ops.empty())
      a.copyGroups.pop_front();
  }

  /// How many threads of the partition execute the current instruction of `a`: the product of the thread
  /// counts of the enclosing thread-id `scf.if`s (Op::If sub 1), 1 outside them. An mbarrier arrive counts once
  /// per executing thread: TLX's AMD LDS barriers arrive under `tid % 64 == 0`, once per wave
  /// (third_party/amd LowerBarrierOps; tlx_barriers.md: "AMD: number of warps that execute the arrive").
  static int64_t threadMultiplicity(const Agent &a) {
    int64_t n = 1;
    for (const Ctl &c : a.stack)
      if (c.kind == Ctl::If && c.owner && c.owner->op == Op::If && c.owner->sub == 1 && c.owner->imm2 > 0)
        n *= c.owner->imm2;
    return n;
  }

  /// Every cp.async of `a`, committed or not, completes by the returned cycle.
  static Cycle copiesDone(const Agent &a) {
    Cycle done = a.openCopies.done;
    for (const Agent::CopyGroup &g : a.copyGroups)
      done = std::max(done, g.done);
    return done;
  }

  // ---- the interpreter ----------------------------------------------------------------------

  static bool isShared(Op op) {
    switch (op) {
    case Op::InitBarrier: case Op::InvalBarrier: case Op::BarrierExpect: case Op::WaitBarrier:
    case Op::ArriveBarrier: case Op::TmaLoad: case Op::TmaStore: case Op::WgmmaIssue: case Op::WarpSpecialize:
    case Op::Tc05Mma: case Op::Tc05Commit: case Op::GlobalLoad: case Op::GlobalStore: case Op::AsyncCopy:
    case Op::Dot: case Op::Tc05Copy: case Op::ReadBarrierPhase: case Op::LocalLoad: case Op::LocalStore:
    case Op::NamedBarrier: case Op::ClusterArrive: case Op::ClusterWait: case Op::RemoteStore:
      return true;
    default:
      return false;
    }
  }

  void setResults(Agent &a, const Instr &owner, const std::vector<Value> &values) {
    for (int32_t i = 0; i < owner.numResults && i < static_cast<int32_t>(values.size()); ++i)
      a.frame[owner.result + i] = values[i];
  }

  enum class Step { Continue, Suspend, Error };

  /// Leaves the innermost region: its owner's results take `values`, the parent goes on.
  void exitRegion(Agent &a, const std::vector<Value> &values) {
    const Instr *owner = a.stack.back().owner;
    a.stack.pop_back();
    setResults(a, *owner, values);
    a.stack.back().pc++;
  }

  Step yield(Agent &a, const Instr &in) {
    std::vector<Value> &values = scratch; // copied first: a yield may permute the block's arguments
    values.clear();
    for (int32_t s : in.args)
      values.push_back(a.frame[s]);
    Ctl &c = a.stack.back();
    switch (c.kind) {
    case Ctl::For:
      if (c.advance() && c.inRange(c.iv)) {
        const Block &body = program.blocks[c.block];
        a.frame[body.args[0]] = Value::integer(c.iv);
        for (size_t i = 0; i < values.size() && i + 1 < body.args.size(); ++i)
          a.frame[body.args[i + 1]] = values[i];
        c.pc = 0;
        a.time += cycles(costs.scalarOp);
        return Step::Continue;
      }
      exitRegion(a, values);
      return Step::Continue;
    case Ctl::If:
      exitRegion(a, values);
      return Step::Continue;
    case Ctl::While: { // end of the after region: back to the condition
      const Block &before = program.blocks[c.owner->block];
      for (size_t i = 0; i < values.size() && i < before.args.size(); ++i)
        a.frame[before.args[i]] = values[i];
      c.block = c.owner->block;
      c.pc = 0;
      a.time += cycles(costs.scalarOp);
      return Step::Continue;
    }
    case Ctl::WsDefault:
      a.joinLoc = c.owner->loc;
      exitRegion(a, values);
      if (a.liveWorkers > 0) {
        a.state = Agent::Joining;
        return Step::Suspend;
      }
      emit([&](Listener &l) { l.onJoin(a.info.id, a.time); });
      return Step::Continue;
    case Ctl::Root:
      break;
    }
    fail(in, "a yield outside any region");
    return Step::Error;
  }

  Step exec(Agent &a, const Instr &in, Cycle now) {
    Ctl &c = a.stack.back();
    Cta &cta = *a.cta;
    Sm &sm = sms[cta.sm];
    Cycle start = a.time;
    auto busy = [&](double cost) {
      Cycle from = a.time;
      a.time += cycles(cost);
      InstrEvent e{a.info.id, &in, from, a.time};
      emit([&](Listener &l) { l.onInstr(e); });
    };
    auto next = [&]() {
      c.pc++;
      return Step::Continue;
    };
    auto err = [&](const std::string &what) {
      fail(in, what);
      return Step::Error;
    };
    int64_t x = 0, y = 0;
    if (program.clusterSize() > 1 && isShared(in.op)) {
      // An op reaching into the shared memory of a CTA of the cluster that has exited: reported, then dropped
      // (PTX ISA 9.1 5.1.1: a CTA's shared memory must not be accessed once it exited).
      int64_t gone = exitedPeerOf(a, in);
      if (gone >= 0) {
        busy(costs.mbarOp);
        ClusterBarrierEvent e{ClusterBarrierEvent::ExitedPeer, a.time, cta.id / program.clusterSize(), a.info.id,
                              in.loc, gone};
        emit([&](Listener &l) { l.onClusterBarrier(e); });
        return next();
      }
    }
    switch (in.op) {
    case Op::Const:
      a.frame[in.result] = Value::integer(truncateTo(in.imm, in.bits));
      return next();
    case Op::Binary: {
      const Value &l = a.frame[in.args[0]], &r = a.frame[in.args[1]];
      Value out = Value::unknown(Value::originOf(l, r));
      if (l.kind == Value::Int && r.kind == Value::Int) {
        x = l.i;
        y = r.i;
        uint64_t ux = asUnsigned(x, in.bits), uy = asUnsigned(y, in.bits);
        bool ok = true;
        int64_t v = 0;
        switch (static_cast<BinaryKind>(in.sub)) {
        case Add: v = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y)); break;
        case Sub: v = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y)); break;
        case Mul: v = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y)); break;
        case DivS: ok = y != 0; v = !ok ? 0 : y == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : x / y; break;
        case DivU: ok = uy != 0; v = ok ? static_cast<int64_t>(ux / uy) : 0; break;
        case RemS: ok = y != 0; v = !ok || y == -1 ? 0 : x % y; break;
        case RemU: ok = uy != 0; v = ok ? static_cast<int64_t>(ux % uy) : 0; break;
        case And: v = x & y; break;
        case Or: v = x | y; break;
        case Xor: v = x ^ y; break;
        case Shl: v = static_cast<int64_t>(static_cast<uint64_t>(x) << (y & 63)); break;
        case ShrS: v = x >> (y & 63); break;
        case ShrU: v = static_cast<int64_t>(ux >> (y & 63)); break;
        case MinS: v = std::min(x, y); break;
        case MaxS: v = std::max(x, y); break;
        case MinU: v = static_cast<int64_t>(std::min(ux, uy)); break;
        case MaxU: v = static_cast<int64_t>(std::max(ux, uy)); break;
        case CeilDivS:
        case FloorDivS:
          ok = y != 0;
          if (ok && y == -1)
            v = static_cast<int64_t>(0 - static_cast<uint64_t>(x)); // exact: no rounding, wraps like arith
          else if (ok)
            v = x / y + (in.sub == CeilDivS ? ((x % y != 0) && ((x < 0) == (y < 0)))
                                            : -static_cast<int64_t>((x % y != 0) && ((x < 0) != (y < 0))));
          break;
        }
        if (!ok)
          return err("integer division by zero in CTA (" + std::to_string(cta.pid[0]) + ", " +
                     std::to_string(cta.pid[1]) + ", " + std::to_string(cta.pid[2]) +
                     "); is the launch (grid, arguments) the one the kernel expects?");
        out = Value::integer(truncateTo(v, in.bits));
      }
      a.frame[in.result] = out;
      busy(costs.scalarOp);
      return next();
    }
    case Op::Cmp: {
      const Value &l = a.frame[in.args[0]], &r = a.frame[in.args[1]];
      Value out = Value::unknown(Value::originOf(l, r));
      if (l.kind == Value::Int && r.kind == Value::Int) {
        unsigned bits = static_cast<unsigned>(in.imm ? in.imm : 64);
        uint64_t ux = asUnsigned(l.i, bits), uy = asUnsigned(r.i, bits);
        bool v = false;
        switch (in.sub) {
        case 0: v = l.i == r.i; break;
        case 1: v = l.i != r.i; break;
        case 2: v = l.i < r.i; break;
        case 3: v = l.i <= r.i; break;
        case 4: v = l.i > r.i; break;
        case 5: v = l.i >= r.i; break;
        case 6: v = ux < uy; break;
        case 7: v = ux <= uy; break;
        case 8: v = ux > uy; break;
        case 9: v = ux >= uy; break;
        }
        out = Value::integer(v ? 1 : 0);
      }
      a.frame[in.result] = out;
      busy(costs.scalarOp);
      return next();
    }
    case Op::Select: {
      const Value &cond = a.frame[in.args[0]];
      a.frame[in.result] =
          cond.kind != Value::Int ? Value::unknown(Value::originOf(cond)) : a.frame[in.args[cond.i ? 1 : 2]];
      busy(costs.scalarOp);
      return next();
    }
    case Op::Cast: {
      const Value &src = a.frame[in.args[0]];
      Value out = Value::unknown(Value::originOf(src));
      if (src.kind == Value::Int)
        // sub 0: sign-extend from the source width, 1: zero-extend, 2: truncate.
        out = Value::integer(truncateTo(in.sub == 1   ? static_cast<int64_t>(asUnsigned(src.i, static_cast<unsigned>(in.imm)))
                                        : in.sub == 0 ? signExtend(src.i, static_cast<unsigned>(in.imm))
                                                      : src.i,
                                        in.bits));
      a.frame[in.result] = out;
      busy(costs.scalarOp);
      return next();
    }
    case Op::ProgramId:
      a.frame[in.result] = Value::integer(cta.pid[in.sub % 3]);
      busy(costs.scalarOp);
      return next();
    case Op::NumPrograms:
      a.frame[in.result] = Value::integer(launch.grid[in.sub % 3]);
      busy(costs.scalarOp);
      return next();
    case Op::For: {
      int64_t lb = 0, ub = 0, step = 1;
      if (!intOf(a, in.args[0], in, lb) || !intOf(a, in.args[1], in, ub) || !intOf(a, in.args[2], in, step))
        return Step::Error;
      if (step <= 0)
        return err("scf.for with a non-positive step (" + std::to_string(step) + ")");
      busy(costs.scalarOp);
      Ctl loop{Ctl::For, in.block, 0, &in, lb, lb, ub, step, in.sub == 1, in.bits};
      if (!loop.inRange(lb)) {
        std::vector<Value> inits;
        for (size_t i = 3; i < in.args.size(); ++i)
          inits.push_back(a.frame[in.args[i]]);
        setResults(a, in, inits);
        return next();
      }
      const Block &body = program.blocks[in.block];
      a.frame[body.args[0]] = Value::integer(lb);
      for (size_t i = 3; i < in.args.size() && i - 2 < body.args.size(); ++i)
        a.frame[body.args[i - 2]] = a.frame[in.args[i]];
      a.stack.push_back(loop);
      return Step::Continue;
    }
    case Op::If: {
      int64_t cond = 0;
      if (in.sub == 1) // a thread-id condition: Lowering counted the threads that take the then region
        cond = in.imm2 > 0;
      else if (!intOf(a, in.args[0], in, cond))
        return Step::Error;
      busy(costs.scalarOp);
      int32_t block = cond ? in.block : in.block2;
      if (block < 0)
        return next();
      a.stack.push_back(Ctl{Ctl::If, block, 0, &in});
      return Step::Continue;
    }
    case Op::Yield:
      return yield(a, in);
    case Op::Return:
      finishAgent(a);
      return Step::Suspend;
    case Op::WarpSpecialize: {
      const WarpSpecialize &ws = program.warpSpecializes[in.imm];
      for (const WarpSpecialize::Worker &worker : ws.workers) {
        Agent &w = newAgent(cta, worker.name, worker.numWarps, worker.block, a.time, a.info.id);
        w.info.firstWarp = worker.firstWarp;
        w.mainAgent = a.info.id;
        w.frame.assign(program.numSlots, Value{});
        const Block &entry = program.blocks[worker.block];
        for (size_t i = 0; i < entry.args.size() && i < in.args.size(); ++i)
          w.frame[entry.args[i]] = a.frame[in.args[i]];
        w.stack.push_back(Ctl{Ctl::Root, worker.block});
        ++a.liveWorkers;
        emit([&](Listener &l) { l.onAgentStart(w.info, w.time); });
        push(w.time, Event::RunAgent, w.info.id);
      }
      a.stack.push_back(Ctl{Ctl::WsDefault, ws.defaultBlock, 0, &in});
      return Step::Continue;
    }
    case Op::LocalAlloc:
      a.frame[in.result] = Value::mem(static_cast<int32_t>(in.imm), 0);
      return next();
    case Op::MemDescIndex: {
      const Value &src = a.frame[in.args[0]];
      int64_t index = 0;
      if (src.kind == Value::Unknown && src.alloc >= 0)
        return err("memdesc_index of a view made by '" + program.unknownOps[src.alloc] +
                   "', which has no simulator semantics yet");
      if (src.kind != Value::Mem)
        return err("memdesc_index of a value that is not a shared-memory view");
      if (!intOf(a, in.args[1], in, index))
        return Step::Error;
      if (index < 0 || (in.imm2 > 0 && index >= in.imm2))
        return err("memdesc index " + std::to_string(index) + " is out of bounds for a buffer array of " +
                   std::to_string(in.imm2) + " (allocation '" + program.allocs[src.alloc].name + "')");
      a.frame[in.result] = Value::mem(src.alloc, src.i + index * in.imm);
      a.frame[in.result].rank = src.rank;
      busy(costs.scalarOp);
      return next();
    }
    case Op::MemDescView:
      a.frame[in.result] = a.frame[in.args[0]];
      if (in.imm != 0 && a.frame[in.result].kind == Value::Mem)
        a.frame[in.result] = Value::mem(a.frame[in.result].alloc, a.frame[in.result].i + in.imm);
      return next();
    case Op::InitBarrier:
    case Op::InvalBarrier:
    case Op::BarrierExpect:
    case Op::ArriveBarrier: {
      BarrierKey key{};
      bool pred = true;
      if (!barrierOf(a, in.args[0], in, key))
        return Step::Error;
      int32_t predSlot = in.op == Op::BarrierExpect || in.op == Op::ArriveBarrier ? in.args[1] : -1;
      if (!predicate(a, predSlot, in, pred))
        return Step::Error;
      busy(costs.mbarOp);
      if (in.op == Op::ArriveBarrier && in.result >= 0)
        a.frame[in.result] = Value::unknown(-1); // amdg.arrive_barrier returns the old state
      if (!pred)
        return next();
      if (in.op == Op::ArriveBarrier && in.sub == 1) {
        // cp.async.mbarrier.arrive: arrives once all of the agent's earlier cp.async
        // complete (PTX ISA 9.1 9.7.9.25.3.3).
        int64_t last = !a.openCopies.ops.empty()  ? a.openCopies.ops.back()
                       : !a.copyGroups.empty()    ? a.copyGroups.back().ops.empty() ? -1 : a.copyGroups.back().ops.back()
                                                  : -1;
        signalAt(std::max(a.time, copiesDone(a)), PendingSignal{last, a.info.id, &ctaOf(key), key, in.imm, in.loc, true});
        return next();
      }
      if (key.cta != cta.id && (in.op == Op::InitBarrier || in.op == Op::InvalBarrier))
        return err("initializes or invalidates an mbarrier of another CTA of the cluster (mbarrier.init / inval take "
                   "only the executing CTA's shared memory)");
      if (in.op == Op::ArriveBarrier && in.imm2 != 0) { // multicast arrive: every CTA of the mask, in rank order
        if ((in.imm2 >> std::min(program.clusterSize(), 62)) != 0 || in.imm2 < 0)
          return err("arrive CTA mask " + std::to_string(in.imm2) + " names CTAs outside " + program.clusterText());
        for (int32_t r = 0; r < program.clusterSize(); ++r)
          if (in.imm2 >> r & 1) {
            Cta *d = peerCta(cta, r, in);
            if (!d)
              return Step::Error;
            BarrierKey dk{d->id, key.alloc, key.index};
            MBarrier &bar = barrier(*d, dk);
            bool completed = false;
            BarrierStatus status = bar.arrive(in.imm, completed);
            barrierEvent(a.time, BarrierAction::Arrive, dk, bar, a.info.id, in.loc, in.imm, status);
            if (completed)
              phaseFlipped(*d, dk, bar, a.time, a.info.id, in.loc);
          }
        return next();
      }
      MBarrier &bar = barrier(ctaOf(key), key);
      bool completed = false;
      BarrierStatus status;
      BarrierAction action;
      switch (in.op) {
      case Op::InitBarrier: status = bar.init(in.imm); action = BarrierAction::Init; break;
      case Op::InvalBarrier: status = bar.inval(); action = BarrierAction::Inval; break;
      case Op::BarrierExpect: status = bar.arriveExpectTx(in.imm, completed); action = BarrierAction::ExpectArrive; break;
      default: status = bar.arrive(in.imm * threadMultiplicity(a), completed); action = BarrierAction::Arrive; break;
      }
      barrierEvent(a.time, action, key, bar, a.info.id, in.loc,
                   in.op == Op::ArriveBarrier ? in.imm * threadMultiplicity(a) : in.imm, status);
      if (completed)
        phaseFlipped(ctaOf(key), key, bar, a.time, a.info.id, in.loc);
      return next();
    }
    case Op::WaitBarrier: {
      BarrierKey key{};
      int64_t parity = 0;
      bool pred = true;
      if (!barrierOf(a, in.args[0], in, key) || !intOf(a, in.args[1], in, parity) ||
          !predicate(a, in.args[2], in, pred))
        return Step::Error;
      if (!pred) {
        busy(costs.scalarOp);
        return next();
      }
      if (key.cta != cta.id)
        return err("waits on an mbarrier of another CTA of the cluster (mbarrier.try_wait takes only the executing "
                   "CTA's shared memory)");
      MBarrier &bar = barrier(cta, key);
      if (bar.initialized() && bar.testWaitParity(parity)) {
        busy(costs.mbarOp);
        barrierEvent(a.time, BarrierAction::WaitPass, key, bar, a.info.id, in.loc, parity,
                     BarrierStatus::Ok);
        return next();
      }
      a.state = Agent::Blocked;
      a.waitKind = BlockedAgent::MBarrier;
      a.waitKey = key;
      a.waitParity = parity;
      a.waitLoc = in.loc;
      barrierEvent(a.time, BarrierAction::WaitBlock, key, bar, a.info.id, in.loc, parity,
                   bar.initialized() ? BarrierStatus::Ok : bar.deadStatus());
      waitersOf(cta, key).push_back(a.info.id);
      return Step::Suspend;
    }
    case Op::TmaLoad: {
      size_t n = static_cast<size_t>(in.imm2);
      BarrierKey key{};
      bool pred = true;
      int64_t mask = -1; // .multicast::cluster CTA mask; -1: the issuer's CTA only
      if (!barrierOf(a, in.args[n + 2], in, key) || !predicate(a, in.args[n + 3], in, pred) ||
          (in.args.size() > n + 4 && !intOf(a, in.args[n + 4], in, mask)))
        return Step::Error;
      for (size_t i = 1; i <= n; ++i)
        if (!intOf(a, in.args[i], in, x))
          return Step::Error;
      busy(costs.tmaIssue);
      if (!pred)
        return next();
      if (mask >= 0 && (mask >> std::min(program.clusterSize(), 62)) != 0)
        return err("multicast CTA mask " + std::to_string(mask) + " names CTAs outside " + program.clusterText());
      // Destinations: the box lands at the same CTA-relative offset in every CTA of the mask and completes its
      // bytes on the barrier at the same offset there (PTX ISA 9.1 9.7.9.25.5.1, .multicast::cluster); a 2-CTA
      // copy (cta_group::2) completes them on the barrier of the destination's pair leader.
      std::vector<Cta *> dests;
      const Value &dstView = a.frame[in.args[n + 1]];
      if (mask < 0) {
        Cta *d = dstView.kind == Value::Mem && dstView.rank >= 0 ? peerCta(cta, dstView.rank, in) : &cta;
        if (!d)
          return Step::Error;
        dests.push_back(d);
      }
      for (int32_t r = 0; mask > 0 && r < program.clusterSize(); ++r)
        if (mask >> r & 1) {
          Cta *d = peerCta(cta, r, in);
          if (!d)
            return Step::Error;
          dests.push_back(d);
        }
      bool hit = l2Lookup(boxKey(a, in), in.imm);
      Cycle done = transfer(sm, a.time, in.imm, hit);
      for (Cta *d : dests) {
        BarrierKey dk = key;
        if (mask >= 0)
          dk.cta = d->id;
        if (in.sub == 1) { // two_cta
          std::vector<Cta *> pair = ctaPair(*d, in);
          if (pair.empty())
            return Step::Error;
          dk.cta = pair[0]->id;
        }
        int64_t op = issueAsync(a);
        if (dk.cta != cta.id) {
          ClusterDeliveryEvent ce{a.time, a.info.id, op, dk, in.imm, in.loc, in.op};
          emit([&](Listener &l) { l.onClusterDelivery(ce); });
        }
        access(a, op, in.args[n + 1], in.viewElems[0], /*write=*/true, /*asyncProxy=*/true, in, d->id);
        signalAt(done, PendingSignal{op, a.info.id, &ctaOf(dk), dk, in.imm, in.loc});
        AsyncEvent e{AsyncEvent::TmaLoad, cta.sm, a.info.id, in.loc, a.time, done, in.imm, 0, hit, op};
        if (d == dests.front())
          emit([&](Listener &l) { l.onAsync(e); });
      }
      return next();
    }
    case Op::TmaStore: {
      busy(costs.tmaIssue);
      Cycle done = transfer(sm, a.time, in.imm, /*l2Hit=*/true, /*writeBack=*/true);
      int64_t op = issueAsync(a);
      access(a, op, in.args.back(), in.viewElems[0], /*write=*/false, /*asyncProxy=*/true, in);
      a.storeGroups.emplace_back(done, op);
      AsyncEvent e{AsyncEvent::TmaStore, cta.sm, a.info.id, in.loc, a.time, done, in.imm, 0, true, op};
      emit([&](Listener &l) { l.onAsync(e); });
      return next();
    }
    case Op::TmaStoreWait:
    case Op::WgmmaWait: {
      auto &groups = in.op == Op::TmaStoreWait ? a.storeGroups : a.wgmmaGroups;
      while (static_cast<int64_t>(groups.size()) > in.imm) {
        auto [done, op] = groups.front();
        a.time = std::max(a.time, done);
        groups.pop_front();
        emit([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
      }
      InstrEvent e{a.info.id, &in, start, a.time, /*operandWait=*/false};
      emit([&](Listener &l) { l.onInstr(e); });
      for (int32_t i = 0; i < in.numResults; ++i) {
        Value v = a.frame[in.args[i]];
        // an accumulator whose wgmma group retired is readable (Value::pendingOp)
        if (v.kind == Value::Tensor && v.pendingOp >= 0 &&
            std::none_of(groups.begin(), groups.end(), [&](const auto &g) { return g.second == v.pendingOp; })) {
          v.pendingOp = -1;
          v.pendingLoc = -1;
        }
        a.frame[in.result + i] = v;
      }
      return next();
    }
    case Op::WgmmaIssue: {
      awaitOperands(a, in);
      busy(costs.wgmmaIssue);
      Cycle begin = std::max(a.time, sm.tensorCoreFree);
      sm.tensorCoreFree = begin + cycles(static_cast<double>(in.imm) / costs.tensorFlopsPerClk);
      tensorBusy += static_cast<double>(sm.tensorCoreFree - begin);
      Cycle done = sm.tensorCoreFree + cycles(costs.wgmmaLatency);
      int64_t op = issueAsync(a);
      access(a, op, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/true, in);
      access(a, op, in.args[1], in.viewElems[1], /*write=*/false, /*asyncProxy=*/true, in);
      a.wgmmaGroups.emplace_back(done, op);
      if (in.result >= 0) { // pending until a wgmma wait retires `op`
        Value d = Value::tensor();
        d.pendingOp = op;
        d.pendingLoc = in.loc;
        a.frame[in.result] = d;
      }
      AsyncEvent e{AsyncEvent::TensorCore, cta.sm, a.info.id, in.loc, begin, sm.tensorCoreFree, in.imm2, in.imm, true, op};
      emit([&](Listener &l) { l.onAsync(e); });
      return next();
    }
    case Op::Tc05Mma: {
      bool pred = true;
      if (!predicate(a, in.args[4], in, pred))
        return Step::Error;
      busy(costs.wgmmaIssue);
      if (!pred)
        return next();
      // cta_group::2 reads and writes the same views in both CTAs of the pair and arrives on the barriers of both
      // (Triton lowers its commit to tcgen05.commit.cta_group::2 .multicast::cluster over the pair).
      std::vector<Cta *> pair = {&cta};
      if (in.sub & 2) {
        pair = ctaPair(cta, in);
        if (pair.empty())
          return Step::Error;
      }
      std::vector<BarrierKey> signals;
      for (int64_t i = 0; i < in.imm2; ++i) {
        BarrierKey key{};
        bool arrive = true;
        if (!barrierOf(a, in.args[5 + i], in, key) || !predicate(a, in.args[5 + in.imm2 + i], in, arrive))
          return Step::Error;
        for (Cta *c : pair)
          if (arrive)
            signals.push_back(in.sub & 2 ? BarrierKey{c->id, key.alloc, key.index} : key);
      }
      // tcgen05 ops share the SM's tensor cores with wgmma and complete in issue order.
      Cycle begin = std::max(a.time, sm.tensorCoreFree);
      sm.tensorCoreFree = begin + cycles(static_cast<double>(in.imm) / costs.tensorFlopsPerClk);
      tensorBusy += static_cast<double>(sm.tensorCoreFree - begin);
      Cycle done = std::max(a.lastTc05Done, sm.tensorCoreFree + cycles(costs.wgmmaLatency));
      int64_t op = issueAsync(a, a.lastTc05Op);
      for (Cta *c : pair) {
        int64_t id = in.sub & 2 ? c->id : -1;
        access(a, op, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/true, in, id);
        access(a, op, in.args[1], in.viewElems[1], /*write=*/false, /*asyncProxy=*/true, in, id);
        access(a, op, in.args[2], in.viewElems[2], /*write=*/true, /*asyncProxy=*/true, in, id);
      }
      a.lastTc05Op = op;
      a.lastTc05Done = done;
      AsyncEvent e{AsyncEvent::TensorCore, cta.sm, a.info.id, in.loc, begin, sm.tensorCoreFree, 0, in.imm, true, op};
      emit([&](Listener &l) { l.onAsync(e); });
      for (const BarrierKey &key : signals)
        signalAt(done, PendingSignal{op, a.info.id, &ctaOf(key), key, 1, in.loc, /*arrive=*/true});
      if (in.sub & 1) { // synchronous: the issuer waits for the MMA
        a.time = std::max(a.time, done);
        emit([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
      }
      return next();
    }
    case Op::Tc05Commit: {
      BarrierKey key{};
      bool pred = true;
      if (!barrierOf(a, in.args[0], in, key) || !predicate(a, in.args[1], in, pred))
        return Step::Error;
      busy(costs.mbarOp);
      if (!pred)
        return next();
      // arrives once all earlier tcgen05 ops of this agent completed (PTX ISA 9.1 9.7.16.12.1); two_ctas: on the
      // barrier of both CTAs of the pair
      std::vector<Cta *> targets = {&ctaOf(key)};
      if (in.sub == 1 && (targets = ctaPair(cta, in)).empty())
        return Step::Error;
      for (Cta *c : targets)
        signalAt(std::max(a.time, a.lastTc05Done),
                 PendingSignal{a.lastTc05Op, a.info.id, c, BarrierKey{c->id, key.alloc, key.index}, 1, in.loc, true});
      return next();
    }
    case Op::LocalStore:
    case Op::LocalLoad: {
      // st.shared / ld.shared / ldmatrix (ds_write / ds_read): the warps issue one instruction
      // per lsu_bytes_per_thread_instr per thread and go on; the bytes cross the SM's shared
      // memory at smem_bytes_per_clk_sm (a FIFO pipe). A load's result is ready after
      // smem_latency_cycles at the earliest (scoreboard); stores drain before a fence.
      checkPendingUses(a, in);
      bool store = in.op == Op::LocalStore;
      if (store)
        awaitOperands(a, in, 0);
      Cycle issued = a.time;
      double perInstr = costs.lsuVectorBytes * program.threadsPerWarp * std::min(4, std::max(1, a.info.numWarps));
      busy(std::ceil(static_cast<double>(in.imm) / perInstr) * costs.scalarOp);
      sm.smemFree = std::max(issued, sm.smemFree) + cycles(static_cast<double>(in.imm) / costs.smemBytesPerClk);
      if (store) {
        a.smemWritesDone = std::max(a.smemWritesDone, sm.smemFree);
        access(a, -1, in.args[1], in.viewElems[0], /*write=*/true, /*asyncProxy=*/false, in);
      } else {
        access(a, -1, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/false, in);
      }
      if (in.result >= 0)
        a.frame[in.result] = Value::tensor(provenance(a, in, 0),
                                           static_cast<int64_t>(std::max(a.time + cycles(costs.smemLatency), sm.smemFree)));
      return next();
    }
    case Op::TensorOp: {
      checkPendingUses(a, in);
      size_t first = in.sub == 3 ? 1 : 0; // a tensor-memory access names its view first (not a register)
      awaitOperands(a, in, first);
      double share = smspShare(a.info.numWarps), work = static_cast<double>(in.imm), cost = 0;
      switch (in.sub) {
      case 0: cost = work / (costs.aluLanes * share); break;
      case 1: cost = work / (costs.sfuOps * share); break;
      case 2: cost = 2 * work / costs.smemBytesPerClk; break; // written to and read back from shared memory
      default: {
        double rate = 0;
        if (!optionalKnob(costs.tmemBytesPerClk, "tmem_bytes_per_clk_sm", in, rate))
          return Step::Error;
        cost = work / (rate * share); // tcgen05.ld/st: each warp moves its own 32 TMEM lanes
      }
      }
      busy(cost);
      if (in.sub == 3)
        access(a, -1, in.args[0], in.viewElems[0], /*write=*/in.imm2 == 1, /*asyncProxy=*/false, in);
      int32_t hash = provenance(a, in, in.args.size() - first, false, first);
      for (int32_t i = 0; i < in.numResults; ++i)
        a.frame[in.result + i] = Value::tensor(hash + i, static_cast<int64_t>(a.time));
      return next();
    }
    case Op::GlobalLoad:
    case Op::GlobalStore:
    case Op::AsyncCopy: {
      bool copy = in.op == Op::AsyncCopy;
      awaitOperands(a, in, copy ? 1 : 0);
      bool write = in.op == Op::GlobalStore;
      size_t firstAddress = copy ? 1 : 0; // a copy's destination view is not an address
      size_t addressArgs = copy ? in.args.size() - 1 : static_cast<size_t>(in.imm2);
      int32_t hash = provenance(a, in, in.args.size());
      // The key is the addresses only (not the op): a store and a later load of the same
      // tile hit. An atomic goes to L2 and returns its old value.
      uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(provenance(a, in, addressArgs, true, firstAddress))) << 1) | 1;
      bool hit = write || in.sub == 1 || l2Lookup(key, in.imm);
      // Issue: one warp instruction moves up to lsu_bytes_per_thread_instr per thread; each of
      // the partition's SMSPs issues one per scalar_op_cycles. The LSU pipe then moves the bytes.
      double perInstr = costs.lsuVectorBytes * program.threadsPerWarp * std::min(4, std::max(1, a.info.numWarps));
      busy(std::ceil(static_cast<double>(in.imm) / perInstr) * costs.scalarOp);
      Cycle done = lsuTransfer(sm, a.time, in.imm, hit, write || in.sub == 1);
      AsyncEvent::Unit unit = write ? AsyncEvent::LsuStore : AsyncEvent::LsuLoad;
      AsyncEvent e{unit, cta.sm, a.info.id, in.loc, start, done, in.imm, 0, hit};
      emit([&](Listener &l) { l.onAsync(e); });
      if (copy) {
        int64_t op = issueAsync(a);
        // Reported as an async-proxy write made visible by the wait on its group: Triton 3.6's
        // own cp.async -> wgmma pipelines put no fence.proxy.async between the two.
        access(a, op, in.args[0], in.viewElems[0], /*write=*/true, /*asyncProxy=*/true, in);
        a.openCopies.done = std::max(a.openCopies.done, done);
        a.openCopies.ops.push_back(op);
        a.openCopies.instrs.push_back(std::max<int64_t>(1, in.imm2));
        a.openCopies.opDone.push_back(done);
        if (in.result >= 0)
          a.frame[in.result] = Value::tensor();
      } else if (in.result >= 0) {
        a.frame[in.result] = Value::tensor(hash, static_cast<int64_t>(done));
      }
      return next();
    }
    case Op::AsyncCommit:
      busy(costs.scalarOp);
      a.openCopies.done = std::max(a.openCopies.done, a.time);
      a.copyGroups.push_back(std::move(a.openCopies));
      a.openCopies = Agent::CopyGroup{};
      if (in.result >= 0)
        a.frame[in.result] = Value::tensor();
      return next();
    case Op::AsyncWait: {
      if (in.sub == 1) { // amdg.async_wait {num_inst}: s_waitcnt vmcnt(num_inst)
        retireCopyInstructions(a, in.imm);
        InstrEvent e{a.info.id, &in, start, a.time, /*operandWait=*/false};
        emit([&](Listener &l) { l.onInstr(e); });
        if (in.result >= 0)
          a.frame[in.result] = Value::tensor();
        return next();
      }
      while (static_cast<int64_t>(a.copyGroups.size()) > in.imm) {
        Agent::CopyGroup &group = a.copyGroups.front();
        a.time = std::max(a.time, group.done);
        for (int64_t op : group.ops)
          emit([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
        a.copyGroups.pop_front();
      }
      InstrEvent e{a.info.id, &in, start, a.time, /*operandWait=*/false};
      emit([&](Listener &l) { l.onInstr(e); });
      if (in.result >= 0)
        a.frame[in.result] = Value::tensor();
      return next();
    }
    case Op::Dot: {
      // mma.sync / v_mfma: the partition's warps issue one instruction per
      // mma_sync_flops_per_instr (each SMSP one per scalar_op_cycles) and go on; the products
      // run on the SM's tensor cores (a FIFO pipe shared by the SM's CTAs) at their share of
      // the SM's rate, and the result is ready when the last one completes (scoreboard). The
      // accumulator operand chains consecutive dots.
      awaitOperands(a, in);
      double flops = static_cast<double>(in.imm), share = smspShare(a.info.numWarps);
      Cycle issueStart = a.time;
      busy(std::ceil(flops / (costs.mmaSyncFlopsPerInstr * std::min(4, std::max(1, a.info.numWarps)))) *
           costs.scalarOp);
      Cycle begin = std::max(issueStart, sm.tensorCoreFree);
      Cycle smBusy = cycles(flops / costs.mmaSyncFlopsPerClk);
      sm.tensorCoreFree = begin + smBusy;
      tensorBusy += static_cast<double>(smBusy);
      Cycle done = std::max(a.time, begin + cycles(flops / (costs.mmaSyncFlopsPerClk * share)));
      AsyncEvent e{AsyncEvent::TensorCore, cta.sm, a.info.id, in.loc, begin, begin + smBusy, 0, in.imm, true};
      emit([&](Listener &l) { l.onAsync(e); });
      a.frame[in.result] = Value::tensor(provenance(a, in, 0), static_cast<int64_t>(done + cycles(costs.wgmmaLatency)));
      return next();
    }
    case Op::CtaBarrier:
      busy(costs.ctaBarrier);
      return next();
    case Op::Sleep: {
      double unit = 0;
      if (!optionalKnob(costs.sleepUnit, "s_sleep_unit_cycles", in, unit))
        return Step::Error;
      busy(static_cast<double>(std::max<int64_t>(in.imm, 1)) * unit);
      return next();
    }
    case Op::ReadBarrierPhase: {
      BarrierKey key{};
      if (!barrierOf(a, in.args[0], in, key))
        return Step::Error;
      busy(costs.mbarOp);
      MBarrier &bar = barrier(ctaOf(key), key);
      a.frame[in.result] = Value::integer(bar.phase() & 1);
      // Reading a newly completed phase (the spin loop of TLX's AMD LDS barriers) acquires it, as a parity wait
      // that passes: the waiter's later accesses are ordered after the arrivals of that phase.
      int64_t &seen = a.phasesRead[std::make_tuple(key.cta, key.alloc, key.index)];
      if (bar.phase() > 0 && bar.phase() != seen) {
        seen = bar.phase();
        barrierEvent(a.time, BarrierAction::WaitPass, key, bar, a.info.id, in.loc, (bar.phase() - 1) & 1,
                     BarrierStatus::Ok);
      }
      return next();
    }
    case Op::While: {
      busy(costs.scalarOp);
      const Block &before = program.blocks[in.block];
      for (size_t i = 0; i < in.args.size() && i < before.args.size(); ++i)
        a.frame[before.args[i]] = a.frame[in.args[i]];
      a.stack.push_back(Ctl{Ctl::While, in.block, 0, &in});
      return Step::Continue;
    }
    case Op::Condition: {
      if (c.kind != Ctl::While || c.block != c.owner->block)
        return err("scf.condition outside the before region of an scf.while");
      int64_t cond = 0;
      if (!intOf(a, in.args[0], in, cond))
        return Step::Error;
      std::vector<Value> values;
      for (size_t i = 1; i < in.args.size(); ++i)
        values.push_back(a.frame[in.args[i]]);
      busy(costs.scalarOp);
      if (!cond) {
        exitRegion(a, values);
        return Step::Continue;
      }
      const Block &after = program.blocks[c.owner->block2];
      for (size_t i = 0; i < values.size() && i < after.args.size(); ++i)
        a.frame[after.args[i]] = values[i];
      c.block = c.owner->block2;
      c.pc = 0;
      return Step::Continue;
    }
    case Op::Tc05Copy: {
      BarrierKey key{};
      bool hasBarrier = in.args[2] >= 0;
      if (hasBarrier && !barrierOf(a, in.args[2], in, key))
        return Step::Error;
      busy(costs.wgmmaIssue);
      // tcgen05.cp reads shared memory at its bandwidth and completes in order with the
      // issuer's other tcgen05 ops (PTX ISA 9.1 9.7.16.9.1).
      Cycle begin = std::max(a.time, sm.tensorCoreFree);
      sm.tensorCoreFree = begin + cycles(static_cast<double>(in.imm) / costs.smemBytesPerClk);
      Cycle done = std::max(a.lastTc05Done, sm.tensorCoreFree + cycles(costs.wgmmaLatency));
      int64_t op = issueAsync(a, a.lastTc05Op);
      access(a, op, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/true, in);
      a.lastTc05Op = op;
      a.lastTc05Done = done;
      if (hasBarrier)
        signalAt(done, PendingSignal{op, a.info.id, &ctaOf(key), key, 1, in.loc, /*arrive=*/true});
      return next();
    }
    case Op::NamedBarrier: {
      int64_t id = 0, count = 0;
      if (!intOf(a, in.args[0], in, id) || !intOf(a, in.args[1], in, count))
        return Step::Error;
      busy(costs.mbarOp);
      bool sync = in.sub == 1;
      int64_t threads = static_cast<int64_t>(a.info.numWarps) * program.threadsPerWarp; // counted per warp
      NamedBarriers::Result r = cta.named.arrive(id, count, threads, a.info.id, sync);
      NamedBarrierEvent e{a.time, cta.id, a.info.id, in.loc, id, count, threads, sync, r.expected, r.arrived,
                          r.generation, r.completed};
      emit([&](Listener &l) { l.onNamedBarrier(e); });
      for (int32_t w : r.released)
        wake(w, a.time);
      if (sync && !r.completed) {
        a.state = Agent::Blocked;
        a.waitKind = BlockedAgent::Named;
        a.waitNamed = id;
        a.waitLoc = in.loc;
        return Step::Suspend;
      }
      return next();
    }
    case Op::ClusterArrive:
    case Op::ClusterWait: {
      busy(costs.mbarOp);
      int64_t index = cta.id / program.clusterSize();
      ClusterBarrier &bar = clusters[index];
      if (in.op == Op::ClusterArrive) {
        bool ok = bar.arrive(a.info.id);
        ClusterBarrierEvent e{ok ? ClusterBarrierEvent::Arrive : ClusterBarrierEvent::DoubleArrive, a.time, index,
                              a.info.id, in.loc, bar.generation()};
        emit([&](Listener &l) { l.onClusterBarrier(e); });
        clusterProgress(index, a.time);
        return next();
      }
      bool arrived = bar.hasArrived(a.info.id);
      if (arrived && bar.waitPasses(a.info.id)) {
        ClusterBarrierEvent e{ClusterBarrierEvent::WaitPass, a.time, index, a.info.id, in.loc, bar.generation()};
        emit([&](Listener &l) { l.onClusterBarrier(e); });
        return next();
      }
      ClusterBarrierEvent e{arrived ? ClusterBarrierEvent::WaitBlock : ClusterBarrierEvent::WaitWithoutArrive, a.time,
                            index, a.info.id, in.loc, bar.generation()};
      emit([&](Listener &l) { l.onClusterBarrier(e); });
      bar.block(a.info.id);
      a.state = Agent::Blocked;
      a.waitKind = BlockedAgent::Cluster;
      a.waitLoc = in.loc;
      return Step::Suspend;
    }
    case Op::ClusterCtaRank:
      a.frame[in.result] = Value::integer(cta.id % program.clusterSize());
      busy(costs.scalarOp);
      return next();
    case Op::MapRemote: {
      Value view = a.frame[in.args[0]];
      if (view.kind != Value::Mem)
        return err("map_to_remote_buffer of a value that is not a shared-memory view");
      if (!intOf(a, in.args[1], in, x))
        return Step::Error;
      if (x < 0 || x >= program.clusterSize())
        return err("cluster CTA rank " + std::to_string(x) + " lies outside " + program.clusterText());
      view.rank = static_cast<int32_t>(x);
      a.frame[in.result] = view;
      busy(costs.scalarOp);
      return next();
    }
    case Op::RemoteStore: {
      // A store into a peer CTA's shared memory: generic (st.shared::cluster), or asynchronous (st.async /
      // cp.async.bulk.shared::cluster) completing its bytes on the barrier at the same offset in the peer
      // (PTX ISA 9.1 9.7.9.12, 9.7.9.25.4.1). The SM-to-SM transfer is costed as a TMA request.
      if (!intOf(a, in.args[2], in, x))
        return Step::Error;
      Cta *peer = peerCta(cta, x, in);
      if (!peer)
        return Step::Error;
      if (a.frame[in.args[1]].kind != Value::Mem)
        return err("the destination of a remote store is not a shared-memory view");
      checkPendingUses(a, in);
      if (in.sub != 2)
        awaitOperands(a, in, 0);
      if (in.sub == 0) {
        double perInstr = costs.lsuVectorBytes * program.threadsPerWarp * std::min(4, std::max(1, a.info.numWarps));
        busy(std::ceil(static_cast<double>(in.imm) / perInstr) * costs.scalarOp);
        access(a, -1, in.args[1], in.viewElems[0], /*write=*/true, /*asyncProxy=*/false, in, peer->id);
        return next();
      }
      BarrierKey key{};
      if (in.args[3] < 0)
        return err("an asynchronous remote store needs a barrier");
      if (!barrierOf(a, in.args[3], in, key))
        return Step::Error;
      key.cta = peer->id;
      busy(costs.tmaIssue);
      Cycle done = a.time + cycles(costs.tmaLatency) + cycles(static_cast<double>(in.imm) / costs.tmaRequestBytesPerClk);
      int64_t op = issueAsync(a);
      ClusterDeliveryEvent ce{a.time, a.info.id, op, key, in.imm, in.loc, in.op};
      emit([&](Listener &l) { l.onClusterDelivery(ce); });
      if (in.sub == 2)
        access(a, op, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/true, in);
      access(a, op, in.args[1], in.viewElems[0], /*write=*/true, /*asyncProxy=*/true, in, peer->id);
      signalAt(done, PendingSignal{op, a.info.id, peer, key, in.imm, in.loc});
      return next();
    }
    case Op::FenceAsync:
      a.time = std::max(a.time, a.smemWritesDone); // generic-proxy stores complete before the fence
      busy(costs.fence);
      emit([&](Listener &l) { l.onProxyFence(a.info.id, a.time); });
      return next();
    case Op::Unknown:
      if (reportedUnknown.insert(&in).second)
        emit([&](Listener &l) { l.onUnknownOp(program.unknownOps[in.imm], in.loc); });
      for (int32_t i = 0; i < in.numResults; ++i)
        a.frame[in.result + i] = Value::unknown(static_cast<int32_t>(in.imm));
      busy(costs.scalarOp);
      return next();
    }
    return err("internal: unhandled instruction");
  }

  /// Runs `a` from event time `now` until it blocks, finishes or must wait for global time.
  bool runAgent(Agent &a, Cycle now) {
    a.time = std::max(a.time, now);
    while (a.state == Agent::Ready) {
      if (a.time > options.maxCycles || ++instructions > options.maxInstructions) {
        error = "the simulation stopped after " + std::to_string(instructions) + " instructions and " +
                std::to_string(a.time) + " cycles (limits " + std::to_string(options.maxInstructions) + ", " +
                std::to_string(options.maxCycles) + "): ";
        error += result.ctasSimulated > 1
                     ? "the launch is too large to simulate whole; pass --max-ctas N to simulate the first N CTAs"
                     : "one CTA alone exceeds it (is a trip count huge?)";
        return false;
      }
      Ctl &c = a.stack.back();
      const Block &block = program.blocks[c.block];
      if (c.pc >= static_cast<int32_t>(block.instrs.size())) {
        // A region without an explicit terminator: worker partitions and the kernel end here.
        finishAgent(a);
        return true;
      }
      const Instr &in = block.instrs[c.pc];
      if (isShared(in.op) && a.time > now) {
        // The op touches state other agents see: it must run in global time order. When no
        // other event comes before `a.time`, the agent's own event would be the next popped:
        // go on without the queue round trip (same order, same result).
        if (!queue.empty() && queue.top().t <= a.time) {
          push(a.time, Event::RunAgent, a.info.id);
          return true;
        }
        now = a.time;
      }
      Step step = exec(a, in, now);
      if (step == Step::Error)
        return false;
      if (step == Step::Suspend)
        return true;
    }
    return true;
  }

  void signalDue(int32_t id, Cycle t) {
    PendingSignal signal = signals_[id];
    freeSignals.push_back(id);
    MBarrier &bar = barrier(*signal.cta, signal.barrier);
    bool completed = false;
    BarrierStatus status = signal.arrive ? bar.arrive(signal.bytes, completed) : bar.completeTx(signal.bytes, completed);
    barrierEvent(t, signal.arrive ? BarrierAction::Arrive : BarrierAction::CompleteTx, signal.barrier, bar, signal.agent,
                 signal.loc, signal.bytes, status, signal.op);
    if (completed)
      phaseFlipped(*signal.cta, signal.barrier, bar, t, signal.agent, signal.loc);
    if (--signal.cta->pendingSignals == 0 && signal.cta->liveAgents == 0)
      finishedCtas.push_back(signal.cta->id);
  }

  /// Frees the agents and barriers of finished CTAs: memory stays bounded by the CTAs
  /// resident at once, whatever the grid.
  void releaseFinishedCtas() {
    for (int64_t id : finishedCtas) {
      for (int32_t agent : ctas[id]->agentIds)
        agents[agent].reset();
      ctas[id].reset();
    }
    finishedCtas.clear();
  }

  llvm::Expected<SimResult> run() {
    result.sharedBytesPerCta = (options.sharedBytesPerCta >= 0 ? options.sharedBytesPerCta : program.sharedBytes()) +
                               options.staticSharedBytesPerCta;
    result.registersPerThread = options.registersPerThread;
    result.ctasPerSm = occupancy.ctasPerSm;
    result.occupancyLimit = occupancy.limit;
    result.numSms = static_cast<int32_t>(costs.numSms);
    ctaGrid = launch.ctaGrid(program);
    totalCtas = ctaGrid[0] * ctaGrid[1] * ctaGrid[2];
    if (options.maxCtas >= 0) // whole clusters: the CTAs of a cluster run together
      totalCtas = std::min(totalCtas, (options.maxCtas + program.clusterSize() - 1) / program.clusterSize() *
                                          program.clusterSize());
    sms.assign(result.numSms, Sm{});
    // Initial wave: CTAs go round-robin over the SMs, up to the occupancy.
    for (int32_t slot = 0; slot < result.ctasPerSm; ++slot)
      for (int32_t s = 0; s < result.numSms; ++s)
        startCta(s, 0);
    while (!queue.empty()) {
      Event e = queue.top();
      queue.pop();
      switch (e.kind) {
      case Event::RunAgent: {
        Agent *a = agents[e.id].get();
        if (a && a->state == Agent::Ready && !runAgent(*a, e.t))
          return llvm::createStringError("%s", error.c_str());
        break;
      }
      case Event::SignalDue:
        signalDue(e.id, e.t);
        break;
      case Event::StartCta:
        updateClock(e.t);
        startCta(e.id, e.t);
        break;
      }
      if (!error.empty())
        return llvm::createStringError("%s", error.c_str());
      releaseFinishedCtas();
    }
    std::vector<BlockedAgent> blocked;
    for (const auto &agent : agents) {
      if (!agent || agent->state == Agent::Done)
        continue;
      bool blockedOn = agent->state == Agent::Blocked;
      bool onBarrier = blockedOn && agent->waitKind == BlockedAgent::MBarrier;
      BlockedAgent b{agent->info.id, blockedOn ? agent->waitLoc : agent->joinLoc, onBarrier, blockedOn ? agent->waitKind : BlockedAgent::Join,
                     agent->waitNamed, agent->waitKey, agent->waitParity, {}};
      for (const Ctl &c : agent->stack)
        if (c.kind == Ctl::For)
          b.iterations.emplace_back(c.owner->loc, (c.iv - c.lb) / c.step);
      blocked.push_back(std::move(b));
    }
    if (!blocked.empty()) {
      result.stalled = true;
      Cycle t = 0;
      for (const auto &agent : agents)
        if (agent)
          t = std::max(t, agent->time);
      emit([&](Listener &l) { l.onStall(t, blocked); });
    }
    // Write-backs of stores count toward the kernel's time: HBM drains them before the kernel
    // is done. Measured on the H200 (traces/h200/tma_scale.json): the TMA scale kernel's time
    // grows with read + written bytes even where everything it writes fits in L2 (4096^2:
    // 18.4 us for 32 MB in + 32 MB out), so L2 does not hide the write-back.
    if (!result.stalled)
      endCycle = std::max(endCycle, hbmFree);
    result.cycles = endCycle;
    // Power-limited clock: the SM clock falls linearly from its maximum (idle tensor
    // cores) to its full-load value as tensor-core utilization rises.
    double utilization = endCycle ? std::min(1.0, tensorBusy / (static_cast<double>(endCycle) * costs.numSms)) : 0;
    result.clockMhz = sustainedClockMhz(costs, utilization);
    // A fixed per-launch cost on top of the simulated cycles (grid launch and drain as the
    // device measures a kernel's duration), converted at the run's clock.
    result.cycles += static_cast<Cycle>(std::ceil(costs.kernelOverheadNs * 1e-3 * result.clockMhz));
    emit([&](Listener &l) { l.onFinish(endCycle); });
    return result;
  }
};

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

llvm::ArrayRef<llvm::StringRef> Engine::requiredParams() {
  static const std::vector<llvm::StringRef> names = [] {
    std::vector<llvm::StringRef> out;
    for (const Knob &knob : kKnobs)
      if (!knob.optional)
        out.push_back(knob.name);
    for (llvm::StringRef name : occupancyParams())
      if (!llvm::is_contained(out, name))
        out.push_back(name);
    return out;
  }();
  return names;
}

llvm::Expected<std::unique_ptr<Engine>> Engine::create(const Program &program, const GpuModel &model,
                                                       const Launch &launch, SimOptions options) {
  auto costs = readCosts(model);
  if (!costs)
    return costs.takeError();
  if (options.maxCtas == 0 || options.maxCtas < -1)
    return llvm::createStringError("--max-ctas must be a positive number of CTAs, got %lld",
                                   static_cast<long long>(options.maxCtas));
  if (int64_t ctas = options.maxCtas > 0 ? std::min(launch.numCtas(), options.maxCtas) : launch.numCtas();
      ctas > options.maxSimulatedCtas)
    return llvm::createStringError(
        "the launch has %lld CTAs, more than the %lld the simulator holds at once; pass --max-ctas N to simulate "
        "the first N CTAs",
        static_cast<long long>(ctas), static_cast<long long>(options.maxSimulatedCtas));
  auto occupancy =
      computeOccupancy(occupancyInputs(program, options.sharedBytesPerCta, options.registersPerThread,
                                       options.staticSharedBytesPerCta),
                       model);
  if (!occupancy)
    return occupancy.takeError();
  auto frame = launch.bind(program);
  if (!frame)
    return frame.takeError();
  if (auto err = launch.checkClusters(program))
    return err;
  auto impl = std::make_unique<Impl>(program, *costs, launch, options, std::move(*frame));
  impl->occupancy = *occupancy;
  for (const Alloc &alloc : program.allocs) {
    int64_t slots = 1;
    for (int64_t d : alloc.shape)
      slots *= d;
    bool flat = alloc.isBarrier && !alloc.inTensorMemory && slots > 0 && slots <= 4096;
    impl->barrierBase.push_back(flat ? impl->barrierSlots : -1);
    impl->barrierCount.push_back(flat ? slots : 0);
    if (flat)
      impl->barrierSlots += slots;
  }
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

void Engine::addListener(Listener *listener) { impl_->listeners.push_back(listener); }

llvm::Expected<SimResult> Engine::run() { return impl_->run(); }

} // namespace tlxsim::sim
