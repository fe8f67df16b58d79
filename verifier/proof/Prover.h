// Z3 proofs of the loop-carried mbarrier protocol of a kernel, for all trip counts and grid
// sizes (design.md "Verifier", symbolic part; issue 6).
//
// The prover reads the MLIR module directly. Per partition (the default region and each
// `partitionN` of `ttg.warp_specialize`, or the whole kernel without it) it takes the loop nest
// (up to two levels: a persistent tile loop around a K loop), runs the partitions in lock-step
// over their iterations (one step = one iteration of each partition's innermost loop, or one
// tile transition) and encodes each step symbolically in Z3: kernel arguments, program ids and
// grid sizes are free integers (constexprs are the constants of the TTGIR), loop-carried values
// (stage index, phase, tile counters) are state variables, and ghost state tracks per barrier
// slot and waiting partition the parity of the last wait, the phase balance (arrivals minus
// phases consumed) and the tx-count balance. Properties:
//   - wait-parity: consecutive waits of a partition on one barrier slot target consecutive
//     phases (their parities alternate);
//   - phase-balance: at the end of the kernel every phase a partition waits for is completed
//     and every completed phase is waited for (the first wait may target the initial, already
//     complete phase: parity 1 on a fresh barrier); arrivals come in whole phases (init count);
//   - tx-balance: the bytes each barrier expects (barrier_expect) equal the TMA box bytes that
//     complete on it, per lock-step iteration and in total;
//   - slot-range: every barrier index (memdesc_index of a barrier array) lies within the array;
//   - stage-ownership (per data buffer): a TMA write of stage j follows the writer's wait on slot j of the
//     barrier the readers release it with, a read of stage j follows the reader's wait on slot j of the barrier
//     its TMA fill completes on; and (wgmma depth) no stage is overwritten or released while an async wgmma
//     reading it may still be in flight, given the `pendings` of the warp_group_dot_waits since;
//   - proxy-fence (per data buffer): an async-proxy read of a generically written buffer follows a
//     fence_async_shared on every path.
// Cluster kernels: nvgpu.cluster_id is a launch quantity in [0, ttg.num-ctas); multicast TMA bytes and remote /
// ctaMask arrives reach this CTA's barriers from every issuer of the cluster (the issuer's rank substituted, when
// the peers' loop states provably agree; else not analyzed, with a note); 2-CTA ops are not analyzed.
// Verdicts: `counterexample` (bounded model checking found a launch and iteration that violate
// the property: concrete arguments, grid, program id, step and loop iteration), `proved` (the
// property and its lemmas hold for all trip counts: k-induction over the lock-step steps,
// base case checked by bounded model checking to the same depth), `bounded` (no violation
// within `bound` lock-step steps, no inductive proof), `timeout` (Z3 answered unknown).
#pragma once

#include "ir/Location.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tlxsim::verifier::proof {

/// One assumption on a kernel argument or a grid quantity: `NAME OP VALUE` with OP one of
/// `>= <= > < == !=`; NAME is a scalar argument's Python name, `num_programs_x|y|z` or
/// `program_id_x|y|z`.
struct Assumption {
  std::string name, op;
  int64_t value = 0;
};

/// The range the prover gives a scalar kernel argument, |value| <= 2^30, so that i32 index
/// arithmetic on it cannot overflow; an assumption outside it admits no launch.
constexpr int64_t kArgumentBound = int64_t(1) << 30;
/// The most lock-step steps of bounded model checking `ProofOptions::bmcSteps` may ask for (the
/// default is 2 x stages + 1; each step adds a copy of the kernel's encoding to every query).
constexpr int kMaxBmcSteps = 64;

/// Parses `K>=64` (also `64<=K`); returns an error message, empty on success.
std::string parseAssumption(const std::string &text, Assumption &out);

/// `x OP v` for the assumption's operator: a bool for integers, a Z3 term for Z3 terms.
template <class T> auto assumptionHolds(const Assumption &a, const T &x, const T &v) {
  return a.op == ">=" ? x >= v : a.op == "<=" ? x <= v : a.op == ">" ? x > v : a.op == "<" ? x < v
         : a.op == "==" ? x == v : x != v;
}

