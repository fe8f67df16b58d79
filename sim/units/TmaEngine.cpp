#include "sim/units/TmaEngine.h"

#include "sim/units/Clock.h"

#include <algorithm>
#include <cmath>

namespace tlxsim::sim::engine {

double loadedLatency(const Costs &costs, InFlightBytes &inFlight, Cycle t) {
  double wait = costs.tmaQueueWait > 0 ? costs.tmaQueueWait : 0.0;
  if (costs.tmaQueueBytesPerClkNow > 0)
    wait += static_cast<double>(inFlight.before(t)) / costs.tmaQueueBytesPerClkNow;
  if (!(wait > 0))
    return costs.tmaLatency;
  // An M/M/1 queue's waiting time is exponential around its mean: -mean ln(1 - u), capped at 10 means.
  double u = inFlight.nextUniform();
  return costs.tmaLatency + std::min(10.0 * wait, -wait * std::log1p(-u));
}

Cycle tmaTransfer(const Costs &costs, Pipe &tma, MemorySystem &memory, Cycle t, int64_t bytes, bool l2Hit,
                  bool writeBack) {
  Cycle latency = cycles(loadedLatency(costs, memory.inFlight, t));
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
  memory.inFlight.add(t, done, bytes);
  return done;
}

} // namespace tlxsim::sim::engine
