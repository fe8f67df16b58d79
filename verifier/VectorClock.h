// Sparse vector clocks for happens-before (Lamport 1978; Fidge / Mattern 1988), keyed by
// thread: agents (partition instances) and asynchronous operations (each TMA copy and
// wgmma group is a thread of its own whose single event is its memory access).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tlxsim::verifier {

using ThreadId = int64_t;

class VectorClock {
public:
  /// The clock of `thread` (0 if it never appeared).
  int64_t get(ThreadId thread) const {
    auto it = find(thread);
    return it != entries_.end() && it->first == thread ? it->second : 0;
  }
  void set(ThreadId thread, int64_t clock) {
    auto it = find(thread);
    if (it != entries_.end() && it->first == thread)
      it->second = clock;
    else
      entries_.insert(it, {thread, clock});
  }
  void tick(ThreadId thread) { set(thread, get(thread) + 1); }
  /// Pointwise maximum with `other`.
  void join(const VectorClock &other) {
    std::vector<std::pair<ThreadId, int64_t>> merged;
    merged.reserve(entries_.size() + other.entries_.size());
    auto a = entries_.cbegin();
    auto b = other.entries_.cbegin();
    while (a != entries_.cend() || b != other.entries_.cend()) {
      if (b == other.entries_.cend() || (a != entries_.cend() && a->first < b->first))
        merged.push_back(*a++);
      else if (a == entries_.cend() || b->first < a->first)
        merged.push_back(*b++);
      else
        merged.emplace_back(a->first, std::max(a->second, b->second)), ++a, ++b;
    }
    entries_ = std::move(merged);
  }
  void clear() { entries_.clear(); }
  /// Whether every entry of this clock is at most `other`'s (pointwise <=): the events this clock stands for
  /// happen-before whoever holds `other`.
  bool leq(const VectorClock &other) const {
    return std::all_of(entries_.begin(), entries_.end(),
                       [&](const auto &entry) { return entry.second <= other.get(entry.first); });
  }
  /// Drops the entries of threads for which `dead(thread)` holds (threads no access epoch names anymore), and the
  /// memory they took (a clock kept for a long run, e.g. an async operation's, shrinks to its live entries).
  template <typename Pred> void eraseIf(Pred dead) {
    std::erase_if(entries_, [&](const auto &entry) { return dead(entry.first); });
    if (entries_.capacity() > 2 * entries_.size() + 8)
      entries_.shrink_to_fit();
  }

private:
  std::vector<std::pair<ThreadId, int64_t>>::iterator find(ThreadId thread) {
    return std::lower_bound(entries_.begin(), entries_.end(), thread,
                            [](const auto &entry, ThreadId t) { return entry.first < t; });
  }
  std::vector<std::pair<ThreadId, int64_t>>::const_iterator find(ThreadId thread) const {
    return std::lower_bound(entries_.begin(), entries_.end(), thread,
                            [](const auto &entry, ThreadId t) { return entry.first < t; });
  }
  std::vector<std::pair<ThreadId, int64_t>> entries_; ///< sorted by thread
};

} // namespace tlxsim::verifier
