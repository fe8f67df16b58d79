// `tlx-sim check`'s Z3 proofs (issue 6): the options (--assume, --timeout, --no-proofs,
// --proof-steps), running verifier/proof on the module, replaying each counterexample's launch
// in the simulator, and printing the verdicts (text and the `proofs` JSON array of design.md).
#pragma once

#include "verifier/proof/Prover.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tlxsim::tool {

/// The verdicts of one kernel and the replays of its counterexamples.
struct ProofOutcome {
  bool ran = false;                     ///< false with --no-proofs
  verifier::proof::ProofReport report;
  std::vector<std::string> replays;     ///< one line per counterexample (same order)
  bool counterexample = false;          ///< any verdict is `counterexample` (exit code 1)
  bool badAssumptions = false;          ///< an --assume does not parse (exit code 2)
  bool unsatAssumptions = false;        ///< the assumptions admit no launch (exit code 2)
};

/// Runs the prover on `module` with the command-line options; replays counterexamples by
/// re-running the simulation of `check` at the counterexample's arguments and grid.
ProofOutcome runProofs(mlir::ModuleOp module);

/// Prints verdicts as diagnostics: `file:line:col: error: proof: <property> on <barrier>:
/// counterexample ...`, `remark:` for proved, `warning:` for bounded and timeout.
void printProofs(const ProofOutcome &outcome, llvm::raw_ostream &os);

/// The `proofs` array of `check --json` (design.md).
llvm::json::Array proofsJson(const ProofOutcome &outcome);

} // namespace tlxsim::tool
