#include "sim/NamedBarrier.h"

namespace tlxsim::sim {

NamedBarriers::Result NamedBarriers::arrive(int64_t id, int64_t count, int64_t threads, int32_t agent, bool sync) {
  NamedGeneration &g = open_[id];
  if (g.arrived == 0)
    g.expected = count - retired_[id];
  g.arrived += threads;
  Result r = settle(id, g);
  if (!r.completed && sync)
    g.syncers.push_back(agent);
  return r;
}

NamedBarriers::Result NamedBarriers::settle(int64_t id, NamedGeneration &g) {
  Result r;
  r.expected = g.expected;
  r.arrived = g.arrived;
  r.generation = generations_[id];
  if (g.arrived >= g.expected) { // the hardware releases the barrier once its count is reached
    r.completed = true;
    r.released = std::move(g.syncers);
    ++generations_[id];
    open_.erase(id); // g dangles from here
  }
  return r;
}

NamedBarriers::Result NamedBarriers::retire(int64_t id, int64_t threads) {
  retired_[id] += threads;
  auto it = open_.find(id);
  if (it == open_.end()) {
    Result r;
    r.generation = generations_[id];
    return r;
  }
  it->second.expected -= threads;
  return settle(id, it->second);
}

const NamedGeneration *NamedBarriers::current(int64_t id) const {
  auto it = open_.find(id);
  return it == open_.end() ? nullptr : &it->second;
}

} // namespace tlxsim::sim
