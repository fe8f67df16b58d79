// The discrete-event simulator: every CTA of the grid on the model's SMs, each CTA's
// partitions as agents, asynchronous units (tensor core, TMA) completing later.
#pragma once

#include "sim/Events.h"
#include "sim/GpuModel.h"
#include "sim/Launch.h"
#include "sim/Program.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace tlxsim::sim {

/// With --max-ctas N (rounded up to whole clusters), CLC try_cancel may cancel the CTAs up to kClcTilesPerCta x N
/// of the grid: about this many tiles per simulated CTA (4 covers a ring of 3 accumulator buffers wrapping once, as
/// blackwell_gemm_clc's t3). --max-ctas of a quarter of the grid or more thus runs the whole grid.
inline constexpr int64_t kClcTilesPerCta = 4;

struct SimOptions {
  int64_t sharedBytesPerCta = -1; ///< from Triton's metadata `shared`; -1: the module's own allocations
  int32_t registersPerThread = -1; ///< from the captured binary; -1: unknown (registers do not limit occupancy)
  int64_t staticSharedBytesPerCta = 0; ///< the binary's static shared memory (cubin `.nv.shared.<kernel>`), bytes
  /// The binary waits on every wgmma.mma_async before issuing the next (ptxas serialized the wgmma pipeline:
  /// sim/Binary.h cubinWgmmaIssue): each instruction of a dot runs alone on the tensor pipe and its warp group
  /// waits out its latency before the next.
  bool wgmmaSerialized = false;
  /// Instructions per TMA load in the binary's producer loops (sim/Binary.h cubinTmaIssue); -1: no binary read, no
  /// producer loop, or a model without tma_issue_cycles_per_loop_instruction (tools/Simulation.cpp decides). With
  /// it, one copy's issue costs this x that knob instead of tma_issue_cycles (the IR-only estimate).
  double tmaLoopInstructionsPerCopy = -1;
  /// Simulate only the first N CTAs (-1: the whole grid). Cluster launch control still sees the rest of the grid:
  /// a CLC try_cancel of a simulated CTA can cancel clusters among the first kClcTilesPerCta x N CTAs, so that a
  /// CLC-persistent kernel runs several tiles per CTA (its multi-tile paths are checked) at a bounded cost.
  int64_t maxCtas = -1;
  Cycle maxCycles = Cycle(1) << 40;
  /// Guard against runaway simulations (huge grids or trip counts): instructions executed
  /// over all agents before the run stops with an error (about a minute of simulation).
  uint64_t maxInstructions = 1'000'000'000ull;
  /// Wall-clock bound in seconds (0: none), checked every 65536 instructions; the run stops with a LimitError.
  /// For runs whose size is not the user's choice (a proof counterexample's replay at the launch Z3 picked), where
  /// the checkers' per-event cost can make maxInstructions take far longer than a minute. Not deterministic: a
  /// caller that sets it reports the stop as "not finished", never as a result of the kernel.
  double maxSeconds = 0;
  /// Guard against grids too large to hold: the simulator keeps per-CTA state (about 1.6 KB,
  /// plus the checkers' shadow state) for every CTA it runs; 2^20 CTAs took 29 s and 1.65 GB
  /// (measured, check on persistent_ws_gemm). Larger launches need --max-ctas.
  int64_t maxSimulatedCtas = int64_t(1) << 20;
  /// Per-warp agents (AgentInfo::warp): warp w > 0 of a partition resumes w x this many cycles late from every
  /// mbarrier wait, so that the leader warp runs ahead (a lagging-warp schedule, verifier/Schedules.h); 0: none.
  Cycle warpLagCycles = 0;
  /// Proton instrumentation: the entries each warp's circular segment of the profile buffer holds (from Triton's
  /// metadata: tools/Simulation.cpp), so that the scope shares are taken from the records a warp keeps on hardware
  /// (AgentWork::protonSegment); 0: every record counts.
  uint64_t protonSegmentEntries = 0;
};

