// A distributed (register) layout as Triton's linear layout: the tensor coordinate each register, lane and warp bit
// of a thread's element index selects (Triton 3.6 LinearLayoutConversions.cpp, toLinearLayout of blocked, slice,
// nvidia_mma v2/v3, amd_mfma and its dot operands, and linear encodings; one CTA, no CGA split). What Triton's
// swizzled layout conversion (sim/CvtSwizzle.h) works on.
#pragma once

#include "mlir/IR/Attributes.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tlxsim::sim {

/// The bases of a linear layout from (register, lane, warp) to the coordinates of a tensor of `shape`: bit i of the
/// register index selects reg[i] (a coordinate per dim), and the element is the XOR of the selected bases. A zero
/// basis broadcasts (several registers, lanes or warps hold the same element).
struct RegisterLayout {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> reg, lane, warp;

  /// A basis as one index into the tensor flattened with dim 0 fastest (Triton's LinearLayout::flattenOuts: the
  /// first out dimension is the most minor). Shapes are powers of two, so this is a bit concatenation.
  int64_t flatten(const std::vector<int64_t> &basis) const;
  /// log2 of the number of elements.
  int32_t log2Elements() const;
};

/// Triton's toLinearLayout(shape, encoding) for the encodings listed above; nullopt for another encoding, a shape
/// that is not a power of two per dim, a rank other than 1 or 2 (for mma layouts: 2), a CGA layout, or an
/// amd_mfma with tiles per warp.
std::optional<RegisterLayout> toRegisterLayout(mlir::Attribute encoding, llvm::ArrayRef<int64_t> shape);

} // namespace tlxsim::sim
