// The model parameters the engine reads, as numbers (models/*.json gives units and sources).
// Internal to sim/.
#pragma once

#include "sim/GpuModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace tlxsim::sim::engine {

/// Every cost and capacity the simulator uses, one field per `models/*.json` parameter (kKnobs in Costs.cpp maps
/// parameter names to fields). Cycles are SM cycles; bandwidths are bytes per SM cycle unless named per second.
struct Costs {
  double numSms, clockMaxMhz, clockFullLoadMhz, smemPerSm, smemReserved, maxWarps, maxCtas, tensorFlopsPerClk,
      wgmmaIssue, wgmmaLatency, tmaIssue, tmaLatency, tmaBytesPerClk, l2BytesPerClk, l2Size, hbmBytesPerS,
      hbmExtraLatency, mbarOp, mbarWake, scalarOp, aluLanes, sfuOps, smemBytesPerClk, ctaLaunch, fence, regsPerSm,
      regAllocUnit, tmaRequestBytesPerClk, globalLoadLatency, lsuBytesPerClk, mmaSyncFlopsPerClk, ctaBarrier,
      lsuVectorBytes, mmaSyncFlopsPerInstr, smemLatency, kernelOverheadNs, clockThrottleOnset;
  // Optional knobs (NaN when the model lacks them; an op that needs one fails with its name).
  double tmemBytesPerClk, sleepUnit, clcResponse, wgmmaSmemPowerFraction, wgmmaPowerRefBytesPerClk,
      aluPowerWeight, wgmmaQueueDepth, wgmmaRetireLatency, protonRecord, mbarTryWait, wgmmaIssuePerN, sfuPipe,
      wgmmaDrain, tmaQueueBytesPerClk, tmaQueueWait, aluDependentLatency, shuffleLatency, wgmmaInterleave,
      wgmmaInterleaveSkew, tmaIssuePerLoopInstruction;
  double hbmBytesPerClk = 0; ///< derived: hbmBytesPerS at the current SM clock (units/Clock.cpp lowers it)
  /// derived: l2_bytes_per_clk is bytes per cycle at clock_max_mhz (a rate in time: L2 is not on the SM clock);
  /// this is that rate per cycle of the current SM clock (units/Clock.cpp raises it as the clock falls)
  double l2BytesPerClkNow = 0;
  /// derived: tma_queue_bytes_per_clk (bytes per cycle at clock_max_mhz, a rate in time like l2_bytes_per_clk) per
  /// cycle of the current SM clock; NaN when the model has no loaded-latency queue
  double tmaQueueBytesPerClkNow = 0;
};

/// Reads and checks every knob of `model`: finite, in range, a count where a count is meant. Errors name the
/// model and the parameter (a missing required parameter, a value out of range, an inconsistent clock pair).
llvm::Expected<Costs> readCosts(const GpuModel &model);

/// The names of the parameters every model must give (the optional knobs excluded).
std::vector<llvm::StringRef> requiredKnobNames();

} // namespace tlxsim::sim::engine
