// The vocabulary the prover's stages share (internal to verifier/proof/): property kinds, the symbolic values of
// the encoding, the extracted protocol's barrier groups and partitions, the events one lock-step step emits, the
// loop and ghost state, and the violation conditions the queries check.
#pragma once

#include "ir/Location.h"
#include "verifier/proof/Loops.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"

#include <z3++.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tlxsim::verifier::proof {

enum Kind {
  WaitParity = 0, PhaseBalance, TxBalance, SlotRange, StageOwnership, ProxyFence, NamedBalance,
  LemmaAlign, LemmaTx, LemmaTable, NumKinds
};
inline const char *kindName(int k) {
  static const char *names[] = {"wait-parity", "phase-balance", "tx-balance", "slot-range", "stage-ownership",
                                "proxy-fence", "named-balance", "loop-alignment",
                                "tx-per-step", "phase-table"};
  return names[k];
}

/// Thrown by every stage for a kernel the prover does not encode; `why` becomes a "not analyzed" note.
struct Unsupported {
  std::string why;
};

/// A symbolic SSA value: an integer, a boolean, a barrier slot (group + index), or nothing we track.
struct Val {
  enum K { None, Int, Bool, Bar, Buf } k = None; ///< Buf: a stage of a staged data buffer (group: its array)
  std::optional<z3::expr> e; ///< the integer / boolean, or the slot index of a barrier
  int group = -1;
};

/// One barrier allocation (`ttg.local_alloc` of i64 elements): its slots and init counts.
struct Group {
  std::string name;
  ir::SourceLoc loc;
  int slots = 1;
  std::vector<int64_t> count; ///< init count per slot (1 until an init is seen)
  std::set<int> waiters;      ///< partitions that wait on it
  std::set<int> loopWaiters;  ///< partitions that wait on it inside their loop nest
  std::set<int> afterWaiters; ///< partitions that wait on it in the code after their loop nest
  std::set<int> innerWaiters; ///< partitions that wait on it inside their innermost (K) loop
  std::set<int> asyncArrivers; ///< partitions whose tcgen05 ops arrive on it (an MMA's barrier, tcgen05.commit)
  /// Partitions that wait on it only to drain their own tcgen05 arrivals (Encoder::findDrainWaiters): the sole
  /// arriver, waiting in its tile loop after its K loop, never inside it. Such a wait names the barrier's latest
  /// phase, not the next one in turn (TLX's "wait for the last MMA of the tile": smem_empty[last_buf] with the
  /// parity of that buffer's last use), so it follows the arrival count, not the phases the waiter consumed.
  std::set<int> drainWaiters;
  std::set<int> users;        ///< partitions that use it at all
  bool asyncSignals = false;  ///< completed by TMA bytes or tcgen05 arrivals (in flight until a wait sees them)
  /// A staged data buffer (`ttg.local_alloc` of S x ... non-i64 elements), not a barrier: the subject of
  /// stage-ownership (written by TMA through `fill`, read by wgmma / tcgen05 MMA / local_load).
  bool data = false;
  /// A barrier allocated inside a partition or a loop body: every execution of its `ttg.local_alloc` makes a fresh
  /// barrier (an Alloc event): the previous one's phases must be balanced then, and its ghost state restarts.
  bool local = false;
  std::set<int> fill;      ///< data: barrier groups its TMA writes complete on
  std::set<int> readers;   ///< data: partitions that read it
  std::set<int> arrivers;  ///< barrier: partitions that arrive on it (plain or tcgen05 commit)
  std::set<int> signallers; ///< barrier: partitions that arrive on it, expect bytes on it or issue copies completing on it
  std::set<int> genericWriters; ///< data: partitions that write it through the generic proxy (local_store / alloc)
  std::set<int> tmaWriters;     ///< data: partitions whose TMA loads write it
  std::set<int> wgmmaReaders;   ///< data: partitions whose wgmma (warp_group_dot) reads it
  std::set<int> storeReaders;   ///< data: partitions whose TMA stores (bulk groups) read it
  /// data: the barriers its readers hand a stage back with: a reader partition arrives on slot i of the barrier
  /// with the very index term (same symbolic value) at which it reads stage i (`empty[s]` after reading
  /// `bufs[s]`), learned from one step of an arbitrary state (Encoder::learnReleases). Empty when no reader does:
  /// then every barrier of the buffer's stage count that a reader arrives on is taken (Encoder::mayRelease).
  std::set<int> releases;
  /// A hardware named barrier (`ttng.wait_barrier_named` = bar.sync, `ttng.arrive_barrier_named` = bar.arrive,
  /// with a constant id; PTX ISA 9.7.13.1), not an allocation: `count[0]` is its thread count, equal to the sum
  /// of `namedThreads` (the threads each partition that uses it contributes per arrival), so that each phase takes
  /// one arrival of each such partition (NamedBarriers.cpp); `syncers` are the partitions that bar.sync on it.
  bool named = false;
  std::map<int, int64_t> namedThreads;
  std::map<int, mlir::Operation *> syncers; ///< partition -> its first bar.sync on the barrier (a violation's op)
};

