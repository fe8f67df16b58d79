// The engine's shared state: agents, CTAs, SMs, pending signals, the event queue, and Engine::Impl with the
// helpers op semantics use. Internal to sim/ (Engine.cpp, units/, ops/); nothing outside sim/ includes it.
#pragma once

#include "sim/ClusterBarrier.h"
#include "sim/Engine.h"
#include "sim/EventQueue.h"
#include "sim/MBarrier.h"
#include "sim/NamedBarrier.h"
#include "sim/Occupancy.h"
#include "sim/units/Clock.h"
#include "sim/units/Costs.h"
#include "sim/units/L2Hbm.h"
#include "sim/units/Pipe.h"
#include "sim/units/SharingPipe.h"
#include "sim/units/TensorPipe.h"

#include <chrono>
#include <array>
#include <bit>
#include <deque>
#include <optional>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

namespace tlxsim::sim {

namespace engine {

/// `value` (of width `bits`) sign-extended to 64 bits.
inline int64_t signExtend(int64_t value, unsigned bits) {
  if (bits >= 64)
    return value;
  uint64_t v = static_cast<uint64_t>(value) & ((uint64_t(1) << bits) - 1);
  uint64_t sign = uint64_t(1) << (bits - 1);
  return static_cast<int64_t>((v ^ sign) - sign);
}

/// A `bits`-wide result as stored in a slot: i1 as 0/1, wider integers sign-extended.
inline int64_t truncateTo(int64_t value, unsigned bits) {
  if (bits == 1)
    return value & 1;
  return signExtend(value, bits);
}

/// `value` as an unsigned `bits`-wide integer.
inline uint64_t asUnsigned(int64_t value, unsigned bits) {
  return bits >= 64 ? static_cast<uint64_t>(value) : static_cast<uint64_t>(value) & ((uint64_t(1) << bits) - 1);
}

/// One level of an agent's control stack: the region it runs and, for loops, the induction variable.
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

/// One partition of one CTA (the default partition or a warp_specialize worker), run as one agent.
struct Agent {
  AgentInfo info;
  Cta *cta = nullptr;
  std::vector<Value> frame;
  std::vector<Ctl> stack;
  Cycle time = 0;
  enum State : uint8_t { Ready, Blocked, Joining, Done } state = Ready;
  std::deque<std::pair<Cycle, int64_t>> wgmmaGroups, storeGroups; ///< (completion, async op id), oldest first
  /// Per entry of `wgmmaGroups`: the cycle its work leaves the SM's tensor pipe, or kNoDrain where no drain is
  /// charged (ops/Wgmma.cpp drainedRetire).
  std::deque<Cycle> wgmmaPipeEnds;
  static constexpr Cycle kNoDrain = ~Cycle{0};
  /// The pipe end of `wgmmaGroups[i]`, or nullptr when it has none. The two deques are pushed together at issue and
  /// a wgmma wait pops the ends of the groups it retired (ops/Wgmma.cpp), so they pair from the back.
  Cycle *wgmmaPipeEndOf(size_t i) {
    if (i >= wgmmaGroups.size())
      return nullptr;
    size_t back = wgmmaGroups.size() - 1 - i;
    return back < wgmmaPipeEnds.size() ? &wgmmaPipeEnds[wgmmaPipeEnds.size() - 1 - back] : nullptr;
  }
  /// A warp_group_dot_wait deferred to its group's pipe end (ops/Wgmma.cpp): when the wait began.
  std::optional<Cycle> wgmmaWaitStart;
  /// The SFU job of the agent's latest exp2-class op whose MUFU instructions may still be issuing (-1: none), and
  /// that op (ops/Register.cpp awaitMufuIssue).
  int32_t mufuJob = -1;
  const Instr *mufuInstr = nullptr;
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
  Cycle joinReached = 0;  ///< when it reached that join (its wait there is AgentWork::joinWait)
  /// amdg.read_barrier_phase: the last phase this agent read of each barrier (cta, alloc, index)
  std::map<std::tuple<int64_t, int32_t, int64_t>, int64_t> phasesRead;
  int64_t lastTc05Op = -1; ///< the agent's latest tcgen05 op (they complete in issue order)
  uint64_t tmaCopies = 0;  ///< TMA copies issued so far: keys each copy's queueing delay (units/TmaEngine.h)
  /// AMD: frame slot of a vector-memory load's result (`amdg.buffer_load`, `tt.load`) not yet waited for -> the newest
  /// direct-to-LDS copy (async op id) the agent had issued before the load. vmcnt counts the wave's vector-memory
  /// loads in issue order, so the wait for that result retires the copy and every earlier one (awaitOperands).
  std::map<int32_t, int64_t> vmemAfter;
  /// AMD: the agent's LDS reads (`local_load`: ds_read) that lgkmcnt has not retired, oldest first: (async op id,
  /// ds_read instructions per thread). LGKM_CNT counts them until their data returns, in issue order (CDNA3 ISA 4.4
  /// "Data Dependency Resolution"); until then another wave may overwrite what they read (ops/Amd.cpp).
  std::deque<std::pair<int64_t, int64_t>> ldsReads;
  /// AMD: frame slot of an LDS read's result (or of a value a yield passed it to) -> the read's async op id: the
  /// first use of the value retires it (the `s_waitcnt lgkmcnt` LLVM's SIInsertWaitcnts puts before the use).
  std::map<int32_t, int64_t> ldsSlots;
  Cycle smemWritesDone = 0; ///< when the agent's register -> shared stores have drained
  AgentWork work;           ///< its InstrEvent spans summed by op (Listener::onAgentWork)
  Cycle lastTc05Done = 0;
  // while blocked on a barrier
  int32_t waitLoc = -1;
  BlockedAgent::Kind waitKind = BlockedAgent::MBarrier;
  int64_t waitNamed = -1; ///< the named-barrier id it waits on
  BarrierKey waitKey{};
  int64_t waitParity = 0;
  Cycle waitSince = 0; ///< when it blocked on the mbarrier
};

/// One running CTA: its ids, its agents, its mbarriers and named barriers.
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
  /// CLC responses in this CTA's shared memory, by (allocation, element offset): the canceled cluster's first
  /// linear CTA id, -1 for a failed request (ops/Clc.cpp)
  std::map<std::pair<int32_t, int64_t>, int64_t> clcResponses;
};

/// One SM's hardware units (units/): the tensor pipe, the TMA engine, the LSU and the shared-memory pipe.
struct Sm {
  TensorPipe tensor;
  Pipe tma, lsu, smem;
  /// The SM's special-function units (`sfu_ops_per_clk_sm`): MUFU work runs here while the warps go on issuing;
  /// the partitions' requests in flight share them (units/SharingPipe.h).
  SharingPipe sfu;
  /// The SM's ALU lanes (`alu_lanes_per_clk_sm`, the 4 SMSPs' issue slots and FP32 lanes together): a warp group's
  /// 4 warps sit on the 4 SMSPs (warp w on SMSP w % 4), so two warp groups' elementwise work shares them.
  Pipe alu;
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

/// The key of a barrier outside the flat slots in a CTA's barrier maps.
inline uint64_t barrierSlot(int32_t alloc, int64_t index) { return (static_cast<uint64_t>(alloc) << 40) ^ static_cast<uint64_t>(index); }

/// The kinds of events of the stream (sim/Events.h), one bit each: one per Listener handler. The engine delivers a
/// kind only to the listeners that override its handler (Impl::emit, Engine::addListener).
enum EventKind : uint32_t {
  EvAgentStart = 1u << 0, EvAgentEnd = 1u << 1, EvInstr = 1u << 2, EvBarrier = 1u << 3, EvAsync = 1u << 4,
  EvAsyncIssue = 1u << 5, EvAsyncRetired = 1u << 6, EvAccess = 1u << 7, EvProxyFence = 1u << 8, EvJoin = 1u << 9,
  EvNamedBarrier = 1u << 10, EvClusterBarrier = 1u << 11, EvPendingUse = 1u << 12, EvClusterDelivery = 1u << 13,
  EvUnknownOp = 1u << 14, EvStall = 1u << 15, EvFinish = 1u << 16, EvAgentWork = 1u << 17,
};
/// The number of EventKind bits.
constexpr int kEventKinds = 18;

/// Per op: whether it touches state other agents see (Impl::isShared; ops/Exec.cpp).
extern const std::array<bool, kNumOps> kSharedOps;

/// What executing one instruction did to its agent: go on, stop running it (blocked, joined or done), or fail
/// (Impl::error holds the message).
enum class Step { Continue, Suspend, Error };

} // namespace engine

/// The engine's state and the helpers shared by the event loop (Engine.cpp), the hardware units (units/) and the
/// op semantics (ops/; one `exec<Family>` per op family, dispatched by exec() in ops/Exec.cpp).
struct Engine::Impl {
  using Agent = engine::Agent;
  using Cta = engine::Cta;
  using Ctl = engine::Ctl;
  using Sm = engine::Sm;
  using Step = engine::Step;
  using Event = engine::Event;
  using PendingSignal = engine::PendingSignal;

