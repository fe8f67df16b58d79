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

/// WgmmaIssue, WgmmaWait.
Step Engine::Impl::execWgmma(Agent &a, const Instr &in, Cycle now) {
  Cta &cta = *a.cta;
  Sm &sm = sms[cta.sm];
  Cycle start = a.time;
  switch (in.op) {
  case Op::WgmmaIssue: {
    awaitOperands(a, in);
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
    }
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
    AsyncEvent e{AsyncEvent::TensorCore, cta.sm, a.info.id, in.loc, begin, sm.tensor.free(), in.imm2, in.imm, true, op};
    emit<EvAsync>([&](Listener &l) { l.onAsync(e); });
    return next(a);
  }
  case Op::WgmmaWait:
    return waitGroups(a, in, a.wgmmaGroups, start);
  default:
    break;
  }
  return err(in, "internal: execWgmma reached with another op family's op");
}

} // namespace tlxsim::sim
