#include "sim/Program.h"

#include <algorithm>

namespace tlxsim::sim {

int32_t Program::totalWarps() const {
  int32_t total = numWarps;
  for (const WarpSpecialize &ws : warpSpecializes) {
    int32_t workers = 0;
    for (const auto &worker : ws.workers)
      workers += worker.numWarps;
    total = std::max(total, numWarps + workers);
  }
  return (total + 3) / 4 * 4; // Triton rounds the total up to whole warp groups
}

std::string Program::clusterText() const {
  std::string text = "the cluster of " + std::to_string(clusterSize()) + " CTAs (";
  if (clusterDims[1] == 1 && clusterDims[2] == 1 && clusterDims[0] == numCtas)
    return text + "ttg.num-ctas)";
  return text + std::to_string(clusterDims[0]) + "x" + std::to_string(clusterDims[1]) + "x" +
         std::to_string(clusterDims[2]) + ")";
}

int64_t Program::sharedBytes() const {
  if (allocatedSharedBytes >= 0)
    return allocatedSharedBytes;
  int64_t bytes = 0;
  for (const Alloc &alloc : allocs)
    if (!alloc.inTensorMemory)
      bytes += alloc.bytes;
  return bytes;
}

std::string Program::barrierName(int32_t alloc, int64_t index) const {
  if (alloc < 0 || alloc >= static_cast<int32_t>(allocs.size()))
    return "<barrier>";
  const Alloc &a = allocs[alloc];
  int64_t slots = 1;
  for (int64_t d : a.shape)
    slots *= d;
  return slots == 1 ? a.name : a.name + "[" + std::to_string(index) + "]";
}

} // namespace tlxsim::sim
