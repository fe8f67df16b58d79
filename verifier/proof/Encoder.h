// The transition encoding (internal to verifier/proof/): symbolic execution of the partitions' ops (execOp, one
// function per op family), the lock-step transition system over the loop nests (initial, step), the ghost state,
// and the events' effect on it with the properties' violation conditions (apply, checkEnd).
#pragma once

#include "verifier/proof/Protocol.h"
#include "verifier/proof/Symbols.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tlxsim::verifier::proof {

/// Whether `op` is a shared-memory view (ttg.memdesc_trans / memdesc_reshape / memdesc_reinterpret /
/// memdesc_subslice) of one stage: its source is a memdesc_index / memdesc_subview result, or such a view of one.
/// The prover gives it its source's stage (ExecBarriers.cpp); a view of a whole multi-stage buffer, whose
/// indexing it may change, stays unencoded.
bool isStageView(mlir::Operation &op);

class Encoder;
/// The symbolic values of an execution, by SSA value. Insertion-ordered (not a hash map keyed by the values'
/// addresses): its copies and its destruction create and free Z3 terms in the same order in every run, and Z3's
/// term numbers (recycled from freed terms) order its search, so the queries and their resource units do not
/// depend on where the heap lies (tests/lit/proof/deterministic.test).
using Env = llvm::MapVector<mlir::Value, Val>;

/// One op under symbolic execution: its operands' values and the helpers that record its results and emit its
/// events (`events` null: a run that only computes values, e.g. a loop's bounds).
struct OpCtx {
  Encoder &E;
  mlir::Operation &op;
  Env &env;
  const z3::expr &guard;
  std::vector<Event> *events;
  int part;
  llvm::StringRef name;

  Val in(unsigned i) const;
  void setInt(const z3::expr &e);
  void setBool(const z3::expr &e);
  /// Results the prover does not follow: fresh values of their types.
  void opaque();
  /// The barrier of operand group `group` (nullopt when absent); throws Unsupported when it is not traced.
  std::optional<Val> groupOperand(const char *group) const;
  /// The predicate of operand group `group` (true when absent, fresh when not followed).
  z3::expr predOf(const char *group) const;
  /// A barrier event; records the group's users, waiters, arrivers and async completion.
  void emit(Event::K k, const Val &bar, const z3::expr &pred, const z3::expr &parity, int64_t amount);
  /// A read of a data stage (how: 0 generic, 1 async MMA operand, 2 TMA store).
  void emitRead(mlir::Value v, const z3::expr &pred, int64_t how = 0);
  /// A generic-proxy write of a data stage.
  void emitWrite(mlir::Value v);
};

/// The encoding of one kernel's protocol: built on the extracted Protocol (whose groups the dry run completes)
/// and the Symbols of the launch. Every function throws Unsupported for code it does not encode.
class Encoder : public Symbols, public Protocol {
public:
  explicit Encoder(Protocol p) : Protocol(std::move(p)) {}

  std::optional<State> shape; ///< the initial state: kinds and barrier groups of loop-carried values
  /// Cluster kernels: the barrier views `ttng.map_to_remote_buffer` makes (the local view, the target CTA).
  struct RemoteView {
    Val bar;
    z3::expr target;
  };
  llvm::MapVector<mlir::Value, RemoteView> remoteViews; ///< insertion-ordered, as Env
  /// Expressions of the ops that reach other CTAs' barriers, and the op: the peers' versions substitute the
  /// issuer's rank, which is exact only when nothing else in them differs between the CTAs (checked by the driver).
  std::vector<std::pair<std::vector<z3::expr>, mlir::Operation *>> peerExprs;
  std::set<int> remoteData; ///< data buffers that other CTAs' multicasts write (stage-ownership not analyzed)
  int64_t ageCap = 1;       ///< the deepest warp_group_dot_wait pendings + 1 (ages beyond it all retire alike)
  bool collecting = false;  ///< dry run that only learns which partitions use which barrier
  /// While true (the unrolling from the start), apply() records every barrier or stage access: its op, barrier or
  /// buffer, slot index and guard (Driver::measureOpSlots sizes the induction depth from the slots one op reaches
  /// in one array in the samples).
  bool recordSlots = false;
  std::vector<std::tuple<mlir::Operation *, int, z3::expr, z3::expr>> slotUses;
  /// While true (the dry step from an arbitrary state, Driver::unrollFromStart), apply() learns the data buffers'
  /// release barriers (Group::releases) from the step's events instead of applying them.
  bool scanReleases = false;

