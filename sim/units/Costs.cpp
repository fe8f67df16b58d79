#include "sim/units/Costs.h"

#include "sim/Engine.h"

#include <cmath>

namespace tlxsim::sim::engine {

namespace {

/// One model parameter: its name, where it goes, and what values make sense.
struct Knob {
  llvm::StringLiteral name;
  double Costs::*field;
  enum Rule { Count, Positive, NonNegative } rule; ///< Count: an integer >= 1
  bool optional = false; ///< only the ops that use it require it (e.g. TMEM on Blackwell)
};

constexpr Knob kKnobs[] = {
    {"num_sms", &Costs::numSms, Knob::Count},
    {"clock_max_mhz", &Costs::clockMaxMhz, Knob::Positive},
    {"clock_full_tensor_load_mhz", &Costs::clockFullLoadMhz, Knob::Positive},
    {"clock_throttle_onset_util", &Costs::clockThrottleOnset, Knob::NonNegative},
    {"smem_per_sm_bytes", &Costs::smemPerSm, Knob::Positive},
    {"smem_reserved_per_cta_bytes", &Costs::smemReserved, Knob::NonNegative},
    {"max_warps_per_sm", &Costs::maxWarps, Knob::Count},
    {"max_ctas_per_sm", &Costs::maxCtas, Knob::Count},
    {"regs_per_sm", &Costs::regsPerSm, Knob::Count},
    {"reg_alloc_unit", &Costs::regAllocUnit, Knob::Count},
    {"tensor_flops_per_clk_sm_fp16", &Costs::tensorFlopsPerClk, Knob::Positive},
    {"wgmma_issue_cycles", &Costs::wgmmaIssue, Knob::NonNegative},
    {"wgmma_latency_cycles", &Costs::wgmmaLatency, Knob::NonNegative},
    {"tma_issue_cycles", &Costs::tmaIssue, Knob::NonNegative},
    {"tma_latency_cycles", &Costs::tmaLatency, Knob::NonNegative},
    {"tma_bytes_per_clk_sm", &Costs::tmaBytesPerClk, Knob::Positive},
    {"tma_request_bytes_per_clk", &Costs::tmaRequestBytesPerClk, Knob::Positive},
    {"l2_bytes_per_clk", &Costs::l2BytesPerClk, Knob::Positive},
    {"l2_size_bytes", &Costs::l2Size, Knob::NonNegative},
    {"hbm_bytes_per_s", &Costs::hbmBytesPerS, Knob::Positive},
    {"hbm_extra_latency_cycles", &Costs::hbmExtraLatency, Knob::NonNegative},
    {"mbarrier_op_cycles", &Costs::mbarOp, Knob::NonNegative},
    {"mbarrier_wake_cycles", &Costs::mbarWake, Knob::NonNegative},
    {"scalar_op_cycles", &Costs::scalarOp, Knob::NonNegative},
    {"alu_lanes_per_clk_sm", &Costs::aluLanes, Knob::Positive},
    {"sfu_ops_per_clk_sm", &Costs::sfuOps, Knob::Positive},
    {"smem_bytes_per_clk_sm", &Costs::smemBytesPerClk, Knob::Positive},
    {"cta_launch_cycles", &Costs::ctaLaunch, Knob::NonNegative},
    {"fence_cycles", &Costs::fence, Knob::NonNegative},
    {"global_load_latency_cycles", &Costs::globalLoadLatency, Knob::NonNegative},
    {"lsu_bytes_per_clk_sm", &Costs::lsuBytesPerClk, Knob::Positive},
    {"mma_sync_flops_per_clk_sm_fp16", &Costs::mmaSyncFlopsPerClk, Knob::Positive},
    {"cta_barrier_cycles", &Costs::ctaBarrier, Knob::NonNegative},
    {"lsu_bytes_per_thread_instr", &Costs::lsuVectorBytes, Knob::Positive},
    {"mma_sync_flops_per_instr", &Costs::mmaSyncFlopsPerInstr, Knob::Positive},
    {"smem_latency_cycles", &Costs::smemLatency, Knob::NonNegative},
    {"kernel_overhead_ns", &Costs::kernelOverheadNs, Knob::NonNegative},
    {"tmem_bytes_per_clk_sm", &Costs::tmemBytesPerClk, Knob::Positive, /*optional=*/true},
    {"s_sleep_unit_cycles", &Costs::sleepUnit, Knob::NonNegative, /*optional=*/true},
    {"clc_response_cycles", &Costs::clcResponse, Knob::NonNegative, /*optional=*/true},
    {"wgmma_smem_power_fraction", &Costs::wgmmaSmemPowerFraction, Knob::NonNegative, /*optional=*/true},
    {"wgmma_power_ref_bytes_per_clk", &Costs::wgmmaPowerRefBytesPerClk, Knob::Positive, /*optional=*/true},
    {"alu_power_weight", &Costs::aluPowerWeight, Knob::NonNegative, /*optional=*/true},
    {"wgmma_queue_depth", &Costs::wgmmaQueueDepth, Knob::Count, /*optional=*/true},
    {"wgmma_retire_latency_cycles", &Costs::wgmmaRetireLatency, Knob::NonNegative, /*optional=*/true},
    {"proton_record_cycles", &Costs::protonRecord, Knob::NonNegative, /*optional=*/true},
    {"mbarrier_try_wait_cycles", &Costs::mbarTryWait, Knob::NonNegative, /*optional=*/true},
    {"wgmma_issue_cycles_per_n", &Costs::wgmmaIssuePerN, Knob::NonNegative, /*optional=*/true},
    {"sfu_separate_pipe", &Costs::sfuPipe, Knob::NonNegative, /*optional=*/true},
    {"wgmma_drain_cycles", &Costs::wgmmaDrain, Knob::NonNegative, /*optional=*/true},
    {"tma_queue_bytes_per_clk", &Costs::tmaQueueBytesPerClk, Knob::Positive, /*optional=*/true},
    {"tma_queue_wait_cycles", &Costs::tmaQueueWait, Knob::NonNegative, /*optional=*/true},
    {"alu_dependent_latency_cycles", &Costs::aluDependentLatency, Knob::NonNegative, /*optional=*/true},
    {"shuffle_latency_cycles", &Costs::shuffleLatency, Knob::NonNegative, /*optional=*/true},
    {"wgmma_interleave_fraction", &Costs::wgmmaInterleave, Knob::NonNegative, /*optional=*/true},
    {"wgmma_interleave_skew_cycles", &Costs::wgmmaInterleaveSkew, Knob::Positive, /*optional=*/true},
    {"tma_issue_cycles_per_loop_instruction", &Costs::tmaIssuePerLoopInstruction, Knob::NonNegative,
     /*optional=*/true},
};

} // namespace

std::vector<llvm::StringRef> requiredKnobNames() {
  std::vector<llvm::StringRef> out;
  for (const Knob &knob : kKnobs)
    if (!knob.optional)
      out.push_back(knob.name);
  return out;
}

llvm::Expected<Costs> readCosts(const GpuModel &model) {
  if (auto err = model.require(Engine::requiredParams()))
    return err;
  Costs costs{};
  for (const Knob &knob : kKnobs) {
    if (knob.optional && !model.params().count(knob.name)) {
      costs.*knob.field = std::nan("");
      continue;
    }
    double value = model.get(knob.name);
    bool ok = std::isfinite(value) && value <= 1e18 &&
              (knob.rule == Knob::Count      ? value >= 1 && value == std::floor(value) && value <= 1e6
               : knob.rule == Knob::Positive ? value > 0
                                             : value >= 0);
    if (!ok)
      return llvm::createStringError("model '%s': parameter %s = %g must be %s", model.name().c_str(),
                                     knob.name.data(), value,
                                     knob.rule == Knob::Count      ? "an integer between 1 and 10^6"
                                     : knob.rule == Knob::Positive ? "positive and at most 10^18"
                                                                   : "non-negative and at most 10^18");
    costs.*knob.field = value;
  }
  if (costs.clockThrottleOnset >= 1)
    return llvm::createStringError("model '%s': clock_throttle_onset_util (%g) must be below 1", model.name().c_str(),
                                   costs.clockThrottleOnset);
  if (costs.wgmmaSmemPowerFraction > 1)
    return llvm::createStringError("model '%s': wgmma_smem_power_fraction (%g) must be at most 1", model.name().c_str(),
                                   costs.wgmmaSmemPowerFraction);
  if (costs.clockFullLoadMhz > costs.clockMaxMhz)
    return llvm::createStringError("model '%s': clock_full_tensor_load_mhz (%g) exceeds clock_max_mhz (%g)",
                                   model.name().c_str(), costs.clockFullLoadMhz, costs.clockMaxMhz);
  // Bandwidths in bytes/s convert to bytes per SM cycle at the maximum clock; the engine
  // lowers the clock (raises bytes per cycle) as the tensor-core load becomes known.
  costs.hbmBytesPerClk = costs.hbmBytesPerS / (costs.clockMaxMhz * 1e6);
  costs.l2BytesPerClkNow = costs.l2BytesPerClk;
  costs.tmaQueueBytesPerClkNow = costs.tmaQueueBytesPerClk;
  return costs;
}

} // namespace tlxsim::sim::engine
