#include "sim/RegisterLayout.h"

#include "ir/Types.h"

#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace tlxsim::sim {

int64_t RegisterLayout::flatten(const std::vector<int64_t> &basis) const {
  int64_t index = 0;
  int32_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    index |= basis[d] << offset;
    offset += llvm::Log2_64(shape[d]);
  }
  return index;
}

int32_t RegisterLayout::log2Elements() const {
  int32_t bits = 0;
  for (int64_t s : shape)
    bits += llvm::Log2_64(s);
  return bits;
}

namespace {

using Basis = std::vector<int64_t>;
using Bases = std::vector<Basis>;

/// A CTA's layout while it is built: bases so far, the size covered along each dim (LinearLayout::getOutDimSize),
/// and the order of the dims in which repetitions are appended as registers (the layout's out-dim order, which
/// ensureLayoutNotSmallerThan follows).
struct Builder {
  size_t rank;
  Bases reg, lane, warp;
  std::vector<int64_t> covered;
  std::vector<int64_t> repOrder;

  explicit Builder(size_t rank) : rank(rank), covered(rank, 1) {}
  Basis unit(size_t dim, int64_t value) const {
    Basis b(rank, 0);
    b[dim] = value;
    return b;
  }
  /// LinearLayout product with identity1D(n, inDim, dim): n more elements along `dim`, after those covered.
  void identity(Bases &in, size_t dim, int64_t n) {
    for (int64_t v = 1; v < n; v *= 2)
      in.push_back(unit(dim, covered[dim] * v));
    covered[dim] *= std::max<int64_t>(n, 1);
  }
  /// zeros1D(n, inDim, dim): n broadcast copies.
  void zeros(Bases &in, int64_t n) {
    for (int64_t v = 1; v < n; v *= 2)
      in.push_back(Basis(rank, 0));
  }
  /// combineCtaCgaWithShape for one CTA: repeat in registers up to `shape` (in `repOrder`), then drop what lies
  /// beyond it (ensureLayoutNotLargerThan: those bases broadcast).
  RegisterLayout finish(ArrayRef<int64_t> shape) {
    for (int64_t d : repOrder)
      if (covered[d] < shape[d])
        identity(reg, d, shape[d] / covered[d]);
    RegisterLayout out;
    out.shape.assign(shape.begin(), shape.end());
    for (Bases *in : {&reg, &lane, &warp})
      for (Basis &b : *in)
        for (size_t d = 0; d < rank; ++d)
          b[d] &= shape[d] - 1;
    out.reg = std::move(reg);
    out.lane = std::move(lane);
    out.warp = std::move(warp);
    return out;
  }
};

bool allPowersOf2(ArrayRef<int64_t> values) {
  return llvm::all_of(values, [](int64_t v) { return v > 0 && llvm::isPowerOf2_64(v); });
}

/// `order` holds each of 0 .. size-1 once.
bool isPermutation(ArrayRef<int64_t> order) {
  std::vector<bool> seen(order.size(), false);
  for (int64_t d : order) {
    if (d < 0 || d >= static_cast<int64_t>(order.size()) || seen[d])
      return false;
    seen[d] = true;
  }
  return true;
}

/// True when the encoding splits the tensor over the CTAs of a cluster (not modeled here).
bool hasCgaSplit(ir::EncodingAttr encoding) {
  for (int64_t s : encoding.getIntArray("CTASplitNum"))
    if (s != 1)
      return true;
  auto cga = dyn_cast_or_null<ArrayAttr>(encoding.getParams().get("CGALayout"));
  return cga && !cga.empty();
}

std::optional<RegisterLayout> blocked(ir::EncodingAttr e, ArrayRef<int64_t> shape) {
  auto spt = e.getIntArray("sizePerThread"), tpw = e.getIntArray("threadsPerWarp"), wpc = e.getIntArray("warpsPerCTA"),
       order = e.getIntArray("order");
  size_t rank = shape.size();
  if (spt.size() != rank || tpw.size() != rank || wpc.size() != rank || order.size() != rank ||
      !allPowersOf2(spt) || !allPowersOf2(tpw) || !allPowersOf2(wpc) || !isPermutation(order))
    return std::nullopt;
  Builder b(rank);
  for (int64_t d : order)
    b.identity(b.reg, d, spt[d]);
  for (int64_t d : order)
    b.identity(b.lane, d, tpw[d]);
  for (int64_t d : order)
    b.identity(b.warp, d, wpc[d]);
  b.repOrder.assign(order.begin(), order.end());
  return b.finish(shape);
}

std::optional<RegisterLayout> linear(ir::EncodingAttr e, ArrayRef<int64_t> shape) {
  Builder b(shape.size());
  auto read = [&](StringRef key, Bases &out) {
    auto bases = e.getBases(key, shape.size());
    if (bases)
      out.insert(out.end(), bases->begin(), bases->end());
    return bases.has_value();
  };
  Bases block;
  if (!read("register", b.reg) || !read("lane", b.lane) || !read("warp", b.warp) ||
      (e.getParams().get("block") && (!read("block", block) || !block.empty())))
    return std::nullopt;
  return b.finish(shape);
}

/// amd_mfma (AMDMfmaEncodingAttr::toLinearLayout): a 32x32 or 16x16 tile per warp, the warps with dim 1 fastest,
/// repetitions along dim 1 first. Transposed swaps the tile's dims.
std::optional<RegisterLayout> mfma(ir::EncodingAttr e, ArrayRef<int64_t> shape) {
  auto instr = e.getIntArray("instrShape"), wpc = e.getIntArray("warpsPerCTA");
  for (int64_t t : e.getIntArray("tilesPerWarp"))
    if (t != 1)
      return std::nullopt;
  if (shape.size() != 2 || wpc.size() != 2 || !allPowersOf2(wpc) || instr.empty() ||
      (instr[0] != 32 && instr[0] != 16) || e.getInt("elementBitWidth").value_or(32) != 32)
    return std::nullopt;
  bool transposed = false;
  if (auto t = dyn_cast_or_null<BoolAttr>(e.getParams().get("isTransposed")))
    transposed = t.getValue();
  int64_t m = instr[0];
  size_t regDim = transposed ? 1 : 0, laneDim = 1 - regDim;
  Builder b(2);
  for (int64_t v : m == 32 ? std::vector<int64_t>{1, 2, 8, 16} : std::vector<int64_t>{1, 2})
    b.reg.push_back(b.unit(regDim, v));
  for (int64_t v = 1; v < m; v *= 2)
    b.lane.push_back(b.unit(laneDim, v));
  for (int64_t v = 4, lanes = m; lanes < 64; v *= 2, lanes *= 2) // 64 lanes: the rest step 4 rows
    b.lane.push_back(b.unit(regDim, v));
  b.covered = {m, m};
  b.identity(b.warp, 1, wpc[1]);
  b.identity(b.warp, 0, wpc[0]);
  b.repOrder = {1, 0};
  return b.finish(shape);
}

/// A dot operand of an amd_mfma (mfmaDotToLinearLayout): kWidth consecutive K elements per lane, the lanes along
/// the non-K dim and then K; the mfma's warps along K broadcast; repetitions along K first.
std::optional<RegisterLayout> mfmaDot(ir::EncodingAttr parent, int64_t opIdx, int64_t kWidth, ArrayRef<int64_t> shape) {
  auto instr = parent.getIntArray("instrShape"), wpc = parent.getIntArray("warpsPerCTA");
  for (int64_t t : parent.getIntArray("tilesPerWarp"))
    if (t != 1)
      return std::nullopt;
  if (shape.size() != 2 || wpc.size() != 2 || !allPowersOf2(wpc) || instr.empty() ||
      (instr[0] != 32 && instr[0] != 16) || kWidth < 1 || !llvm::isPowerOf2_64(kWidth))
    return std::nullopt;
  int64_t m = instr[0];
  size_t kDim = opIdx == 0 ? 1 : 0, nonK = 1 - kDim;
  Builder b(2);
  b.identity(b.reg, kDim, kWidth);
  b.identity(b.lane, nonK, m);
  b.identity(b.lane, kDim, 64 / m);
  for (size_t d : {size_t(1), size_t(0)}) {
    if (d == kDim)
      b.zeros(b.warp, wpc[d]);
    else
      b.identity(b.warp, d, wpc[d]);
  }
  b.repOrder = {static_cast<int64_t>(kDim), static_cast<int64_t>(nonK)};
  return b.finish(shape);
}

/// nvidia_mma v2 / v3 (nvidiaMmaTile): a 16 x instrN tile per warp (two registers along N then 8 rows apart, the
/// rest of N in registers); Hopper's warps along M first, Ampere's along N; repetitions along N first.
std::optional<RegisterLayout> nvidiaMma(ir::EncodingAttr e, ArrayRef<int64_t> shape) {
  auto instr = e.getIntArray("instrShape"), wpc = e.getIntArray("warpsPerCTA");
  int64_t version = e.getInt("versionMajor").value_or(0);
  if (shape.size() != 2 || wpc.size() != 2 || !allPowersOf2(wpc) || (version != 2 && version != 3))
    return std::nullopt;
  int64_t n = version == 3 && instr.size() >= 2 ? instr[1] : 8;
  if (n < 8 || !llvm::isPowerOf2_64(n))
    return std::nullopt;
  Builder b(2);
  b.reg = {b.unit(1, 1), b.unit(0, 8)};
  for (int64_t v = 8; v < n; v *= 2)
    b.reg.push_back(b.unit(1, v));
  b.lane = {b.unit(1, 2), b.unit(1, 4), b.unit(0, 1), b.unit(0, 2), b.unit(0, 4)};
  b.covered = {16, n};
  for (size_t d : version == 3 ? std::vector<size_t>{0, 1} : std::vector<size_t>{1, 0})
    b.identity(b.warp, d, wpc[d]);
  b.repOrder = {1, 0};
  return b.finish(shape);
}

} // namespace

