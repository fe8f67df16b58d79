// The k-induction / bounded-model-checking driver (internal to verifier/proof/): unrolls the encoding from the
// initial state and over the induction window, constrains the launch, learns lemmas (Lemmas.h), checks the
// properties by BMC (Houdini over the lemmas), searches each violated property's counterexample
// (Counterexample.cpp) and proves the rest by k-induction, all under the budgets of Budget.h.
#pragma once

#include "verifier/proof/Budget.h"
#include "verifier/proof/Encoder.h"
#include "verifier/proof/Lemmas.h"
#include "verifier/proof/Prover.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace tlxsim::verifier::proof {

/// The proofs of one kernel: the encoding of its extracted protocol plus the queries' state. run() is the
/// whole pipeline; each phase is a member function that reads and extends the state below.
class Driver : public Encoder {
public:
  /// `report` holds the notes of the stages before (named barriers); `budget` has been started.
  Driver(Protocol protocol, const ProofOptions &options, QueryBudget &budget, ProofReport report);
  /// Proves the protocol; throws z3::exception or Unsupported only where the original encoding would.
  ProofReport run();

private:
  using Selector = std::function<bool(const Violation &)>;
  const ProofOptions &options;
  QueryBudget &budget;
  ProofReport report;
  z3::params solverParams;
  ProofDepths depths;
  int k = 1, N = 1;  ///< induction depth and BMC bound (depths.k, depths.bound)
  int maxSlots = 1;
  int opSlots = 0; ///< the most distinct slots one barrier or buffer op reaches in the samples (0: none seen)
  std::vector<State> states;                ///< unrolled from the initial state
  std::vector<std::vector<Violation>> viol; ///< per step of `states`
  std::vector<State> wstates;               ///< the k-induction window: k + 1 steps from an arbitrary state
  std::vector<std::vector<Violation>> wviol;
  bool windowOk = true;
  /// Cluster kernels: the peers' loop state may differ from this CTA's in the induction window (a loop-carried
  /// value that depends on the rank or program id, e.g. a persistent tile loop's ring counter, whose trip count
  /// differs between the CTAs): the bounded check, unrolled from the launch, follows every CTA exactly, the window
  /// cannot; the reason (clusterPeersAgree), and the properties stay `bounded` (reason `cluster-peers`).
  std::string peerWindowWhy;
  size_t windowPeerStart = 0; ///< peerExprs recorded by the window's steps start here (buildWindow)
  int structuralFailed = -1; ///< the structural lemma (kind) that failed in the base case, -1 if none
  std::string bmcStop;       ///< the limit (QueryBudget::stop) that stopped a BMC query, empty if none did
  std::set<std::pair<int, int>> props; ///< (kind, group) of the reported properties
  std::vector<ProofResult> results;    ///< one per property, in `props` order
  std::vector<Selector> sels;          ///< the violations of each property
  std::set<int> dropped;               ///< learned lemmas refuted (by BMC or the induction step)
  std::map<int, Table> tables;         ///< lemma id -> learned table
  int anchor = -1;                     ///< the first partition with a loop (the tables' key reads its loop)
  int R = 2;                           ///< the `iterations left` feature's cap: max slots + 1
  /// The longest constant K loop whose end the samples reach (deepenForConstantLoop): the unrolling grows by one
  /// lock-step step per iteration, the samples' cost with it.
  static constexpr int64_t kMaxSampledTrips = 64;
  int64_t remStep = 1;          ///< the anchor's K-loop step when a constant above 1 with constant bounds (remOf)
  /// The same for a loop of symbolic bounds: its tables keep `iterations left` in index units, and a second table
  /// in iterations (Table::remIter) is a lemma beside each one that uses the feature (learnTables).
  int64_t remStepSymbolic = 1;
  int defaultUnroll = 0;        ///< depths.unroll before deepenForConstantLoop (0: not deepened)
  size_t defaultSlotUses = 0;   ///< slotUses recorded by the first defaultUnroll steps
  int endStep = -1;             ///< the first step at which every run of the encoding is done (-1: unknown / none)
  bool bmcReachedBound = false; ///< runBmc checked every depth to N without an unknown
  int baseBound = 1;            ///< the bound before findEndStep raised it: the induction's base case needs no more
  bool lemmasHold = true;
  /// The launch-existence query's solver, kept alive to the end of run(): freeing it earlier recycles Z3's AST ids
  /// and changes later queries' term order (and so their models) against the pre-split prover.
  std::optional<z3::solver> launchSolver;

