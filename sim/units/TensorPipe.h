// The SM's tensor cores: one FIFO pipe shared by wgmma, tcgen05 (MMA and tcgen05.cp), mma.sync and MFMA.
// Internal to sim/.
#pragma once

#include "sim/units/Clock.h"
#include "sim/units/Costs.h"
#include "sim/units/Pipe.h"

#include <algorithm>
#include <cmath>
#include <deque>

namespace tlxsim::sim::engine {

/// The tensor pipe of one SM. `busyCycles` accumulates the cycles of math it ran (the clock model's tensor-core
/// utilization sums them over SMs); tcgen05.cp occupies the pipe without counting as math.
struct TensorPipe {
  Pipe pipe;

  /// Runs `duration` cycles of work from `at` at the earliest; returns its start. `math`: the work counts toward
  /// the tensor-core utilization `busy` (summed over SMs) that lowers the clock (units/Clock.h), each cycle
  /// weighted by its power `weight` (units/Clock.h tensorPowerWeight; 1 for the reference MMA).
  Cycle run(Cycle at, Cycle duration, double &busy, bool math = true, double weight = 1.0) {
    if (at > pipe.free && duration > 0) { // the pipe ran empty from its previous work's end
      idleFrom.push_back(pipe.free);
      if (idleFrom.size() > kIdleHistory)
        idleFrom.pop_front();
    }
    Cycle begin = pipe.reserve(at, duration);
    if (math)
      busy += weight * static_cast<double>(pipe.free - begin);
    return begin;
  }
  /// When the work issued so far is done.
  Cycle free() const { return pipe.free; }

  /// Whether the pipe ran empty at `end`, the end of some work on it: no work queued behind it then (the pipe's
  /// last work so far ends there, or the next work began later). Work issued after `end` is known once the
  /// simulation has reached `end` (ops/Wgmma.cpp drainedRetire asks then).
  bool drainedAt(Cycle end) const {
    return pipe.free <= end || std::find(idleFrom.begin(), idleFrom.end(), end) != idleFrom.end();
  }
  /// The most recent cycles at which the pipe ran empty (a later run began after its previous work's end), oldest
  /// first, at most kIdleHistory of them.
  std::deque<Cycle> idleFrom;
  static constexpr size_t kIdleHistory = 16;

  /// The SM's most recent wgmma dot on this pipe: who issued it (agent id, -1: none), its async op, the cycle its
  /// warp group began to issue it, and the end of its work on the pipe (Engine::Impl::interleaveWgmmas).
  struct LastDot {
    int32_t agent = -1;
    int64_t op = -1;
    Cycle issueStart = 0, end = 0;
  } lastDot;

  /// Completion cycles of the SM's most recent wgmma.mma_async instructions in pipe order, at most
  /// `wgmma_queue_depth` of them (issueWgmmas keeps it).
  std::deque<Cycle> wgmmaDone;

  /// Issues the `count` wgmma.mma_async instructions of one dot whose work runs back to back on this pipe from
  /// `begin`, `each` cycles apiece, the first issued at `firstIssue` and each next one `issueEach` cycles after the
  /// one before. At most `depth` wgmma instructions of the SM may be issued and not yet complete
  /// (`wgmma_queue_depth`): an instruction waits at issue until the one `depth` places ahead of it in the pipe has
  /// completed. Returns the cycle the last instruction issued, when the warp group can go on (until then it is
  /// issuing: busy, as Proton sees it). `depth` NaN or < 1 (no such knob): no bound.
  /// Measured on the H200 (tools/bench/wgmma_bench_issue_run1.txt): a warp group issuing 4 m64n128k16 next to a
  /// second warp group's 4 in flight takes 149 clk, next to 8 in flight 516 (held until the other's complete).
  Cycle issueWgmmas(Cycle firstIssue, Cycle issueEach, Cycle begin, Cycle each, int64_t count, double depth) {
    bool bounded = depth >= 1;
    size_t q = bounded ? static_cast<size_t>(depth) : 0;
    Cycle t = firstIssue;
    for (int64_t j = 0; j < count; ++j) {
      if (j > 0)
        t += issueEach;
      if (!bounded)
        continue;
      if (wgmmaDone.size() >= q)
        t = std::max(t, wgmmaDone[wgmmaDone.size() - q]);
      wgmmaDone.push_back(begin + (j + 1) * each);
      while (wgmmaDone.size() > q)
        wgmmaDone.pop_front();
    }
    return t;
  }
};

/// Cycles a warp group spends issuing one wgmma.mma_async of `n` columns: `wgmma_issue_cycles` +
/// `wgmma_issue_cycles_per_n` x n (the second knob optional; an n of 0, unknown, adds nothing). Measured on the
/// H200 (tools/bench/wgmma_bench_issue_run1.txt, consumer_loop_run1.txt): a group of 4 m64nNk16 takes 84 / 99-117 /
/// 157-187 clk from fence to commit for N = 64 / 128 / 256.
inline Cycle wgmmaIssueCycles(const Costs &costs, int64_t n) {
  double perN = std::isnan(costs.wgmmaIssuePerN) ? 0.0 : costs.wgmmaIssuePerN;
  return cycles(costs.wgmmaIssue + perN * static_cast<double>(std::max<int64_t>(n, 0)));
}

} // namespace tlxsim::sim::engine
