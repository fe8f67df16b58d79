// The simulator's program form: a TTGIR kernel lowered to compact instructions over
// numbered value slots (the role MCInst plays for llvm-mca). Built once by Lowering.cpp,
// the only simulator file that sees MLIR; executed by every agent of every CTA.
#pragma once

#include "ir/Location.h"

#include <array>
#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

namespace tlxsim::sim {

/// Instruction kinds. Scalar ops are evaluated exactly; tensor ops carry only a cost.
enum class Op : uint8_t {
  Const,          ///< result = imm; sub = 1: a thread id (`gpu.thread_id x`, `rocdl.workitem.id.x`): imm, plus
                  ///< 32 x w in the agent of warp w of a partition run as per-warp agents; sub = 2: a device-made
                  ///< tensor descriptor whose tensor identity is imm (lowering/Tma.cpp deviceDescriptorSource)
  Binary,         ///< result = args[0] <sub> args[1]  (BinaryKind), `bits` wide; imm = the dependent SASS
                  ///< instructions ptxas expands it to (lowering/Scalar.cpp dependentSteps: 1, more for a division)
  Cmp,            ///< result = args[0] <pred sub> args[1] (arith::CmpIPredicate numbering)
  Select,         ///< result = args[0] ? args[1] : args[2]
  Cast,           ///< ext/trunc: imm = source bits, sub = 0 sign-extend / 1 zero-extend / 2 truncate
  ProgramId,      ///< result = program id along axis `sub`
  NumPrograms,    ///< result = grid size along axis `sub`
  For,            ///< args = lb, ub, step, inits...; block = body (args: iv, iter values)
  If,             ///< args = cond; block = then, block2 = else (or -1); sub = 1: the condition depends on the thread
                  ///< id only, imm2 = the partition's threads that take the then region (taken if > 0), aux = index
                  ///< into Program::threadIfWarps (the threads taking it per warp, for per-warp agents)
  Yield,          ///< args = values passed to the parent's results / next iteration
  WarpSpecialize, ///< args = captures; imm = index into Program::warpSpecializes
  Return,         ///< end of the kernel or of a worker partition
  LocalAlloc,     ///< result = view of allocation `imm`
  MemDescIndex,   ///< result = args[0] + args[1] * imm (offset in elements; in 32-bit columns in tensor memory)
  MemDescView,    ///< result = args[0] + imm (trans / reshape / reinterpret: imm 0; tmem_subslice: imm = the TMEM
                  ///< column of its first element, Triton's getTMemSubSliceOffset)
  InitBarrier,    ///< args = bar; imm = arrival count
  InvalBarrier,   ///< args = bar
  BarrierExpect,  ///< args = bar, pred; imm = tx bytes (also one arrival)
  WaitBarrier,    ///< args = bar, phase, [pred]
  ArriveBarrier,  ///< args = bar, [pred]; imm = count; imm2 = CTA mask (Triton main `ctaMask`: the barrier at the
                  ///< same offset in every CTA of the mask), 0 for the barrier operand itself; sub = 1: cp.async.mbarrier.arrive,
                  ///< 2: TLX `perThread` (imm = count x the partition's threads: every thread arrives)
  TmaLoad,        ///< args = desc, coords..., dst, bar, pred, [multicast CTA mask]; imm = box bytes; imm2 = #coords;
                  ///< sub = 1 for a 2-CTA copy (`two_cta`: completes on the barrier of the pair's leader CTA)
  TmaStore,       ///< args = desc, coords..., src; imm = box bytes; imm2 = #coords
  TmaStoreWait,   ///< imm = pendings
  /// fbtriton 3.7 `ttng.async_tma_store_token_wait %tok`: args = token (the TmaStore's result: its async op id);
  /// waits until that store and the issuer's earlier ones have read their shared memory (cp.async.bulk.wait_group.read
  /// with the count of the issuer's younger bulk groups, PTX ISA 9.7.9.25.4.3); its barriers arrive after it as
  /// separate ArriveBarrier instructions.
  TmaStoreTokenWait,
  FenceAsync,     ///< fence.proxy.async
  WgmmaIssue,     ///< args = a, b, c, [useC]; imm = FLOPs; imm2 = smem bytes read; result = d
  WgmmaWait,      ///< imm = pendings; results = args (accumulators become readable)
  Tc05Mma,        ///< args = a, b, d, useD, pred, barriers..., barrier preds...; imm = FLOPs; imm2 = #barriers;
                  ///< sub bit 0: synchronous (no barriers, not is_async); bit 1: `two_ctas` (cta_group::2: reads
                  ///< and writes both CTAs of the pair, arrives on the barriers of both)
  Tc05Commit,     ///< args = bar, [pred]: one arrive when the issuer's earlier tcgen05 ops complete; sub = 1 for
                  ///< `two_ctas` (arrives on the barrier of both CTAs of the pair)
  LocalStore,     ///< args = src, dst; imm = bytes written to shared memory
  LocalLoad,      ///< args = src; imm = bytes read from shared memory
  TensorOp,       ///< register work: sub = 0 ALU over imm elements, 1 SFU (exp2, ...) over imm elements,
                  ///< 2 a round trip of imm bytes through shared memory (layout conversion), 3 imm bytes of
                  ///< tensor-memory traffic (tcgen05.ld/st); args = tensor operands (their readiness is awaited);
                  ///< sub 3: args[0] = the tensor-memory view (viewElems[0] TMEM columns; an access for the race
                  ///< checks), then the stored tensor; imm2 = 1 for tcgen05.st (ttng.tmem_store), 0 for a load
  GlobalLoad,     ///< args = tensor operands, the address first; imm = bytes; sub = 1 for an atomic (read-modify-write);
                  ///< the result becomes ready after the memory round trip (a register scoreboard)
  GlobalStore,    ///< args = tensor operands, the address first; imm = bytes written through L2 to HBM
  AsyncCopy,      ///< args = dst view, address; imm = bytes: cp.async / AMD direct-to-LDS load, joins the agent's open
                  ///< group; imm2 = AMD vector-memory instructions per thread (0 = unknown, counted as 1)
  AsyncCommit,    ///< closes the agent's open async copies into one group (cp.async.commit_group)
  AsyncWait,      ///< sub 0: imm = groups that may stay pending (cp.async.wait_group / ttg.async_wait {num});
                  ///< sub 1: imm = direct-to-LDS instructions that may stay pending (amdg.async_wait {num_inst}, vmcnt)
  Dot,            ///< args = a, b, c (registers); imm = FLOPs; sub = 0 mma.sync (mma v2), 1 AMD MFMA: issued by the
                  ///< partition's warps on the SM's tensor cores, result ready when done
  CtaBarrier,     ///< execution barrier of the partition's warps (bar.sync 0, s_barrier, ttg.barrier, cond_barrier);
                  ///< imm2 = 1: a raw AMD s_barrier (`rocdl.s.barrier`, `amdg.cond_barrier`) without the release
                  ///< fence (`s_waitcnt lgkmcnt(0)`) of the fenced forms; cond_barrier: args = its predicate
  ReadBarrierPhase, ///< args = bar; result = the barrier's current phase parity (AMD TLX spin loops)
  While,          ///< args = inits; block = before region (ends in Condition), block2 = after region
  Condition,      ///< args = cond, values passed to the after region (or to the while's results)
  Tc05Copy,       ///< args = src, dst, [bar]; imm = bytes; viewElems = src elements, dst columns: tcgen05.cp smem -> TMEM
  Sleep,          ///< imm = s_sleep argument (AMD): the wave idles imm x s_sleep_unit_cycles
  NamedBarrier,   ///< args = id, thread count; sub = 1 bar.sync (waits), 0 bar.arrive; sub = 2 (args and imm2 as
                  ///< CtaBarrier): the execution barrier (CtaBarrier) of a partition run as per-warp agents, or of a
                  ///< main function run as wave-group agents (Program::waveGroups), a rendezvous of its warps
  ClusterArrive,  ///< barrier.cluster.arrive
  ClusterWait,    ///< barrier.cluster.wait
  ClusterCtaRank, ///< result = the CTA's rank in its cluster (%cluster_ctarank; TLX cluster_cta_rank)
  MapRemote,      ///< result = view args[0] in the shared memory of the cluster CTA of rank args[1] (mapa)
  RemoteStore,    ///< args = src, dst, rank, [bar]; imm = bytes: a store into the shared memory of the cluster CTA
                  ///< of rank `rank`; sub 0 generic (st.shared::cluster), 1 st.async from registers and 2 a bulk copy
                  ///< from the local shared-memory view src, both completing tx bytes on the peer's barrier
  ClcTryCancel,   ///< args = mbarrier, response view: clusterlaunchcontrol.try_cancel (PTX ISA 9.7.13.x): cancels the
                  ///< next not-yet-launched cluster of the grid, writes its 16-byte response to the view and completes
                  ///< 16 tx bytes on the barrier, asynchronously; sub 1 = .multicast::cluster::all (every CTA of the
                  ///< cluster receives both, issued by rank 0 only: fbtriton predicates it so)
  ClcQuery,       ///< args = response view; results = first %ctaid x (, y, z) of the canceled cluster, -1 each when the
                  ///< request failed (fbtriton clc_query_cancel: query_cancel.is_canceled + get_first_ctaid)
  ClcLoad,        ///< args = response view; result = the response as an integer: the canceled cluster's first linear
                  ///< CTA id, -1 when none was canceled (Triton 3.9 clc_load_result)
  ClcIsCanceled,  ///< args = loaded response; result = i1 (query_cancel.is_canceled)
  ClcProgramId,   ///< args = loaded response; imm = dim; result = program id along dim of the canceled cluster's
                  ///< first CTA (query_cancel.get_first_ctaid, as tt.get_program_id counts), -1 if none
  /// `proton.record` (Proton's instrumentation mode, triton/third_party/proton): each warp of the partition reads
  /// the SM clock and one lane stores an 8-byte record into the profile buffer in shared memory; costs
  /// `proton_record_cycles` of issue (0 when the model lacks it). imm = scope (Program::protonScopes), sub = 1 start.
  ProtonRecord,
  /// AMD `s_waitcnt lgkmcnt(imm)` (`amdg.memory_counter_wait ds(imm)`, `rocdl.s.waitcnt` with its LGKM_CNT field):
  /// the wave's LDS reads in flight retire, oldest first, until at most imm of their instructions are outstanding.
  LgkmWait,
  /// The bar.sync of a partition's warps that Triton's shared-memory barrier analysis (Membar) puts before a
  /// shared-memory op that conflicts with an access since the last barrier, an mbarrier arrive touching every
  /// buffer (lowering/Lowerer.h membarSyncs): `cta_barrier_cycles` in a partition of several warps; a cost only,
  /// as fbtriton's elected arrive's own bar.sync (the checkers take no ordering from it).
  MembarSync,
  Unknown,        ///< an op the simulator has no semantics for; name in Program::unknownOps[imm]
};

/// The number of Op values (Op::Unknown is the last).
constexpr size_t kNumOps = static_cast<size_t>(Op::Unknown) + 1;

/// Scalar binary operations of Op::Binary.
enum BinaryKind : int16_t {
  Add, Sub, Mul, DivS, DivU, RemS, RemU, And, Or, Xor, Shl, ShrS, ShrU, MinS, MaxS, MinU, MaxU, CeilDivS, FloorDivS
};

/// The radix of a reduction's shuffle rounds in Instr::imm2 (at most log2(64) lanes' rounds: below it).
constexpr int64_t kReduceRoundsRadix = 64;

struct Instr {
  Op op = Op::Unknown;
  /// The op's variant (BinaryKind for Binary, the arrive kind for ArriveBarrier, ...); WgmmaIssue: N of one of its
  /// wgmma.mma_async instructions (8-256), whose issue cost grows with it (units/TensorPipe.h wgmmaIssueCycles).
  int16_t sub = 0;
  uint8_t bits = 64;         ///< width of a scalar result (1, 8, 16, 32, 64)
  /// Bit i: args[i] is a scalar the op reads, so the op waits for its register (Engine::awaitScalars). Not the values
  /// an op only passes on (a yield's, a loop's initial values, a while's, a condition's forwarded values, captures,
  /// a zero extension or truncation: no instruction). Set by the lowering (Lowerer::markScalarArgs) for the first 32
  /// operands; no op the simulator executes reads a scalar past them.
  uint32_t scalarArgs = 0;
  int32_t loc = -1;          ///< index into Program::locs
  int32_t result = -1;       ///< first result slot
  int32_t numResults = 0;    ///< results occupy slots result .. result + numResults - 1
  std::vector<int32_t> args; ///< operand slots (-1 for an absent optional operand)
  /// TensorOp of a `tt.reduce` (sub 0): imm2 = S x kReduceRoundsRadix + R, S the dependent combine steps of one
  /// thread's chain along the axis (its elements there less one, times the combine region's ops), R the
  /// warp-shuffle rounds after it (lowering/Register.cpp reduceChain).
  int64_t imm = 0, imm2 = 0;
  int32_t block = -1, block2 = -1;
  /// tmem_load / tmem_store (TensorOp): index into Program::tmemWarpTiles (-1: layout not known). TmaLoad / TmaStore: the
  /// cluster CTA-id bits that pick a CTA's part of a box a CGA layout splits (ir/Cga.h ctaSplitBits; 0: none).
  /// WgmmaIssue: the wgmma.mma_async instructions the dot is (lowering/Wgmma.cpp). TensorOp of a scalar `tt.addptr`
  /// and GlobalLoad of a scalar integer: the pointee's bytes (the engine follows such pointers into the buffers whose
  /// contents the launch gives, Engine ops/GlobalMemory.cpp loadedScalar).
  int32_t aux = -1;
  /// WgmmaIssue: the shared-memory bytes its wgmma instructions read as operands (bytes; lowering/Wgmma.cpp
  /// wgmmaOperandBytes), which set its power draw (units/Clock.h tensorPowerWeight).
  int32_t operandBytes = 0;
  /// Elements of the shared-memory views the op reads or writes (TMA box, wgmma A and B,
  /// local store/load), in the order of its memdesc operands; 0 for a register operand.
  int64_t viewElems[3] = {0, 0, 0};
};

/// Whether `in` only computes into registers: scalar math, shared-memory views and register tensor math (ALU, SFU),
/// with no memory, barrier, async or control-flow semantics: what ptxas schedules freely around long-latency
/// instructions (lowering/AsyncIssue.cpp, ops/Register.cpp awaitMufuIssue).
inline bool registerOnly(const Instr &in) {
  switch (in.op) {
  case Op::Const: case Op::Binary: case Op::Cmp: case Op::Select: case Op::Cast: case Op::MemDescIndex:
  case Op::MemDescView:
    return true;
  case Op::TensorOp:
    return in.sub == 0 || in.sub == 1; // not a round trip through shared memory (2), not a TMEM access (3)
  default:
    return false;
  }
}

struct Block {
  std::vector<Instr> instrs;
  std::vector<int32_t> args; ///< slots of the block arguments
};

/// One `ttg.warp_specialize`: the default region runs on the parent's warps, each worker
/// on its own warps.
struct WarpSpecialize {
  struct Worker {
    int32_t block;
    int32_t numWarps;
    std::string name;      ///< "partition0", ...
    int32_t firstWarp = 0; ///< its first warp id in the CTA: `warpGroupStartIds`, else Triton's allocate-warp-groups
                           ///< rule (workers by num_warps, largest first, after the default partition's warps)
    /// The partition's warps can diverge on synchronization (lowering/WarpDivergence.cpp): it runs as one agent per
    /// warp; false: one agent runs thread 0's path (the fast path).
    bool perWarp = false;
  };
  int32_t defaultBlock;
  std::vector<Worker> workers;
};

/// The TMEM lanes (rows of the view) and columns one warp touches with a tcgen05.ld / tcgen05.st
/// (`ttng.tmem_load` / `tmem_store`), from the register layout of the loaded or stored tensor.
struct TmemWarpTile {
  std::bitset<128> rows; ///< TMEM lanes 0-127
  std::bitset<512> cols; ///< TMEM columns 0-511
};

/// A shared- or tensor-memory allocation (`ttg.local_alloc`, `ttng.tmem_alloc`).
struct Alloc {
  std::string name;            ///< Python variable ("ready"), or "alloc<N>"
  ir::SourceLoc loc;
  std::vector<int64_t> shape;  ///< allocation shape; in tensor memory its TMEM geometry: the buffer dims, then lanes x
                               ///< 32-bit columns of one buffer (view offsets and access extents are columns there)
  int64_t bytes = 0;
  int64_t elementBytes = 0;
  bool isBarrier = false;      ///< an array of i64 mbarriers
  bool inTensorMemory = false;
  /// Bytes: the offset Triton's allocator gives this shared-memory buffer in the CTA's shared memory
  /// (sim/SharedAllocation.h); buffers whose live ranges do not overlap may share bytes. -1 when not known (tensor
  /// memory, or an allocation tlx-sim only estimates).
  int64_t sharedOffset = -1;
};

/// A kernel argument as the launch binds it (by Python name).
struct KernelArg {
  enum Kind { Scalar, Desc, DescShape, DescStride, Pointer } kind = Scalar;
  std::string name; ///< Python name; a descriptor's shape/stride args share the descriptor's name
  int32_t slot = -1;
  int32_t dim = 0;  ///< DescShape / DescStride: the dimension
  int32_t bits = 32;
  bool isFloat = false;       ///< Scalar: a floating-point argument (f16/bf16/f32/f64), bound as an opaque value
  /// Scalar: the argument's `tt.divisibility` (Triton specializes an int divisible by 16 so and compiles the kernel
  /// assuming it); 1 when the attribute is absent.
  int64_t divisibility = 1;
  std::vector<int64_t> block; ///< Desc: the box shape
  int64_t elementBytes = 0;   ///< Desc: bytes per element
  /// Pointer: the Program::unknownOps entry of a scalar loaded through this argument when the launch does not give
  /// the buffer's contents (Launch::ptrValues); -1 otherwise.
  int32_t loadOrigin = -1;
  /// Pointer: a store or atomic of the kernel writes through it (lowering/GlobalMemory.cpp markWritten), so its scalar
  /// loads are not read from the launch's contents.
  bool writtenByKernel = false;
};

struct Program {
  std::string kernelName;
  std::string target;   ///< `ttg.target`, e.g. "cuda:90"
  int32_t numWarps = 4; ///< `ttg.num-warps`: warps of the default partition
  int32_t threadsPerWarp = 32;
  /// `ttg.num-ctas`. Above 1 it is Triton's multiplicative cluster launch: the launch grid counts clusters (the
  /// launcher multiplies each grid dimension by the cluster's, python/triton/backends/nvidia/driver.py
  /// `gridDimX = gridX * num_ctas`; TLX `config.gridDimX *= clusterDimX`, ...) and `tt.get_program_id` /
  /// `tt.get_num_programs` read %clusterid / %nclusterid (Triton's `llGetPid`). At 1 the grid counts CTAs
  /// (%ctaid), also under TLX's `ctas_per_cga` (CUDA semantics: clusters regroup the grid's CTAs).
  int32_t numCtas = 1;
  /// CTAs per cluster along x, y, z (CUDA's clusterDim): TLX's module attributes `ttg.cluster-dim-x/-y/-z`
  /// (compiler.py make_ttgir, from `cluster_dims` / `ctas_per_cga`), else (num-ctas, 1, 1) as Triton launches it.
  std::array<int32_t, 3> clusterDims{1, 1, 1};
  /// CTAs per cluster (the product of clusterDims): the range of %cluster_ctarank.
  int32_t clusterSize() const { return clusterDims[0] * clusterDims[1] * clusterDims[2]; }
  /// `ctas` rounded up to whole clusters (the CTAs of a cluster run together: --max-ctas).
  int64_t wholeClusters(int64_t ctas) const { return (ctas + clusterSize() - 1) / clusterSize() * clusterSize(); }
  /// "the cluster of 4 CTAs (2x2x1)" / "the cluster of 2 CTAs (ttg.num-ctas)": names the cluster shape in errors.
  std::string clusterText() const;
  int32_t numSlots = 0;
  int32_t entryBlock = -1;
  std::vector<Block> blocks;
  std::vector<ir::SourceLoc> locs;
  std::vector<Alloc> allocs;
  std::vector<KernelArg> args;
  std::vector<WarpSpecialize> warpSpecializes;
  std::vector<std::string> unknownOps; ///< names of ops lowered to Op::Unknown, and of other unknown-value origins
  /// Per unknownOps entry: why its values are unknown and what would make them known, for the error on a scalar the
  /// simulator needs; empty for an op the simulator has no semantics for.
  std::vector<std::string> unknownWhy;
  /// The unknownOps entry of a scalar integer loaded through a pointer the simulator does not trace to a kernel
  /// argument (a pointer loaded from memory, ...); -1 until a scalar integer load is lowered.
  int32_t untracedLoadOrigin = -1;
  /// Some scalar integer `tt.load` exists (its value may steer control flow): the engine waits for scalar operands'
  /// registers (Engine::awaitScalars) even where the model has no scalar-op latency, so that a load's latency counts.
  bool hasScalarLoads = false;
  std::vector<std::string> protonScopes; ///< names of the Proton scopes of Op::ProtonRecord (Instr::imm)
  /// Per tmem_load / tmem_store (Instr::aux): the tile of each warp of the executing partition (warp i = the
  /// partition's i-th warp).
  std::vector<std::vector<TmemWarpTile>> tmemWarpTiles;
  /// Per thread-id `scf.if` (Instr::aux of Op::If sub 1): the threads of each warp of the executing partition that
  /// take its then region (warp i = the partition's i-th warp).
  std::vector<std::vector<int32_t>> threadIfWarps;
  /// Some worker partition runs as per-warp agents (WarpSpecialize::Worker::perWarp), or the main function as
  /// wave-group agents (`waveGroups`).
  bool hasPerWarpAgents = false;
  /// A run of consecutive warps of the main function that takes the same side of every phase-shifting
  /// `amdg.cond_barrier` (lowering/WarpDivergence.cpp).
  struct WaveGroup {
    int32_t firstWarp = 0, numWarps = 0;
  };
  /// AMD ping-pong / warp pipelines (Triton's BlockPingpong, ConvertWarpPipeline): a main function without
  /// warp_specialize whose `amdg.cond_barrier`s hold some waves back by one s_barrier runs as one agent per wave
  /// group, its execution barriers a rendezvous of all the CTA's waves (s_barrier counts waves: the k-th barrier of
  /// one group meets the k-th of the other). Empty: one agent runs thread 0's path (the fast path).
  std::vector<WaveGroup> waveGroups;
  /// Warps of all partitions (default + workers), as Triton's metadata counts them.
  int32_t totalWarps() const;
  /// Shared memory per CTA as Triton's allocator lays it out from this module (sim/SharedAllocation.h: the
  /// metadata's `shared`), bytes; -1 if it could not be computed.
  int64_t allocatedSharedBytes = -1;
  /// Registers per thread from the module (sim/RegisterPolicy.h): the `.maxnreg` Triton gives a warp-specialized
  /// kernel or the module's `ttg.maxnreg`, else an estimate (`maxnregEstimated`); -1: unknown (AMD).
  int32_t maxnreg = -1;
  std::string maxnregSource; ///< how `maxnreg` was decided, for reports
  bool maxnregEstimated = false; ///< `maxnreg` is an estimate of ptxas's choice (RegisterPolicy::estimated)
  /// Proton's profiling segments (one per warp) when Proton instruments the module (sim/ProtonBuffer.h), else 0:
  /// its profile buffer, sized from the device's shared memory, then follows `allocatedSharedBytes`.
  int64_t protonSegments = 0;
  /// Why `allocatedSharedBytes` may differ from Triton's (scratch sizes estimated, or why it failed); empty if exact.
  std::vector<std::string> sharedEstimates;
  /// Shared memory per CTA from the module alone, bytes: `allocatedSharedBytes`, or where that failed the sum of
  /// the shared-memory allocations (an upper bound).
  int64_t sharedBytes() const;
  /// The Python name of slot `index` of allocation `alloc`: "ready[2]" for a barrier
  /// array, "bar" for a single barrier.
  std::string barrierName(int32_t alloc, int64_t index) const;
};

} // namespace tlxsim::sim
