#include "sim/RegisterPolicy.h"

#include "sim/TensorRegisters.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;

namespace tlxsim::sim {

namespace {

constexpr int32_t kMaxRegistersPerThread = 255; // ptxas: registers per thread (PTX ISA 9.1 .maxnreg)

int32_t intAttr(ModuleOp module, StringRef name, int32_t otherwise) {
  auto attr = module->getAttrOfType<IntegerAttr>(name);
  return attr ? static_cast<int32_t>(attr.getInt()) : otherwise;
}

/// The register tensors ptxas must hold whole, per thread (see RegisterPolicy::estimated): the largest that stays
/// live across a loop (an `scf.for` iteration value: accumulators, running statistics) or that a dot produces
/// (`carried`), and the largest that a read of memory into registers produces (`loaded`: its loads are issued
/// together, before the first use). Tensors that are only streamed through elementwise ops ptxas keeps in few
/// registers at a time, so they do not count.
struct WholeTensors {
  int64_t carried = 0, loaded = 0;
};
WholeTensors wholeTensorRegisters(ModuleOp module, int32_t baseWarps, int32_t threadsPerWarp) {
  WholeTensors most;
  module.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    bool carried = name == "scf.for" || name == "tt.dot" || name == "tt.dot_scaled" || name == "ttng.warp_group_dot";
    bool loaded = name == "ttg.local_load" || name == "ttng.tmem_load" || name == "tt.load" ||
                  name == "tt.descriptor_load" || name == "tt.descriptor_gather";
    if (!carried && !loaded)
      return;
    int64_t threads = threadsRunning(op, baseWarps, threadsPerWarp);
    for (Value result : op->getResults()) {
      int64_t regs = tensorRegisters(result.getType(), threads);
      (carried ? most.carried : most.loaded) = std::max(carried ? most.carried : most.loaded, regs);
    }
  });
  return most;
}

/// AMD (no .maxnreg; the LLVM AMDGPU backend chooses the VGPRs): 3/4 of the peak live tensor registers, rounded
/// up to the VGPR granule of 8, at most one CTA's share of the SIMDs' 512 VGPRs per lane (RegisterPolicy::estimated).
RegisterPolicy amdEstimate(ModuleOp module) {
  RegisterPolicy policy;
  int32_t warps = intAttr(module, "ttg.num-warps", 4), threadsPerWarp = intAttr(module, "ttg.threads-per-warp", 64);
  int64_t peak = peakLiveTensorRegisters(module, warps, threadsPerWarp);
  // 512 VGPRs per lane per SIMD (CDNA3/CDNA4), a CU's 4 SIMDs sharing the CTA's waves
  int64_t wholeFile = 512 * 4 / std::max(warps, 4) / 8 * 8;
  int64_t estimate = std::max<int64_t>(8, llvm::alignTo(peak * 3 / 4, 8));
  policy.maxnreg = static_cast<int32_t>(std::min(wholeFile, estimate));
  policy.estimated = true;
  policy.source = "estimate: 3/4 of the peak live tensor registers (" + std::to_string(peak) +
                  " per thread), rounded up to 8";
  return policy;
}

} // namespace

