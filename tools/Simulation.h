// Turning the shared command-line options into a ready simulation: read and lower the
// module, load the GPU model (with --set overrides), assemble the launch and the occupancy
// inputs (metadata shared memory, cubin registers), create the engine. Used by every
// subcommand that simulates (check, predict, and the views built on them).
#pragma once

#include "sim/Binary.h"
#include "sim/Engine.h"
#include "sim/GpuModel.h"
#include "sim/Launch.h"
#include "sim/Program.h"
#include "verifier/Finding.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tlxsim::tool {

/// Everything one simulated launch needs; owns the MLIR context and module the program was
/// lowered from (locations point into them).
/// Not movable: the engine holds references to the program, model and launch.
struct PreparedSimulation {
  PreparedSimulation() = default;
  PreparedSimulation(PreparedSimulation &&) = delete;

  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::optional<sim::Program> program;
  std::optional<sim::GpuModel> model;
  sim::Launch launch;
  sim::SimOptions options;
  std::unique_ptr<sim::Engine> engine;
  int32_t stackFrameBytes = 0;       ///< the binary's local (stack) bytes per thread: cubin frame, AMD private segment
  sim::WgmmaIssue wgmmaIssue;         ///< the cubin's HGMMA instructions and those ptxas serialized (sim/Binary.h)
  sim::TmaIssue tmaIssue;             ///< the cubin's producer loops of TMA loads (sim/Binary.h)
  std::vector<std::string> warnings; ///< facts of the binary the model does not capture (spillWarning), printed
                                     ///< with the simulator's warnings
};

/// Frames of at least this many bytes per thread count as register spills (spillWarning, the autotune hook, xcheck's
/// spilled list). Measured on the H200 (traces/h200): binaries with 8-24 B frames (ptxas's stack for a few values:
/// Gluon attention_fwd bn128_s2, TLX fa_ws_pipelined g2 and its pingpong variants) ran within 10 % of the
/// prediction; those with 480-1368 B frames (TLX fa_ws g1, fa_ws_pipelined g1, gemm_ws bm256_bn256_s2_sub) ran
/// 2-7x slower than predicted, 1.5-7x once their serialized wgmma pipeline is simulated (sim/Binary.h).
constexpr int32_t kSpillFrameBytes = 128;

/// The warning for a binary with `stackBytes` of stack per thread, or "" below kSpillFrameBytes: local-memory
/// (spill) traffic is not modeled.
std::string spillWarning(int32_t stackBytes);

/// What to simulate: the input and its launch, as the command-line options spell them.
struct SimulationRequest {
  std::string input;                         ///< .ttgir file or Triton cache directory
  std::string launchFile;                    ///< launch spec JSON file ("" = none)
  const llvm::json::Object *launch = nullptr; ///< or an already parsed launch spec (not owned)
  std::string launchContext;                 ///< where `launch` comes from, for error messages
  std::string grid;                          ///< `--grid` ("" = from the launch spec)
  std::vector<std::string> args, descs;      ///< `--arg NAME=V`, `--desc NAME=D0xD1`
  std::string metadata, binary;              ///< companions ("" = next to the input, if present)
  bool irOnly = false;                       ///< ignore companions found next to the input (explicit ones still count)
  /// Time the binary as ptxas compiled it (a serialized wgmma pipeline: sim/Binary.h). `check` turns it off: it
  /// verifies the IR's asynchrony as PTX defines it (another compile may keep the wgmmas in flight), and more overlap
  /// leaves more interleavings to its schedules.
  bool binaryTiming = true;
  int64_t maxCtas = -1;                      ///< simulate only the first N CTAs (-1 = all)
  uint64_t maxInstructions = 0;              ///< sim::SimOptions::maxInstructions (0 = its default)
  double maxSeconds = 0;                     ///< sim::SimOptions::maxSeconds (0 = none)
  std::string model;                         ///< model name or path ("" = from ttg.target)
  std::vector<std::string> sets;             ///< `--set KNOB=VALUE` overrides
};

/// The request the shared launch options of tools/CommandLine.h describe.
SimulationRequest requestFromOptions();

/// Prepares the simulation `request` describes. Returns kClean and fills `out`, or prints
/// the error (with the file and, for IR errors, the line) and returns kBadInput (malformed
/// input, missing launch value, unknown model) or kInternal (an op the simulator knows it
/// cannot model soundly).
int prepareSimulation(const SimulationRequest &request, PreparedSimulation &out);

/// `prepareSimulation(requestFromOptions(), out)`.
int prepareSimulation(PreparedSimulation &out);

/// The launch's values by the names the prover and the preconditions use: each integer scalar argument by its
/// Python name, and num_programs_x|y|z where the grid is known (given, or from a launch file).
std::map<std::string, int64_t> namedLaunchValues(const sim::Launch &launch);

/// One warning per launch precondition (sim::Launch::preconditions, `NAME OP VALUE` as verifier/proof's
/// parseAssumption reads them) that the launch's own values break: a scalar argument, or num_programs_x|y|z when the
/// launch gives the grid. Preconditions on program ids or on arguments the launch leaves free are not judged.
std::vector<std::string> preconditionWarnings(const sim::Launch &launch);

/// A kernel bug that stopped a simulation (sim::KernelFault): the finding `check` / `predict` report for it, and the
/// CTAs that had started.
struct FaultFinding {
  verifier::Finding finding;
  int64_t ctasSimulated = 0;
};

/// Takes Engine::run()'s error: a sim::KernelFault becomes `fault` (class, message and location of `program`'s op);
/// any other error is returned as it was.
llvm::Error takeFault(llvm::Error error, const sim::Program &program, std::optional<FaultFinding> &fault);

/// Why a `predict` run stalled: simulates `prepared`'s launch again, on a fresh engine, with every checker of
/// verifier/Verifier.h attached, and returns their findings in report order (the deadlock and the protocol
/// errors that explain it, as `check` reports them). `predict` runs the simulator with no checker (the summary view
/// only) and pays for this second run only when the first one stalled (SimResult::stalled). Errors: as
/// Engine::create and Engine::run.
llvm::Expected<std::vector<verifier::Finding>> findingsOfStall(const PreparedSimulation &prepared);

/// Collects the simulator's unknown-op warnings, once per (op, source location), formatted
/// as compiler diagnostics: `file.py:L:C: warning: op 'x' has no simulator semantics; ...`.
struct WarningCollector : sim::Listener {
  explicit WarningCollector(const sim::Program &p) : program(p) {}
  void onUnknownOp(const std::string &name, int32_t loc) override;

  const sim::Program &program;
  std::vector<std::string> warnings;

private:
  std::set<std::pair<std::string, std::string>> seen;
};

} // namespace tlxsim::tool
