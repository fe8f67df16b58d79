// wgmma (PTX ISA 9.1 9.7.15): warp_group_dot on the tensor pipe, groups retired by warp_group_dot_wait.
#include "sim/EngineState.h"

namespace tlxsim::sim {

using namespace engine;

Step Engine::Impl::waitGroups(Agent &a, const Instr &in, std::deque<std::pair<Cycle, int64_t>> &groups, Cycle start) {
  while (static_cast<int64_t>(groups.size()) > in.imm) {
    auto [done, op] = groups.front();
    a.time = std::max(a.time, done);
    groups.pop_front();
    emit<EvAsyncRetired>([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
  }
  span(a, in, start, a.time, /*operandWait=*/false);
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
  return next(a);
}

Cycle Engine::Impl::serializedWgmmas(Agent &a, const Instr &in, Cycle duration, double weight) {
  Sm &sm = sms[a.cta->sm];
  int64_t count = std::max<int64_t>(in.aux, 1);
  Cycle each = cycles(static_cast<double>(duration) / static_cast<double>(count));
  // a lone wgmma's measured retire latency where the model has it (the overlapped pipeline's latency is fitted)
  Cycle latency = cycles(costs.wgmmaRetireLatency >= 0 ? costs.wgmmaRetireLatency : costs.wgmmaLatency);
  Cycle first = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (i > 0)
      busy(a, in, wgmmaIssueCycles(costs, in.sub));
    Cycle begin = sm.tensor.run(a.time, each, powerCycles, /*math=*/true, weight);
    if (i == 0)
      first = begin;
    Cycle done = sm.tensor.free() + latency;
    a.work.tensorQueueBlocked += done - a.time;
    busyCycles(a, in, done - a.time); // WARPGROUP.DEPBAR after each HGMMA: the warp group is issuing, not in a wait
  }
  return first;
}

/// The drain of a warp_group_dot_wait (PTX ISA 9.1 9.7.15.7 wgmma.wait_group): when the newest group it retires
/// left the SM's tensor pipe empty (no instruction of any warp group queued behind it when its work left the pipe:
/// TensorPipe::drainedAt), the pipe runs empty and the group retires `wgmma_drain_cycles` later than a group that other
/// work follows. Measured on the H200 (tools/bench/wgmma_bench_drain64_run1.txt, wgmma_bench_run1.txt): one warp
/// group alone, issuing a group and waiting for it with wait_group 0, takes 46.2 clk per m64n64k16 in groups of 8
/// (370 clk per group) where the model's issue + N/2 + wgmma_latency_cycles give 318; two warp groups keep the pipe
/// 100 % busy (the drain is hidden behind the other group's work). Whether other work follows is known only at
/// the group's pipe end: a wait reached earlier is deferred to that cycle and resumed in global time order
/// (returns false: the agent is re-queued). Returns true when the wait can retire its groups now.
bool Engine::Impl::drainedRetire(Agent &a, const Instr &in) {
  int64_t retiring = static_cast<int64_t>(a.wgmmaGroups.size()) - in.imm;
  Cycle *end = retiring > 0 ? a.wgmmaPipeEndOf(static_cast<size_t>(retiring - 1)) : nullptr;
  if (std::isnan(costs.wgmmaDrain) || costs.wgmmaDrain <= 0 || !end)
    return true;
  Cycle pipeEnd = *end;
  if (pipeEnd == Agent::kNoDrain) // ptxas serialized the wgmmas: their retire latency is charged at issue
    return true;
  if (a.time < pipeEnd) {
    if (!a.wgmmaWaitStart)
      a.wgmmaWaitStart = a.time;
    a.time = pipeEnd;
    push(a.time, Event::RunAgent, a.info.id);
    return false;
  }
  if (sms[a.cta->sm].tensor.drainedAt(pipeEnd)) { // nothing queued behind it: the pipe drains
    a.wgmmaGroups[retiring - 1].first += cycles(costs.wgmmaDrain);
    *end = Agent::kNoDrain; // charged once
  }
  return true;
}

/// Two warp groups that begin to issue their wgmma groups at about the same time interleave their instructions in
/// the SM's wgmma queue: the group that retires first does so later than alone, the other about when the pipe's
/// work for both is done. Measured on the H100 (tools/bench/wgmma_share_bench.cu, wgmma_share_run1.txt,
/// 2026-12-05): two warp groups released by one bar.sync, each issuing 8 m64n128k16 (512 pipe cycles), retire
/// 968 and 1175 clk after the release (alone 639; first come, first served would be 639 and 1151; evenly shared
/// both ~1151); with the second warp group 64 clk later 714 and 1177, 128 clk later 642 and 1169 (first come, first
/// served). N = 64: 523 / 619 (alone 341), N = 256 (4 instructions): 1044 / 1187 (alone 639). So a fraction
/// `wgmma_interleave_fraction` of the later group's instructions run before the earlier group's last one when both
/// begin to issue together, falling linearly to none at `wgmma_interleave_skew_cycles` apart. The earlier dot (another
/// agent's, the pipe's previous work: `free` is its end plus `span`) ends that many of `a`'s instructions later: its
/// agent's group and pipe end move (a wait reads them in global time order, drainedRetire). `a`'s dot keeps the
/// FIFO end. Models without the knobs: first come, first served.
void Engine::Impl::interleaveWgmmas(Agent &a, const TensorPipe::LastDot &prev, Cycle issueStart, int64_t count,
                                    Cycle each, Cycle span, Cycle free) {
  if (!(costs.wgmmaInterleave > 0) || !(costs.wgmmaInterleaveSkew > 0) || prev.agent < 0 || prev.agent == a.info.id ||
      prev.end <= issueStart || free != prev.end + span || static_cast<size_t>(prev.agent) >= agents.size() ||
      !agents[prev.agent])
    return;
  double skew = static_cast<double>(issueStart - std::min(issueStart, prev.issueStart));
  double share = costs.wgmmaInterleave * std::max(0.0, 1.0 - skew / costs.wgmmaInterleaveSkew);
  Cycle delay = static_cast<Cycle>(std::llround(share * static_cast<double>(count))) * each;
  if (delay == 0)
    return;
  Agent &other = *agents[prev.agent];
  for (size_t i = other.wgmmaGroups.size(); i-- > 0;) {
    if (other.wgmmaGroups[i].second != prev.op)
      continue;
    other.wgmmaGroups[i].first += delay;
    if (Cycle *end = other.wgmmaPipeEndOf(i); end && *end != Agent::kNoDrain)
      *end += delay;
    return;
  }
}

/// WgmmaIssue, WgmmaWait.
Step Engine::Impl::execWgmma(Agent &a, const Instr &in, Cycle now) {
  Cta &cta = *a.cta;
  Sm &sm = sms[cta.sm];
  Cycle start = a.time;
  switch (in.op) {
  case Op::WgmmaIssue: {
    awaitOperands(a, in);
    Cycle issueStart = a.time; // after its operands: when the warp group begins to issue the dot
    Cycle issueEach = wgmmaIssueCycles(costs, in.sub);
    busy(a, in, issueEach); // the first instruction
    Cycle duration = cycles(static_cast<double>(in.imm) / costs.tensorFlopsPerClk);
    double weight = tensorPowerWeight(costs, in.operandBytes, static_cast<double>(in.imm));
    Cycle begin, done;
    if (options.wgmmaSerialized) {
      begin = serializedWgmmas(a, in, duration, weight);
      done = a.time;
    } else {
      int64_t count = std::max<int64_t>(in.aux, 1);
      // The pipe cannot run ahead of the issue: a dot of narrow wgmmas whose issue outlasts their work keeps the
      // pipe for its issue time (its math counted once).
      Cycle each = cycles(static_cast<double>(duration) / static_cast<double>(count));
      Cycle span = std::max(duration, (count - 1) * issueEach + each);
      TensorPipe::LastDot prev = sm.tensor.lastDot;
      begin = sm.tensor.run(a.time, span, powerCycles, /*math=*/true,
                            weight * static_cast<double>(duration) / static_cast<double>(std::max<Cycle>(span, 1)));
      // The rest of the dot's instructions issue one after another, each held while the SM's wgmma queue is full:
      // the warp group is issuing (busy, as Proton sees it), not in a wait.
      Cycle issued = sm.tensor.issueWgmmas(a.time, issueEach, begin, span / count, count, costs.wgmmaQueueDepth);
      if (issued > a.time) {
        Cycle plain = (count - 1) * issueEach;
        if (issued - a.time > plain)
          a.work.tensorQueueBlocked += issued - a.time - plain;
        busyCycles(a, in, issued - a.time);
      }
      done = sm.tensor.free() + cycles(costs.wgmmaLatency);
      interleaveWgmmas(a, prev, issueStart, count, each, span, sm.tensor.free());
    }
    int64_t op = issueAsync(a);
    if (!options.wgmmaSerialized)
      sm.tensor.lastDot = {a.info.id, op, issueStart, sm.tensor.free()};
    access(a, op, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/true, in);
    access(a, op, in.args[1], in.viewElems[1], /*write=*/false, /*asyncProxy=*/true, in);
    a.wgmmaGroups.emplace_back(done, op);
    a.wgmmaPipeEnds.push_back(options.wgmmaSerialized ? Agent::kNoDrain : sm.tensor.free());
    if (in.result >= 0) { // pending until a wgmma wait retires `op`
      Value d = Value::tensor();
      d.pendingOp = op;
      d.pendingLoc = in.loc;
      a.frame[in.result] = d;
    }
    AsyncEvent e{AsyncEvent::TensorCore, cta.sm, a.info.id, in.loc, begin, sm.tensor.free(), in.imm2, in.imm, true, op};
    emit<EvAsync>([&](Listener &l) { l.onAsync(e); });
    return next(a);
  }
  case Op::WgmmaWait: {
    if (!drainedRetire(a, in))
      return Step::Suspend; // deferred to the group's pipe end, resumed in global time order
    if (a.wgmmaWaitStart) {
      start = *a.wgmmaWaitStart;
      a.wgmmaWaitStart.reset();
    }
    Step step = waitGroups(a, in, a.wgmmaGroups, start);
    while (a.wgmmaPipeEnds.size() > a.wgmmaGroups.size())
      a.wgmmaPipeEnds.pop_front();
    return step;
  }
  default:
    break;
  }
  return err(in, "internal: execWgmma reached with another op family's op");
}

} // namespace tlxsim::sim
