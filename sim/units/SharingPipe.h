// A unit whose capacity the requests in flight share (processor sharing): the SM's SFUs. Internal to sim/.
#pragma once

#include "sim/Events.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace tlxsim::sim::engine {

/// A unit that serves its requests at once, each at an equal share of `capacity` (work per cycle) and at most at its
/// own `cap` (water-filling: a capped request's unused share goes to the others). Unlike a FIFO Pipe, a request
/// issued while another runs slows it down: two warp groups that issue their MUFU work at the same time finish it
/// together, at half rate, as the SMSPs' warp schedulers interleave their instructions (the H200 softmax bench,
/// tools/bench/alu_latency_run3.txt: one warp group 1002 clk per step, two at once 1492 each, not 1002 and ~1500
/// one after the other). While the caps of the requests in flight add up to the capacity the total rate equals a
/// FIFO's (work-conserving) and only who finishes when differs; a lone capped request leaves part of it idle.
///
/// Requests are shared between owners (partitions), not within one: an owner's next request while its previous one
/// is in flight joins it (its warps issue the MUFU instructions in order), so at most one job per owner is active.
/// A request's end is known only up to the next arrival: `add` returns the end assuming no more requests, and
/// later arrivals of other owners push it back; `end(job)` reads the latest value for an owner's newest request (an
/// older request of the same owner keeps the end projected when the newer one joined). Consumers that waited before
/// an arrival keep the end they read. Times are cycles; ends are rounded up to whole cycles.
class SharingPipe {
public:
  explicit SharingPipe(double capacity = 1) : capacity_(capacity) {}

  /// Adds a request of `work` units (>= 0) by `owner` from cycle `at` (clamped to the last request's time: requests
  /// come in global time order), served at most at `cap` units per cycle; returns its job id and its projected end.
  std::pair<int32_t, Cycle> add(Cycle at, double work, double cap, int32_t owner) {
    double t = std::max(static_cast<double>(at), now_);
    advance(t);
    int32_t id = static_cast<int32_t>(nextId_++ & static_cast<uint32_t>(std::numeric_limits<int32_t>::max()));
    cap = cap > 1e-9 ? cap : 1e-9; // NaN too
    work = work > 0 ? work : 0;
    auto same = std::find_if(active_.begin(), active_.end(), [&](const Job &j) { return j.owner == owner; });
    if (same != active_.end()) { // the owner's warps issue it after their previous one: one stream
      same->id = id;
      same->remaining += work;
      same->cap = cap;
    } else {
      active_.push_back({owner, id, work, cap});
    }
    project();
    return {id, end(id)};
  }

  /// The latest known end of job `id`; 0 once it is too old to be remembered (1024 requests on this SM later).
  Cycle end(int32_t id) const {
    const Slot &s = ends_[static_cast<size_t>(id) % kRemembered];
    return s.id == id ? s.end : 0;
  }

private:
  struct Job {
    int32_t owner, id; ///< id: the owner's newest request in it
    double remaining, cap;
  };
  struct Slot {
    int32_t id = -1;
    Cycle end = 0;
  };
  static constexpr size_t kRemembered = 1024;

  /// Each of `jobs`' rate into `rate_`: an equal share of the capacity, at most its cap, the leftover shared by the
  /// others. Works in the scratch members (no allocation once they have grown to the number of owners).
  void rates(const std::vector<Job> &jobs) {
    rate_.assign(jobs.size(), 0);
    open_.resize(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i)
      open_[i] = i;
    double left = capacity_;
    while (!open_.empty() && left > 0) {
      double fair = left / static_cast<double>(open_.size());
      next_.clear();
      double used = 0;
      for (size_t i : open_)
        if (jobs[i].cap - rate_[i] <= fair) {
          used += jobs[i].cap - rate_[i];
          rate_[i] = jobs[i].cap;
        } else {
          next_.push_back(i);
        }
      if (next_.size() == open_.size()) { // nobody capped: split evenly and stop
        for (size_t i : open_)
          rate_[i] += fair;
        break;
      }
      left -= used;
      open_.swap(next_);
    }
  }

  /// Serves `jobs` from `from` until `until` (or until all finish when `until` is infinite); records the end of
  /// each job that finishes; returns the time reached.
  double serve(std::vector<Job> &jobs, double from, double until) {
    double t = from;
    while (!jobs.empty() && t < until) {
      rates(jobs);
      const std::vector<double> &r = rate_;
      double dt = std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < jobs.size(); ++i)
        if (r[i] > 0)
          dt = std::min(dt, jobs[i].remaining / r[i]);
      if (!std::isfinite(dt))
        break;
      double step = std::min(dt, until - t);
      for (size_t i = 0; i < jobs.size(); ++i)
        jobs[i].remaining -= r[i] * step;
      t += step;
      std::erase_if(jobs, [&](const Job &j) {
        if (j.remaining > 1e-9)
          return false;
        ends_[static_cast<size_t>(j.id) % kRemembered] = {j.id, static_cast<Cycle>(std::ceil(t * (1 - 1e-12)))};
        return true;
      });
    }
    return t;
  }

  void advance(double t) { now_ = std::max(now_, serve(active_, now_, t)); now_ = std::max(now_, t); }

  /// Records every active job's end assuming no further requests.
  void project() {
    projected_.assign(active_.begin(), active_.end());
    serve(projected_, now_, std::numeric_limits<double>::infinity());
  }

  double capacity_;
  double now_ = 0;
  uint32_t nextId_ = 0;
  std::vector<Job> active_;
  std::array<Slot, kRemembered> ends_{};
  // scratch of rates() and project(), kept to avoid an allocation per request
  std::vector<double> rate_;
  std::vector<size_t> open_, next_;
  std::vector<Job> projected_;
};

} // namespace tlxsim::sim::engine