/// One partition: its block and loop nest (pre; for L1 { pre1; [if c {] for L2 { body } [}]; post1 }; post). In a
/// kernel whose deepest nest has two loops, a partition with one loop runs it as a tile loop: one iteration per
/// tile transition of the partitions with a K loop (an epilogue partition).
struct Part {
  std::string name;
  mlir::Block *block = nullptr;
  std::vector<std::pair<mlir::Value, mlir::Value>> seeds; ///< block argument <- warp_specialize operand
  int depth = 0;
  mlir::Operation *l1 = nullptr, *l2 = nullptr;
  std::optional<LoopView> v1, v2; ///< their counted views (Loops.h): bounds, body, induction variable, carried values
  /// The scf.if ops between the tile loop's body and the K loop, outermost first, and whether the K loop lies in
  /// the then branch (true) or the else branch: a guarded K loop (`if k_tiles > 0: for k in ...`, a tile-validity
  /// test). The K loop runs in a tile only when the guards hold (Transition.cpp, execPre / execPost).
  std::vector<std::pair<mlir::Operation *, bool>> guards;
  /// The innermost loop's lower bound when it is a constant above another partition's (same constant step): a
  /// peeled first iteration, e.g. `for k in range(1, n)` against a producer's `range(0, n)`. The lock-step
  /// encoding runs this loop from `alignedLb` instead, the iterations below the real bound doing nothing, so
  /// that the partitions' iterations stay aligned (Protocol.cpp, alignLowerBounds).
  std::optional<int64_t> realLb, alignedLb;
  /// The innermost loop's upper bound when it is a constant a few constant steps below another partition's (same
  /// constant lower bound and step): a peeled last iteration, e.g. `for k in range(0, n - 128, 128)` and the last
  /// block after the loop against a producer's `range(0, n, 128)` (TLX's fused_attention_ws_device_tma_dp). The
  /// lock-step encoding runs this loop to `alignedUb`, the iterations from the real bound on doing nothing, so the
  /// partitions' K loops end together and the peeled block runs at the tile transition (Protocol.cpp,
  /// alignUpperBounds).
  std::optional<int64_t> realUb, alignedUb;
  /// A tile-only partition (one loop beside partitions with a K loop) whose loop runs `range(0, n - 1)`: the code
  /// before it handles the first tile (Meta's autoWS epilogue with `tt.merge_epilogue`: the first tile's store
  /// before the loop, tile i + 1's in iteration i). It runs one tile fewer than the K-loop partitions, so it may
  /// leave its loop a tile before them (Transition.cpp, the loop-alignment lemma).
  bool peeledFirstTile = false;
  /// A tile loop that takes every n-th tile of another partition's (TileRatio.cpp): its constant step is n x
  /// `tileStep`, the smallest constant step of the partitions' tile loops, and its start lies `tilePhase` such steps
  /// above that of the reference partition `tileRef` (whose loop steps `tileStep`): TLX's ping-pong GEMM, whose two
  /// consumer replicas step 2 x NUM_SMS from start and start + NUM_SMS against the producer's NUM_SMS. The lock-step
  /// encoding runs it as `range(start - tilePhase x tileStep, ub, tileStep)` whose tiles other than its own (the
  /// n-th from its real start on) do nothing, so that its tiles are the reference's tiles it takes (Transition.cpp).
  /// 0: no ratio (aligned as is).
  int64_t tileRatio = 0, tileStep = 0, tilePhase = 0;
  int tileRef = -1;
  /// The partition whose phase accounting a wait of this one shares (Ghost: B, D, has, last keyed by it): the first
  /// replica of its ratio group. Replicas that take turns over one loop's tiles consume the phases of a barrier they
  /// both wait on in turn (each the phases of its own tiles), as one waiter would. -1: itself.
  int phaseWaiter = -1;
};

