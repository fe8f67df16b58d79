// Hardware named barriers of one CTA (PTX ISA 9.1 9.7.13.1 `bar.sync` / `bar.arrive`, Triton's
// `ttng.wait_barrier_named` / `ttng.arrive_barrier_named`): a barrier id and an expected thread count;
// arrivals are counted per warp (every thread of an executing warp counts), the barrier completes once the
// expected number of threads arrived, then resets for its next use. `bar.sync` also waits for completion,
// `bar.arrive` does not.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace tlxsim::sim {

/// One rendezvous of a named barrier in progress.
struct NamedGeneration {
  int64_t expected = 0;             ///< thread count of the first arrival of this generation
  int64_t arrived = 0;              ///< threads arrived so far
  std::vector<int32_t> syncers;     ///< agents blocked in bar.sync on this generation
};

/// The named barriers of one CTA, by id.
class NamedBarriers {
public:
  /// What an arrival did.
  struct Result {
    bool completed = false;       ///< the generation completed (arrived >= expected)
    int64_t expected = 0;         ///< the generation's thread count (the first arrival's)
    int64_t arrived = 0;          ///< threads arrived after this arrival (before the reset)
    int64_t generation = 0;       ///< index of the generation this arrival joined
    std::vector<int32_t> released; ///< bar.sync waiters to wake (completed)
  };
  /// `threads` threads (whole warps) of `agent` arrive on barrier `id` with thread count `count`; a `sync`
  /// arrival that does not complete the generation is recorded as a waiter.
  Result arrive(int64_t id, int64_t count, int64_t threads, int32_t agent, bool sync);
  /// `threads` threads left for good (an AMD wave group that ended: S_BARRIER "waits on only the surviving waves",
  /// AMD CDNA3 ISA, S_BARRIER): barrier `id`'s rendezvous in progress and later ones count them no more; the one in
  /// progress completes when its arrivals now reach its count (`completed`, `released`).
  Result retire(int64_t id, int64_t threads);
  /// The barrier's generation in progress (nullptr if none has started).
  const NamedGeneration *current(int64_t id) const;

private:
  /// The state of generation `g` of barrier `id` after an arrival or a retire: completes it (waking its bar.sync
  /// waiters, starting the next generation) once its arrivals reach its count.
  Result settle(int64_t id, NamedGeneration &g);

  std::map<int64_t, NamedGeneration> open_;
  std::map<int64_t, int64_t> generations_; ///< completed generations per id
  std::map<int64_t, int64_t> retired_;     ///< threads that left for good, per id (retire)
};

} // namespace tlxsim::sim
