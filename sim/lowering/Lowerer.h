// The lowering state shared by the driver (Lowering.cpp) and the per-family lowerings (sim/lowering/*.cpp):
// value slots, locations, operand helpers and the first error. MLIR-aware: included by the lowering files only.
#pragma once

#include "sim/Lowering.h"
#include "sim/lowering/TypeInfo.h"

#include "ir/Location.h"
#include "ir/OpSyntax.h"
#include "ir/Types.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace tlxsim::sim::lowering {

using mlir::Attribute;
using mlir::BlockArgument;
using mlir::IntegerAttr;
using mlir::Location;
using mlir::Operation;
using mlir::Region;
using mlir::Type;
using mlir::ValueRange;
using llvm::StringRef;

/// The `tt.func` argument a pointer leads back to, or null (lowering/GlobalMemory.cpp).
mlir::BlockArgument pointerArgument(mlir::Value v);
/// Whether a scalar pointer feeds a scalar integer `tt.load` (lowering/GlobalMemory.cpp).
bool feedsScalarIntLoad(mlir::Value v, int depth);

/// Moves each pure `arith` / `math` tensor op of `block` down to just before its first user in the block, as ptxas
/// schedules it (lowering/Sink.cpp); Triton's own ops, memory ops and scalars keep their order.
/// NVIDIA targets only: on CDNA a value's first use places its `s_waitcnt lgkmcnt`, which the race checks read.
void sinkRegisterOps(mlir::Block &block);

/// Issues each async wgmma of a lowered block (`instrs`) ahead of the register-only instructions just before it that
/// it does not depend on, as ptxas schedules it (lowering/AsyncIssue.cpp): they follow the dot, in their order, and
/// the run's producers of its operands precede it. Memory, barrier, async and control-flow instructions keep their
/// places and bound the run. NVIDIA targets only.
void hoistAsyncWgmmas(std::vector<Instr> &instrs);

/// Lowers one kernel into a Program: one Lowerer per module. Each op family has a `lower<Family>` member, in
/// its own file, that returns whether it lowered the op (lowerOp tries them in turn).
class Lowerer {
public:
  explicit Lowerer(Program &program) : p(program) {}

  /// Lowers the body of the kernel `func` into `p`: its arguments, then its region (Lowering.cpp).
  llvm::Error lowerKernel(Operation *func);


  Program &p;
  std::string error;        ///< the first malformed or unsupported op; lowering stops there
  bool unsupported = false; ///< the error is a simulator limit, not a malformed input
  llvm::DenseMap<mlir::Value, int32_t> slots;
  llvm::DenseMap<Attribute, int32_t> locIndex;
  llvm::DenseMap<const Operation *, int32_t> allocOf; ///< a ttg.local_alloc / ttng.tmem_alloc -> its Program::allocs index

  /// Per slot: whether it may hold a scalar with a ready cycle (Value::readyAt): any value but a tensor, a memdesc
  /// or a tensor descriptor (markScalarArgs). Slots made without an MLIR value (constSlot) hold constants.
  std::vector<bool> scalarSlots;

  int32_t slot(mlir::Value value) {
    auto [it, inserted] = slots.try_emplace(value, p.numSlots);
    if (inserted) {
      ++p.numSlots;
      mlir::Type type = value.getType();
      if (scalarSlots.size() < static_cast<size_t>(p.numSlots))
        scalarSlots.resize(p.numSlots);
      scalarSlots[it->second] =
          !isa<mlir::RankedTensorType>(type) && !isa<ir::MemDescType>(type) && !isa<ir::TensorDescType>(type);
    }
    return it->second;
  }
  /// Sets each instruction's Instr::scalarArgs from scalarSlots once the kernel is lowered (Lowering.cpp).
  void markScalarArgs();

  int32_t loc(Location location) {
    auto [it, inserted] = locIndex.try_emplace(location, static_cast<int32_t>(p.locs.size()));
    if (inserted)
      p.locs.push_back(ir::pythonLocation(location));
    return it->second;
  }


  /// Records that the simulator cannot execute `op` yet (the input is fine).
  void notSupported(Operation &op, const llvm::Twine &what) {
    if (error.empty()) {
      unsupported = true;
      malformed(op, what);
    }
  }

