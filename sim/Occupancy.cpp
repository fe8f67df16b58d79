#include "sim/Occupancy.h"

#include "sim/ProtonBuffer.h"

#include <algorithm>
#include <cmath>

namespace tlxsim::sim {

llvm::ArrayRef<llvm::StringRef> occupancyParams() {
  static const llvm::StringRef names[] = {"smem_per_sm_bytes", "smem_reserved_per_cta_bytes", "smem_alloc_unit_bytes",
                                          "max_warps_per_sm",  "max_ctas_per_sm",            "regs_per_sm",
                                          "reg_alloc_unit",    "smsp_per_sm"};
  return names;
}

OccupancyInputs occupancyInputs(const Program &program, int64_t sharedBytes, int32_t registersPerThread,
                                int64_t staticSharedBytes) {
  OccupancyInputs in;
  in.sharedBytes = (sharedBytes >= 0 ? sharedBytes : program.sharedBytes()) + staticSharedBytes;
  in.staticSharedBytes = staticSharedBytes;
  if (sharedBytes < 0)
    in.protonSegments = program.protonSegments;
  in.sharedEstimated = sharedBytes < 0 && (program.allocatedSharedBytes < 0 || !program.sharedEstimates.empty());
  if (sharedBytes < 0)
    in.sharedSource = program.allocatedSharedBytes < 0 ? "ir upper bound"
                      : program.sharedEstimates.empty() ? "ir"
                                                        : "ir estimate";
  in.registersPerThread = registersPerThread;
  if (registersPerThread <= 0) {
    in.registersPerThread = program.maxnreg;
    in.registersSource = program.maxnreg <= 0 ? "unknown" : program.maxnregEstimated ? "ir estimate" : "ir";
  }
  in.warps = program.totalWarps();
  in.threadsPerWarp = program.threadsPerWarp;
  int64_t tmemBytes = 0;
  for (const Alloc &alloc : program.allocs)
    if (alloc.inTensorMemory)
      tmemBytes += alloc.bytes;
  if (tmemBytes > 0) {
    int64_t columns = (tmemBytes + 128 * 4 - 1) / (128 * 4); // 128 lanes x 32 bit per column
    int64_t pow2 = 32;
    while (pow2 < columns)
      pow2 *= 2;
    in.tmemColumns = pow2;
  }
  return in;
}

namespace {
double roundUp(double x, double unit) { return unit > 0 ? std::ceil(x / unit) * unit : x; }
} // namespace

double sharedFootprintPerCta(int64_t sharedBytes, const GpuModel &model) {
  return roundUp(static_cast<double>(sharedBytes), model.get("smem_alloc_unit_bytes")) +
         model.get("smem_reserved_per_cta_bytes");
}

llvm::Expected<Occupancy> computeOccupancy(const OccupancyInputs &in, const GpuModel &model) {
  if (auto err = model.require(occupancyParams()))
    return std::move(err);
  if (in.tmemColumns > 0)
    if (auto err = model.require({"tmem_columns"}))
      return llvm::createStringError("the kernel allocates %lld TMEM columns, but %s",
                                     static_cast<long long>(in.tmemColumns), llvm::toString(std::move(err)).c_str());
  Occupancy o;
  o.sharedBytes = in.sharedBytes;
  if (in.protonSegments > 0) {
    auto maxSharedMem = static_cast<int64_t>(model.get("smem_per_sm_bytes") - model.get("smem_reserved_per_cta_bytes"));
    o.sharedBytes = in.staticSharedBytes + protonInstrumentedSharedBytes(in.sharedBytes - in.staticSharedBytes,
                                                                         in.protonSegments, maxSharedMem);
  }
  o.registersPerThread = in.registersPerThread;
  o.sharedSource = in.sharedSource;
  o.registersSource = in.registersSource;
  double warps = std::max(1, in.warps);
  double perCta = sharedFootprintPerCta(o.sharedBytes, model);
  o.bySharedMemory = perCta > 0 ? static_cast<int32_t>(std::min(1e6, model.get("smem_per_sm_bytes") / perCta)) : 1 << 20;
  if (o.bySharedMemory < 1 && in.sharedEstimated) {
    o.bySharedMemory = 1;
    o.warning = "shared memory estimated from the module (" + in.sharedSource + ": " +
                std::to_string(o.sharedBytes) + " bytes, no Triton metadata `shared`) exceeds the SM's " +
                std::to_string(static_cast<long long>(model.get("smem_per_sm_bytes"))) +
                " bytes; assumed 1 CTA per SM (pass --metadata FILE.json for the real size)";
  }
  o.byWarps = static_cast<int32_t>(model.get("max_warps_per_sm") / warps);
  o.bySlots = static_cast<int32_t>(model.get("max_ctas_per_sm"));
  o.byRegisters = o.bySlots;
  if (in.registersPerThread > 0) {
    // cudaOccMaxBlocksPerSMRegsLimit: registers are split among the sub-partitions; a warp
    // takes its registers rounded up to the allocation unit, inside one sub-partition.
    double smsp = model.get("smsp_per_sm");
    double perWarp = roundUp(in.registersPerThread * static_cast<double>(in.threadsPerWarp), model.get("reg_alloc_unit"));
    double warpsPerSmsp = std::floor(model.get("regs_per_sm") / smsp / perWarp);
    o.byRegisters = static_cast<int32_t>(std::floor(warpsPerSmsp * smsp / warps));
  }
  o.byTensorMemory = in.tmemColumns > 0 ? static_cast<int32_t>(model.get("tmem_columns") / in.tmemColumns) : o.bySlots;
  o.ctasPerSm = std::min({o.bySharedMemory, o.byWarps, o.bySlots, o.byRegisters, o.byTensorMemory});
  o.limit = in.registersPerThread > 0 && o.ctasPerSm == o.byRegisters ? "registers"
            : o.ctasPerSm == o.bySharedMemory                          ? "shared memory"
            : o.ctasPerSm == o.byWarps                                 ? "warps"
            : in.tmemColumns > 0 && o.ctasPerSm == o.byTensorMemory    ? "tensor memory"
                                                                       : "CTA slots";
  if (o.ctasPerSm < 1)
    return llvm::createStringError(
        "one CTA does not fit on an SM (limited by %s): it needs %lld bytes of shared memory (+%.0f reserved), %d "
        "warps, %s registers per thread and %lld TMEM columns; the model's SM has %.0f bytes, %.0f warps and %.0f "
        "registers",
        o.limit.c_str(), static_cast<long long>(o.sharedBytes), model.get("smem_reserved_per_cta_bytes"), in.warps,
        in.registersPerThread > 0 ? std::to_string(in.registersPerThread).c_str() : "an unknown number of",
        static_cast<long long>(in.tmemColumns), model.get("smem_per_sm_bytes"), model.get("max_warps_per_sm"),
        model.get("regs_per_sm"));
  return o;
}

} // namespace tlxsim::sim
