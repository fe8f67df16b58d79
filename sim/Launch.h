// A kernel launch: grid, scalar arguments and tensor-descriptor shapes, from command-line
// flags or a launch spec JSON written by python/tlx_sim/capture.py.
#pragma once

#include "sim/Program.h"
#include "sim/Value.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <optional>
#include <vector>

namespace tlxsim::sim {

struct Launch {
  std::array<int64_t, 3> grid{1, 1, 1};
  bool haveGrid = false;
  llvm::StringMap<int64_t> args;                    ///< integer scalar arguments by Python name
  /// Floating-point scalar arguments by Python name (a launch spec's non-integral number, `--arg NAME=1.5`);
  /// an integral value given for a float argument is in `args`.
  llvm::StringMap<double> floatArgs;
  llvm::StringSet<> flagArgs;                       ///< names given with --arg (must exist in the kernel)
  llvm::StringMap<std::vector<int64_t>> descShapes; ///< global shape of each descriptor argument
  llvm::StringSet<> flagDescs;                      ///< names given with --desc (must be descriptors of the kernel)
  /// The contents of pointer arguments' buffers, row-major integers by Python name (launch spec `ptrs.NAME.values`):
  /// what the kernel's scalar integer loads through that argument read (a grouped GEMM's per-problem sizes steer its
  /// loops). A capture records them for integer tensors the host code makes from Python data.
  llvm::StringMap<std::vector<int64_t>> ptrValues;
  /// Where each launch-spec value came from ("FILE: \"args\".NAME"), for the warning on a value the kernel does
  /// not take (unusedValueWarnings).
  llvm::StringMap<std::string> specArgOrigin, specDescOrigin;
  /// The launch spec's `signature` keys (a capture's: every Python argument of the kernel, constexprs and the
  /// arguments the JIT specialized into constants included).
  llvm::StringSet<> signatureNames;
  /// `cluster_dims` of the launch spec (TLX's metadata key: CTAs per cluster along x, y, z), if given: checked
  /// against the module's cluster shape (Program::clusterDims).
  std::optional<std::array<int64_t, 3>> clusterDims;
  /// The launch spec's `preconditions` ("K>=1", ...): constraints the kernel's host code guarantees, which the prover
  /// assumes (tools/ProofReport.cpp startProofs); checked to be strings here, parsed there.
  std::vector<std::string> preconditions;
  /// The launch spec says nothing of its domain: neither `preconditions` nor the kernel `module` whose PRECONDITIONS
  /// capture writes (kernels/README.md; a module without them states that every launch value is valid). A
  /// run_script / capture_launch capture of a user's script: its host code, which may never launch a zero size (an
  /// empty grid), is not known. The prover's counterexamples that leave the launch's signs are then warnings
  /// (tools/ProofReport.cpp outsideLaunch). False for a launch given by flags alone.
  bool domainUnstated = false;
  /// The launch spec's `kernel` (capture writes the kernel's Python name, the module's `tt.func`) and the file it
  /// came from, empty when the spec has none: a spec of another kernel (another capture's launch.json) is named as
  /// such (bind's error, unusedValueWarnings) instead of reading as a list of missing values.
  std::string specKernel, specKernelOrigin;
  /// Whether the launch spec names a kernel other than `program`'s.
  bool forOtherKernel(const Program &program) const {
    return !specKernel.empty() && specKernel != program.kernelName;
  }

  /// `--grid X[,Y[,Z]]`, within CUDA's grid limits (x < 2^31, y and z < 2^16; CUDA C++
  /// Programming Guide section 20.2).
  llvm::Error setGrid(llvm::StringRef text);
  /// `--arg NAME=VALUE`: an integer (decimal, 0x...) or a floating-point number (for a float argument).
  llvm::Error setArg(llvm::StringRef text);
  /// `--desc NAME=D0xD1[x...]`.
  llvm::Error setDesc(llvm::StringRef text);
  /// `--launch FILE.json` with keys `grid`, `args`, `descs` (a desc is a shape list or an
  /// object with `shape`), optionally `cluster_dims` and `ptrs` (an entry's `values`: ptrValues); later flags override it. Errors (naming the file and
  /// key): a key of the wrong type (`args` / `descs` not objects, `preconditions` not a list of strings, which the
  /// prover reads: tools/ProofReport.cpp) and a `schema_version` other than 1.
  llvm::Error loadJson(llvm::StringRef path);
  /// The same from an already parsed launch spec (e.g. the `launch` of a trace record);
  /// `context` prefixes the error messages (a file name and where in it).
  llvm::Error loadJsonObject(const llvm::json::Object &spec, llvm::StringRef context);

  int64_t numCtas() const { return grid[0] * grid[1] * grid[2]; }

  /// The CTA grid (CUDA's gridDim) that launching `grid` runs for `program`: each dimension times the cluster's
  /// when `ttg.num-ctas` > 1 (Triton's launcher multiplies: the grid counts clusters), the grid itself otherwise
  /// (TLX `ctas_per_cga`: CUDA semantics). See Program::numCtas.
  std::array<int64_t, 3> ctaGrid(const Program &program) const;
  /// Fails (bad input) when the CTA grid is not a whole number of clusters along every dimension (CUDA rejects
  /// such a launch: CUDA_ERROR_INVALID_CLUSTER_SIZE, cuLaunchKernelEx), exceeds CUDA's grid limits, or when the
  /// launch spec's `cluster_dims` disagree with the module's cluster shape.
  llvm::Error checkClusters(const Program &program) const;

  /// The initial frame of a CTA: every kernel argument bound by Python name (descriptor
  /// shape/stride arguments from the descriptor's global shape, row-major, contiguous). A float
  /// argument (KernelArg::isFloat) takes an integer or a float value and is bound as an opaque
  /// tensor-like value: float arithmetic carries no data in the simulator (register work only), so
  /// its value reaches no scalar the control flow or addresses read. A float value for an integer
  /// argument is an error.
  /// Fails naming every value the launch lacks (the grid, a scalar, a descriptor), a
  /// value that does not fit its argument's type, a descriptor shape of the wrong rank,
  /// and an `--arg` / `--desc` the kernel does not have (a launch JSON may carry extra arguments,
  /// e.g. ones the JIT specialized into constants).
  llvm::Expected<std::vector<Value>> bind(const Program &program) const;
  /// Warnings (`FILE: warning: ...`) for the launch spec's `args` and `descs` that name no argument of `program`
  /// and no key of the spec's `signature` (a typo such as "Kx" would otherwise leave the value the user meant
  /// unused, silently). Names in the signature are arguments the JIT specialized away: not warned.
  std::vector<std::string> unusedValueWarnings(const Program &program) const;
  /// Warnings for scalar values that break their argument's `tt.divisibility` (K = 100 for a kernel compiled for K
  /// divisible by 16): Triton would compile another kernel for such a value, so this binary never sees it.
  std::vector<std::string> divisibilityWarnings(const Program &program) const;
};

} // namespace tlxsim::sim
