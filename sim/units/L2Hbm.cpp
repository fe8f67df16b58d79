#include "sim/units/L2Hbm.h"

namespace tlxsim::sim::engine {

int64_t InFlightBytes::before(Cycle t) {
  while (!landing.empty() && landing.top().first <= t) {
    bytes -= landing.top().second;
    landing.pop();
  }
  return bytes - (t == lastIssue ? issuedAtLast : 0);
}

void InFlightBytes::add(Cycle t, Cycle done, int64_t size) {
  if (done <= t)
    return;
  landing.emplace(done, size);
  bytes += size;
  issuedAtLast = t == lastIssue ? issuedAtLast + size : size;
  lastIssue = t;
}

void MemorySystem::unlink(int32_t n) {
  Node &node = nodes[n];
  (node.prev == kNone ? head : nodes[node.prev].next) = node.next;
  (node.next == kNone ? tail : nodes[node.next].prev) = node.prev;
}

void MemorySystem::pushFront(int32_t n) {
  nodes[n].prev = kNone;
  nodes[n].next = head;
  (head == kNone ? tail : nodes[head].prev) = n;
  head = n;
}

bool MemorySystem::lookup(uint64_t key, int64_t size, double capacity) {
  auto [it, inserted] = index.try_emplace(mapKey(key), kNone);
  if (!inserted) {
    if (it->second != head) {
      unlink(it->second);
      pushFront(it->second);
    }
    return true;
  }
  int32_t n;
  if (!freeNodes.empty()) {
    n = freeNodes.back();
    freeNodes.pop_back();
  } else {
    n = static_cast<int32_t>(nodes.size());
    nodes.emplace_back();
  }
  nodes[n].key = key;
  nodes[n].size = size;
  pushFront(n);
  it->second = n;
  bytes += size;
  while (bytes > capacity && tail != kNone) {
    int32_t lru = tail;
    bytes -= nodes[lru].size;
    index.erase(mapKey(nodes[lru].key));
    unlink(lru);
    freeNodes.push_back(lru);
  }
  return false;
}

} // namespace tlxsim::sim::engine
