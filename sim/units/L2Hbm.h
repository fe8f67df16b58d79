// The device memory system: L2 (an LRU of tiles, and a bandwidth pipe) and HBM. Internal to sim/.
#pragma once

#include "sim/units/Costs.h"
#include "sim/units/Pipe.h"

#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace tlxsim::sim::engine {

/// The device's TMA copies in flight (issued, not yet landed), in bytes: the queue behind the loaded latency
/// (units/TmaEngine.h). Copies count from the cycle after their issue, so that the identical CTAs of a wave, which
/// issue in the same cycle, see the same queue whatever order the engine runs them in.
struct InFlightBytes {
  /// The bytes in flight at `t` that were issued before `t`. Copies that landed by `t` leave the count (the
  /// engine's agents run close to, not exactly in, time order: a copy that landed between two out-of-order issues
  /// is not counted again).
  int64_t before(Cycle t);
  /// Records a copy of `bytes` issued at `t` that lands at `done`.
  void add(Cycle t, Cycle done, int64_t bytes);

private:
  std::priority_queue<std::pair<Cycle, int64_t>, std::vector<std::pair<Cycle, int64_t>>, std::greater<>> landing;
  int64_t bytes = 0;
  Cycle lastIssue = ~Cycle(0);
  int64_t issuedAtLast = 0; ///< bytes issued at `lastIssue`
};

/// L2 and HBM, shared by every SM. L2 keeps an LRU of `l2_size_bytes` over tile keys (a TMA box, see
/// boxKey, or the provenance hash of a pointer tensor), so CTAs that share operand tiles hit; `l2` and `hbm`
/// are FIFO pipes at `l2_bytes_per_clk` and the HBM bytes per cycle at the current clock (Costs::hbmBytesPerClk).
struct MemorySystem {
  Pipe l2, hbm;
  InFlightBytes inFlight;  ///< TMA copies in flight on the device (the loaded-latency queue)
  int64_t bytes = 0; ///< resident bytes

  /// Whether the tile `key` of `size` bytes is resident in L2 (then it becomes the most recent); a miss
  /// inserts it and evicts the least recent tiles beyond `capacity` bytes.
  bool lookup(uint64_t key, int64_t size, double capacity);

private:
  /// One resident tile: a node of the recency list (doubly linked through indices into `nodes`, so a miss
  /// allocates nothing once the pool has grown to the resident count).
  struct Node {
    uint64_t key;
    int64_t size;
    int32_t prev, next; ///< toward the most / least recent; -1 at the ends
  };
  static constexpr int32_t kNone = -1;
  void unlink(int32_t n);
  void pushFront(int32_t n);
  /// DenseMap reserves two key values (empty, tombstone); the two keys that equal them are stored moved by 2.
  static uint64_t mapKey(uint64_t key) { return key >= ~uint64_t(1) ? key - 2 : key; }

  std::vector<Node> nodes;
  std::vector<int32_t> freeNodes;
  int32_t head = kNone, tail = kNone; ///< most / least recent
  llvm::DenseMap<uint64_t, int32_t> index; ///< mapKey(key) -> node
};

} // namespace tlxsim::sim::engine