/// One synchronization or data effect of an op, as one lock-step step executes it under `guard`.
struct Event {
  /// Read: a data stage read (group: the data array; amount 0 generic, 1 async MMA, 2 TMA store);
  /// Write: a generic-proxy write of a data buffer; Fence: fence.proxy.async (group -1);
  /// Dot: a wgmma group committed (group -1; its operand reads follow as Read events with `wgmma`);
  /// DotWait: warp_group_dot_wait {pendings = amount} (group -1).
  /// StoreWait: cp.async.bulk.wait_group.read {amount}: the partition's TMA stores older than its `amount` most
  /// recent ones have read their shared memory (group -1; async_tma_store_wait, a token wait).
  /// Alloc: a fresh instance of a local barrier (Group::local) allocated here.
  /// Named: an arrival on a named barrier (group: its pseudo-group, Group::named; amount 1 for bar.sync, 0 for
  /// bar.arrive).
  enum K { Wait, Arrive, Expect, Tma, Read, Write, Fence, Dot, DotWait, StoreWait, Alloc, Named } k;
  int group;
  z3::expr idx, guard, parity;
  int64_t amount; ///< arrive count or bytes
  mlir::Operation *op;
  int part;
  int dgroup = -1;                 ///< Tma: the data array written (-1: not a staged buffer)
  std::optional<z3::expr> didx;    ///< Tma: the stage written
  bool wgmma = false;              ///< Read: an operand of a wgmma (in flight until a warp_group_dot_wait retires it)
  /// Cluster kernels: `peer`: bytes or an arrival that a CTA of the cluster (this one included) delivers to this
  /// CTA's barrier (multicast mask, remote barrier), in the issuer's terms with its rank substituted; barrier
  /// accounting only. `issueOnly`: the issuer-side view of such an op (its own wgmma depth, slot range); no
  /// accounting.
  bool peer = false, issueOnly = false;
};

/// One partition's loop state: tile index `t` and K index `k` (depth 2; depth 1: `k` only), the loop-carried
/// values of the tile loop (`outer`) and of the innermost loop (`inner`).
struct PState {
  std::optional<z3::expr> t, k;
  std::optional<z3::expr> first, ub; ///< innermost loop: no iteration of it ran yet; its upper bound
  /// The partition has left its loop nest and run the code after it (once): partitions whose loops iterate a
  /// different number of times than the others' leave at different steps, and the kernel ends when all have.
  std::optional<z3::expr> exited;
  /// The conditions of the K loop's guards (Part::guards) and its bound, as the tile's start evaluated them: an
  /// scf.for takes its bounds once, and a guard's value must not change within the tile (a re-evaluation of a
  /// quotient of symbols is a fresh abstraction each time, Symbols::nonlinear).
  std::vector<z3::expr> conds;
  std::vector<Val> outer, inner;
};

