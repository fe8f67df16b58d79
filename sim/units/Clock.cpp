#include "sim/units/Clock.h"

#include "sim/EngineState.h"

#include <algorithm>

namespace tlxsim::sim {

double engine::sustainedClockMhz(const Costs &costs, double utilization) {
  double over = std::max(0.0, utilization - costs.clockThrottleOnset) / (1.0 - costs.clockThrottleOnset);
  return costs.clockMaxMhz - (costs.clockMaxMhz - costs.clockFullLoadMhz) * std::min(1.0, over);
}

void Engine::Impl::updateClock(Cycle now) {
  if (now == 0)
    return;
  double utilization = std::min(1.0, tensorBusy / (static_cast<double>(now) * costs.numSms));
  double clock = engine::sustainedClockMhz(costs, utilization);
  costs.hbmBytesPerClk = costs.hbmBytesPerS / (clock * 1e6);
  costs.l2BytesPerClkNow = costs.l2BytesPerClk * costs.clockMaxMhz / clock;
}

} // namespace tlxsim::sim