RegisterPolicy tritonRegisterPolicy(ModuleOp module) {
  RegisterPolicy policy;
  auto target = module->getAttrOfType<StringAttr>("ttg.target");
  if (target && target.getValue().starts_with("hip:"))
    return amdEstimate(module); // AMD: no .maxnreg; the VGPR count is the compiler's choice
  if (auto user = module->getAttrOfType<IntegerAttr>("ttg.maxnreg")) {
    policy.maxnreg = std::min<int32_t>(kMaxRegistersPerThread, static_cast<int32_t>(user.getInt()));
    policy.source = "ttg.maxnreg";
    return policy;
  }
  int32_t baseWarps = intAttr(module, "ttg.num-warps", 4), threadsPerWarp = intAttr(module, "ttg.threads-per-warp", 32);
  std::vector<Operation *> specializes;
  int32_t maxExtraWarps = 0;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef() != "ttg.warp_specialize")
      return;
    int32_t extra = 0;
    if (auto warps = op->getAttrOfType<DenseI32ArrayAttr>("partitionNumWarps"))
      for (int32_t w : warps.asArrayRef())
        extra += w;
    maxExtraWarps = std::max(maxExtraWarps, extra);
    specializes.push_back(op);
  });
  int32_t extraGroups = static_cast<int32_t>(llvm::divideCeil(maxExtraWarps, 4));
  int32_t totalWarps = baseWarps + 4 * extraGroups;
  auto estimate = [&](RegisterPolicy policy) {
    if (policy.maxnreg > 0)
      return policy;
    WholeTensors whole = wholeTensorRegisters(module, baseWarps, threadsPerWarp);
    int64_t byCarried = llvm::alignTo(whole.carried * 5 / 4 + 24, 8);
    int64_t byLoaded = llvm::alignTo(whole.loaded + 8, 8);
    // never more than the whole register file for one CTA: an estimate must not refuse a kernel that runs
    int32_t wholeFile = 64 * 1024 / totalWarps / threadsPerWarp / 8 * 8;
    policy.maxnreg = static_cast<int32_t>(
        std::min<int64_t>({kMaxRegistersPerThread, wholeFile, std::max(byCarried, byLoaded)}));
    policy.estimated = true;
    policy.source = "estimate: the larger of 1.25 x the largest loop-carried or dot register tensor (" +
                    std::to_string(whole.carried) + " registers per thread) + 24 and the largest tensor read from " +
                    "memory (" + std::to_string(whole.loaded) + ") + 8, rounded up to 8";
    return policy;
  };
  if (specializes.empty())
    return estimate(policy);
  int32_t maxnreg = 64 * 1024 / totalWarps / threadsPerWarp / 8 * 8;
  for (Operation *ws : specializes) {
    auto requested = ws->getAttrOfType<DenseI32ArrayAttr>("requestedRegisters");
    auto warps = ws->getAttrOfType<DenseI32ArrayAttr>("partitionNumWarps");
    if (!requested || !warps)
      continue;
    // The partitions, padded with idle ones of 16 registers to `extraGroups` warp groups, grouped into warp
    // groups by their start warp (largest partitions first); each group asks for its largest request.
    std::vector<std::pair<int32_t, int32_t>> partitions; // (warps, requested registers rounded up to 8)
    for (size_t i = 0; i < warps.size() && i < requested.size(); ++i)
      partitions.push_back({warps[i], static_cast<int32_t>(llvm::divideCeil(requested[i], 8) * 8)});
    int32_t padding = extraGroups * 4;
    for (auto &p : partitions)
      padding -= p.first;
    while (padding > 0) {
      int32_t size = static_cast<int32_t>(llvm::NextPowerOf2(padding) / 2);
      partitions.push_back({size, 16});
      padding -= size;
    }
    std::stable_sort(partitions.begin(), partitions.end(), [](auto a, auto b) { return a.first > b.first; });
    int64_t budget = int64_t(maxnreg) * baseWarps * threadsPerWarp;
    int32_t start = 0, groupRegs = 0, groupWarps = 0;
    for (size_t i = 0; i <= partitions.size(); ++i) {
      if (i == partitions.size() || (start % 4 == 0 && groupWarps > 0)) {
        budget += int64_t(maxnreg - groupRegs) * groupWarps * threadsPerWarp;
        groupRegs = groupWarps = 0;
      }
      if (i == partitions.size())
        break;
      groupRegs = std::max(groupRegs, partitions[i].second);
      groupWarps += partitions[i].first;
      start += partitions[i].first;
    }
    if (budget <= 0 || budget / (int64_t(baseWarps) * threadsPerWarp) / 8 * 8 < 24)
      continue; // too few registers left for the default warp group: no setmaxnreg, no .maxnreg
    policy.maxnreg = std::min(kMaxRegistersPerThread, maxnreg);
    policy.source = "warp-specialized: 64K registers / " + std::to_string(totalWarps) + " warps";
  }
  return estimate(policy);
}

} // namespace tlxsim::sim
