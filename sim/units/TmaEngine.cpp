#include "sim/units/TmaEngine.h"

#include "sim/units/Clock.h"

namespace tlxsim::sim::engine {

Cycle tmaTransfer(const Costs &costs, Pipe &tma, MemorySystem &memory, Cycle t, int64_t bytes, bool l2Hit,
                  bool writeBack) {
  Cycle latency = cycles(costs.tmaLatency);
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
  return done;
}

} // namespace tlxsim::sim::engine
