#include "sim/units/Lsu.h"

#include "sim/units/Clock.h"

namespace tlxsim::sim::engine {

Cycle lsuTransfer(const Costs &costs, Pipe &lsu, MemorySystem &memory, Cycle t, int64_t bytes, bool l2Hit,
                  bool write) {
  Cycle latency = cycles(costs.globalLoadLatency);
  lsu.reserve(t, cycles(bytes / costs.lsuBytesPerClk));
  memory.l2.reserve(t, cycles(bytes / costs.l2BytesPerClkNow));
  Cycle done = std::max({t + latency, lsu.free + latency, memory.l2.free + latency});
  if (write || !l2Hit) {
    memory.hbm.reserve(t, cycles(bytes / costs.hbmBytesPerClk));
    if (!write)
      done = std::max(done, memory.hbm.free + latency) + cycles(costs.hbmExtraLatency);
  }
  return done;
}

Cycle smemTransfer(const Costs &costs, Pipe &smem, Cycle issued, int64_t bytes) {
  smem.reserve(issued, cycles(static_cast<double>(bytes) / costs.smemBytesPerClk));
  return smem.free;
}

} // namespace tlxsim::sim::engine