  // ---- symbolic execution (Encoder.cpp, Exec*.cpp) --------------------------------------------
  Val get(Env &env, mlir::Value v);
  Val typedFresh(mlir::Type t, const std::string &name);
  void execOps(llvm::ArrayRef<mlir::Operation *> ops, Env &env, const z3::expr &guard, std::vector<Event> *events,
               int part);
  /// Executes one op under `guard`: updates `env`, appends its events (when `events` is not null).
  void execOp(mlir::Operation &op, Env &env, const z3::expr &guard, std::vector<Event> *events, int part);
  /// The environment of partition `part` at its block's start: kernel arguments, the prefix, the captures.
  Env baseEnv(int part);
  /// The launch parameter name of the kernel's integer argument `i`: its Python name, with `#i` appended when
  /// another argument has the same name (Triton 3.6 names a descriptor's shape / stride arguments after the
  /// descriptor).
  std::string argumentParamName(unsigned i);
  /// The parameter names of the kernel's tensor-descriptor extents: the `rank` shape then `rank` stride integer
  /// arguments that follow each `!tt.tensordesc` argument (Triton's calling convention for host-built descriptors,
  /// both in upstream 3.6 and in fbtriton, which names them `<desc>.shape.<d>` / `<desc>.stride.<d>`).
  std::set<std::string> descriptorExtentParams();