  const Program &program;
  const Launch &launch;
  SimOptions options;
  engine::Costs costs;
  std::vector<Value> initialFrame;
  std::vector<Listener *> listeners;
  std::array<std::vector<Listener *>, engine::kEventKinds> listenersOf; ///< per EventKind bit: the listeners handling it
  SimResult result;

  engine::EventQueue queue; ///< sim/EventQueue.h: (time, push order)
  uint64_t seq = 0;
  std::vector<std::unique_ptr<Agent>> agents;
  std::vector<std::unique_ptr<Cta>> ctas;
  std::vector<Sm> sms;
  std::vector<PendingSignal> signals_; ///< pending asynchronous barrier signals (reused slots)
  std::vector<int32_t> freeSignals;
  int64_t nextCta = 0, totalCtas = 0; ///< next CTA id to start; CTAs that start (the grid, or --max-ctas)
  int64_t cancelableCtas = 0;         ///< CTA ids below this can be canceled by CLC (SimOptions::maxCtas)
  std::array<int64_t, 3> ctaGrid{1, 1, 1}; ///< CUDA's gridDim (Launch::ctaGrid)
  engine::MemorySystem memory;             ///< device L2 and HBM (units/L2Hbm.h)
  Cycle endCycle = 0;
  /// The activity that sets the power-limited clock, in cycles of the reference wgmma's power summed over SMs:
  /// tensor-core busy cycles weighted by their operand traffic, plus ALU / SFU work (units/Clock.h)
  double powerCycles = 0;
  uint64_t instructions = 0;
  std::chrono::steady_clock::time_point started; ///< when run() began, for SimOptions::maxSeconds
  int64_t nextAsyncOp = 0;
  std::set<const Instr *> reportedUnknown;
  /// Kernel argument (Program::args index) -> the location of the first scalar load through it whose value the
  /// launch does not give (named by the error on a scalar that needs it); no entry before one.
  std::map<int32_t, int32_t> unknownLoadLoc;
  std::vector<int64_t> finishedCtas; ///< CTAs whose memory is released after the current event
  std::unordered_map<int64_t, ClusterBarrier> clusters; ///< by cluster index
  std::string error;
  bool limitHit = false; ///< `error` is SimOptions::maxInstructions / maxCycles (run() returns a LimitError)
  std::string faultClass, faultMessage; ///< set by fault(): run() returns a KernelFault
  int32_t faultLoc = -1;