  // ---- phases (Driver.cpp) ---------------------------------------------------------------------
  /// The anchor (the first partition with the deepest loop nest) and its K loop's constant step (remStep).
  void chooseAnchor();
  /// Sets endStep when the anchor's K loop has a constant trip count and no run of the encoding is still active
  /// at the last unrolled state (one query, then a binary search for the first such step; `done` only turns true).
  void findEndStep();
  /// Every run ends by endStep and the BMC checked every step to it without an unknown: the properties it did not
  /// violate hold on every run (a completeness threshold: the encoding's runs are its first endStep steps).
  void proveByCompleteBmc();
  /// A K loop of a constant trip count beyond the unrolling (TLX's autoWS attention: 32 iterations): unrolls far
  /// enough for the samples to see its last iterations and the next tile's start (depths.unroll only; the BMC
  /// bound and the induction depth stay).
  void deepenForConstantLoop();
  bool unrollFromStart(); ///< the dry run, then `depths.unroll` steps from the initial state
  void constrainLaunch(); ///< argument ranges, tt.divisibility, grid, clusters, assumptions
  bool launchesExist();   ///< false (with a note) when the assumptions admit no launch
  bool collectProperties();
  void buildWindow();
  bool clusterPeersAgree(); ///< cluster kernels: false (with a note) when a peer's ops may differ
  /// Bounded model checking from the initial state to N (Driver.cpp); `quick`: the short pass's base case (false
  /// at an unknown or a violated property; no search, nothing reported).
  bool runBmc(bool quick = false);
  /// k-induction with Houdini over the properties the BMC left open (Induction.cpp); `quick`: the short pass.
  void runInduction(bool quick = false);
  /// The verdicts of one induction run (Induction.cpp): `active` proved (in `open`, the properties it started
  /// with), the rest `timeout` (`unknownSeen`) or `bounded` (reason `why`); `quick` writes the proofs only.
  void recordInduction(const std::set<size_t> &open, const std::set<size_t> &active, bool unknownSeen, double indSecs,
                       const std::string &why, bool quick);
  /// The short pass (ShortInduction.cpp): before the full check at k = 2 x slots + 1, the base case and (when it
  /// violates no property) the induction at kShortInduction, within 3/5 of the budget; what it proves is final (and
  /// a hypothesis of the full induction), the rest goes to the full check with every lemma the pass's Houdini
  /// dropped restored.
  void shortInductionFirst();
  static constexpr int kShortInduction = 3;
  std::set<size_t> provedShort; ///< results proved by the short pass
  uint64_t shortPassEnd = 0;    ///< the short pass's induction queries stop at this QueryBudget::totalUnits()
  /// Why property `kind` on barrier `group` may stay `bounded` where the encoding knows it: a counter barrier
  /// (a waiter that waits on it only after its loops while its phases complete inside them: Ghost::avail) has a
  /// balance that grows with the trip count, which no table lemma (one balance per key) expresses. Empty otherwise.
  std::string boundedReason(int kind, int group) const;
  /// TLXSIM_PROOF_DEBUG_WINDOW (with TLXSIM_PROOF_DEBUG): the induction counterexample `m`'s window on stderr, the
  /// loop state of every step and the ghost state of barrier `group`.
  void printWindow(const z3::model &m, int group);
  /// Sets ProofResult::reason of every `bounded` / `timeout` verdict that has none yet.
  void classifyUnproved();
  /// Writes the premises of the verdicts (ProofReport::premises): the repeated waits taken as re-observations.
  void statePremises();

  // ---- queries (Driver.cpp) --------------------------------------------------------------------
  /// One query under the budgets (QueryBudget::check; `units` 0: --timeout's resource limit).
  z3::check_result check(z3::solver &s, double &seconds, uint64_t units = 0) { return budget.check(s, seconds, units); }
  z3::expr anyViol(size_t from, size_t to, const Selector &sel, const std::vector<std::vector<Violation>> &vv);
  z3::solver newSolver(bool small);
  z3::solver inductionSolver(); ///< the k-induction step's solver (tactic pipeline; TLXSIM_PROOF_INDUCTION=plain)
  void dropRemote(std::vector<std::vector<Violation>> &vv);

