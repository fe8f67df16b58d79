#include "sim/Engine.h"

#include "sim/EngineState.h"

#include <chrono>
#include <cmath>

// The event loop and dispatch: CTAs start on SMs in waves (up to the occupancy, then as CTAs finish), each CTA's
// partitions run as agents, and the event queue orders agent steps, asynchronous barrier signals and CTA starts in
// time. Op semantics live in ops/, hardware units in units/, the shared state in EngineState.h.

namespace tlxsim::sim {

char LimitError::ID = 0;
char KernelFault::ID = 0;

using namespace engine;

void Engine::Impl::startCta(int32_t smIndex, Cycle t) {
  skipCanceledClusters(); // CTAs canceled by a CLC try_cancel never start (ops/Clc.cpp)
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
  // The main function: one agent, or one per wave group of an AMD ping-pong (Program::waveGroups).
  size_t groups = std::max<size_t>(1, program.waveGroups.size());
  int32_t first = static_cast<int32_t>(agents.size());
  for (size_t g = 0; g < groups; ++g) {
    bool split = !program.waveGroups.empty();
    const Program::WaveGroup group = split ? program.waveGroups[g] : Program::WaveGroup{0, program.numWarps};
    std::string name = split ? "default waves " + std::to_string(group.firstWarp) + "-" +
                                   std::to_string(group.firstWarp + group.numWarps - 1)
                             : "default";
    Agent &main = newAgent(*cta, name, group.numWarps, program.entryBlock, t);
    if (split) {
      main.info.warp = group.firstWarp;
      main.info.waveGroupOf = first;
    }
    main.frame = initialFrame;
    main.stack.push_back(Ctl{Ctl::Root, program.entryBlock});
  }
  ctas.push_back(std::move(cta));
  ++result.ctasSimulated;
  for (size_t g = 0; g < groups; ++g) {
    const Agent &main = *agents[first + g];
    emit<EvAgentStart>([&](Listener &l) { l.onAgentStart(main.info, t); });
    push(t, Event::RunAgent, main.info.id);
  }
}

Agent &Engine::Impl::newAgent(Cta &cta, const std::string &name, int32_t warps, int32_t block, Cycle t, int32_t parent) {
  auto agent = std::make_unique<Agent>();
  agent->info = AgentInfo{static_cast<int32_t>(agents.size()), cta.id, cta.sm, name, warps, block, parent};
  agent->cta = &cta;
  agent->time = t;
  agent->work.protonSegment.setCapacity(options.protonSegmentEntries);
  ++cta.liveAgents;
  cta.agentIds.push_back(agent->info.id);
  agents.push_back(std::move(agent));
  return *agents.back();
}

void Engine::Impl::finishAgent(Agent &agent) {
  if (!agent.storeGroups.empty())
    agent.time = std::max(agent.time, agent.storeGroups.back().first);
  agent.state = Agent::Done;
  agent.frame.clear();
  agent.frame.shrink_to_fit();
  emit<EvAgentWork>([&](Listener &l) { l.onAgentWork(agent.info.id, agent.work); });
  emit<EvAgentEnd>([&](Listener &l) { l.onAgentEnd(agent.info.id, agent.time); });
  Cta &cta = *agent.cta;
  if (agent.info.waveGroupOf >= 0) { // AMD: the CTA's s_barrier waits for the surviving waves only
    int64_t id = partitionBarrierId(agent.info.waveGroupOf);
    NamedBarriers::Result r =
        cta.named.retire(id, static_cast<int64_t>(agent.info.numWarps) * program.threadsPerWarp);
    if (r.expected > 0) { // a rendezvous in progress: its count dropped (and it may complete)
      NamedBarrierEvent e{agent.time, cta.id, agent.info.id, -1, id, r.expected, 0, false, r.expected, r.arrived,
                          r.generation, r.completed};
      emit<EvNamedBarrier>([&](Listener &l) { l.onNamedBarrier(e); });
    }
    for (int32_t w : r.released)
      wake(w, agent.time);
  }
  if (!clusters.empty())
    clusterProgress(cta.id / program.clusterSize(), agent.time);
  cta.lastEnd = std::max(cta.lastEnd, agent.time);
  if (agent.mainAgent >= 0) {
    Agent &main = *agents[agent.mainAgent];
    if (--main.liveWorkers == 0 && main.state == Agent::Joining) {
      main.state = Agent::Ready;
      main.time = std::max(main.time, agent.time);
      main.work.joinWait += main.time - main.joinReached;
      emit<EvJoin>([&](Listener &l) { l.onJoin(main.info.id, main.time); });
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

/// Wakes an agent blocked on a named or cluster barrier at `t`.
void Engine::Impl::wake(int32_t id, Cycle t) {
  Agent &w = *agents[id];
  w.state = Agent::Ready;
  w.time = std::max(w.time, t + cycles(costs.mbarWake));
  w.stack.back().pc++;
  push(w.time, Event::RunAgent, id);
}

/// Runs `a` from event time `now` until it blocks, finishes or must wait for global time.
bool Engine::Impl::runAgent(Agent &a, Cycle now) {
  a.time = std::max(a.time, now);
  const Cycle maxCycles = options.maxCycles;          // locals: exec() may write through references, so the
  const uint64_t maxInstructions = options.maxInstructions; // members would be reloaded every instruction
  while (a.state == Agent::Ready) {
    bool late = (instructions & 0xffff) == 0 && options.maxSeconds > 0 &&
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() > options.maxSeconds;
    if (a.time > maxCycles || ++instructions > maxInstructions || late) {
      error = "the simulation stopped after " + std::to_string(instructions) + " instructions and " +
              std::to_string(a.time) + " cycles (limits " + std::to_string(options.maxInstructions) + ", " +
              std::to_string(options.maxCycles) + (late ? ", " + std::to_string(options.maxSeconds) + " s" : "") + "): ";
      limitHit = true;
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
    // before the time-order check: a shared op runs when its operands are written (a scalar load's, Program.h)
    if (scalarLatency > 0 || program.hasScalarLoads)
      awaitScalars(a, in);
    if (a.mufuJob >= 0)
      awaitMufuIssue(a, in);
    if (isShared(in) && a.time > now) {
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

llvm::Error Engine::Impl::stopError() const {
  if (limitHit)
    return llvm::make_error<LimitError>(error);
  if (!faultClass.empty())
    return llvm::make_error<KernelFault>(faultClass, faultLoc, faultMessage,
                                         faultLoc >= 0 ? program.locs[faultLoc].str() : std::string("?"),
                                         result.ctasSimulated);
  return llvm::createStringError("%s", error.c_str());
}

void Engine::Impl::signalDue(int32_t id, Cycle t) {
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
void Engine::Impl::releaseFinishedCtas() {
  for (int64_t id : finishedCtas) {
    for (int32_t agent : ctas[id]->agentIds)
      agents[agent].reset();
    ctas[id].reset();
  }
  finishedCtas.clear();
}

llvm::Expected<SimResult> Engine::Impl::run() {
  started = std::chrono::steady_clock::now();
  result.sharedBytesPerCta = occupancy.sharedBytes;
  result.registersPerThread = occupancy.registersPerThread;
  result.sharedSource = occupancy.sharedSource;
  result.registersSource = occupancy.registersSource;
  result.ctasPerSm = occupancy.ctasPerSm;
  result.occupancyLimit = occupancy.limit;
  result.occupancyWarning = occupancy.warning;
  result.numSms = static_cast<int32_t>(costs.numSms);
  ctaGrid = launch.ctaGrid(program);
  int64_t gridCtas = ctaGrid[0] * ctaGrid[1] * ctaGrid[2];
  totalCtas = gridCtas;
  if (options.maxCtas >= 0) // whole clusters: the CTAs of a cluster run together
    totalCtas = std::min(totalCtas, program.wholeClusters(options.maxCtas));
  cancelableCtas = totalCtas == gridCtas ? gridCtas : std::min(gridCtas, totalCtas * kClcTilesPerCta);
  result.gridCtas = gridCtas;
  result.partialGrid = totalCtas < gridCtas;
  Sm idle;
  idle.sfu = SharingPipe(costs.sfuOps > 0 ? costs.sfuOps : 1);
  sms.assign(result.numSms, idle);
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
        return stopError();
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
      return stopError();
    if (!finishedCtas.empty()) // most events finish no CTA: no call
      releaseFinishedCtas();
  }
  std::vector<BlockedAgent> blocked;
  for (const auto &agent : agents) {
    if (!agent || agent->state == Agent::Done)
      continue;
    emit<EvAgentWork>([&](Listener &l) { l.onAgentWork(agent->info.id, agent->work); });
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
    emit<EvStall>([&](Listener &l) { l.onStall(t, blocked); });
  }
  // Write-backs of stores count toward the kernel's time: HBM drains them before the kernel
  // is done. Measured on the H200 (traces/h200/tma_scale.json): the TMA scale kernel's time
  // grows with read + written bytes even where everything it writes fits in L2 (4096^2:
  // 18.4 us for 32 MB in + 32 MB out), so L2 does not hide the write-back.
  if (!result.stalled)
    endCycle = std::max(endCycle, memory.hbm.free);
  result.cycles = endCycle;
  result.instructions = instructions;
  // Power-limited clock: the SM clock falls linearly from its maximum (idle tensor cores) to its full-load value
  // as the power-weighted activity rises (units/Clock.h).
  result.clockMhz = clockAt(endCycle);
  // A fixed per-launch cost on top of the simulated cycles (grid launch and drain as the
  // device measures a kernel's duration), converted at the run's clock.
  result.cycles += static_cast<Cycle>(std::ceil(costs.kernelOverheadNs * 1e-3 * result.clockMhz));
  emit<EvFinish>([&](Listener &l) { l.onFinish(endCycle); });
  return result;
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

llvm::ArrayRef<llvm::StringRef> Engine::requiredParams() {
  static const std::vector<llvm::StringRef> names = [] {
    std::vector<llvm::StringRef> out = requiredKnobNames();
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
  // The binary's TMA issue path (sim/Binary.h cubinTmaIssue) replaces the IR-only per-copy estimate.
  if (options.tmaLoopInstructionsPerCopy >= 0 && std::isfinite(costs->tmaIssuePerLoopInstruction))
    costs->tmaIssue = options.tmaLoopInstructionsPerCopy * costs->tmaIssuePerLoopInstruction;
  if (options.maxCtas == 0 || options.maxCtas < -1)
    return llvm::createStringError("--max-ctas must be a positive number of CTAs (1 or more)");
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
  impl->clustered = program.clusterSize() > 1;
  impl->amd = program.target.rfind("hip:", 0) == 0;
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

namespace {

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpmf-conversions"
/// Whether `l` overrides the Listener handler `m`: GCC's bound member function extension gives the function a
/// virtual call on `l` reaches ("Extracting the Function Pointer from a Bound Pointer to Member Function").
template <typename... Args> bool overrides(Listener *l, void (Listener::*m)(Args...)) {
  using Fn = void (*)(Listener *, Args...);
  Listener base;
  return reinterpret_cast<Fn>(l->*m) != reinterpret_cast<Fn>(base.*m);
}
#pragma GCC diagnostic pop
#else
/// Without the GCC extension every listener is taken to handle every kind (the same events, only slower).
template <typename... Args> bool overrides(Listener *, void (Listener::*)(Args...)) { return true; }
#endif

/// The event kinds (EventKind bits) whose handler `l` overrides: Listener's defaults do nothing, so the engine
/// need not call them, nor build an event no listener handles.
uint32_t handledKinds(Listener *l) {
  uint32_t kinds = 0;
  auto add = [&](EventKind kind, bool handled) { kinds |= handled ? kind : 0u; };
  add(EvAgentStart, overrides(l, &Listener::onAgentStart));
  add(EvAgentEnd, overrides(l, &Listener::onAgentEnd));
  add(EvInstr, overrides(l, &Listener::onInstr));
  add(EvAgentWork, overrides(l, &Listener::onAgentWork));
  add(EvBarrier, overrides(l, &Listener::onBarrier));
  add(EvAsync, overrides(l, &Listener::onAsync));
  add(EvAsyncIssue, overrides(l, &Listener::onAsyncIssue));
  add(EvAsyncRetired, overrides(l, &Listener::onAsyncRetired));
  add(EvAccess, overrides(l, &Listener::onAccess));
  add(EvProxyFence, overrides(l, &Listener::onProxyFence));
  add(EvJoin, overrides(l, &Listener::onJoin));
  add(EvNamedBarrier, overrides(l, &Listener::onNamedBarrier));
  add(EvClusterBarrier, overrides(l, &Listener::onClusterBarrier));
  add(EvPendingUse, overrides(l, &Listener::onPendingUse));
  add(EvClusterDelivery, overrides(l, &Listener::onClusterDelivery));
  add(EvUnknownOp, overrides(l, &Listener::onUnknownOp));
  add(EvStall, overrides(l, &Listener::onStall));
  add(EvFinish, overrides(l, &Listener::onFinish));
  return kinds;
}

} // namespace

void Engine::addListener(Listener *listener) {
  impl_->listeners.push_back(listener);
  uint32_t kinds = handledKinds(listener);
  for (int kind = 0; kind < kEventKinds; ++kind)
    if (kinds >> kind & 1)
      impl_->listenersOf[kind].push_back(listener);
}

llvm::Expected<SimResult> Engine::run() { return impl_->run(); }

} // namespace tlxsim::sim