  Occupancy occupancy; ///< computed by Engine::create
  std::vector<int64_t> barrierBase, barrierCount; ///< per allocation: first flat barrier slot (-1: none), slots
  int64_t barrierSlots = 0;
  std::vector<Value> scratch; ///< reused by yield()
  bool clustered = false;     ///< the program's clusters have more than one CTA (set by Engine::create)
  bool amd = false;           ///< an AMD target (`hip:`): LDS reads stay in flight until lgkmcnt retires them
  Cycle scalarCycles = 0;     ///< costs.scalarOp rounded up (engine::cycles), once: every scalar op costs it
  /// costs.aluDependentLatency (0 where the model has none): each dependent SASS instruction of a scalar op delays
  /// its result this long after the op issues (Value::readyAt, scalarReady).
  double scalarLatency = 0;

  Impl(const Program &p, engine::Costs c, const Launch &l, SimOptions o, std::vector<Value> frame)
      : program(p), launch(l), options(o), costs(c), initialFrame(std::move(frame)),
        scalarCycles(engine::cycles(c.scalarOp)),
        scalarLatency(std::isfinite(c.aluDependentLatency) && c.aluDependentLatency > 0 ? c.aluDependentLatency : 0) {}

  /// The cycle the result of a scalar op issued at `issue` is written: `steps` dependent instructions of
  /// scalarLatency each, rounded to the nearest cycle (Value::readyAt).
  int64_t scalarReady(Cycle issue, int64_t steps) const {
    return static_cast<int64_t>(issue) + std::llround(scalarLatency * static_cast<double>(steps));
  }

