// CGA layouts: per-CTA parts of split tensors and buffers (ir/Cga.h).
#include "ir/Cga.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;

namespace tlxsim::ir {

namespace {
/// The `CGALayout` bases of `encoding` (each a vector of per-dimension offsets); empty without any.
llvm::SmallVector<llvm::SmallVector<int64_t>> cgaBases(Attribute encoding) {
  llvm::SmallVector<llvm::SmallVector<int64_t>> bases;
  auto enc = dyn_cast_or_null<EncodingAttr>(encoding);
  if (!enc || !enc.hasParams())
    return bases;
  auto outer = dyn_cast_or_null<ArrayAttr>(enc.getParams().get("CGALayout"));
  if (!outer)
    return bases;
  for (Attribute basis : outer) {
    llvm::SmallVector<int64_t> offsets;
    if (auto inner = dyn_cast<ArrayAttr>(basis))
      for (Attribute component : inner)
        if (auto integer = dyn_cast<IntegerAttr>(component))
          offsets.push_back(integer.getInt());
    bases.push_back(std::move(offsets));
  }
  return bases;
}
} // namespace

llvm::SmallVector<int64_t> ctaSplitNum(Attribute encoding, size_t rank) {
  llvm::SmallVector<int64_t> split(rank, 1);
  auto bases = cgaBases(encoding);
  if (!bases.empty()) {
    size_t encRank = bases.front().size();
    if (encRank > rank)
      return split;
    for (const auto &basis : bases)
      for (size_t d = 0; d < basis.size() && d < encRank; ++d)
        split[rank - encRank + d] = std::max(split[rank - encRank + d], 2 * basis[d]);
    return split;
  }
  auto enc = dyn_cast_or_null<EncodingAttr>(encoding);
  if (!enc || !enc.hasParams())
    return split;
  llvm::SmallVector<int64_t> legacy = enc.getIntArray("CTASplitNum");
  for (size_t d = 0; d < legacy.size() && legacy.size() <= rank; ++d)
    split[rank - legacy.size() + d] = std::max<int64_t>(1, legacy[d]);
  return split;
}

uint32_t ctaSplitBits(Attribute encoding) {
  uint32_t bits = 0;
  auto bases = cgaBases(encoding);
  for (size_t b = 0; b < bases.size() && b < 32; ++b)
    if (llvm::any_of(bases[b], [](int64_t v) { return v != 0; }))
      bits |= 1u << b;
  if (bases.empty()) { // CTASplitNum: CTA ids 0 .. parts - 1 hold the parts
    int64_t parts = 1;
    for (int64_t n : ctaSplitNum(encoding, 8))
      parts *= n;
    bits = static_cast<uint32_t>(llvm::PowerOf2Ceil(static_cast<uint64_t>(parts)) - 1);
  }
  return bits;
}

int64_t elementsPerCta(llvm::ArrayRef<int64_t> shape, Attribute encoding) {
  llvm::SmallVector<int64_t> split = ctaSplitNum(encoding, shape.size());
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    n *= std::max<int64_t>(1, shape[d] / split[d]);
  return n;
}

int64_t elementsPerCta(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return elementsPerCta(tensor.getShape(), tensor.getEncoding());
  if (auto memdesc = dyn_cast<MemDescType>(type))
    return memdesc.isTensorMemory() ? memdesc.getNumElements()
                                    : elementsPerCta(memdesc.getShape(), memdesc.getEncoding());
  return 1;
}

int64_t bytesPerCta(MemDescType type) {
  unsigned bits = type.getElementType().isIntOrFloat() ? type.getElementType().getIntOrFloatBitWidth() : 8;
  return (elementsPerCta(type) * bits + 7) / 8;
}

int64_t boxElementsPerCta(TensorDescType type) {
  RankedTensorType block = type.getBlockType();
  return elementsPerCta(block.getShape(), block.getEncoding());
}

int64_t boxBytesPerCta(TensorDescType type) {
  RankedTensorType block = type.getBlockType();
  return boxElementsPerCta(type) * ((block.getElementTypeBitWidth() + 7) / 8);
}

} // namespace tlxsim::ir
