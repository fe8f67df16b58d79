// The kernel parameter buffer of a Triton 3.6 launch, built as Triton's own launcher builds it
// (triton/backends/nvidia/driver.py make_launcher + wrap_handle_tensordesc +
// make_tensordesc_arg, driver.c fillTMADescriptor; triton/backends/amd/driver.py for hip):
//   * the arguments in signature order, `constexpr` ones removed (a None argument is a
//     constexpr in 3.6's specialization, so it is removed too);
//   * a host tensor descriptor with tensordesc_meta becomes a CUtensorMap (cuTensorMapEncodeTiled
//     over the base, shape, strides, the meta's block size and swizzle) followed by its shape
//     (i32 each) and strides (i64 each); without meta it is decomposed into the base pointer,
//     shape and strides (i64), padding == "nan" (i1), then shape (i32) and strides (i64);
//   * scalars in ty_to_cpp's C types (i32 -> int32_t, fp32 -> uint32_t storage of the float...);
//   * the trailing global scratch and profile scratch pointers (null when their size is 0).
// No GPU is involved: pointer values are filled in by the runner once buffers exist.
#pragma once

#include "runner/Capture.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tlxsim::runner {

/// The arguments of one cuTensorMapEncodeTiled call exactly as driver.c fillTMADescriptor
/// computes them (innermost dimension first). The global address is the tensor's base.
struct TensorMapArgs {
  int dataType = 0;                   ///< host CUtensorMapDataType (Triton's TMA_DTYPE_DEVICE_TO_HOST applied)
  uint32_t rank = 0;
  std::vector<uint64_t> globalDim;    ///< elements, innermost first
  std::vector<uint64_t> globalStrides;///< bytes, rank entries as driver.c fills them (the API reads rank-1)
  std::vector<uint32_t> boxDim;       ///< elements, innermost first (the meta's block_size, reversed)
  std::vector<uint32_t> elementStrides; ///< all 1
  int interleave = 0;                 ///< CU_TENSOR_MAP_INTERLEAVE_NONE
  int swizzle = 0;                    ///< CUtensorMapSwizzle from the meta
  int l2Promotion = 2;                ///< CU_TENSOR_MAP_L2_PROMOTION_L2_128B
  int oobFill = 0;                    ///< 1 (NAN_REQUEST_ZERO_FMA) when padding == "nan", else 0
};

enum class ParamKind { Scalar, Pointer, TensorMap, Scratch };

/// One kernel parameter: C type, size, alignment, byte offset in the parameter buffer, value.
struct Param {
  std::string name;       ///< argument name, or "a_desc.shape[0]", "a_desc.base", "global_scratch"
  std::string tritonType; ///< expanded signature type: i32, i64, i1, *fp16, nvTmaDesc, fp32, ...
  std::string cType;      ///< the launcher's C type: int32_t, CUdeviceptr, CUtensorMap, uint16_t, ...
  ParamKind kind = ParamKind::Scalar;
  uint32_t size = 0, align = 0; ///< bytes
  uint32_t offset = 0;          ///< bytes from the start of the kernel's parameter space
  uint64_t bits = 0;            ///< scalar value, little-endian storage bits (Scalar)
  std::string tensor;           ///< bound tensor (Pointer, TensorMap), empty for a null pointer
  std::optional<TensorMapArgs> tensorMap;
};

/// The whole parameter list of a launch.
struct ParamLayout {
  std::vector<Param> params;
  uint32_t base = 0;  ///< where the parameter space starts in constant bank 0 (alignment is absolute)
  uint32_t size = 0;  ///< bytes from offset 0 to the end of the last parameter
};

/// Builds the parameter list of `capture` in Triton 3.6's order with offsets for a parameter
/// space starting at constant-bank offset `base` (0x210 on sm_90, 0x380 on sm_100: read it
/// from the cubin with readCubinParams; 0 for hip). Errors: an argument without a value in
/// launch.json, a tensordesc count that differs from tensordesc_meta, an unknown type.
llvm::Expected<ParamLayout> buildParamLayout(const Capture &capture, uint32_t base = 0);

/// The storage bits of a float scalar as Triton's pack_fp16/pack_bf16/pack_fp32/pack_fp64 make them.
uint64_t packFloat(llvm::StringRef type, double value);

/// Triton's host TMA dtype from the device-side enum in tensordesc_meta (TMA_DTYPE_DEVICE_TO_HOST).
int tmaDtypeDeviceToHost(int deviceType);

/// The cuTensorMapEncodeTiled arguments for a descriptor tensor and its meta (driver.c).
TensorMapArgs tensorMapArgs(const TensorSpec &tensor, const TensorDescMeta &meta);

/// The layout as JSON (for `tlx-sim run --dry-run --json`): a list of {name, type, ctype,
/// kind, offset, size, align, value | tensor | tensormap}.
llvm::json::Value layoutToJson(const ParamLayout &layout);

} // namespace tlxsim::runner