  void push(Cycle t, Event::Kind kind, int32_t id) { queue.push(Event{t, seq++, kind, id}); }
  /// Delivers an event of kind `Kind` (an EventKind bit): `f(listener)` for each listener that handles that kind
  /// (overrides its handler, see Engine::addListener), in the order they were added.
  template <uint32_t Kind, typename F> void emit(F &&f) {
    for (Listener *l : listenersOf[std::countr_zero(Kind)])
      f(*l);
  }
  /// Whether any listener handles events of kind `Kind`: an event nobody reads need not be built.
  template <uint32_t Kind> bool wants() const { return !listenersOf[std::countr_zero(Kind)].empty(); }

  // ---- the event loop and dispatch (Engine.cpp) -------------------------------------------------------------
  llvm::Expected<SimResult> run();
  void startCta(int32_t smIndex, Cycle t);
  Agent &newAgent(Cta &cta, const std::string &name, int32_t warps, int32_t block, Cycle t, int32_t parent = -1);
  void finishAgent(Agent &agent);
  /// Runs `a` from event time `now` until it blocks, finishes or must wait for global time.
  bool runAgent(Agent &a, Cycle now);
  /// Stops the run at a kernel bug (Engine.h KernelFault): finding class `cls`, at `in`'s location.
  Step fault(const Instr &in, const char *cls, const std::string &what);
  /// `error` as run() returns it: a LimitError when `limitHit` (the instruction / cycle limits), a KernelFault after
  /// fault(), else the message.
  llvm::Error stopError() const;
  void signalDue(int32_t id, Cycle t);
  /// Frees the agents and barriers of finished CTAs: memory stays bounded by the CTAs resident at once.
  void releaseFinishedCtas();
  /// Wakes an agent blocked on a named or cluster barrier at `t`.
  void wake(int32_t id, Cycle t);

  // ---- clock and power (units/Clock.cpp) ----------------------------------------------------------------------
  /// The power-limited SM clock at cycle `now` from the tensor-core load so far; HBM's fixed bytes/s become more
  /// bytes per SM cycle as the clock drops.
  void updateClock(Cycle now);
  /// The power-limited SM clock (MHz) after `now` cycles: power-weighted activity per SM-cycle (powerCycles over
  /// now x SMs, at most 1) through units/Clock.h sustainedClockMhz; the maximum clock at cycle 0.
  double clockAt(Cycle now) const;

