// Schedules for `check --schedules N`: the same launch re-simulated under different latencies, so that a
// timing-dependent bug (a race that needs a slow consumer, a lapping producer) shows up in some run
// (design.md "Verifier": perturbed latencies, producer-fast, consumer-fast). A schedule is a set of
// multiplicative factors on the model's latency and throughput knobs; the simulator stays deterministic
// for each, and the perturbed ones are derived from a seed, so the same N and seed give the same runs.
#pragma once

#include "sim/GpuModel.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tlxsim::verifier {

struct Schedule {
  std::string name; ///< "default", "producer-fast", "consumer-fast", "perturbed-<i>"
  std::vector<std::pair<std::string, double>> factors; ///< model knob -> multiplier
  /// Lagging warps (sim::SimOptions::warpLagCycles): in partitions run as per-warp agents, warp w > 0 resumes w x
  /// this many cycles late from each mbarrier wait, so the leader warp runs ahead; no effect on other partitions.
  int64_t warpLagCycles = 0;
};

/// The first `n` schedules: default, producer-fast (TMA 8x faster, tensor core 8x slower), consumer-fast (the
/// reverse), then seeded perturbations that scale every latency / throughput knob independently by a factor
/// in [1/4, 4] (log-uniform, from a SplitMix64 stream seeded with `seed` and the schedule index). producer-fast
/// (a slow consumer) lags its non-leader warps by 2^14 cycles per warp index; each perturbed schedule by 2^8 - 2^15
/// cycles (log-uniform, from a second stream, so the knob factors stay those of earlier versions).
std::vector<Schedule> makeSchedules(int n, uint64_t seed);

/// `base` with the schedule's factors applied (knobs the model lacks are skipped).
llvm::Expected<sim::GpuModel> applySchedule(const sim::GpuModel &base, const Schedule &schedule);

} // namespace tlxsim::verifier