std::optional<RegisterLayout> toRegisterLayout(Attribute attr, ArrayRef<int64_t> shape) {
  auto e = dyn_cast_or_null<ir::EncodingAttr>(attr);
  if (!e || shape.empty() || hasCgaSplit(e))
    return std::nullopt;
  for (int64_t s : shape)
    if (s < 1 || !llvm::isPowerOf2_64(s))
      return std::nullopt;
  StringRef kind = e.getMnemonic();
  if (kind == "blocked")
    return blocked(e, shape);
  if (kind == "linear")
    return linear(e, shape);
  if (kind == "amd_mfma")
    return mfma(e, shape);
  if (kind == "nvidia_mma")
    return nvidiaMma(e, shape);
  if (kind == "dot_op") {
    auto parent = dyn_cast_or_null<ir::EncodingAttr>(e.getParams().get("parent"));
    auto opIdx = e.getInt("opIdx"), kWidth = e.getInt("kWidth");
    if (!parent || !opIdx || !kWidth || parent.getMnemonic() != "amd_mfma" || hasCgaSplit(parent))
      return std::nullopt;
    return mfmaDot(parent, *opIdx, *kWidth, shape);
  }
  if (kind == "slice") {
    auto dim = e.getInt("dim");
    if (!dim || *dim < 0 || *dim > static_cast<int64_t>(shape.size()))
      return std::nullopt;
    std::vector<int64_t> parentShape(shape.begin(), shape.end());
    parentShape.insert(parentShape.begin() + *dim, 1);
    auto parent = toRegisterLayout(e.getParams().get("parent"), parentShape);
    if (!parent)
      return std::nullopt;
    RegisterLayout out;
    out.shape.assign(shape.begin(), shape.end());
    auto drop = [&](const Bases &in, Bases &to, bool dropZeros) {
      for (Basis b : in) {
        b.erase(b.begin() + *dim);
        if (!dropZeros || llvm::any_of(b, [](int64_t x) { return x != 0; }))
          to.push_back(b);
      }
    };
    drop(parent->reg, out.reg, true); // SliceEncodingAttr::toLinearLayout removes the zero register bases
    drop(parent->lane, out.lane, false);
    drop(parent->warp, out.warp, false);
    return out;
  }
  return std::nullopt;
}

} // namespace tlxsim::sim
