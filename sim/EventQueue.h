// The engine's event queue (internal to sim/): events leave in (time, push order), exactly as a binary heap on
// Event::key() would hand them out, but most pushes and pops cost O(1): a timing wheel of one FIFO per cycle
// covers the next kWheel cycles after the last popped event, a heap holds the rest.
#pragma once

#include "sim/Events.h"

#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace tlxsim::sim::engine {

/// One scheduled engine event: an agent to run, an asynchronous signal due, or a CTA to start on an SM.
struct Event {
  Cycle t;
  uint64_t seq;
  enum Kind : uint8_t { RunAgent, SignalDue, StartCta } kind;
  int32_t id;
  /// Time order, then issue order.
  unsigned __int128 key() const { return (static_cast<unsigned __int128>(t) << 64) | seq; }
  bool operator>(const Event &o) const { return key() > o.key(); }
};

/// A priority queue of events, smallest (t, seq) first. Pushes must carry increasing `seq` (Impl::push numbers
/// them), so one cycle's FIFO is in key order. Invariant: every wheel event has base <= t < base + kWheel, where
/// `base` is the time of the latest pop; an event outside that window when pushed goes to `far_` (a heap), and
/// top() takes the smaller of the two heads, so any push order of times is served exactly.
class EventQueue {
public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  void push(const Event &e) {
    ++size_;
    if (e.t >= base_ && e.t - base_ < kWheel) {
      uint32_t slot = static_cast<uint32_t>(e.t & kMask);
      int32_t n = newNode(e);
      if (head_[slot] < 0) {
        head_[slot] = n;
        occupied_[slot >> 6] |= uint64_t(1) << (slot & 63);
      } else {
        nodes_[tail_[slot]].next = n;
      }
      tail_[slot] = n;
    } else {
      far_.push(e);
    }
    // A later push at the cached head's time comes after it (larger seq): only an earlier time displaces it.
    if (cached_ && e.t < top_.t)
      cached_ = false;
  }

  /// The smallest event; the queue must not be empty.
  const Event &top() {
    if (!cached_)
      findTop();
    return top_;
  }

  void pop() {
    if (!cached_)
      findTop();
    if (topSlot_ >= 0) {
      int32_t n = head_[topSlot_];
      head_[topSlot_] = nodes_[n].next;
      if (head_[topSlot_] < 0)
        occupied_[topSlot_ >> 6] &= ~(uint64_t(1) << (topSlot_ & 63));
      nodes_[n].next = free_;
      free_ = n;
    } else {
      far_.pop();
    }
    --size_;
    if (top_.t > base_)
      base_ = top_.t; // every event left has t >= top_.t: the wheel window moves on
    cached_ = false;
  }

private:
  static constexpr uint64_t kWheel = 8192; ///< cycles the wheel covers (a power of two)
  static constexpr uint64_t kMask = kWheel - 1;
  struct Node {
    Event e;
    int32_t next = -1;
  };

  int32_t newNode(const Event &e) {
    int32_t n = free_;
    if (n >= 0) {
      free_ = nodes_[n].next;
      nodes_[n] = Node{e, -1};
    } else {
      n = static_cast<int32_t>(nodes_.size());
      nodes_.push_back(Node{e, -1});
    }
    return n;
  }

  /// The first occupied slot at or after base's slot (circularly), -1 when the wheel is empty.
  int32_t firstSlot() const {
    uint32_t start = static_cast<uint32_t>(base_ & kMask);
    uint32_t word = start >> 6;
    uint64_t bits = occupied_[word] & (~uint64_t(0) << (start & 63));
    for (uint32_t i = 0; i <= kWords; ++i) {
      if (bits)
        return static_cast<int32_t>((word << 6) + __builtin_ctzll(bits));
      word = (word + 1) & (kWords - 1);
      bits = occupied_[word];
    }
    return -1;
  }

  void findTop() {
    int32_t slot = firstSlot();
    topSlot_ = -1;
    if (slot >= 0) {
      top_ = nodes_[head_[slot]].e;
      topSlot_ = slot;
    }
    if (!far_.empty() && (slot < 0 || far_.top().key() < top_.key())) {
      top_ = far_.top();
      topSlot_ = -1;
    }
    cached_ = true;
  }

  static constexpr uint32_t kWords = kWheel / 64;
  std::vector<Node> nodes_;
  int32_t free_ = -1;
  std::array<int32_t, kWheel> head_ = filled(), tail_ = filled();
  std::array<uint64_t, kWords> occupied_{};
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> far_;
  Cycle base_ = 0;
  size_t size_ = 0;
  bool cached_ = false;
  Event top_{};
  int32_t topSlot_ = -1;

  static std::array<int32_t, kWheel> filled() {
    std::array<int32_t, kWheel> a;
    a.fill(-1);
    return a;
  }
};

} // namespace tlxsim::sim::engine