  // ---- transition system (Transition.cpp, Ghost.cpp) -------------------------------------------
  State freshState(const std::string &tag);
  State initial(std::vector<Violation> &viol);
  State step(const State &s, std::vector<Violation> &viol);
  Ghost freshGhost(const std::string &tag);
  Ghost initGhost();
  Val mergeVal(const z3::expr &cond, const Val &a, const Val &b);
  /// Binds the results of scf.if `op` to its branches' yields merged on `cnd` (fresh where they differ in kind).
  void bindIfResults(mlir::Operation &op, Env &env, const z3::expr &cnd);
  /// The tile body's code before the K loop under `guard`: the ops before it in the tile loop's body and, down the
  /// chain of scf.if around it (Part::guards), in each branch that holds it. Returns the guards' conjunction: the
  /// K loop runs in this tile only when it holds. Throws Unsupported when a guard's condition is not followed.
  /// `pinned`: the conditions to take instead of evaluating them (the tile's, PState::conds); `conds` receives the
  /// conditions taken.
  z3::expr execPre(const Part &p, Env &env, const z3::expr &guard, std::vector<Event> *events, int part,
                   const std::vector<z3::expr> *pinned, std::vector<z3::expr> &conds);
  /// The tile body's code after the K loop under `guard` (its results bound in `env`): the rest of each branch
  /// that holds it, the other branches under their negated conditions, the scf.if results, the rest of the body.
  void execPost(const Part &p, Env &env, const z3::expr &guard, std::vector<Event> *events, int part,
                const std::vector<z3::expr> &conds);
  /// Binds `loop`'s body arguments: the carried values, then the induction variable to `iv`.
  void bindBody(Env &env, const LoopView &loop, const z3::expr &iv, const std::vector<Val> &carried);
  /// Binds `loop`'s results to the carried values they are (LoopView::results) when it stops.
  void bindResults(Env &env, const LoopView &loop, const std::vector<Val> &carried);
  State mergeState(const z3::expr &cond, const State &a, const State &b);
  /// Whether the innermost loop of `p` at induction value `k` is one of its real iterations, not one the lock-step
  /// encoding adds to align a peeled first or last iteration (Part::alignedLb / alignedUb), which does nothing.
  z3::expr realIteration(const Part &p, const z3::expr &k);
  /// Whether `loop` runs an iteration at induction value `iv` against its bound `ub`: iv < ub (counted), iv != ub
  /// (a CLC tile loop, LoopView::clc).
  z3::expr loopRuns(const LoopView &loop, const z3::expr &iv, const z3::expr &ub);
  /// Whether partition `i` (loop state `ps`) is inside its outermost loop: not exited, and its tile index (`t`;
  /// `k` for a one-loop partition) runs an iteration against the loop's bound as the code before the loop computes
  /// it. nullopt without a loop or where that bound is not followed.
  std::optional<z3::expr> tileLoopRuns(size_t i, const PState &ps);
  /// The same against the loop bound `ub1` the caller evaluated (the step's own, so that its tile transition reads
  /// the very bound its `in tile` does: a bound from an op the prover does not follow is a fresh value each time).
  z3::expr inTileLoop(const Part &p, const PState &ps, const z3::expr &ub1);
  /// `loop`'s step in `env` (0 for a CLC tile loop, whose partitions' tile ids themselves align); throws
  /// Unsupported when it is not followed.
  z3::expr loopStep(const LoopView &loop, Env &env, const std::string &who);
  /// The induction value after the iteration at `iv` whose body `env` executed: iv + step, or the tile id a CLC
  /// tile loop yields (from this step's cancellation response, `clcResponse`).
  z3::expr loopNext(const LoopView &loop, Env &env, const z3::expr &iv, const std::string &who);
  /// Tile loops in ratio n (TileRatio.cpp, Part::tileRatio). `resolveTilePhases`: each such partition's phase, its
  /// start's offset above the reference partition's in its smaller steps, from the loops' lower bounds in the
  /// launch's terms; where one is not a numeral multiple of the step below the ratio, no partition is aligned (the
  /// loop-alignment lemma then fails as for any other mismatch). Called before the dry run.
  void resolveTilePhases();
  /// The start of `p`'s tile loop in the lock-step encoding: its real start `lb` less its phase's steps.
  z3::expr virtualTileStart(const Part &p, const z3::expr &lb);
  /// Whether lock-step tile `t` is one of `p`'s own tiles (`lb` its real start): t - lb a multiple of its real
  /// step (always true without a ratio).
  z3::expr ownTile(const Part &p, const z3::expr &t, const z3::expr &lb);
  /// Partition `i`'s tile loop start in the launch's terms (the code before its tile loop executed); nullopt where
  /// it is not an integer the encoding follows.
  std::optional<z3::expr> tileLoopStart(size_t i);
  /// The partition whose phase accounting `part`'s waits use: Part::phaseWaiter, or `part` itself.
  int phaseOwner(int part) const;
  /// The ghost key of `part`'s phase accounting on barrier `group`: (group, phaseOwner(part)).
  std::pair<int, int> phaseKey(int group, int part) const;
  /// The response of this lock-step step's `ttng.clc_query_cancel`s (PTX ISA clusterlaunchcontrol.query_cancel):
  /// the first CTA id of a cancelled cluster (>= 0) or -1 (no cluster left), one nondeterministic value per step
  /// that every partition's query in the step reads (step() resets it). The partitions read the same response
  /// because their tile transitions are aligned (the loop-alignment lemma) and the response buffer is written once
  /// per tile, by the try_cancel that the phases of its barriers order (see verifier/proof/README.md).
  std::optional<z3::expr> clcResponse;

