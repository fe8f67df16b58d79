// A captured kernel launch as `tlx-sim run` reads it: the capture folder that
// `tlx_sim.capture` writes (kernels/README.md "Captures and launch.json"): launch.json
// (grid, scalar args, tensor descriptors, pointer tensors, signature), Triton's metadata
// JSON (<kernel>.json: shared memory, num_warps, num_ctas, scratch sizes, tensordesc_meta)
// and the binary (<kernel>.cubin for cuda targets, <kernel>.hsaco for hip targets).
#pragma once

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tlxsim::runner {

/// A tensor the launch needs in device memory: a host tensor descriptor's base (launch.json
/// "descs") or a pointer argument's tensor ("ptrs"). Shapes and strides in elements.
struct TensorSpec {
  std::string name;             ///< the kernel argument it is bound to (a_desc, a_ptr)
  std::string dtype;            ///< Triton type name: fp16, bf16, fp32, fp8e4nv, i32, ...
  std::vector<int64_t> shape;   ///< global shape, elements
  std::vector<int64_t> strides; ///< elements; row-major contiguous when launch.json gives none
  std::vector<int64_t> block;   ///< descriptor block (box) shape, elements; empty for pointers
  bool isDescriptor = false;
  std::string padding = "zero"; ///< descriptor padding: "zero" or "nan" (Triton's TensorDescriptor.padding)
  /// Elements the allocation must hold: 1 + sum((shape[i] - 1) * strides[i]).
  int64_t extentElements() const;
};

/// One entry of Triton's `tensordesc_meta` (metadata JSON): how the kernel was lowered for a
/// host tensor descriptor argument (triton/backends/nvidia/driver.py make_tensordesc_arg).
struct TensorDescMeta {
  int swizzle = 0;                ///< CUtensorMapSwizzle value (0 none, 1 32B, 2 64B, 3 128B)
  int elemSize = 0;               ///< bytes per element
  int elemType = 0;               ///< Triton's *device-side* TMA dtype enum (mapped to the host enum)
  std::vector<int64_t> blockSize; ///< the TMA box the kernel issues, elements (outer first)
  bool fp4Padded = false;
};

/// What Triton's launcher reads from the compiled kernel's metadata (CompiledKernel.metadata).
struct KernelMetadata {
  std::string name;    ///< kernel symbol
  std::string backend; ///< "cuda" or "hip"
  std::string arch;    ///< "90", "100", "gfx942"
  int numWarps = 4;    ///< total warps of the CTA (blockDim.x = numWarps * warpSize)
  int numCtas = 1;     ///< CTAs per cluster (cluster dim x)
  int warpSize = 32;
  int64_t shared = 0;  ///< dynamic shared memory, bytes
  int64_t globalScratchSize = 0, globalScratchAlign = 1;   ///< bytes per CTA
  int64_t profileScratchSize = 0, profileScratchAlign = 1; ///< bytes per CTA
  bool launchCooperativeGrid = false;
  bool launchPdl = false;
  std::optional<int> maxnreg; ///< compile-time register cap (ptxas --maxrregcount); informational
  /// One entry per tensordesc argument in signature order; std::nullopt entries (or an empty
  /// list) mean the descriptor was decomposed into pointer, shape and strides.
  std::vector<std::optional<TensorDescMeta>> tensordescMeta;
};

/// A scalar argument value from launch.json "args".
struct ScalarValue {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
};

/// A captured launch, ready for packing and running.
struct Capture {
  std::string dir;        ///< the capture folder
  std::string kernel;     ///< launch.json "kernel"
  std::string module;     ///< launch.json "module" (kernels/hopper/ws_gemm.py)
  std::string config;     ///< launch.json "config"
  std::string target;     ///< "cuda:90", "hip:gfx942"
  std::array<int64_t, 3> grid{1, 1, 1};
  /// (argument name, Triton type string) in the kernel's parameter order: "i32", "*fp16",
  /// "tensordesc<fp16[128, 64],...>", "constexpr", ...
  std::vector<std::pair<std::string, std::string>> signature;
  std::map<std::string, ScalarValue> args;   ///< scalar arguments by name
  std::map<std::string, TensorSpec> tensors; ///< descriptor and pointer tensors by argument name
  std::vector<std::pair<std::string, int64_t>> shape; ///< launch.json "shape" (problem shape), if given
  KernelMetadata metadata;
  std::string binaryPath;   ///< the .cubin or .hsaco
  llvm::json::Object launchJson; ///< launch.json as read (for records)

  bool isCuda() const { return metadata.backend == "cuda"; }
  std::optional<int64_t> shapeValue(llvm::StringRef key) const;
};

/// Reads a capture folder. `path` is the folder or its launch.json; the metadata is
/// <kernel>.json beside it, the binary <kernel>.cubin / <kernel>.hsaco. Errors name the file
/// and the offending key (bad input: exit 2).
llvm::Expected<Capture> readCapture(llvm::StringRef path);

/// launch.json's "shape" (the problem shape records are filed under, runner/Record.cpp) against the launch's own
/// scalar arguments: one message per shape key that names an integer argument of another value ("shape.M = 8192
/// but args.M = 4096"), e.g. a capture copied and re-staged at another size with its old "shape". Empty when they
/// agree or the capture has no "shape".
std::vector<std::string> shapeMismatches(const Capture &c);

/// Parses a capture from texts already in memory (tests): launch.json and metadata JSON.
llvm::Expected<Capture> parseCapture(llvm::StringRef launchText, llvm::StringRef metadataText, llvm::StringRef where);

/// Bytes per element of a Triton dtype name (fp16 2, fp32 4, fp8e4nv 1, i64 8, ...); 0 if unknown.
int dtypeBytes(llvm::StringRef dtype);

} // namespace tlxsim::runner
