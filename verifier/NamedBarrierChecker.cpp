#include "verifier/NamedBarrierChecker.h"

namespace tlxsim::verifier {

using namespace tlxsim::sim;

namespace {
std::string joined(const std::set<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}
} // namespace

void NamedBarrierChecker::report(const NamedBarrierEvent &e, const std::string &kind, std::string message,
                                 const Rendezvous *with, int64_t key) {
  if (!reported_.insert({kind, key == -2 ? e.loc : key}).second)
    return;
  Finding f;
  f.cls = "named-barrier";
  f.location = loc(e.loc);
  f.message = std::move(message) + " (partition '" + partition(e.agent) + "', CTA " + std::to_string(e.cta) + ")";
  if (with)
    for (const auto &[l, text] : with->arrivals)
      f.related.push_back(Related{loc(l), "", -1, "named barrier", text});
  findings_.push_back(std::move(f));
}

void NamedBarrierChecker::onNamedBarrier(const NamedBarrierEvent &e) {
  if (isPartitionBarrier(e.id)) // the partition barrier of per-warp agents (sim partitionBarrierId): the engine's, always consistent
    return;
  std::string op = e.sync ? "bar.sync" : "bar.arrive";
  std::string bar = "named barrier " + std::to_string(e.id);
  int64_t warp = program_.threadsPerWarp;
  if (e.id < 0 || e.id > 15)
    report(e, "id", op + " on " + bar + ": the hardware has named barriers 0-15 only");
  if (e.count <= 0 || e.count % warp != 0)
    report(e, "count", op + " on " + bar + " with thread count " + std::to_string(e.count) +
                           ", which is not a positive multiple of the warp size (" + std::to_string(warp) + ")");

  Rendezvous &r = open_[{e.cta, e.id}];
  if (r.arrivals.empty())
    r.firstLoc = e.loc;
  else if (e.count != e.expected)
    report(e, "mismatch", "thread-count mismatch: " + op + " on " + bar + " counts " + std::to_string(e.count) +
                              " threads, but the rendezvous it joins counts " + std::to_string(e.expected),
           &r);
  r.partitions.insert(partition(e.agent));
  r.anySync |= e.sync;
  r.arrivals.emplace_back(e.loc, "partition '" + partition(e.agent) + "' " + op + " (" +
                                     std::to_string(e.threads) + " threads of " + std::to_string(e.count) + ")");
  if (!e.completed)
    return;
  if (e.arrived > e.expected)
    report(e, "overflow", "thread-count mismatch: " + std::to_string(e.arrived) + " threads arrived on " + bar +
                              " (rendezvous " + std::to_string(e.generation) + "), which counts " +
                              std::to_string(e.expected) + ": the arrival of " + std::to_string(e.threads) +
                              " threads (whole warps) overshoots it",
           &r);
  if (!r.anySync)
    report(e, "arrive-only", "arrive vs sync mismatch: rendezvous " + std::to_string(e.generation) + " of " + bar +
                                 " completed by bar.arrive alone; no bar.sync waits for it",
           &r);
  auto prev = previous_.find({e.cta, e.id});
  if (prev != previous_.end() && prev->second.partitions != r.partitions)
    report(e, "two-rendezvous", "one id used by two rendezvous: " + bar + " synchronizes partitions " +
                                    joined(r.partitions) + " here and partitions " +
                                    joined(prev->second.partitions) +
                                    " elsewhere; arrivals of the two cohorts can be counted together, releasing one "
                                    "early and leaving the other waiting",
           &prev->second, e.cta * 16 + e.id);
  previous_[{e.cta, e.id}] = std::move(r);
  open_.erase({e.cta, e.id});
}

} // namespace tlxsim::verifier
