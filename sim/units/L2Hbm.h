// The device memory system: L2 (an LRU of tiles, and a bandwidth pipe) and HBM. Internal to sim/.
#pragma once

#include "sim/units/Costs.h"
#include "sim/units/Pipe.h"

#include <cstdint>
#include <list>
#include <unordered_map>

namespace tlxsim::sim::engine {

/// L2 and HBM, shared by every SM. L2 keeps an LRU of `l2_size_bytes` over tile keys (a TMA box, see
/// boxKey, or the provenance hash of a pointer tensor), so CTAs that share operand tiles hit; `l2` and `hbm`
/// are FIFO pipes at `l2_bytes_per_clk` and the HBM bytes per cycle at the current clock (Costs::hbmBytesPerClk).
struct MemorySystem {
  Pipe l2, hbm;
  std::list<std::pair<uint64_t, int64_t>> lru; ///< (key, bytes), most recent first
  std::unordered_map<uint64_t, std::list<std::pair<uint64_t, int64_t>>::iterator> index;
  int64_t bytes = 0; ///< resident bytes

  /// Whether the tile `key` of `size` bytes is resident in L2 (then it becomes the most recent); a miss
  /// inserts it and evicts the least recent tiles beyond `capacity` bytes.
  bool lookup(uint64_t key, int64_t size, double capacity);
};

} // namespace tlxsim::sim::engine
