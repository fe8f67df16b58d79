// Correctness references of `tlx-sim run`: what the kernel computes, recognised from the
// capture, and a CPU check of the GPU's output on sampled elements. A timing of a wrong kernel
// is worthless, so a mismatch is an error (exit 1).
//
// A capture names its reference in launch.json "reference" ({"kind": "gemm" | "attention",
// "operands": [argument names]}, or {"kind": "scale", "operands": [X, Y], "factor": a scalar
// argument's name or a number}: Y = factor * X elementwise, X and Y 2-D of one shape; a kernel
// module declares it as REFERENCE and capture writes it, kernels/README.md); without that key the
// runner recognises the two problems of the kernel-module convention (kernels/README.md,
// kernels/_harness.py) from the launch alone:
//   * gemm: launch "shape" has M, N, K and the 2-D tensors, in signature order, are exactly
//     A [M, K], B [K, N], C [M, N]; C = A @ B (fp32 accumulation);
//   * attention: "shape" has Z, H, N_CTX and the 2-D tensors are exactly Q, K, V, O of
//     [Z * H * N_CTX, D] (head h owns rows h * N_CTX ...); O = softmax(Q K^T / sqrt(D)) V per head.
// Anything else has no reference and is reported as unchecked.
#pragma once

#include "runner/Capture.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tlxsim::runner {

enum class ReferenceKind { None, Gemm, Attention, Scale };

/// "none", "gemm", "attention", "scale".
const char *referenceKindName(ReferenceKind kind);

struct ReferenceSpec {
  ReferenceKind kind = ReferenceKind::None;
  std::vector<std::string> operands; ///< gemm: A, B, C; attention: Q, K, V, O; scale: X, Y (argument names)
  int64_t m = 0, n = 0, k = 0;       ///< gemm sizes
  int64_t heads = 0, rowsPerHead = 0, headDim = 0; ///< attention sizes
  double factor = 0;                 ///< scale: Y = factor * X
  double flops = 0;                  ///< useful floating-point operations of one launch
  std::string reason;                ///< why there is no reference (kind None)
  /// The output operand (written by the kernel, poisoned with NaN before the checked launch).
  const std::string &output() const { return operands.back(); }
};

/// The reference of a capture. `request`: "auto" (launch.json "reference", else recognition),
/// "none", "gemm" or "attention" (recognition must then succeed). Errors on a malformed
/// "reference" key or a forced kind that does not fit the launch (bad input).
llvm::Expected<ReferenceSpec> findReference(const Capture &capture, llvm::StringRef request);

/// The outcome of a check.
struct CheckResult {
  bool ok = false;
  double maxRelErr = 0;   ///< max |out - ref| / max |ref| over the sampled elements
  int64_t samples = 0;    ///< elements compared with the CPU reference
  int64_t nonFinite = 0;  ///< NaN/inf elements anywhere in the output (unwritten after NaN poisoning)
  std::string message;    ///< first mismatch, when not ok
};

/// Host copies of the tensors by argument name (element bytes at the tensor's strides).
using HostTensors = std::map<std::string, std::vector<uint8_t>>;

/// Compares the output with a CPU reference in double precision on sampled elements (gemm: one
/// element in every 64 x 64 cell of C, at most 256 x 256 cells; attention: one row in every
/// 128-row band of every head, at most 512 rows; scale: every element), with hw_time.py's tolerance:
/// |out - ref| <= 1e-2 * max|ref| + 1e-2 * |ref|. Sample positions come from `seed`; the
/// reference is computed on `threads` threads (0: all cores). Also counts non-finite elements of
/// the whole output.
CheckResult checkReference(const ReferenceSpec &spec, const Capture &capture, const HostTensors &tensors,
                           uint64_t seed, unsigned threads = 0);

} // namespace tlxsim::runner
