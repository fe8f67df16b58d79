// Where a tensor-memory view lies in its allocation, in 32-bit TMEM columns (Triton's TMEM layouts).
#include "sim/lowering/TmemGeometry.h"
#include "sim/lowering/TypeInfo.h"

#include "ir/Cga.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

namespace {
/// The parameters of a `#ttng.tensor_memory_encoding` that place a 2-D tile in TMEM.
struct TmemTile {
  int64_t rows = 128, cols = 1; ///< the tile's M x N (last two dims of the view)
  int64_t blockM = 128, blockN = 1, colStride = 1, split = 1, bits = 32;
  bool scales = false;          ///< `#ttng.tensor_memory_scales_encoding`
};

std::optional<TmemTile> tileOf(ir::MemDescType type) {
  auto shape = type.getShape();
  if (!type.isTensorMemory() || shape.size() < 2)
    return std::nullopt;
  TmemTile t;
  t.rows = shape[shape.size() - 2];
  t.cols = shape.back();
  Type element = type.getElementType();
  t.bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 32;
  auto enc = dyn_cast_or_null<ir::EncodingAttr>(type.getEncoding());
  if (enc && enc.getMnemonic() == "tensor_memory_scales_encoding") {
    t.scales = true;
    return t;
  }
  t.blockM = enc ? enc.getInt("blockM").value_or(128) : 128;
  t.blockN = std::min(std::max<int64_t>(1, enc ? enc.getInt("blockN").value_or(t.cols) : t.cols), t.cols);
  if (auto stride = enc ? enc.getInt("colStride") : std::nullopt) // Triton >= 3.5
    t.colStride = std::max<int64_t>(1, *stride);
  else if (auto unpacked = enc ? dyn_cast_or_null<BoolAttr>(enc.getParams().get("unpacked")) : BoolAttr();
           unpacked && unpacked.getValue()) // Triton <= 3.4: an unpacked element fills a 32-bit column
    t.colStride = std::max<int64_t>(1, 32 / std::max<int64_t>(1, t.bits));
  t.split = std::max<int64_t>(1, enc ? enc.getInt("CTASplitM").value_or(1) : 1) *
            std::max<int64_t>(1, enc ? enc.getInt("CTASplitN").value_or(1) : 1);
  return t;
}

/// The rows and columns of Triton's TMEM linear layout tile (tensorMemoryToLinearLayout): blockM = 128 puts
/// blockN columns of 128 rows side by side; blockM = 64 puts 16 rows per warp quarter, the next block along M (or
/// along N, for a tile of at most 64 rows) in the lanes 16-31 of each quarter.
std::pair<int64_t, int64_t> layoutTile(const TmemTile &t) {
  if (t.blockM != 64)
    return {128, t.blockN};
  return {t.rows > 64 ? 128 : 64, t.rows <= 64 && t.cols > t.blockN ? 2 * t.blockN : t.blockN};
}

/// 16-bit (or 8-bit) layout columns -> 32-bit TMEM columns.
int64_t toColumns(const TmemTile &t, int64_t layoutCols) {
  return std::max<int64_t>(1, layoutCols * t.bits / 32);
}
} // namespace

/// Triton's getTmemAllocSizes (TritonNvidiaGPU/IR/Dialect.cpp) for the last two dims: the layout's column
/// count (colStride x blockN per tile, tiles repeated along M and N) in 32-bit columns, divided among the CTAs of a
/// CTA split; scales: ceil(M / 32) x ceil(K / 4) columns (packed, replicated 4 times over the lanes).
int64_t tmemBufferColumns(ir::MemDescType type) {
  std::optional<TmemTile> t = tileOf(type);
  if (!t)
    return 0;
  if (t->scales)
    return std::max<int64_t>(1, (t->rows + 31) / 32 * ((t->cols + 3) / 4));
  auto [tileRows, tileCols] = layoutTile(*t);
  int64_t repsM = std::max<int64_t>(1, t->rows / tileRows), repsN = std::max<int64_t>(1, t->cols / tileCols);
  int64_t layoutCols = t->colStride * t->blockN * repsM * repsN;
  return std::max<int64_t>(1, toColumns(*t, layoutCols) / t->split);
}

/// getTmemAllocSizes' rows: a 64-row tile of one blockN block (blockM = 64) leaves the lanes 16-31 of each warp
/// quarter unused and takes 64 rows.
int64_t tmemBufferRows(ir::MemDescType type) {
  std::optional<TmemTile> t = tileOf(type);
  if (!t || t->scales || t->blockM != 64)
    return 128;
  return t->rows <= 64 && t->cols <= t->blockN ? 64 : 128;
}

int64_t tmemColumns(ir::MemDescType type) {
  int64_t buffers = 1;
  auto shape = type.getShape();
  for (size_t i = 0; i + 2 < shape.size(); ++i)
    buffers *= shape[i];
  return tmemBufferColumns(type) * buffers;
}

/// Triton's getTMemSubSliceOffset: the column of element (0, n) of `source`, from the inverse of its layout: n's
/// place in its blockN tile (colStride layout columns per element), then whole tiles, the M tiles of one N tile
/// first. With blockM = 64 an odd N tile of a <= 64-row view sits in lanes 16-31 beside the even one (same
/// columns; lanes are not modeled, so the two overlap).
int64_t tmemSubsliceColumn(ir::MemDescType source, int64_t n) {
  std::optional<TmemTile> t = tileOf(source);
  if (!t || t->scales || n <= 0)
    return 0;
  auto [tileRows, tileCols] = layoutTile(*t);
  int64_t repsM = std::max<int64_t>(1, t->rows / tileRows);
  int64_t layoutCol;
  if (t->blockM == 64 && tileCols > t->blockN) // interleaved: blocks 2i and 2i + 1 share columns
    layoutCol = t->colStride * ((n / t->blockN) / 2 * t->blockN + n % t->blockN);
  else
    layoutCol = t->colStride * (n % t->blockN + t->blockN * repsM * (n / t->blockN));
  return layoutCol * t->bits / 32;
}

/// TMEM views are measured in 32-bit columns (every access covers all lanes of its columns); shared memory in
/// elements.
int64_t viewExtent(Type type) {
  if (auto memdesc = dyn_cast<ir::MemDescType>(type)) {
    if (memdesc.isTensorMemory())
      return tmemColumns(memdesc);
    return ir::elementsPerCta(memdesc);
  }
  return numElements(type);
}

} // namespace tlxsim::sim::lowering