struct SimResult {
  Cycle cycles = 0;        ///< kernel time in SM cycles (launch to last CTA done)
  bool stalled = false;    ///< some agent could never progress (a deadlock)
  int64_t ctasSimulated = 0;  ///< CTAs that started (CLC-canceled ones never do)
  int64_t gridCtas = 0;       ///< CTAs in the launch's grid
  bool partialGrid = false;   ///< SimOptions::maxCtas (--max-ctas) kept some of the grid's CTAs out of the run
  uint64_t instructions = 0; ///< instructions executed over all agents (what SimOptions::maxInstructions bounds)
  /// Cluster launch control: try_cancel requests issued, and clusters they canceled. Responses are decided by the
  /// simulator's CTA dispatcher: the next not-yet-started cluster in launch order, failing once none is left.
  int64_t clcRequests = 0, clcCanceled = 0;
  int32_t ctasPerSm = 0;   ///< occupancy
  int32_t numSms = 0;
  double clockMhz = 0;     ///< SM clock the time is computed at (depends on tensor-core load)
  int64_t sharedBytesPerCta = 0;   ///< what occupancy assumed
  int32_t registersPerThread = -1; ///< what occupancy assumed (-1: unknown)
  std::string sharedSource, registersSource; ///< where they come from (Occupancy::sharedSource / registersSource)
  std::string occupancyLimit; ///< what limits CTAs per SM ("shared memory", "warps", "CTA slots", "registers")
  std::string occupancyWarning; ///< Occupancy::warning (an estimated shared memory over the SM's), or empty
};

/// The run stopped on SimOptions::maxInstructions or maxCycles (a launch too large to simulate whole, or a huge trip
/// count): not an error of the kernel. Callers that bound a run on purpose (a proof counterexample's replay) tell it
/// apart from a stop the kernel causes (an unknown scalar the control flow needs, a fault).
class LimitError : public llvm::ErrorInfo<LimitError> {
public:
  static char ID;
  explicit LimitError(std::string message) : message_(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message_; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  std::string message_;
};

/// The kernel did something the hardware leaves undefined at this launch, found by the engine (an mbarrier
/// operation on an index outside its barrier array, e.g. blackwell_gemm_pipelined's wait on `dot_bars[num_iter - 1]`
/// at K = 0): a bug of the kernel, which `check` and `predict` report as a finding of class `cls` (design.md's
/// classes) at Program::locs index `loc`, not a failure of the tool. run() stops at the first one. `message` has no
/// location; log() prints `file:line:col: cls: message`. `ctasSimulated`: CTAs started before it.
class KernelFault : public llvm::ErrorInfo<KernelFault> {
public:
  static char ID;
  KernelFault(std::string cls, int32_t loc, std::string message, std::string where, int64_t ctasSimulated)
      : cls(std::move(cls)), loc(loc), message(std::move(message)), where(std::move(where)),
        ctasSimulated(ctasSimulated) {}
  void log(llvm::raw_ostream &os) const override { os << where << ": " << cls << ": " << message; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

  std::string cls;
  int32_t loc;
  std::string message;
  std::string where; ///< the location as text
  int64_t ctasSimulated;
};

class Engine {
public:
  /// Fails with a message if the model lacks a parameter the simulator needs, if one CTA
  /// does not fit on an SM, or the launch misses a value.
  static llvm::Expected<std::unique_ptr<Engine>> create(const Program &program, const GpuModel &model,
                                                        const Launch &launch, SimOptions options);
  ~Engine();
  void addListener(Listener *listener);
  /// Runs to completion or stall. Errors: a scalar the control flow needs is unknown; a LimitError when the
  /// simulation exceeds SimOptions::maxCycles or maxInstructions; a KernelFault at a kernel bug the engine itself
  /// detects.
  llvm::Expected<SimResult> run();

  /// Model parameters the engine reads.
  static llvm::ArrayRef<llvm::StringRef> requiredParams();

  struct Impl;

private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace tlxsim::sim