  // ---- operands, results and access events (ops/Operands.cpp) ------------------------------------------------
  bool fail(const Instr &in, const std::string &what);
  /// fail(), as the Step of an op.
  Step err(const Instr &in, const std::string &what);
  /// The op keeps its agent busy for `cost` cycles (rounded up) and reports it.
  void busy(Agent &a, const Instr &in, double cost) { busyCycles(a, in, engine::cycles(cost)); }
  /// A bar.sync of the partition's warps that the compiler puts in front of an op: fbtriton's before an elected
  /// mbarrier arrive (ArriveBarrierOpConversion), and the barriers of Triton's Membar analysis (Op::MembarSync,
  /// lowering/Membar.cpp: before the expect_tx, TMA copy or arrive that follows a conflicting shared-memory access).
  /// Free in a 1-warp partition (SASS: none there). Costs `cta_barrier_cycles` (tools/bench/consumer_loop_run1.txt:
  /// 25 clk each); a cost only, the checker takes no ordering from it.
  void electedSync(Agent &a, const Instr &in) {
    if (a.info.numWarps > 1)
      busy(a, in, costs.ctaBarrier);
  }
  /// busy() for a whole number of cycles (a cost already rounded, e.g. scalarCycles).
  void busyCycles(Agent &a, const Instr &in, Cycle c) {
    Cycle from = a.time;
    a.time += c;
    span(a, in, from, a.time, /*operandWait=*/false);
  }
  /// Reports that `in` held agent `a` from `start` to `end` (an InstrEvent): added to the agent's AgentWork, and
  /// delivered as an event only where a listener takes every instruction (a timeline, the race checks).
  void span(Agent &a, const Instr &in, Cycle start, Cycle end, bool operandWait) {
    size_t op = static_cast<size_t>(in.op);
    if (operandWait) {
      a.work.operandWait[op] += end - start;
    } else {
      a.work.cycles[op] += end - start;
      ++a.work.spans[op];
    }
    if (wants<engine::EvInstr>()) {
      InstrEvent e{a.info.id, &in, start, end, operandWait};
      emit<engine::EvInstr>([&](Listener &l) { l.onInstr(e); });
    }
  }
  /// The agent goes on with its next instruction.
  static Step next(Agent &a) {
    a.stack.back().pc++;
    return Step::Continue;
  }
  /// The integer in `slot`; fails (naming why) when the slot holds no integer the simulator computed.
  bool intOf(Agent &a, int32_t slot, const Instr &in, int64_t &out) {
    const Value &v = a.frame[slot];
    if (v.kind != Value::Int)
      return notAnInteger(v, in);
    out = v.i;
    return true;
  }
  /// intOf's failure: the error for a scalar operand `v` that is not an integer.
  bool notAnInteger(const Value &v, const Instr &in);
  /// An optional predicate operand: true when absent.
  bool predicate(Agent &a, int32_t slot, const Instr &in, bool &out);
  bool barrierOf(Agent &a, int32_t slot, const Instr &in, BarrierKey &key);
  /// barrierOf's failure (out of line): a barrier operand that is no shared-memory view, or an index outside its
  /// mbarrier array (a KernelFault). Returns false.
  [[gnu::noinline]] bool badBarrierOperand(const Value &v, const Instr &in);
  /// Reports reads of wgmma accumulators whose group is still outstanding (their values carry the op).
  void checkPendingUses(Agent &a, const Instr &in);
  /// The innermost loop iteration of `a`, -1 outside loops.
  static int64_t iteration(const Agent &a);
  /// Announces an async operation of `a` (to complete after `after`, or -1); returns its id.
  int64_t issueAsync(Agent &a, int64_t after = -1);
  /// Reports an access to the shared-memory view in `slot` (`elems` elements), if it is one.
  /// `ctaId` overrides the CTA the view lies in (a multicast or 2-CTA operation's other destinations). An async op
  /// (`op` >= 0) reports all its accesses right after its issueAsync, before another op is issued: the race checker's
  /// collection of dead async entries relies on it (verifier/RaceChecker.h collect).
  void access(Agent &a, int64_t op, int32_t slot, int64_t elems, bool write, bool asyncProxy, const Instr &in,
              int64_t ctaId = -1);
  /// Waits until the tensor operands of `in` (from `first` on) are ready: a register scoreboard for global loads
  /// and register MMAs in flight. The stall is reported as a wait on its operands.
  Cycle awaitOperands(Agent &a, const Instr &in, size_t first = 0, bool streamSfu = false, int32_t *sfuJob = nullptr);
  /// The cycle tensor value `v` of an agent on SM `sm` is ready: its SFU job's latest end if it streams from one.
  Cycle readyAt(int32_t sm, const Value &v) const;
  /// The warp waits until every scalar operand of `in` is written (Value::readyAt), as an operand wait: the
  /// dependent-issue latency of a chain of scalar ops (a producer's stage index and phase). A no-op where the
  /// model has no alu_dependent_latency_cycles.
  void awaitScalars(Agent &a, const Instr &in) {
    Cycle ready = a.time;
    for (uint32_t m = in.scalarArgs; m; m &= m - 1) // the scalars it reads (Instr::scalarArgs)
      if (const Value &v = a.frame[in.args[std::countr_zero(m)]];
          v.readyAt > static_cast<int64_t>(ready) && (v.kind == Value::Int || v.kind == Value::Unknown))
        ready = static_cast<Cycle>(v.readyAt);
    if (ready > a.time) {
      span(a, in, a.time, ready, /*operandWait=*/true);
      a.time = ready;
    }
  }
  /// A hash of the values `in` computes from (its first `count` operands) and, unless `valuesOnly`, of the op
  /// itself: equal in every CTA that computes the same addresses (see Value::alloc).
  int32_t provenance(Agent &a, const Instr &in, size_t count, bool valuesOnly = false, size_t first = 0);
  /// A knob only some ops need; fails naming it when the model lacks it.
  bool optionalKnob(double value, const char *name, const Instr &in, double &out);