  /// Whether `value` is a shared-memory mbarrier (an i64 memdesc).
  static bool isBarrier(mlir::Value value) {
    auto type = dyn_cast<ir::MemDescType>(value.getType());
    return type && type.getElementType().isInteger(64);
  }

  /// Records that `op` is not what Triton emits (the reader's shim dialects do not verify
  /// Triton ops); the first such error is reported.
  void malformed(Operation &op, const llvm::Twine &what) {
    if (error.empty())
      error = (op.getName().getStringRef() + " at " + ir::pythonLocation(op.getLoc()).str() + ": " + what).str();
  }

  static std::string typeString(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    return text;
  }

  /// The type of `value` as T, or a malformed-op error naming `what` and the type found.
  template <typename T> T typed(Operation &op, mlir::Value value, StringRef what, StringRef expected) {
    auto type = dyn_cast<T>(value.getType());
    if (!type)
      malformed(op, what + " has type " + typeString(value.getType()) + ", expected " + expected);
    return type;
  }



  Instr make(Op kind, Operation &op) {
    Instr instr;
    instr.op = kind;
    instr.loc = loc(op.getLoc());
    if (op.getNumResults() > 0) {
      instr.result = slot(op.getResult(0));
      for (unsigned i = 1; i < op.getNumResults(); ++i)
        slot(op.getResult(i)); // consecutive: results are numbered in order on first sight
      instr.numResults = static_cast<int32_t>(op.getNumResults());
    }
    return instr;
  }

  /// Binds kernel arguments by Python name; a host tensor descriptor is followed by its
  /// shape (i32) and stride (i64) arguments under the same name (Lowering.cpp).
  llvm::Error lowerArgs(mlir::Block &entry);
  /// Lowers `block` into a new Program block; returns its index (Lowering.cpp).
  int32_t lowerBlock(mlir::Block &block);
  /// fbtriton's kernel-entry cluster sync (TritonGPUToLLVM maybeInsertClusterSync): the entry block's last
  /// `ttng.init_barrier`, after which the compiler emits fence.mbarrier_init.release.cluster, barrier.cluster.arrive
  /// .relaxed and barrier.cluster.wait; null when the kernel gets none (lowering/Cluster.cpp).
  Operation *entryClusterSync(Operation *func) const;
  Operation *entrySyncAfter = nullptr; ///< lowerBlock appends the cluster arrive + wait after this op
  /// The ops before which Triton's shared-memory barrier analysis inserts a barrier of the partition's warps
  /// (lib/Analysis/Membar.cpp, MembarAnalysis::update, Triton 3.6.0 and fbtriton 3.7.4): an op whose shared-memory
  /// effects conflict (read after write, write after read or write) with an access since the last barrier, where a
  /// `ttng.arrive_barrier`, "which may be signalling other threads asynchronously", reads and writes every buffer.
  /// Buffers are whole allocations (lowering/Membar.cpp). Seen in the SASS of the Gluon ws_gemm, triton_tma_gemm
  /// and TLX hopper_gemm_ws captures: a `BAR.SYNC.DEFER_BLOCKING 0x0 / 0x2, 0x80` before the consumer's first
  /// SYNCS.PHASECHK of each K iteration and before each arrive; in TLX's 4-warp producer one before the first
  /// expect_tx of a K step (the previous step's TMA copy wrote that barrier array) and one before each UTMALDG
  /// (its expect_tx wrote the barrier), none before the second and third expect_tx. Worker partitions start with
  /// nothing pending.
  /// The ops a Membar barrier precedes, and the asynchronous waits it follows (Membar puts one after every op
  /// with MemWaitOpTrait, `ttg.async_wait` and `ttng.async_tma_store_wait`, unless a barrier comes next).
  struct MembarPlacement {
    llvm::DenseSet<const Operation *> before, after;
  };
  MembarPlacement membarSyncs(Operation *func);
  MembarPlacement membar; ///< membarSyncs of the kernel being lowered
  /// Lowers a single-block region; -1 for an empty one (Lowering.cpp).
  int32_t lowerRegion(Region &region);

  std::vector<int32_t> slotsOf(ValueRange values) {
    std::vector<int32_t> out;
    for (mlir::Value value : values)
      out.push_back(slot(value));
    return out;
  }

  /// Slot of the first operand of group `group`, -1 if the optional group is empty.
  int32_t operand(Operation &op, StringRef group) {
    auto range = ir::getOperandGroup(&op, group);
    return range && !range->empty() ? slot(range->front()) : -1;
  }

