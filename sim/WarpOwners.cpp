#include "sim/WarpOwners.h"

#include "llvm/Support/MathExtras.h"

#include "ir/Types.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <set>

using namespace mlir;

namespace tlxsim::sim {

namespace {

constexpr int64_t kMaxElements = int64_t(1) << 20;

/// A layout that tiles each dim with `inWarp` elements per warp and `warps` warps (repeating when the tensor is
/// larger, broadcasting when it is smaller); warp ids linearize the per-dim warp indices with `order[0]` fastest.
struct TiledLayout {
  std::vector<int64_t> inWarp, warps, order;
  std::vector<bool> broadcast; ///< dims on which every warp index holds every element (a dot operand's K)
};

std::optional<std::vector<uint64_t>> ownersOfTiled(const TiledLayout &layout, ArrayRef<int64_t> shape) {
  size_t rank = shape.size();
  if (layout.inWarp.size() != rank || layout.warps.size() != rank || layout.order.size() != rank)
    return std::nullopt;
  std::vector<int64_t> stride(rank, 1);
  int64_t total = 1;
  for (int64_t d : layout.order) {
    if (d < 0 || d >= static_cast<int64_t>(rank))
      return std::nullopt;
    stride[d] = total;
    total *= layout.warps[d];
  }
  if (total > 64)
    return std::nullopt;
  // per dim: for each coordinate, the warp indices along that dim that hold it
  std::vector<std::vector<std::vector<int64_t>>> perDim(rank);
  for (size_t d = 0; d < rank; ++d) {
    perDim[d].resize(shape[d]);
    int64_t span = std::max(shape[d], layout.inWarp[d] * layout.warps[d]);
    for (int64_t p = 0; p < span; ++p) {
      auto &holders = perDim[d][p % shape[d]];
      int64_t w = (p / std::max<int64_t>(1, layout.inWarp[d])) % layout.warps[d];
      if (layout.broadcast[d]) {
        for (int64_t all = 0; all < layout.warps[d]; ++all)
          if (std::find(holders.begin(), holders.end(), all) == holders.end())
            holders.push_back(all);
      } else if (std::find(holders.begin(), holders.end(), w) == holders.end()) {
        holders.push_back(w);
      }
    }
  }
  int64_t elements = 1;
  for (int64_t s : shape)
    elements *= s;
  std::vector<uint64_t> owners(elements, 0);
  std::vector<int64_t> coord(rank, 0);
  for (int64_t e = 0; e < elements; ++e) {
    int64_t rest = e;
    for (size_t d = rank; d-- > 0;) {
      coord[d] = rest % shape[d];
      rest /= shape[d];
    }
    // the cartesian product of the per-dim holders
    std::vector<int64_t> ids{0};
    for (size_t d = 0; d < rank; ++d) {
      std::vector<int64_t> next;
      for (int64_t id : ids)
        for (int64_t w : perDim[d][coord[d]])
          next.push_back(id + w * stride[d]);
      ids = std::move(next);
    }
    for (int64_t id : ids)
      owners[e] |= uint64_t(1) << id;
  }
  return owners;
}

/// Triton's getMatrixOrder: row-major [rank-1, ..., 0]; column-major [rank-2, rank-1, rank-3, ..., 0].
std::vector<int64_t> matrixOrder(size_t rank, bool rowMajor) {
  std::vector<int64_t> order;
  for (size_t i = rank; i-- > 0;)
    order.push_back(static_cast<int64_t>(i));
  if (!rowMajor && rank >= 2)
    std::swap(order[0], order[1]);
  return order;
}

/// An mma-style layout (nvidia_mma, amd_mfma): a warp tile of the instruction's M x N; Hopper's warpgroups put
/// consecutive warps along M, Ampere and AMD along N (LinearLayoutConversions.cpp warp orders).
std::optional<TiledLayout> mmaTiles(ir::EncodingAttr mma, size_t rank) {
  auto warps = mma.getIntArray("warpsPerCTA");
  auto instr = mma.getIntArray("instrShape");
  if (warps.size() != rank || rank < 2)
    return std::nullopt;
  TiledLayout t;
  t.warps.assign(warps.begin(), warps.end());
  t.inWarp.assign(rank, 1);
  t.broadcast.assign(rank, false);
  bool hopper = false;
  if (mma.getMnemonic() == "nvidia_mma") {
    int64_t version = mma.getInt("versionMajor").value_or(2);
    hopper = version == 3;
    t.inWarp[rank - 2] = 16;
    t.inWarp[rank - 1] = hopper && instr.size() >= 2 ? instr[1] : 8;
  } else if (mma.getMnemonic() == "amd_mfma" || mma.getMnemonic() == "amd_wmma") {
    t.inWarp[rank - 2] = instr.size() >= 1 ? instr[0] : 32;
    t.inWarp[rank - 1] = instr.size() >= 2 ? instr[1] : 32;
  } else {
    return std::nullopt;
  }
  auto order = matrixOrder(rank, /*rowMajor=*/!hopper);
  t.order.assign(order.begin(), order.end());
  return t;
}

std::optional<std::vector<uint64_t>> ownersOfLinear(ir::EncodingAttr linear, ArrayRef<int64_t> shape) {
  auto basesOf = [&](StringRef key, std::vector<std::vector<int64_t>> &out) {
    auto bases = linear.getBases(key, shape.size());
    if (bases)
      out.insert(out.end(), bases->begin(), bases->end());
    return bases.has_value();
  };
  std::vector<std::vector<int64_t>> inWarp, warp;
  if (!basesOf("register", inWarp) || !basesOf("lane", inWarp) || !basesOf("warp", warp) || warp.size() > 6 ||
      inWarp.size() + warp.size() > 22)
    return std::nullopt;
  int64_t elements = 1;
  for (int64_t s : shape)
    elements *= s;
  std::vector<uint64_t> owners(elements, 0);
  for (int64_t w = 0; w < (int64_t(1) << warp.size()); ++w)
    for (int64_t i = 0; i < (int64_t(1) << inWarp.size()); ++i) {
      std::vector<int64_t> coord(shape.size(), 0);
      for (size_t b = 0; b < warp.size(); ++b)
        if (w >> b & 1)
          for (size_t d = 0; d < shape.size(); ++d)
            coord[d] ^= warp[b][d];
      for (size_t b = 0; b < inWarp.size(); ++b)
        if (i >> b & 1)
          for (size_t d = 0; d < shape.size(); ++d)
            coord[d] ^= inWarp[b][d];
      int64_t index = 0;
      for (size_t d = 0; d < shape.size(); ++d) {
        // A layout larger than the tensor broadcasts: Triton's toLinearLayout(shape) drops the bases beyond a
        // (power-of-two) dim (LinearLayout ensureLayoutNotLargerThan), so coordinates wrap
        if (!llvm::isPowerOf2_64(shape[d]) && (coord[d] < 0 || coord[d] >= shape[d]))
          return std::nullopt;
        coord[d] &= shape[d] - 1;
        index = index * shape[d] + coord[d];
      }
      owners[index] |= uint64_t(1) << w;
    }
  return owners;
}

} // namespace

std::optional<std::vector<uint64_t>> warpOwners(Attribute attr, ArrayRef<int64_t> shape) {
  auto encoding = dyn_cast_or_null<ir::EncodingAttr>(attr);
  if (!encoding || shape.empty())
    return std::nullopt;
  int64_t elements = 1;
  for (int64_t s : shape) {
    if (s < 1)
      return std::nullopt;
    elements *= s;
  }
  if (elements > kMaxElements)
    return std::nullopt;
  StringRef kind = encoding.getMnemonic();
  size_t rank = shape.size();
  if (kind == "blocked") {
    auto spt = encoding.getIntArray("sizePerThread"), tpw = encoding.getIntArray("threadsPerWarp"),
         wpc = encoding.getIntArray("warpsPerCTA"), order = encoding.getIntArray("order");
    if (spt.size() != rank || tpw.size() != rank || wpc.size() != rank || order.size() != rank)
      return std::nullopt;
    TiledLayout t;
    for (size_t d = 0; d < rank; ++d)
      t.inWarp.push_back(spt[d] * tpw[d]);
    t.warps.assign(wpc.begin(), wpc.end());
    t.order.assign(order.begin(), order.end());
    t.broadcast.assign(rank, false);
    return ownersOfTiled(t, shape);
  }
  if (kind == "slice") {
    auto dim = encoding.getInt("dim");
    Attribute parent = encoding.getParams().get("parent");
    if (!dim || *dim < 0 || *dim > static_cast<int64_t>(rank))
      return std::nullopt;
    std::vector<int64_t> parentShape(shape.begin(), shape.end());
    parentShape.insert(parentShape.begin() + *dim, 1); // the sliced dim: every warp index along it holds it
    return warpOwners(parent, parentShape);
  }
  if (kind == "nvidia_mma" || kind == "amd_mfma" || kind == "amd_wmma") {
    auto t = mmaTiles(encoding, rank);
    return t ? ownersOfTiled(*t, shape) : std::nullopt;
  }
  if (kind == "dot_op") {
    auto opIdx = encoding.getInt("opIdx");
    auto parent = dyn_cast_or_null<ir::EncodingAttr>(encoding.getParams().get("parent"));
    auto t = parent ? mmaTiles(parent, rank) : std::nullopt;
    if (!opIdx || !t)
      return std::nullopt;
    // operand A keeps the rows of its warps and is shared by the warps along N; operand B the reverse
    size_t kDim = *opIdx == 0 ? rank - 1 : rank - 2;
    t->broadcast[kDim] = true;
    t->inWarp[kDim] = shape[kDim];
    return ownersOfTiled(*t, shape);
  }
  if (kind == "linear")
    return ownersOfLinear(encoding, shape);
  return std::nullopt;
}

std::optional<int64_t> warpsAlongAxis(Attribute encoding, ArrayRef<int64_t> shape, int64_t axis) {
  auto owners = warpOwners(encoding, shape);
  if (!owners || axis < 0 || axis >= static_cast<int64_t>(shape.size()))
    return std::nullopt;
  int64_t stride = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d)
    stride *= shape[d];
  std::set<uint64_t> distinct;
  for (int64_t i = 0; i < shape[axis]; ++i)
    distinct.insert((*owners)[i * stride]);
  return static_cast<int64_t>(distinct.size());
}

} // namespace tlxsim::sim
