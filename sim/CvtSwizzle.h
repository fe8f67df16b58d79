// The shared-memory scratch of a layout conversion that Triton lowers through a swizzled buffer: the tensor's
// elements divided by the repetitions of Triton's optimal swizzling (Triton 3.6 lib/Tools/GenericSwizzling.cpp
// optimalSwizzling / optimalSwizzlingLdSt, used by getNumScratchElemsSwizzledCvt in lib/Analysis/Allocation.cpp and
// third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/Allocation.cpp; tiles of getSrcDstTiles in
// lib/Conversion/TritonGPUToLLVM/Utility.cpp).
#pragma once

#include "sim/RegisterLayout.h"

#include <cstdint>
#include <optional>

namespace tlxsim::sim {

/// Which shared-memory instructions the target may use for the conversion.
struct CvtTarget {
  bool nvidia = false;   ///< NVIDIA: optimalSwizzling over ld/st.shared and ldmatrix/stmatrix tiles; AMD: ld/st only
  int32_t capability = 0; ///< NVIDIA compute capability (ldmatrix from 80, stmatrix from 90)
};

/// Elements of the scratch buffer Triton allocates to convert a tensor from layout `src` to `dst` (same shape) with
/// elements of `bitwidth` bits (Triton's getBitwidth: at least 8, pointers 64): elements / reps, where reps are the
/// swizzled layout's segment bases that are registers in both layouts (buildReps). Register broadcasts are removed
/// first (actionRemoveBroadcastedRegs). nullopt where a step needs more than the power-of-two bases this computes
/// with (a layout whose register or lane bases are not single bits, or whose bases are dependent).
std::optional<int64_t> swizzledCvtScratchElements(const RegisterLayout &src, const RegisterLayout &dst,
                                                  int32_t bitwidth, CvtTarget target);

} // namespace tlxsim::sim