  /// Slot of the required operand `group`; a malformed-op error if it is missing.
  int32_t required(Operation &op, StringRef group) {
    int32_t s = operand(op, group);
    if (s < 0)
      malformed(op, "lacks its '" + group + "' operand");
    return s;
  }

  /// The value of the required operand `group` (null, with an error, if missing).
  mlir::Value requiredValue(Operation &op, StringRef group) {
    auto range = ir::getOperandGroup(&op, group);
    if (!range || range->empty()) {
      malformed(op, "lacks its '" + group + "' operand");
      return {};
    }
    return range->front();
  }

  /// Whether an op without simulator semantics holds synchronization or memory ops in
  /// its regions: skipping it would silently drop them.
  static bool holdsSideEffects(Operation &op) {
    bool found = false;
    op.walk([&](Operation *inner) {
      StringRef name = inner->getName().getStringRef();
      if (inner != &op && !isRegisterTensorOp(name) && !name.ends_with(".return") && !name.ends_with("yield") &&
          !name.starts_with("arith.") && !name.starts_with("math."))
        found = true;
    });
    return found;
  }

  std::vector<int32_t> operands(Operation &op, StringRef group) {
    auto range = ir::getOperandGroup(&op, group);
    return range ? slotsOf(*range) : std::vector<int32_t>{};
  }

  int64_t intAttr(Operation &op, StringRef name, int64_t fallback = 0) {
    if (auto attr = op.getAttrOfType<IntegerAttr>(name))
      return attr.getInt();
    return fallback;
  }

  /// Global memory, async copies, register MMAs, reductions, layout conversions, execution

  /// Records that `op` is not what Triton emits; true (the op is handled), for `return reject(...)`.
  bool reject(Operation &op, const llvm::Twine &what) {
    malformed(op, what);
    return true;
  }
  /// Records that the simulator cannot execute `op` yet; true (the op is handled).
  bool unsupportedOp(Operation &op, const llvm::Twine &what) {
    notSupported(op, what);
    return true;
  }
  /// Register work of unit `unit` (Op::TensorOp sub: 0 ALU, 1 SFU) over the result's elements; shape-only ops
  /// (splat, broadcast, expand_dims, make_range, reshape) are free. Always true.
  bool tensorOp(Operation &op, StringRef name, int16_t unit, std::vector<Instr> &out);
  /// A memory op whose address operands (the groups `addressGroups`, in order) come first, then its other
  /// operands (awaited if not ready); imm = `bytes`, imm2 = the number of address operands. Always true.
  /// Marks the kernel argument the `ptr` operand of the store or atomic `op` leads back to as written by the kernel.
  void markWritten(Operation &op);
  bool addressed(Operation &op, std::vector<Instr> &out, Op kind, std::initializer_list<StringRef> addressGroups,
                 int64_t bytes);
  /// Bytes of the op's first result (0 without results).
  int64_t resultBytes(Operation &op) { return op.getNumResults() ? bytesOf(op.getResult(0).getType()) : 0; }
  /// Bytes of the required operand `group` (0, with an error, if missing).
  int64_t operandBytes(Operation &op, StringRef group) {
    mlir::Value v = requiredValue(op, group);
    return v ? bytesOf(v.getType()) : 0;
  }

  /// Lowers one op (Lowering.cpp): the first family that knows it, else a hint, else Op::Unknown.
  void lowerOp(Operation &op, std::vector<Instr> &out);
  /// lowerOp without the Membar barriers around the op.
  void lowerOpItself(Operation &op, std::vector<Instr> &out);

