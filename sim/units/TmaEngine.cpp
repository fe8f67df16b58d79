#include "sim/units/TmaEngine.h"

#include "sim/units/Clock.h"

#include <algorithm>
#include <cmath>

namespace tlxsim::sim::engine {

namespace {
/// SplitMix64's finalizer (Steele, Lea, Flood 2014): a well-mixed 64-bit hash of `z`.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
} // namespace

uint64_t tmaCopyKey(int64_t cta, int32_t firstWarp, int32_t warp, uint64_t n) {
  uint64_t agent = static_cast<uint64_t>(cta) << 16 ^ static_cast<uint64_t>(firstWarp) << 8 ^
                   static_cast<uint64_t>(static_cast<uint8_t>(warp));
  return mix(mix(agent + 0x9E3779B97F4A7C15ull) + n * 0x9E3779B97F4A7C15ull);
}

double loadedLatency(const Costs &costs, InFlightBytes &inFlight, Cycle t, int64_t bytes, uint64_t copyKey) {
  double latency = costs.tmaLatency;
  // A closed queue at its service rate: the copies ahead drain at tma_queue_bytes_per_clk, and the fixed latency
  // overlaps that drain (M-H200 tools/bench/tma_latency_dist.cu: 132 SMs x S copies of 32 KB in flight take
  // 870 / 1729 / 2506 / 3136 clk for S = 1 / 2 / 3 / 4, i.e. their bytes over ~5000-5500 B/clk, where one copy
  // alone takes 660).
  if (costs.tmaQueueBytesPerClkNow > 0)
    latency = std::max(latency, static_cast<double>(inFlight.before(t)) / costs.tmaQueueBytesPerClkNow -
                                    static_cast<double>(bytes) / costs.tmaRequestBytesPerClk);
  if (!(costs.tmaQueueWait > 0))
    return latency;
  // An M/M/1 queue's waiting time is exponential around its mean: -mean ln(1 - u), capped at 10 means.
  double u = static_cast<double>(mix(copyKey) >> 11) * 0x1.0p-53; // uniform in [0, 1)
  double wait = costs.tmaQueueWait;
  return latency + std::min(10.0 * wait, -wait * std::log1p(-u));
}

Cycle tmaTransfer(const Costs &costs, Pipe &tma, MemorySystem &memory, Cycle t, int64_t bytes, bool l2Hit,
                  uint64_t copyKey, bool writeBack) {
  Cycle latency = cycles(loadedLatency(costs, memory.inFlight, t, bytes, copyKey));
  // The copy streams at its own rate after the fixed latency, but no sooner than the SM's TMA path (a FIFO shared
  // by the SM's copies) and the device L2 (a FIFO shared by every SM, at its rate in time) have moved it.
  Cycle done = t + latency + cycles(bytes / costs.tmaRequestBytesPerClk);
  tma.reserve(t, cycles(bytes / costs.tmaBytesPerClk));
  memory.l2.reserve(t, cycles(bytes / costs.l2BytesPerClkNow));
  done = std::max({done, tma.free + latency, memory.l2.free + latency});
  if (writeBack) {
    memory.hbm.reserve(t, cycles(bytes / costs.hbmBytesPerClk));
  } else if (!l2Hit) {
    memory.hbm.reserve(t, cycles(bytes / costs.hbmBytesPerClk));
    done = std::max(done, memory.hbm.free + latency + cycles(costs.hbmExtraLatency));
  }
  if (costs.tmaQueueBytesPerClkNow > 0) // only a model with the in-flight term reads the count
    memory.inFlight.add(t, done, bytes);
  return done;
}

} // namespace tlxsim::sim::engine