  // ---- properties (Properties.cpp) -------------------------------------------------------------
  /// The events of one step on the ghost state, appending the properties' violation conditions.
  void apply(Ghost &g, const std::vector<Event> &events, std::vector<Violation> &viol);
  /// phase-balance and tx-balance at the kernel's end (when `when` holds); `only` >= 0: of that group only.
  void checkEnd(const Ghost &g, const z3::expr &when, std::vector<Violation> &viol, int only = -1);
  /// Named barriers (NamedBarriers.cpp): their ghost counters at zero, or fresh (`freshValues`, the induction
  /// window's arbitrary state, with the invariants 0 <= synced <= arrived); one arrival (Event::Named); the
  /// named-balance violations at the kernel's end.
  void initNamed(Ghost &g, bool freshValues, const std::string &tag);
  void applyNamed(Ghost &g, const Event &e);
  void checkNamedEnd(const Ghost &g, const z3::expr &when, std::vector<Violation> &viol);
  /// A fresh instance of local barrier `e.group` (Event::Alloc): the previous one balanced, its ghost restarted.
  void restart(Ghost &g, const Event &e, std::vector<Violation> &viol);
  /// Learns Group::releases from one step's events: barrier `r` releases data buffer `b` when a partition
  /// arrives on `r` at an index term equal (after simplification) to one at which it reads `b` in the step, and `b`'s
  /// writers wait on `r` (writersWaitOn: a barrier they never wait on hands them nothing). The
  /// step must start from an arbitrary state (freshState): from the initial state the indices are numerals and
  /// unrelated rings would pair (TLX's ping-pong attention: `q_tiles[1]` and `k_empties[0]`).
  void learnReleases(const std::vector<Event> &events);
  /// Fills Group::drainWaiters from the dry run's uses: a depth-2 partition that is a barrier's only arriver, by
  /// tcgen05 (an MMA's completion barrier), and waits on it in its tile loop but never in its K loop nor after.
  void findDrainWaiters();
  /// The waiter whose balance judges a slot no waiter has waited on (checkEnd): the first that is not a drain
  /// waiter (-1: none).
  int firstJudge(const Group &grp) const;
  /// The waiters of `grp` with their own phase accounting (replicas in turn count once, Part::phaseWaiter).
  size_t phaseWaiters(const Group &grp) const;
  /// Whether a writer of data buffer `buf` (TMA or generic) waits on barrier `rel` (before it refills a stage).
  bool writersWaitOn(const Group &buf, const Group &rel) const;
  /// Whether barrier `r` may be the one the readers of data buffer `b` hand its stages back with (stage-ownership:
  /// the writer's wait on it must name the stage it overwrites; an in-flight reader must not arrive on it): a
  /// barrier array of `b`'s stage count, one of `b`'s learned releases when it has any, else one `b`'s writers wait
  /// on.
  bool mayRelease(int r, int b) const;
  /// The tx-per-step lemma at a step boundary (when `when` holds).
  void checkBoundary(const State &s, const z3::expr &when, std::vector<Violation> &viol);