  // One function per op family: true if it lowered `op` (named `name`) into `out`.
  bool lowerScalar(Operation &op, StringRef name, std::vector<Instr> &out);       ///< lowering/Scalar.cpp
  bool lowerControlFlow(Operation &op, StringRef name, std::vector<Instr> &out);  ///< lowering/ControlFlow.cpp
  bool lowerTcgen05(Operation &op, StringRef name, std::vector<Instr> &out);      ///< lowering/Tcgen05.cpp
  bool lowerSharedMemory(Operation &op, StringRef name, std::vector<Instr> &out); ///< lowering/SharedMemory.cpp
  bool lowerMbarrier(Operation &op, StringRef name, std::vector<Instr> &out);     ///< lowering/Mbarrier.cpp
  bool lowerTma(Operation &op, StringRef name, std::vector<Instr> &out);          ///< lowering/Tma.cpp
  bool lowerWgmma(Operation &op, StringRef name, std::vector<Instr> &out);        ///< lowering/Wgmma.cpp
  bool lowerNamedBarrier(Operation &op, StringRef name, std::vector<Instr> &out); ///< lowering/NamedBarrier.cpp
  bool lowerCluster(Operation &op, StringRef name, std::vector<Instr> &out);      ///< lowering/Cluster.cpp
  bool lowerGlobalMemory(Operation &op, StringRef name, std::vector<Instr> &out); ///< lowering/GlobalMemory.cpp
  bool lowerAsyncCopy(Operation &op, StringRef name, std::vector<Instr> &out);    ///< lowering/AsyncCopy.cpp
  bool lowerRegister(Operation &op, StringRef name, std::vector<Instr> &out);     ///< lowering/Register.cpp
  bool lowerAmd(Operation &op, StringRef name, std::vector<Instr> &out);          ///< lowering/Amd.cpp
  bool lowerClc(Operation &op, StringRef name, std::vector<Instr> &out);          ///< lowering/Clc.cpp
  bool lowerStructure(Operation &op, StringRef name, std::vector<Instr> &out);    ///< lowering/Structure.cpp

  /// A region of several blocks whose cf.br / cf.cond_br form chains, triangles and diamonds (each cond_br's
  /// successors meet at one join block): lowered as one Program block with an `If` per branch whose results
  /// are the join block's arguments; anything else (loops, unmatched joins) is unsupported (lowering/Structure.cpp).
  int32_t lowerCfgRegion(Region &region);
  /// A CTA barrier instruction at `op`'s location (lowering/Structure.cpp).
  void ctaBarrier(Operation &op, std::vector<Instr> &out);
  /// The barrier ConvertWarpPipeline puts before (`after` false) or after a `triton.warp_pipeline.pipelined_for`
  /// loop, as thread 0 executes it; nothing for other loops (lowering/Structure.cpp).
  void warpPipelineLoopFence(Operation &forOp, bool after, std::vector<Instr> &out);
  /// A new slot holding the i1 constant `value`, set by a Const appended to `out` (lowering/Structure.cpp).
  int32_t constSlot(Operation &op, int64_t value, std::vector<Instr> &out);
  /// A new Program block holding only a Yield of `values` (a branch's operands), at `branch`'s location.
  int32_t yieldBlock(Operation &branch, ValueRange values);

  /// The value of the scalar `v` in thread `tid` if it is computed from constants and the thread id by integer
  /// arith only; `usesTid` tells whether it reads the id (lowering/ControlFlow.cpp).
  static std::optional<int64_t> threadValue(mlir::Value v, int64_t tid, bool &usesTid, int depth = 0);
  /// The threads of the executing partition for which the condition of the `scf.if` `op` holds, if it depends
  /// on the thread id only (lowering/ControlFlow.cpp).
  std::optional<int64_t> threadsTaking(Operation &op);
  /// Whether `op` sits in an `scf.if` taken by a subset of its partition's threads (threadsTaking), whose
  /// multiplicity the engine applies to the arrivals inside it.
  bool insideThreadIf(Operation &op);
  /// The threads of each warp of the executing partition that take the `scf.if` `op`, if its condition depends on
  /// the thread id only; empty otherwise (lowering/WarpDivergence.cpp).
  std::vector<int32_t> threadsTakingPerWarp(Operation &op);
  /// Whether the warps of the partition `partition` can diverge on synchronization: a thread-id `scf.if` that
  /// some warps take and others do not (or in other numbers) holds an mbarrier, named-barrier or shared / tensor
  /// memory op; the partition then runs as per-warp agents (lowering/WarpDivergence.cpp).
  bool warpsDiverge(Region &partition);
  /// The wave groups of a kernel body without warp_specialize that `amdg.cond_barrier`s phase-shift (Triton's
  /// BlockPingpong): sets Program::waveGroups and turns the execution barriers into rendezvous of the CTA's waves
  /// (NamedBarrier sub 2); leaves one agent when no cond_barrier splits whole waves into runs of consecutive
  /// warps (lowering/WarpDivergence.cpp). Call after the body is lowered.
  void splitWaveGroups(Region &body);
};

} // namespace tlxsim::sim::lowering
