#include "verifier/Schedules.h"

#include <cmath>

namespace tlxsim::verifier {

namespace {

/// Knobs of the asynchronous producer side (TMA and the memory system): latencies and throughputs.
const char *const kProducerLatency[] = {"tma_latency_cycles", "tma_queue_wait_cycles", "tma_issue_cycles",
                                        "hbm_extra_latency_cycles"};
const char *const kProducerRate[] = {"tma_bytes_per_clk_sm", "tma_request_bytes_per_clk", "l2_bytes_per_clk",
                                     "hbm_bytes_per_s"};
/// Knobs of the consumer side (tensor cores, synchronization, register and shared-memory work).
const char *const kConsumerLatency[] = {"wgmma_latency_cycles", "wgmma_issue_cycles", "mbarrier_op_cycles",
                                        "mbarrier_wake_cycles", "fence_cycles"};
const char *const kConsumerRate[] = {"tensor_flops_per_clk_sm_fp16", "alu_lanes_per_clk_sm", "sfu_ops_per_clk_sm",
                                     "smem_bytes_per_clk_sm"};

/// SplitMix64 (Steele, Lea, Flood 2014): a portable, seedable stream (std::*_distribution is not portable).
uint64_t splitmix(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Producer side `producer`x faster and consumer side `consumer`x faster (factors < 1 slow it down).
Schedule skewed(std::string name, double producer, double consumer) {
  Schedule s{std::move(name), {}};
  for (const char *k : kProducerLatency)
    s.factors.emplace_back(k, 1 / producer);
  for (const char *k : kProducerRate)
    s.factors.emplace_back(k, producer);
  for (const char *k : kConsumerLatency)
    s.factors.emplace_back(k, 1 / consumer);
  for (const char *k : kConsumerRate)
    s.factors.emplace_back(k, consumer);
  return s;
}

} // namespace

std::vector<Schedule> makeSchedules(int n, uint64_t seed) {
  std::vector<Schedule> out;
  if (n >= 1)
    out.push_back(Schedule{"default", {}});
  if (n >= 2) {
    out.push_back(skewed("producer-fast", 8, 1.0 / 8));
    out.back().warpLagCycles = int64_t(1) << 14;
  }
  if (n >= 3)
    out.push_back(skewed("consumer-fast", 1.0 / 8, 8));
  for (int i = 3; i < n; ++i) {
    uint64_t state = seed * 0x100000001B3ull + static_cast<uint64_t>(i);
    Schedule s{"perturbed-" + std::to_string(i - 2), {}};
    auto factor = [&] { // log-uniform in [1/4, 4]
      double u = static_cast<double>(splitmix(state) >> 11) / static_cast<double>(1ull << 53);
      return std::exp2(4 * u - 2);
    };
    for (const char *k : kProducerLatency)
      s.factors.emplace_back(k, factor());
    for (const char *k : kConsumerLatency)
      s.factors.emplace_back(k, factor());
    for (const char *k : kProducerRate)
      s.factors.emplace_back(k, factor());
    for (const char *k : kConsumerRate)
      s.factors.emplace_back(k, factor());
    uint64_t lagState = state ^ 0x5157A9E1ull; // a second stream: the factors above keep their values
    s.warpLagCycles = int64_t(1) << (8 + splitmix(lagState) % 8);
    out.push_back(std::move(s));
  }
  return out;
}

llvm::Expected<sim::GpuModel> applySchedule(const sim::GpuModel &base, const Schedule &schedule) {
  sim::GpuModel model = base;
  for (const auto &[knob, factor] : schedule.factors) {
    auto it = base.params().find(knob);
    if (it == base.params().end())
      continue;
    char value[64];
    snprintf(value, sizeof(value), "%.17g", it->second.value * factor);
    if (auto err = model.set(knob + "=" + value))
      return std::move(err);
  }
  return model;
}

} // namespace tlxsim::verifier
