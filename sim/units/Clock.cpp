#include "sim/units/Clock.h"

#include "sim/EngineState.h"

#include <algorithm>

namespace tlxsim::sim {

double engine::sustainedClockMhz(const Costs &costs, double utilization) {
  double over = std::max(0.0, utilization - costs.clockThrottleOnset) / (1.0 - costs.clockThrottleOnset);
  return costs.clockMaxMhz - (costs.clockMaxMhz - costs.clockFullLoadMhz) * std::min(1.0, over);
}

double engine::tensorPowerWeight(const Costs &costs, double operandBytes, double flops) {
  double share = costs.wgmmaSmemPowerFraction;
  if (!(share > 0) || !(flops > 0) || !(costs.wgmmaPowerRefBytesPerClk > 0))
    return 1.0;
  double bytesPerClk = operandBytes / (flops / costs.tensorFlopsPerClk);
  return (1.0 - share) + share * bytesPerClk / costs.wgmmaPowerRefBytesPerClk;
}

double engine::vectorPowerCycles(const Costs &costs, double unitCycles) {
  return costs.aluPowerWeight > 0 ? costs.aluPowerWeight * unitCycles : 0.0;
}

double Engine::Impl::clockAt(Cycle now) const {
  double utilization = now ? std::min(1.0, powerCycles / (static_cast<double>(now) * costs.numSms)) : 0.0;
  return engine::sustainedClockMhz(costs, utilization);
}

void Engine::Impl::updateClock(Cycle now) {
  if (now == 0)
    return;
  double clock = clockAt(now);
  costs.hbmBytesPerClk = costs.hbmBytesPerS / (clock * 1e6);
  costs.l2BytesPerClkNow = costs.l2BytesPerClk * costs.clockMaxMhz / clock;
  costs.tmaQueueBytesPerClkNow = costs.tmaQueueBytesPerClk * costs.clockMaxMhz / clock;
}

} // namespace tlxsim::sim