  // ---- mbarrier storage and signals (ops/Mbarrier.cpp) -------------------------------------------------------
  /// The CTA holding the barrier `key`.
  Cta &ctaOf(const BarrierKey &key) { return *ctas[key.cta]; }
  /// Index of `key` among the flat barriers of a CTA, or -1.
  int64_t flatIndex(const BarrierKey &key) const;
  MBarrier &barrier(Cta &cta, const BarrierKey &key);
  std::vector<int32_t> &waitersOf(Cta &cta, const BarrierKey &key);
  void barrierEvent(Cycle t, BarrierAction action, const BarrierKey &key, const MBarrier &bar, int32_t agent,
                    int32_t loc, int64_t amount, BarrierStatus status, int64_t asyncOp = -1);
  /// Wakes every waiter whose parity test now passes (the phase flipped at `t`).
  void phaseFlipped(Cta &cta, const BarrierKey &key, MBarrier &bar, Cycle t, int32_t agent, int32_t loc);
  /// Schedules an asynchronous signal on a barrier at cycle `at` (see PendingSignal).
  void signalAt(Cycle at, const PendingSignal &signal);

  // ---- clusters: distributed shared memory (ops/Cluster.cpp) -------------------------------------------------
  Cta *peerCta(const Cta &cta, int64_t rank, const Instr &in);
  int64_t viewCtaId(const Cta &cta, const Value &v) const;
  std::vector<Cta *> ctaPair(const Cta &cta, const Instr &in);
  bool peerExited(const Cta &cta, int64_t rank) const;
  int64_t exitedPeerOf(Agent &a, const Instr &in) const;
  /// Completes the cluster barrier of cluster `index` if every non-exited agent of its CTAs arrived.
  void clusterProgress(int64_t index, Cycle t);

  // ---- control flow (ops/ControlFlow.cpp) ----------------------------------------------------------------------
  void setResults(Agent &a, const Instr &owner, const std::vector<Value> &values);
  /// Leaves the innermost region: its owner's results take `values`, the parent goes on.
  void exitRegion(Agent &a, const std::vector<Value> &values);
  Step yield(Agent &a, const Instr &in);
  int64_t threadMultiplicity(const Agent &a) const;
  int64_t threadsTaking(const Agent &a, const Instr &in) const;
  static bool insideThreadIf(const Agent &a);

  // ---- per-warp agents (ops/WarpAgents.cpp) -----------------------------------------------------------------
  /// Whether the agent of warp w > 0 of a per-warp partition skips `in`: an op Triton issues from one elected thread
  /// of the partition's warp 0 (mbarrier init / inval / expect / arrive, TMA, wgmma, tcgen05, cp.async, CLC, DSMEM),
  /// outside a thread-id `scf.if` (whose condition already chose the warps that run it). Such an op runs once, in
  /// warp 0's agent, as it ran in the partition's single agent.
  bool skipsInWarp(const Agent &a, const Instr &in) const;
  /// Skips `in` in a non-leader warp's agent: its results carry nothing, no time passes.
  Step skipInWarp(Agent &a, const Instr &in);
  /// ttg.barrier / gpu.barrier (bar.sync over the partition's threads) in a per-warp partition: a rendezvous of its
  /// warps' agents (a named barrier of its own, NamedBarriers id partitionBarrierId) that blocks until all arrive.
  Step partitionBarrier(Agent &a, const Instr &in);
  /// `threads` of agent `a` arrive on named barrier `id` of its CTA (bar.sync when `sync`: blocks until `count` threads
  /// arrived), emits the NamedBarrierEvent and wakes the agents the rendezvous releases (ops/NamedBarrier.cpp).
  Step namedBarrierArrive(Agent &a, const Instr &in, int64_t id, int64_t count, int64_t threads, bool sync);
  /// The lag of `a` after an mbarrier wait under SimOptions::warpLagCycles (0 but for warps > 0 of per-warp agents).
  Cycle warpLag(const Agent &a) const { return a.info.warp > 0 ? options.warpLagCycles * a.info.warp : 0; }