  /// Per barrier group, the pairs of waits (first, second) the encoding may take as a re-observation (reobserves):
  /// premises of the kernel's verdicts (Driver::statePremises).
  std::map<int, std::set<std::pair<mlir::Operation *, mlir::Operation *>>> reobservable;

private:
  friend struct OpCtx;
  // Op families of execOp, each called for the ops of its family only (in execOp's order).
  void execValue(OpCtx &x);   ///< constants, program ids, cluster rank, integer arith (ExecValues.cpp)
  void execIf(OpCtx &x);      ///< scf.if (ExecValues.cpp)
  /// `x OP y` (arith.andi / ori / xori) when one side is a constant in {-1, 0, 1} or an ite of such constants (a
  /// parity bit from `extui` of an i1); nullopt otherwise (ExecValues.cpp).
  std::optional<z3::expr> bitwiseWithConstants(llvm::StringRef name, const z3::expr &x, const z3::expr &y,
                                               int depth = 0);
  /// `x OP y` for a bitwise op or shift of values that depend on the cluster rank alone: an ite over the ranks of
  /// the cluster; nullopt otherwise (ExecValues.cpp).
  std::optional<z3::expr> overClusterRank(llvm::StringRef name, const z3::expr &x, const z3::expr &y);
  void execMemory(OpCtx &x);  ///< local_alloc, memdesc_index, init_barrier, stage views (ExecBarriers.cpp)
  bool execCluster(OpCtx &x); ///< cluster kernels: remote and multicast ops; false: not one (ExecBarriers.cpp)
  void execBarrier(OpCtx &x); ///< wait, arrive, expect, TMA load, tcgen05 commit (ExecBarriers.cpp)
  void execAsync(OpCtx &x);   ///< MMAs, wgmma waits, loads, stores, TMA store, proxy fence (ExecAsync.cpp)
  void execOther(OpCtx &x);   ///< anything else: opaque, or Unsupported when it synchronizes (ExecAsync.cpp)
  /// cp.async.bulk.wait_group.read `pendings` of the partition's TMA stores (a StoreWait event; ExecAsync.cpp).
  void storeWait(OpCtx &x, int64_t pendings);
  /// The pendings of a TMA store token wait: the TMA stores issued between the token's store and the wait, in
  /// program order (fbtriton NVGPUTMAStoreTokenWaitLowering computePendings); 0 for a token whose store is not
  /// before the wait in its block (loop-carried, ub.poison): every store retires, which may miss a bug of such a
  /// kernel but never reports one. Throws Unsupported when a region between them holds TMA stores.
  int64_t tokenPendings(mlir::Operation &wait);
  // Cluster kernels (ExecPair.cpp).
  /// Peer events of `templ` (an event in the issuer's terms): the issuer's own view (`issueOnly`), then for every
  /// CTA of the cluster its version (rank and program ids substituted, Symbols::forPeer) reaching this CTA's
  /// barrier when `sel` names this CTA: a CTA mask (`isMask`) or a rank. The peers are assumed to run the same code
  /// on the same loop state; the driver checks that nothing else in these expressions differs (peerExprs).
  void emitPeers(OpCtx &x, Event templ, const z3::expr &sel, bool isMask);
  /// Whether `op` is a 2-CTA tcgen05 MMA or commit (cta_group::2) of a cluster kernel: `two_ctas`, or for a
  /// commit the module's 2-CTA mode (`ttng.two-ctas`, TLX `tlx.enable_paired_cta_mma`; fbtriton 3.7
  /// TCGen5CommitOpConversion takes the module's flag), the simulator's reading (sim/lowering/Tcgen05.cpp).
  bool pairArrives(mlir::Operation &op) const;
  /// The completion arrive of a 2-CTA MMA or commit on barrier `bar`: issued by the pair's even CTA only (Triton
  /// MMAv5.cpp predicates the op on %cluster_ctarank & 1 == 0) and arriving once on the barrier at the same offset
  /// in both CTAs of the pair (tcgen05.commit.cta_group::2 .multicast::cluster with mask 3 << even rank, PTX ISA
  /// 9.7.16.12.1). Throws Unsupported for a cluster of an odd number of CTAs.
  void emitPairArrive(OpCtx &x, const Val &bar, const z3::expr &pred);
  /// The barrier events of the current lock-step step so far (Properties.cpp applySlots), for a same-parity re-wait
  /// in one iteration: the waits on each slot (op, partition, whether it selected the slot, the waiter's phase
  /// balance B right after it, how many signals came before it) and the signals (arrive, expect, TMA completion).
  struct StepLog {
    struct Wait {
      mlir::Operation *op;
      int part, slot;
      z3::expr hit, B;
      size_t signalsBefore;
    };
    struct Signal {
      int part, group;
      z3::expr idx, guard;
    };
    std::map<std::pair<int, int>, std::vector<Wait>> waits; ///< per phase key
    std::vector<Signal> signals;
  };
  /// Applies one barrier event's slot accounting (phase balance, parity, tx-count, slot range); `log`: this step's
  /// barrier events so far.
  void applySlots(Ghost &g, const Event &e, std::vector<Violation> &viol, StepLog &log);
  /// Whether the wait `w` of this step is re-observed by the wait `e` on slot `s` (same parity, Properties.cpp).
  /// None where the two waits are not a candidate at all (other block, order, partition, slot or phase operand).
  std::optional<z3::expr> reobserves(const StepLog &log, const StepLog::Wait &w, const Event &e, int s,
                                     const z3::expr &B);
  struct StepAcc;
  /// A one-loop partition in a kernel with K loops: one iteration of its loop per tile transition (Part).
  void stepTileOnly(size_t i, const State &s, State &out, const z3::expr &active, StepAcc &acc,
                    std::vector<Violation> &viol);
  void stepPartition(size_t i, const State &s, State &out, const z3::expr &active, StepAcc &acc,
                     std::vector<Violation> &viol);
};

/// An integer attribute of `op`, `dflt` when absent.
int64_t intAttr(mlir::Operation &op, const char *name, int64_t dflt);

/// The op that defines the token a `ttng.async_tma_store_token_wait` waits on (its TMA store, or an scf result,
/// ub.poison, ...); null for a block argument (a loop-carried token). ExecAsync.cpp.
mlir::Operation *tokenDef(mlir::Operation &wait);

} // namespace tlxsim::verifier::proof
