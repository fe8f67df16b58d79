// CGA (cooperative grid array) layouts: how the CTAs of a cluster split a tensor or a shared-memory buffer.
//
// A Triton layout with `ttg.num-ctas` > 1 carries a CGA layout: `CGALayout = [[1, 0]]` (Triton 3.6: one basis per
// bit of the CTA id, basis b's component d the offset of that CTA-id bit along dimension d; a zero basis
// broadcasts, the CTAs that differ only in that bit hold the same part) or, before 3.6, `CTASplitNum = [2, 1]`.
// Each CTA holds the part of Triton's `getShapePerCTA` (lib/Dialect/TritonGPU/IR/Dialect.cpp): the shape divided
// by CTASplitNum, the sizes of the CGA layout's output dimensions. (Gluon's Python `_get_shape_per_cta`, used only to
// pick a default swizzle, also halves unsplit dimensions; the compiler's C++ does not: a 2-CTA [[1, 0]] split of a
// 128x128 fp16 box gives the host descriptor a 64x64 box, `tensordesc_meta.block_size`, 64 rows x 128B swizzle.)
#pragma once

#include "ir/Types.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace tlxsim::ir {

/// Triton's CTASplitNum of `encoding` for a tensor of `rank` dimensions: per dimension, the number of parts the
/// cluster's CTAs split it into (2 x the largest `CGALayout` basis component along it, 1 where every basis is 0;
/// or the `CTASplitNum` key). The encoding's dimensions are the tensor's trailing ones (a pipelined buffer's
/// leading buffer index is not split). All 1 for an encoding without a CGA layout or a null one.
llvm::SmallVector<int64_t> ctaSplitNum(mlir::Attribute encoding, size_t rank);

/// The bits of the cluster CTA id (%cluster_ctarank) that select a CTA's part under `encoding`: bit b is set
/// when `CGALayout` basis b is nonzero (CTAs that differ only in clear bits hold the same part). 0 without one.
uint32_t ctaSplitBits(mlir::Attribute encoding);

/// Elements of one CTA's part of a tensor of `shape` under `encoding` (product of shape / ctaSplitNum).
int64_t elementsPerCta(llvm::ArrayRef<int64_t> shape, mlir::Attribute encoding);

/// Elements one CTA holds of `type`: a ranked tensor or a shared-memory memdesc split by its encoding's CGA
/// layout; a tensor-memory memdesc (its 2-CTA split is TMEM geometry, sim/lowering/TmemGeometry) and other types
/// whole (a scalar: 1).
int64_t elementsPerCta(mlir::Type type);

/// Bytes one CTA holds of a memdesc: elementsPerCta times the element bits / 8, rounded up.
int64_t bytesPerCta(MemDescType type);

/// Bytes of one CTA's part of a descriptor's box: what the TMA copies of one CTA move and complete on its
/// mbarrier (Triton lowers a copy of a CGA-split box to one copy per CTA of its getShapePerCTA part; the host
/// descriptor's box is that part, `tensordesc_meta.block_size`). The whole box without a CGA layout.
int64_t boxBytesPerCta(TensorDescType type);

/// Elements of one CTA's part of a descriptor's box.
int64_t boxElementsPerCta(TensorDescType type);

} // namespace tlxsim::ir