  // ---- AMD LDS reads in flight (ops/Amd.cpp) ------------------------------------------------------------------
  /// A `local_load` of `a` became the LDS read `op` (an async op whose access lasts until lgkmcnt retires it).
  void issueLdsRead(Agent &a, const Instr &in, int64_t op);
  /// `s_waitcnt lgkmcnt(keep)`: retires `a`'s oldest LDS reads until at most `keep` of their instructions remain.
  void retireLdsReads(Agent &a, int64_t keep);
  /// The first use of an LDS read's value among `in`'s operands (from `first` on) retires it and every older one.
  void awaitLdsReads(Agent &a, const Instr &in, size_t first);
  /// Values move from slots `from[first + i]` to `to[i]` (a yield, a loop's inits): an LDS read in flight follows
  /// its value; a slot that takes another value forgets it.
  void forwardLdsReads(Agent &a, const std::vector<int32_t> &from, size_t first, const std::vector<int32_t> &to);
  /// The slots a yield's `n` values go to in region `c` (ops/ControlFlow.cpp).
  std::vector<int32_t> yieldTargets(const Ctl &c, size_t n) const;

  // ---- async copies (ops/AsyncCopy.cpp, ops/Amd.cpp) ----------------------------------------------------------
  /// Every cp.async of `a`, committed or not, completes by the returned cycle.
  static Cycle copiesDone(const Agent &a);
  void retireCopyInstructions(Agent &a, int64_t n);
  void retireCopiesThrough(Agent &a, int64_t op);
  static int64_t newestCopy(const Agent &a);
  /// A global-memory access through the LSU (a load, store, atomic or the global side of a cp.async): issue,
  /// the L2 lookup and the LSU/L2/HBM pipes; reports the AsyncEvent and returns the completion cycle, with the
  /// result's provenance hash in `hash` (ops/GlobalMemory.cpp).
  Cycle globalAccess(Agent &a, const Instr &in, Cycle start, int32_t &hash);
  /// The value of a scalar integer load (GlobalLoad with Instr::aux bytes), ready at cycle `done`: the element of the
  /// launch's buffer contents (Launch::ptrValues) its pointer names, else an unknown scalar naming where it comes
  /// from. False (an error) when the pointer leaves the buffer the launch gives.
  bool loadedScalar(Agent &a, const Instr &in, Cycle done, Value &out);
  /// A scalar `tt.addptr` (TensorOp with Instr::aux pointee bytes) on a pointer into an argument's buffer: the
  /// pointer it makes (Value::alloc kept), ready at `ready`; false when the operands are not such a pointer and an
  /// integer offset.
  bool followPointer(const Agent &a, const Instr &in, Cycle ready, Value &out) const;
  /// Retires the oldest `groups` (wgmma or TMA-store bulk groups) until at most `in.imm` are pending (ops/Wgmma.cpp).
  Step waitGroups(Agent &a, const Instr &in, std::deque<std::pair<Cycle, int64_t>> &groups, Cycle start);

