// `tlx-sim check`'s Z3 proofs (issue 6): the options (--assume, --timeout, --no-proofs,
// --proof-steps), running verifier/proof on the module, replaying each counterexample's launch
// in the simulator, and printing the verdicts (text and the `proofs` JSON array of design.md).
#pragma once

#include "verifier/Finding.h"
#include "sim/Launch.h"
#include "verifier/proof/Prover.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <future>
#include <memory>
#include <string>
#include <vector>

namespace tlxsim::tool {

/// The verdicts of one kernel and the replays of its counterexamples.
struct ProofOutcome {
  bool ran = false;                     ///< false with --no-proofs
  verifier::proof::ProofReport report;
  std::vector<std::string> replays;     ///< one line per counterexample (same order)
  /// Per counterexample (same order): the simulation of the launch it names reproduces it (a finding, or the
  /// simulation stops on an error of the kernel). One that does not is a limitation of the prover's encoding:
  /// printed as a warning (`unconfirmed`), not an error, and no exit code 1.
  std::vector<bool> reproduced;
  /// Per counterexample (same order): where it leaves the checked launch's domain while its launch file states none
  /// (sim::Launch::domainUnstated) and no --assume was given: each size the launch has >= 1 that the counterexample sets <= 0
  /// ("N_CTX=0 (the checked launch: 4096)"). Whether the host ever launches that is unknown (a run_script capture of
  /// an edited tutorial: N_CTX = 0 gives an empty grid there), so such a counterexample is a warning that says how to
  /// state the domain, never an error, even where its replay reproduces it.
  std::vector<std::vector<std::string>> outsideLaunch;
  /// Per counterexample: its replay reproduces it (`reproduced` less the launch-domain rule above).
  std::vector<bool> replayReproduces;
  /// The checked launch's named values (scalar arguments, grid), as the prover's launch preferences read them.
  std::map<std::string, int64_t> launchValues;
  bool domainUnstated = false; ///< sim::Launch::domainUnstated of the checked launch
  bool counterexample = false;          ///< any counterexample is reproduced by its replay (exit code 1)
  bool counterexampleTraced = false;    ///< the first counterexample's replay was considered for --trace-out
  bool badInput = false;                ///< a proof option or assumption is invalid, said on stderr (exit code 2)
  bool unsatAssumptions = false;        ///< the assumptions admit no launch (exit code 2)
  /// The launch preconditions of the --launch file (launch.json "preconditions", e.g. "K>=1"): assumed
  /// unless --no-preconditions.
  std::vector<std::string> preconditions;
  std::vector<std::string> assumptions; ///< every assumption of the proofs: preconditions, then --assume
};

/// The reproduced `counterexample` verdicts of `outcome` as findings of class `proof:<property>` at the verdict's
/// location (message: property, barrier and witness), for --sarif and baselines (the JSON output keeps them
/// under `proofs`).
std::vector<verifier::Finding> counterexampleFindings(const ProofOutcome &outcome);

/// The proofs of one kernel, running on their own thread (startProofs) while the simulation runs.
struct PendingProofs {
  ProofOutcome outcome; ///< options, assumptions; ran false with --no-proofs
  /// The module the prover reads when it differs from the simulated one (verifier/proof/StrengthReduce.h). Declared
  /// before `report`, so destroyed after it: a `check` that returns early (a bad --baseline) destroys the pending
  /// proofs while the prover still runs, and the future's destructor waits for the prover before the clone goes.
  std::shared_ptr<mlir::OwningOpRef<mlir::ModuleOp>> reduced;
  std::future<verifier::proof::ProofReport> report; ///< valid when outcome.ran
};

/// Validates the proof options (a bad one: outcome.badInput, said on stderr) and starts the prover on `module` on
/// its own thread. The module must outlive finishProofs and must not change meanwhile (the simulation only reads
/// it). Verdicts do not depend on what else runs: the Z3 limits are resource units (verifier/proof/Budget.h).
/// `launch` is the simulated launch (prepareSimulation's): its `preconditions` are the default assumptions (unless
/// --no-preconditions) and its values the ones counterexamples keep where they can.
PendingProofs startProofs(mlir::ModuleOp module, const sim::Launch &launch);

/// Waits for the prover started by startProofs and replays each counterexample by re-running the simulation of
/// `check` at the counterexample's arguments and grid. With `traceCounterexample` and --trace-out, the replay of
/// the first counterexample is written as the trace (check passes true when the simulation itself found nothing).
ProofOutcome finishProofs(PendingProofs &pending, bool traceCounterexample = false);

/// Prints verdicts as diagnostics: `file:line:col: error: proof: <property> on <barrier>:
/// counterexample ...` (reproduced by its replay), `remark:` for proved, `warning:` for bounded, timeout and a
/// counterexample its replay does not reproduce (`unconfirmed counterexample`: a prover limitation).
/// `simulationFound`: the simulation reported findings; proved verdicts then get a note that they are invariants
/// of the protocol, not its progress (a kernel can deadlock with every wait's parity alternating).
void printProofs(const ProofOutcome &outcome, llvm::raw_ostream &os, bool simulationFound = false);

/// The `proofs` array of `check --json` (design.md); each verdict also lists the `assumptions` it holds under. A
/// counterexample its replay does not reproduce has the verdict `unconfirmed` (witness.reproduced false).
llvm::json::Array proofsJson(const ProofOutcome &outcome);

/// `check --json`'s `proof_notes`: why a kernel, partition or property was not analyzed (e.g. a kernel
/// without an mbarrier protocol), one string each.
llvm::json::Array proofNotesJson(const ProofOutcome &outcome);

} // namespace tlxsim::tool
