// Proton's circular per-warp segment, as the simulator fills it: the newest proton.record entries of one agent, and
// the scopes Proton's decoder takes from them when the segment overflowed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tlxsim::sim {

using Cycle = uint64_t; ///< SM cycles (the alias of sim/Events.h, which includes this file)

/// The last `capacity` proton.record entries of one agent (one entry per record, as each warp writes one 8-byte
/// entry per record into its own circular segment of the profile buffer: shared/docs/proton-buffer.md,
/// runner/ProtonBuffer.h). A kernel whose records outnumber the segment keeps only its newest entries on hardware, so
/// Proton's decoder sees the warp's last stretch only: its scopes and window come from those entries
/// (runner/ProtonBuffer.cpp decodeSegment, runner/ProtonTrace.cpp partitionSummary). `capacity` 0: unbounded (no
/// entries kept; the caller's running sums stand).
class ProtonSegment {
public:
  struct Entry {
    Cycle t;
    int32_t id;
    bool start;
  };

  /// Entries per warp segment: (profile_scratch_size - the CTA header rounded up to profile_scratch_align) / (8 x
  /// num_warps) from Triton's metadata (tools/Simulation.cpp readMetadata); 0 disables.
  void setCapacity(uint64_t capacity) { capacity_ = capacity; }

  /// One record of scope `id` at `t` (start or end).
  void record(int32_t id, bool start, Cycle t) {
    if (capacity_ == 0)
      return;
    Entry e{t, id, start};
    if (entries_.size() < capacity_)
      entries_.push_back(e);
    else
      entries_[written_ % capacity_] = e;
    ++written_;
  }

  /// Whether more records were written than the segment holds (the oldest were overwritten).
  bool overflowed() const { return capacity_ > 0 && written_ > capacity_; }

  /// The scopes Proton's decoder reads from the kept entries, oldest first: a start opens its scope (a second start
  /// of an open scope is dropped), an end closes it (an end without an open start is dropped); `scopes[id]` gets each
  /// closed scope's span and `window` the span from the first kept start to the last end (the warp's window when its
  /// segment overflowed, runner/ProtonTrace.cpp partitionSummary). Cycles.
  void decode(std::vector<Cycle> &scopes, Cycle &window) const {
    std::vector<int64_t> open;
    Cycle first = 0, last = 0;
    bool any = false;
    size_t n = entries_.size(), oldest = written_ > capacity_ ? written_ % capacity_ : 0;
    for (size_t i = 0; i < n; ++i) {
      const Entry &e = entries_[(oldest + i) % n];
      if (open.size() <= static_cast<size_t>(e.id))
        open.resize(e.id + 1, -1);
      if (e.start) {
        if (open[e.id] < 0)
          open[e.id] = static_cast<int64_t>(e.t);
        continue;
      }
      if (open[e.id] < 0)
        continue;
      Cycle begin = static_cast<Cycle>(open[e.id]);
      open[e.id] = -1;
      if (scopes.size() <= static_cast<size_t>(e.id))
        scopes.resize(e.id + 1);
      scopes[e.id] += e.t - begin;
      first = any ? std::min(first, begin) : begin;
      last = any ? std::max(last, e.t) : e.t;
      any = true;
    }
    window = any ? last - first : 0;
  }

private:
  uint64_t capacity_ = 0, written_ = 0;
  std::vector<Entry> entries_;
};

} // namespace tlxsim::sim