  // ---- op semantics, one function per family (ops/) -----------------------------------------------------------
  /// Whether `in` must run in global time order: it touches state other agents see (kSharedOps), or it reserves
  /// the SM's ALU lanes or SFUs (elementwise and SFU register work: Sm::alu is a FIFO pipe and Sm::sfu a shared one,
  /// so a reservation made ahead of time would delay an earlier one).
  static bool isShared(const Instr &in) {
    return engine::kSharedOps[static_cast<size_t>(in.op)] ||
           (in.op == Op::TensorOp && (in.sub == 0 || in.sub == 1) && in.imm > 0);
  }
  /// Executes `in` for `a` at event time `now`: dispatches by op family (ops/Exec.cpp).
  Step exec(Agent &a, const Instr &in, Cycle now);
  /// In a cluster: when `in` reaches into the shared memory of a peer CTA that has exited, reports it, skips the op
  /// and returns true (ops/Exec.cpp).
  [[gnu::noinline]] bool dropForExitedPeer(Agent &a, const Instr &in);
  /// The error for an op no family handles (out of line: exec() stays free of string temporaries).
  [[gnu::noinline]] Step unhandledOp(const Instr &in);
  Step execScalar(Agent &a, const Instr &in, Cycle now);        ///< ops/Scalar.cpp
  Step execControlFlow(Agent &a, const Instr &in, Cycle now);   ///< ops/ControlFlow.cpp
  Step execSharedMemory(Agent &a, const Instr &in, Cycle now);  ///< ops/SharedMemory.cpp
  Step execMbarrier(Agent &a, const Instr &in, Cycle now);      ///< ops/Mbarrier.cpp
  Step execTma(Agent &a, const Instr &in, Cycle now);           ///< ops/Tma.cpp
  Step execWgmma(Agent &a, const Instr &in, Cycle now);         ///< ops/Wgmma.cpp
  /// SimOptions::wgmmaSerialized: runs the in.aux wgmma instructions of a dot (`duration` cycles of pipe work in
  /// all) one at a time, the warp group waiting out each one's retire latency (`wgmma_retire_latency_cycles`, else
  /// `wgmma_latency_cycles`) before issuing the next (busy, tensorQueueBlocked); the dot is complete when it
  /// returns. Returns the first instruction's start on the pipe.
  /// Delays the previous dot of another warp group on `a`'s SM by the instructions of `a`'s dot (`count` of `each`
  /// pipe cycles, issue begun at `issueStart`) that interleave before its last one (ops/Wgmma.cpp).
  void interleaveWgmmas(Agent &a, const engine::TensorPipe::LastDot &prev, Cycle issueStart, int64_t count, Cycle each,
                        Cycle span, Cycle free);
  Cycle serializedWgmmas(Agent &a, const Instr &in, Cycle duration, double weight); ///< ops/Wgmma.cpp
  bool drainedRetire(Agent &a, const Instr &in);                                    ///< ops/Wgmma.cpp
  Step execTcgen05(Agent &a, const Instr &in, Cycle now);       ///< ops/Tcgen05.cpp
  Step execRegister(Agent &a, const Instr &in, Cycle now);      ///< ops/Register.cpp
  /// In-order issue behind the MUFU stream: holds `in` until the agent's MUFU instructions have issued, unless it is
  /// work ptxas interleaves with them (ops/Register.cpp).
  void awaitMufuIssue(Agent &a, const Instr &in);
  Step execGlobalMemory(Agent &a, const Instr &in, Cycle now);  ///< ops/GlobalMemory.cpp
  Step execAsyncCopy(Agent &a, const Instr &in, Cycle now);     ///< ops/AsyncCopy.cpp
  Step execNamedBarrier(Agent &a, const Instr &in, Cycle now);  ///< ops/NamedBarrier.cpp
  Step execCluster(Agent &a, const Instr &in, Cycle now);       ///< ops/Cluster.cpp
  Step execAmd(Agent &a, const Instr &in, Cycle now);           ///< ops/Amd.cpp
  Step execClc(Agent &a, const Instr &in, Cycle now);           ///< ops/Clc.cpp
  /// CLC: cancels the next not-yet-launched cluster (launch order); its first linear CTA id, or -1 (ops/Clc.cpp).
  int64_t cancelNextCluster();
  /// CLC: advances the dispatcher past canceled clusters it has reached (ops/Clc.cpp; called by startCta).
  void skipCanceledClusters();
  std::set<int64_t> canceledClusters; ///< CLC-canceled clusters the dispatcher has not reached (yet, or ever: past --max-ctas)
};

} // namespace tlxsim::sim
