// Protocol extraction (internal to verifier/proof/): the kernel's partitions (the default region and each
// `partitionN` of `ttg.warp_specialize`), their loop nests (up to a tile loop around one K loop, the K loop possibly
// under scf.if; scf.for or counted scf.while, Loops.h), the barrier
// allocations (`ttg.local_alloc` of i64) and staged data buffers, read from the MLIR module.
#pragma once

#include <array>

#include "verifier/proof/ProofTypes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace tlxsim::verifier::proof {

/// What the encoding needs of the kernel's structure. `groups` starts with the allocations' names, slots and
/// locations; the encoding's dry run fills in their users, waiters and arrivers.
struct Protocol {
  mlir::Operation *func = nullptr;
  std::vector<mlir::Operation *> prefix; ///< kernel ops before ttg.warp_specialize
  std::vector<mlir::Operation *> suffix; ///< kernel ops after it (run by the default partition's warps)
  std::vector<Part> parts;
  std::vector<Group> groups; ///< barrier allocations (in the kernel body), then data buffers (anywhere)
  llvm::DenseMap<mlir::Operation *, int> groupOfAlloc;
  /// Named-barrier ops -> their pseudo-group (Group::named, after the allocations' groups; NamedBarriers.cpp).
  llvm::DenseMap<mlir::Operation *, int> namedOf;
  /// Why the kernel's named barriers are not encoded (empty: encoded, or none).
  std::string namedNote;
  int maxDepth = 0;    ///< the deepest partition loop nest (0, 1 or 2)
  /// CTAs per cluster (nvgpu.cluster_id lies in [0, numCtas)): the product of TLX's `ttg.cluster-dim-x/-y/-z` when
  /// they make a cluster of more than one CTA (ttg.num-ctas stays 1 there), else ttg.num-ctas, a cluster along x
  /// (the simulator's reading, sim/Lowering.cpp).
  int64_t numCtas = 1;
  std::array<int64_t, 3> clusterDims{1, 1, 1}; ///< the cluster's CTAs along x, y, z (CUDA clusterDim)
  /// The notes' name of the cluster: "ttg.num-ctas = N" for Triton's, "ttg.cluster-dim = XxYxZ" for TLX's.
  std::string clusterText() const;
  /// The most slots of a barrier array or staged buffer (at least 1): sizes the induction depth.
  int mostSlots() const;
};

/// Extracts the protocol of the first `tt.func` of `module`. Throws Unsupported (the note's text) for a module
/// without a kernel body, a malformed warp_specialize, a barrier array of more than 64 slots, loops nested deeper
/// than two, sequential loops, a loop in a region other than a chain of scf.if around the K loop, or an scf.while
/// that does not count (Loops.h).
Protocol extractProtocol(mlir::ModuleOp module);

/// Sets `p`'s loop nest (`l1`, `l2`, their views, the K loop's `guards`, `depth`) from its block; throws
/// Unsupported as extractProtocol.
void analyzeNest(Part &p);

/// Partitions whose innermost loop starts a few constant steps above another's (a peeled first iteration) get
/// `realLb` / `alignedLb` (ProofTypes.h Part): the lock-step encoding aligns their iterations.
void alignLowerBounds(std::vector<Part> &parts);
/// The same for upper bounds: partitions whose innermost loop ends a few constant steps below another's (a peeled
/// last iteration) get `realUb` / `alignedUb`.
void alignUpperBounds(std::vector<Part> &parts);
/// Tile loops in ratio n (TileRatio.cpp): where the deepest partitions' tile loops have constant steps, each a whole
/// multiple n <= 8 of the smallest, those stepping n x the smallest get Part::tileRatio, tileStep, tileRef (the
/// first partition of the smallest step) and phaseWaiter; their phases (Part::tilePhase) need the loops' symbolic
/// lower bounds (Encoder::resolveTilePhases).
void alignTileRatios(std::vector<Part> &parts);
/// Sets Part::peeledFirstTile of the tile-only partitions (one loop, where others have two) whose loop's upper
/// bound is `x - 1` and lower bound 0.
void markPeeledFirstTiles(std::vector<Part> &parts, int maxDepth);
/// Why the partitions' loops cannot run in lock-step, read from the IR: two partitions of the deepest nest whose
/// tile loops (or K loops) have different constant steps (tile loops in a whole ratio are aligned, alignTileRatios:
/// TLX's ping-pong GEMM, whose consumer replicas step 2 x NUM_SMS against the producer's NUM_SMS), different constant lower
/// bounds that alignLowerBounds could not align, or the same step and lower bound but different constant upper
/// bounds (a peeled last iteration: TLX's fused_attention_ws_device_tma_dp, K loops to 3968 and to 4096). Empty when
/// nothing static differs (the loops' trip counts may still differ at run time).
std::string loopMismatch(const std::vector<Part> &parts);

/// Adds a pseudo-group (Group::named) per named-barrier id of the kernel and maps its ops (Protocol::namedOf),
/// or, when the protocol is not one arrival of each partition per phase (a thread count other than the sum of the
/// partitions' threads, a computed id or count, an op outside the partitions), sets Protocol::namedNote instead
/// (NamedBarriers.cpp).
void addNamedBarriers(Protocol &p);
/// The value of `v` when an `arith.constant` integer defines it.
std::optional<int64_t> constantOf(mlir::Value v);
/// The innermost loop of `p`'s nest (its K loop, or its tile loop when it has one level); `p.depth` > 0.
const LoopView &innermostLoop(const Part &p);
/// The number of iterations of `p`'s innermost loop when its bounds and step are constants (the lock-step
/// encoding's aligned bounds where alignLowerBounds / alignUpperBounds set them: TLX's autoWS attention,
/// `range(0, 4096, 128)`, 32); none for a symbolic bound, a non-positive step or a CLC loop.
std::optional<int64_t> constantTripCount(const Part &p);
/// Whether `op` is a named-barrier op (`ttng.wait_barrier_named` / `ttng.arrive_barrier_named`).
bool isNamedBarrierOp(mlir::Operation &op);

/// Whether the module has no mbarrier protocol at all: no `ttg.local_alloc` of i64 elements anywhere and no op of
/// the `ttng` dialect (barrier waits / arrives, TMA, wgmma, tcgen05: every op that emits an event a property checks
/// on a barrier or a staged buffer). Such a kernel (AMD LDS pipelines, cp.async) has nothing to prove, whatever the
/// shape of its loops, so the prover says so before it looks at the loop nests.
bool allocatesNoMbarrier(mlir::ModuleOp module);
/// The note of a kernel without an mbarrier (allocatesNoMbarrier, or no barrier property in the encoded code).
inline constexpr const char *kNoMbarrierNote = "no mbarrier protocol: the kernel allocates no mbarrier, nothing to prove";

/// The non-terminator ops of `b` before `stop` (all of them when `stop` is null or not in `b`).
std::vector<mlir::Operation *> opsBefore(mlir::Block &b, mlir::Operation *stop);
/// The non-terminator ops of `b` after `start` (all of them when `start` is null; none when `start` is not in `b`).
std::vector<mlir::Operation *> opsAfter(mlir::Block &b, mlir::Operation *start);

} // namespace tlxsim::verifier::proof