/// The ghost state of the protocol: per barrier slot the tx-count balance (`tx`), per (barrier, waiting
/// partition) and slot the phase balance `B` (arrivals minus phases consumed, in arrivals), `D` (the first wait
/// targeted the initial phase), `has` (a wait was seen) and `last` (the parity of the latest wait).
struct Ghost {
  std::vector<std::vector<z3::expr>> tx;                 ///< [group][slot]
  /// (writer partition, data buffer) -> a generic write of it not yet followed by a proxy fence
  std::map<std::pair<int, int>, z3::expr> dirty;
  std::map<std::pair<int, int>, std::vector<z3::expr>> B, D, has, last; ///< (group, waiter) -> [slot]
  /// Barriers completed by async signals (Group::asyncSignals), waiters that wait on them only after their loops
  /// (Group::afterWaiters, not loopWaiters: one wait per kernel): the waiter's balance just before its first wait on
  /// the slot (`avail`), i.e. the arrivals it could have let pass unobserved. A phase completes whether or not
  /// anyone waits for it (PTX ISA mbarrier), so a first wait may observe a later phase of its parity than the
  /// first one (a counter barrier: an MMA commit every iteration, one wait after the loop); checkEnd reads the
  /// phases before it as skipped when they had completed by then. (group, waiter) -> [slot]
  std::map<std::pair<int, int>, std::vector<z3::expr>> avail;
  /// wgmma depth, per (reader partition, data buffer) and stage: a wgmma group reading the stage may still be in
  /// flight (`inflight`), and how many groups the partition committed since the latest one that reads it, itself
  /// included (`age`, capped at the deepest `pendings` + 1: warp_group_dot_wait {pendings = N} retires every
  /// group older than the N most recent, PTX ISA wgmma.wait_group). The same for a partition's TMA stores (each
  /// one bulk group, Group::storeReaders): the stores since, and cp.async.bulk.wait_group.read N retires the older.
  std::map<std::pair<int, int>, std::vector<z3::expr>> inflight, age;
  /// Stages a reader holds, per (reader partition, data buffer) and stage: it waited on the stage's slot of the
  /// buffer's fill barrier and has not released the stage since (an arrive on one of the buffer's release
  /// barriers, Encoder::mayRelease). A software-pipelined reader reads a stage it waited for in an earlier
  /// iteration (TLX blackwell_fa_ws_pipelined: `kv_tiles[v_bufIdx_prev]` after this iteration's wait on
  /// `kv_fulls[k_bufIdx]`). Kept for buffers with one fill barrier of their stage count, for readers that wait on it.
  std::map<std::pair<int, int>, std::vector<z3::expr>> held;
  /// Stages a reader gave back by its own thread arrive (ttng.arrive_barrier on one of the buffer's learned release
  /// barriers, Group::releases) since it last waited on them, per (reader partition, data buffer) and stage: a read of
  /// such a stage reads what its writer may already refill (a release moved before the wgmma that reads the stage:
  /// the simulator's race-war). Kept where `held` is; an MMA's completion arrive (tcgen05 commit) is no such release.
  std::map<std::pair<int, int>, std::vector<z3::expr>> released;
  /// Named barriers (Group::named), per (group, partition that uses it): the partition's arrivals so far
  /// (`arrived`, bar.sync and bar.arrive alike) and, for a partition that bar.syncs on it, its arrival count at its
  /// latest bar.sync (`synced`, 0 before any): that sync's phase is the `synced`-th, and it completes once every
  /// partition of the barrier has arrived that often (NamedBarriers.cpp).
  std::map<std::pair<int, int>, z3::expr> arrived, synced;
};

/// The transition system's state after a lock-step step: all partitions ended (`done`), their loop states, ghost.
struct State {
  std::optional<z3::expr> done;
  std::vector<PState> parts;
  std::optional<Ghost> ghost;
};

/// A property (or lemma) of kind `kind` on `group` fails when `cond` holds (at the step it was emitted in).
struct Violation {
  int kind, group;
  z3::expr cond;
  mlir::Operation *op;
  int part;
  int lemma = -1; ///< learned lemma id (LemmaTable)
};

} // namespace tlxsim::verifier::proof
