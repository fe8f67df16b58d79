#include "sim/ProtonBuffer.h"

#include "sim/SharedScratch.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace tlxsim::sim {

int64_t protonBufferBytes(int64_t sharedUsed, int64_t segments, int64_t maxSharedMem) {
  if (segments < 1)
    return 0;
  sharedUsed = static_cast<int64_t>(llvm::alignTo(std::max<int64_t>(0, sharedUsed), kProtonBytesPerEntry));
  if (sharedUsed >= maxSharedMem)
    maxSharedMem += sharedUsed; // Proton assumes enough memory and lets the launch fail otherwise
  // llvm::NextPowerOf2: the power of two strictly above (0 -> 1)
  int64_t segmentBytes = static_cast<int64_t>(llvm::NextPowerOf2((maxSharedMem - sharedUsed) / segments)) / 2;
  int64_t bytes = segmentBytes * segments / kProtonBytesPerEntry * kProtonBytesPerEntry;
  int64_t estimatedOccupancy = maxSharedMem / std::max<int64_t>(1, sharedUsed);
  if (estimatedOccupancy <= 1)
    return bytes;
  // int maxAllocSharedMemSize = maxSharedMemSize * 0.04 (a float product truncated to int)
  auto cap = static_cast<int64_t>(static_cast<float>(maxSharedMem) * 0.04f);
  while (bytes > cap)
    bytes /= 2;
  return bytes;
}

int64_t protonInstrumentedSharedBytes(int64_t tritonShared, int64_t segments, int64_t maxSharedMem) {
  return static_cast<int64_t>(llvm::alignTo(tritonShared, kProtonBytesPerEntry)) +
         protonBufferBytes(tritonShared, segments, maxSharedMem);
}

int64_t protonSegments(mlir::ModuleOp module) {
  bool instrumented = false;
  module->walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() != "proton.record")
      return mlir::WalkResult::advance();
    instrumented = true;
    return mlir::WalkResult::interrupt();
  });
  if (!instrumented)
    return 0;
  int64_t warps = 0;
  if (auto numWarps = module->getAttrOfType<mlir::IntegerAttr>("ttg.num-warps"))
    warps = numWarps.getInt();
  int64_t partitions = 0;
  for (mlir::Operation &op : module.getBody()->getOperations())
    if (op.getName().getStringRef() == "tt.func")
      partitions = std::max(partitions, partitionWarpsOf(&op));
  return warps + partitions;
}

} // namespace tlxsim::sim