  // ---- lemmas (Lemmas.cpp) ---------------------------------------------------------------------
  void learnLemmas();
  /// Appends the sample runs to `samples`, one query each on `sampler` (made by newSolver(true)).
  void takeSamples(z3::solver &sampler, std::vector<z3::model> &samples);
  /// One table lemma per (barrier slot, waiter) whose samples some key determines; returns the next lemma id.
  int learnTables(std::vector<SampleValues> &samples);
  void measureOpSlots(std::vector<SampleValues> &samples); ///< sets opSlots
  void addTable(int id, Table t);
  /// Registers learned lemma `id` (kind LemmaTable) of barrier group `group` (-1: none) and partition `part`: its
  /// violation `violatedAt(st)` at every unrolled state (the base case) and every induction-window state, in that
  /// order. Every learned lemma goes through here, so that the bounded check and Houdini treat them alike.
  void addLemma(int id, int group, int part, const std::function<z3::expr(const State &)> &violatedAt);
  /// The key candidates of a table on a barrier of `S` slots (with `tiles`: the tile loops' indices too).
  std::vector<Cand> tableCands(int S, bool tiles) const;
  /// Whether `waiter` waits on barrier `group` once per tile: in its tile loop (a one-loop partition's loop, in a
  /// kernel with K loops), never in a K loop, and not as a drain wait (which follows the arrivals, not `last`).
  bool perTileWaiter(int group, int waiter) const;
  void appendIntCarried(size_t q, std::vector<Cand> &out) const; ///< partition q's loop-carried integers
  int learnRangeLemmas(std::vector<SampleValues> &samples, int lemmaId); ///< returns the next lemma id
  int learnOffsetLemmas(std::vector<SampleValues> &samples, int lemmaId); ///< returns the next lemma id
  int learnWaiterLemmas(std::vector<SampleValues> &samples, int lemmaId); ///< returns the next lemma id
  /// Phase-bit lemmas (ParityLemmas.cpp): a loop-carried integer that is 0 or 1 in every sample state (a phase
  /// toggled by `p ^= 1`) stays in [0, 1], and its difference to another loop-carried integer of the same partition
  /// keeps its parity where every sample state agrees on it. Returns the next lemma id.
  int learnParityLemmas(std::vector<SampleValues> &samples, int lemmaId);
  using TermOf = std::function<std::optional<z3::expr>(size_t, const State &)>;
  /// Lemmas `term(i) - term(j) == d` for the pairs (i, j < i) of `n` integer terms that `pairOk` admits, whose
  /// difference is the same constant d in every live state of every sample; each term is tied to its first such
  /// partner (the partners' own lemmas chain the rest). `term(i, st)`: nullopt where the term is not tracked;
  /// `partOf(i)`: the partition named in the lemma; `describe`: its debug text. Returns the next lemma id.
  int learnConstantDifferences(std::vector<SampleValues> &samples, int lemmaId, size_t n, const TermOf &term,
                               const std::function<bool(size_t, size_t)> &pairOk,
                               const std::function<int(size_t)> &partOf,
                               const std::function<std::string(size_t, size_t)> &describe);
  /// Offset lemmas of tile loops in ratio (Part::tileRatio, TileLemmas.cpp): per residue of a replica's tile index
  /// modulo its real step (its own tiles, and each of the others'), a loop-carried integer of the replica that differs
  /// from one of the reference partition's by `a + b x T` in every sample state of that residue, T the reference's
  /// K-loop trip count, keeps that difference (TLX's ping-pong GEMM: a consumer's ring counter equals the producer's
  /// on its own tiles and stands a whole tile, T, ahead on the other's). Returns the next lemma id.
  int learnTileOffsets(std::vector<SampleValues> &samples, int lemmaId);
  /// Named barriers' counters with a constant difference in the samples (NamedBarriers.cpp); the next lemma id.
  int learnNamedLemmas(std::vector<SampleValues> &samples, int lemmaId);
  std::optional<z3::expr> varExpr(const State &st, const Cand &cd);
  /// Cand::kTileFromStart: partition `part`'s tile index less its tile loop's start (nullopt where not followed).
  std::optional<z3::expr> tileFromStart(int part, const PState &ps);
  std::map<int, z3::expr> tileStarts;                             ///< tileFromStart: the loops' starts
  std::map<std::pair<int, unsigned>, z3::expr> tileOffsetTerms;   ///< tileFromStart: its terms, kept alive
  z3::expr remOf(const State &st, bool iterations = false);
  z3::expr inTileOf(const State &st);
  /// The CTA's rank in its cluster where the encoding reads it (a cluster kernel); nullopt otherwise (TableKey bit 5).
  std::optional<z3::expr> clusterRank() const;
  z3::expr tableAt(const Table &t, const State &st);
  std::optional<std::pair<TableKey, TableRow>> observe(const Table &t, const z3::model &m, const State &st);
  /// Base case: a table without a row for the reachable state `d` of `m` learns it; false: it cannot.
  bool refineTable(int lemma, const z3::model &m, size_t d, std::set<int> &refinedNow);
  void updateRefined(const std::set<int> &refinedNow);

  // ---- counterexamples (Counterexample.cpp) ----------------------------------------------------
  /// Property `i`, violated (or unknown) in the base case: its counterexample over `cexDepth` steps (the full
  /// bound `fullDepth` when needed), or `bounded` / `timeout` with the reason.
  void searchCounterexample(size_t i, size_t cexDepth, size_t fullDepth);
  void preferLaunch(size_t i, size_t depth, z3::model &model);
  void describeCounterexample(z3::model &m, int kind, int group, ProofResult &r);
};

/// The launch a counterexample search prefers, first ones first: program ids and the cluster rank 0 (the CTA a
/// replay shows first), the simulated launch's values (`launch`), then positive, else non-negative, sizes of the
/// other scalar arguments, then those sizes at most 2^20, 2^16, 2^12, 2^8 in turn (a replay's cost grows with them). Each pair is (the parameter or a condition on it, the value it should take).
std::vector<std::pair<z3::expr, z3::expr>> launchPreferences(z3::context &c,
                                                             const std::map<std::string, z3::expr> &params,
                                                             const std::map<std::string, int64_t> &launch);

} // namespace tlxsim::verifier::proof