struct ProofOptions {
  std::vector<Assumption> assumptions;
  /// Per Z3 query, nominal seconds: a resource limit (rlimit) of timeoutSeconds x kRlimitPerSecond units
  /// (Budget.h), deterministic across machines and load; wall-clock safety net kWallClockFactor x as long.
  /// The induction step's queries, the last of a kernel's, may instead spend what is left of budgetSeconds.
  double timeoutSeconds = 30; ///< 3e7 units: 3.3 x the largest proved query (tests/bench/README.md, calibration)
  /// All Z3 queries of one kernel, nominal seconds: a resource budget of budgetSeconds x kRlimitPerSecond units
  /// summed over the queries, the bound on `check --proofs` whatever the number of properties, retries and
  /// counterexample searches; queries past it are `unknown` (verdict `timeout`, with a note). Wall-clock safety
  /// net: kWallClockFactor x budgetSeconds from the start of the encoding.
  /// 2e8 units: TLX's Blackwell FA CLC / persistent kernels spend 171.5 M to prove 53 of their 73 properties (at 1.2e8
  /// they read `timeout`; tests/bench/README.md "Issue 16 sweep, seventeenth session").
  double budgetSeconds = 200;
  int bmcSteps = 0;           ///< lock-step steps of bounded model checking; 0: 4 * max stages + 4
  /// Lemma learning evaluates each shared term of the unrolled states once per sample (SampleValues, Lemmas.h);
  /// false: every evaluation through Z3_model_eval (the plain path, for tests: both learn the same tables).
  bool memoizeSamples = true;
  /// The launch `check` simulates (scalar arguments by Python name, `num_programs_x|y|z`): a
  /// counterexample keeps these values where the violation does not depend on them, so that its
  /// replay is a realistic launch.
  std::map<std::string, int64_t> launch;
};

/// One verdict (design.md: `proofs: [{property, verdict, partitions, location, bound, witness}]`).
struct ProofResult {
  std::string property; ///< wait-parity | phase-balance | tx-balance | slot-range | stage-ownership | proxy-fence
  std::string barrier;  ///< the barrier allocation (Python name) the property is about
  std::string verdict;  ///< proved | bounded | counterexample | timeout
  std::vector<std::string> partitions;
  ir::SourceLoc location; ///< the barrier's allocation, or the op of the counterexample
  int64_t bound = -1;     ///< lock-step steps checked (bounded / counterexample), -1 for proved
  std::string witness;    ///< human-readable: parameters and iteration of a counterexample, or why not proved
  /// A counterexample's launch: scalar arguments by Python name, `num_programs_x` etc.
  std::map<std::string, int64_t> params;
  int64_t step = -1;      ///< lock-step step of the violation
  std::string iteration;  ///< loop iteration(s) of the violation, e.g. "tile=1, k=0"
  double seconds = 0;     ///< Z3 time spent on this property
  /// `timeout` verdicts: the limit that stopped the query (QueryBudget::stop(): rlimit, proof-budget,
  /// wall-clock, wall-clock-budget, or "z3: REASON").
  std::string limit;
  /// `bounded` / `timeout` verdicts: why the property is not proved, one of (verifier/README.md, "Why not proved"):
  /// `unaligned-loops` (the partitions' loops do not run in lock-step; the note says how they differ),
  /// `counter-barrier` (a barrier waited on only after loops whose phases complete inside them),
  /// `nonlinear-abstraction` (a violation of the abstracted tile count that no exact launch realizes),
  /// `not-inductive` (no violation within the bound, but the step from an arbitrary state the learned lemmas allow
  /// violates it), `budget` (`--proof-budget` spent), `query-limit` (one query reached `--timeout`).
  std::string reason;
};

/// The result of proving one kernel.
struct ProofReport {
  std::vector<ProofResult> results;
  std::vector<std::string> notes; ///< why a partition or property was not analyzed
  double seconds = 0;             ///< total Z3 time
  uint64_t rlimit = 0;            ///< total Z3 resource units (rlimit count) of the kernel's queries
  /// The table lemmas as learned from the samples (before base-case refinement), one line each: barrier group,
  /// waiter, slot, key candidate, mask and rows. For tests (memoized and plain learning agree).
  std::vector<std::string> tables;
  bool assumptionsUnsat = false;  ///< the assumptions admit no launch (nothing is proved)
  /// What every verdict rests on beyond the PTX semantics the encoding follows, one sentence each (a wait repeated
  /// on the same barrier and parity taken as a re-observation: Driver::statePremises).
  std::vector<std::string> premises;
};

/// Proves the barrier protocol of the kernel in `module`. Never throws; Z3 errors become notes.
ProofReport proveProtocol(mlir::ModuleOp module, const ProofOptions &options);

} // namespace tlxsim::verifier::proof
