// Root cause first: which of the waits blocked in a deadlock is the likely cause, and why, in one line. The deadlock
// checker (DeadlockChecker.cpp) reports that wait as the error and the others, the symptoms, as related waits and
// notes. The ranking reads only the barrier's state at the stall and what the waiting partition's code does:
// Ranks (higher leads):
//   3. the phase has all its arrivals but still expects tx bytes no copy will deliver (an expect-tx larger than the
//      copies it counts); or, tested after it, the wait skips a phase: its parity needs the current phase p, while
//      phase p - 1 completed and this partition, whose earlier waits observed phases 0 .. o one by one (o < p - 1),
//      never observed it: the phase / parity it computes is one phase ahead of the one it means (not for waiters
//      that observe phases far apart by design: a counter barrier's, one wait per persistent tile); or a first wait
//      that needs phase p while phase p - 1 completed and no partition observed it (its data was never consumed:
//      turn-taking waiters, where another partition observed it, are not);
//   2. the phase got some of its arrivals but not all, and no partition that can still run will arrive (an arrival
//      count above the releases made per phase, or a release that is never reached);
//   1. a partition that issues the copies (a producer) waits for parity 0 on a barrier that has never completed a
//      phase and that nobody has arrived on, in its first wait on it: the first wait on a fresh barrier passes only
//      for parity 1 (a later wait for parity 0 there is a symptom: the consumer never released the slot);
//   0.5 the same fresh parity-0 first wait by a partition that writes tensor memory (issues tcgen05 MMAs into an
//      accumulator ring: a Blackwell MMA partition's `tmem_empty` wait), on a barrier no copy completes or expects
//      bytes on (so not its operands' full barrier): below a copying producer's, which it would otherwise displace
//      when both wait on fresh barriers at the start;
//   0. none of these: a symptom (e.g. a consumer waiting for data a blocked producer never loads).
// Also in DeadlockChecker, from the run's history: 3.7, another CTA of the cluster signalled the barrier (a remote
// arrive, a multicast copy's bytes) in earlier phases, has exited, and the phase still misses its share (the CTAs
// ran different numbers of rounds; an over-arrival on the same wait replaces it); 3.5, two agents' arrivals at one
// site completing two phases with no wait between them (an arrival count below the arrivals per round); 0.4, a
// partition that passed its waits on a barrier's fresh phases waits on it again, and no op has ever arrived on any
// slot of its array in the CTA (a release never made); 0.25, named barriers waiting on each other.
// Ties keep the checker's order (agent order).
#pragma once

#include "sim/Program.h"
#include "verifier/Finding.h"

#include <string>

namespace tlxsim::verifier {

/// The rank (0-3, above) of one blocked mbarrier wait and its one-line reason ("" at rank 0).
struct WaitCause {
  double rank = 0;
  std::string reason;
};

/// Ranks a wait for `parity` on a barrier in state `s` at the stall. `everSignalled`: any partition arrived or
/// completed tx bytes on it since its init; `waitedBefore`: the waiting partition completed an earlier wait on it;
/// `producer`: the waiting partition's code issues copies onto barriers (issuesCopies); `observed`: the newest
/// phase the waiting partition's completed waits observed (-1: none); `observedEvery`: they observed every phase
/// from 0 to `observed`, one wait each; `writer`: it issues tcgen05 MMAs (issuesTensorMma) and the barrier's
/// allocation has had no expect-tx or copy completion on any of its slots; `unobserved`: no partition's wait observed
/// phase s.phase - 1 (the phase before the one this wait needs).
WaitCause rankWait(const BarrierState &s, int64_t parity, bool everSignalled, bool waitedBefore, bool producer,
                   int64_t observed = -1, bool observedEvery = false, bool writer = false, bool unobserved = false);

/// Whether the code of block `block` of `program` (its nested loop and branch regions, and the default region of a
/// warp_specialize, not the workers') issues TMA loads or cp.async / direct-to-LDS copies: the producer side of a
/// pipeline. An expect-tx arrive alone is not one: TLX's CLC epilogue expects the try_cancel response's 16 bytes
/// (a new-user trial, 2026-12-05: it was named the producer of a deadlock the loader's wrong parity caused).
bool issuesCopies(const sim::Program &program, int32_t block);

/// Whether the code of block `block` (as issuesCopies walks it) issues tcgen05 MMAs: it writes a tensor-memory
/// accumulator, so it waits for the accumulator's release before it starts (a producer of the TMEM ring).
bool issuesTensorMma(const sim::Program &program, int32_t block);

} // namespace tlxsim::verifier
