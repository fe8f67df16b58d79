#include "verifier/DeadlockCause.h"

#include <vector>

namespace tlxsim::verifier {

using sim::Op;

WaitCause rankWait(const BarrierState &s, int64_t parity, bool everSignalled, bool waitedBefore, bool producer,
                   int64_t observed, bool observedEvery, bool writer, bool unobserved) {
  if (s.pending == 0 && s.tx > 0)
    return {3, "phase " + std::to_string(s.phase) + " of " + s.name + " has all its arrivals but still expects " +
                   std::to_string(s.tx) + " tx bytes that no copy will deliver: the expect-tx is larger than the "
                   "bytes of the copies that complete on it"};
  // A wait blocks while the barrier's current phase has the waited parity: it needs phase s.phase to complete. Only
  // for a partition that observed every phase before the one it skips (0 .. observed, one wait each): a counter
  // barrier's waiter, or one wait per persistent tile, legally observes phases far apart.
  if (waitedBefore && observedEvery && observed >= 0 && s.phase >= 1 && (parity & 1) == (s.phase & 1) &&
      observed < s.phase - 1)
    return {3, "this wait for parity " + std::to_string(parity & 1) + " needs phase " + std::to_string(s.phase) +
                   " of " + s.name + ", while phase " + std::to_string(s.phase - 1) +
                   " completed and this partition, whose waits observed " +
                   (observed == 0 ? std::string("phase 0") : "phases 0 to " + std::to_string(observed) + " one by one") +
                   ", never observed it: the parity skips a phase, its phase / parity computation is one "
                   "phase ahead of the phase it means (PTX ISA 9.7.13.15.16: a parity names the phase)"};
  if (!waitedBefore && unobserved && s.phase >= 1 && (parity & 1) == (s.phase & 1))
    return {3, "this partition's first wait on " + s.name + " is for parity " + std::to_string(parity & 1) +
                   ", which needs phase " + std::to_string(s.phase) + ", while phase " + std::to_string(s.phase - 1) +
                   " completed and no partition observed it: its phase / parity starts one phase ahead of the phase "
                   "it means (PTX ISA 9.7.13.15.16: a parity names the phase)"};
  if (s.pending > 0 && s.pending < s.expected)
    return {2, "phase " + std::to_string(s.phase) + " of " + s.name + " got " + std::to_string(s.expected - s.pending) +
                   " of its " + std::to_string(s.expected) + " arrivals and no partition that can still run will "
                   "arrive: its arrival count is above the arrivals made per phase, or a release is never reached"};
  if (producer && parity == 0 && s.phase == 0 && !everSignalled && !waitedBefore)
    return {1, "this partition issues the copies (a producer) and waits for parity 0 on " + s.name +
                   ", which has never completed a phase and which nobody has arrived on: a wait on a fresh barrier "
                   "passes at once only for parity 1 (PTX ISA 9.7.13.15.16: try_wait.parity succeeds for the phase "
                   "before the current one), so its first wait needs the release of a consumer that waits for this "
                   "producer's data"};
  if (writer && parity == 0 && s.phase == 0 && !everSignalled && !waitedBefore)
    return {0.5, "this partition writes tensor memory (tcgen05 MMAs) and waits for parity 0 on " + s.name +
                     ", which has never completed a phase and which nobody has arrived on: a wait on a fresh barrier "
                     "passes at once only for parity 1 (PTX ISA 9.7.13.15.16), so its first wait for the buffer's "
                     "release needs a release by the partition that waits for this one's results"};
  return {};
}

/// Whether the code of `block` (nested regions and a warp_specialize's default region) has an op `pred` accepts.
template <typename Pred> static bool blockIssues(const sim::Program &program, int32_t block, Pred pred) {
  std::vector<int32_t> work{block};
  std::vector<bool> seen(program.blocks.size());
  while (!work.empty()) {
    int32_t b = work.back();
    work.pop_back();
    if (b < 0 || b >= static_cast<int32_t>(program.blocks.size()) || seen[b])
      continue;
    seen[b] = true;
    for (const sim::Instr &in : program.blocks[b].instrs) {
      if (pred(in.op))
        return true;
      if (in.op == Op::WarpSpecialize) { // the default region runs on this partition's warps; workers do not
        if (in.imm >= 0 && in.imm < static_cast<int64_t>(program.warpSpecializes.size()))
          work.push_back(program.warpSpecializes[in.imm].defaultBlock);
        continue;
      }
      work.push_back(in.block);
      work.push_back(in.block2);
    }
  }
  return false;
}

bool issuesCopies(const sim::Program &program, int32_t block) {
  return blockIssues(program, block,
                     [](Op op) { return op == Op::TmaLoad || op == Op::AsyncCopy; });
}

bool issuesTensorMma(const sim::Program &program, int32_t block) {
  return blockIssues(program, block, [](Op op) { return op == Op::Tc05Mma; });
}

} // namespace tlxsim::verifier
