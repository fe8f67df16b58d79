#include "sim/units/L2Hbm.h"

namespace tlxsim::sim::engine {

bool MemorySystem::lookup(uint64_t key, int64_t size, double capacity) {
  auto it = index.find(key);
  if (it != index.end()) {
    lru.splice(lru.begin(), lru, it->second);
    return true;
  }
  lru.emplace_front(key, size);
  index[key] = lru.begin();
  bytes += size;
  while (bytes > capacity && !lru.empty()) {
    bytes -= lru.back().second;
    index.erase(lru.back().first);
    lru.pop_back();
  }
  return false;
}

} // namespace tlxsim::sim::engine
