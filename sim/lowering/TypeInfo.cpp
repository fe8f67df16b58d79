#include "sim/lowering/TypeInfo.h"

#include "ir/Cga.h"
#include "ir/Types.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

int64_t numElements(Type type) { return ir::elementsPerCta(type); }

uint8_t scalarBits(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return static_cast<uint8_t>(integer.getWidth());
  return 64;
}

std::optional<int16_t> binaryKind(StringRef name) {
  return llvm::StringSwitch<std::optional<int16_t>>(name)
      .Case("arith.addi", Add).Case("arith.subi", Sub).Case("arith.muli", Mul)
      .Case("arith.divsi", DivS).Case("arith.divui", DivU).Case("arith.remsi", RemS).Case("arith.remui", RemU)
      .Case("arith.andi", And).Case("arith.ori", Or).Case("arith.xori", Xor)
      .Case("arith.shli", Shl).Case("arith.shrsi", ShrS).Case("arith.shrui", ShrU)
      .Case("arith.minsi", MinS).Case("arith.maxsi", MaxS).Case("arith.minui", MinU).Case("arith.maxui", MaxU)
      .Case("arith.ceildivsi", CeilDivS).Case("arith.floordivsi", FloorDivS)
      .Default(std::nullopt);
}

/// Ops whose only effect is register work proportional to their result's elements.
bool isRegisterTensorOp(StringRef name) {
  return name.starts_with("arith.") || name.starts_with("math.") ||
         llvm::is_contained({"tt.splat", "tt.broadcast", "tt.expand_dims", "tt.make_range", "tt.addptr", "tt.bitcast",
                             "tt.fp_to_fp", "tt.reshape", "tt.trans", "tt.cat", "tt.join", "tt.split", "tt.unsplat",
                             "tt.clampf", "tt.precise_sqrt", "tt.precise_divf", "tt.mulhiui", "tt.extern_elementwise",
                             "tt.elementwise_inline_asm", "tt.gather", "tt.histogram", "tt.advance", "tt.int_to_ptr",
                             "tt.ptr_to_int", "ttg.fp4_to_fp", "amdg.in_thread_transpose", "amdg.extract_slice",
                             "amdg.concat", "ttng.vote_ballot_sync", "amdg.scaled_upcast_fp4", "amdg.scaled_upcast_fp8", "amdg.upcast_mxfp"},
                            name);
}

/// Scheduling hints and compiler annotations: no instruction executes for them.
bool isHint(StringRef name) {
  return llvm::is_contained({"rocdl.sched.barrier", "rocdl.sched.group.barrier", "rocdl.s.setprio",
                             "amdg.instruction_sched_hint", "llvm.intr.assume", "tt.assume", "ttg.local_dealloc",
                             "ttng.prefetch_tensormap", "ttng.tensormap_fenceproxy_acquire",
                             // orders mbarrier inits before the cluster barrier that publishes them; the simulator
                             // orders them by that cluster barrier (verifier/ClusterDeliveryChecker)
                             "ttng.fence_mbarrier_init_release_cluster"},
                            name);
}

/// Bytes of one element of a tensor or memdesc (pointers are 8 bytes).
int64_t elementBytes(Type type) {
  Type element = type;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    element = tensor.getElementType();
  else if (auto memdesc = dyn_cast<ir::MemDescType>(type))
    element = memdesc.getElementType();
  if (element.isIntOrFloat())
    return std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
  return 8; // !tt.ptr
}

/// Vector-memory instructions each thread issues for an AMD direct-to-LDS copy (`global_load_lds` /
/// `buffer_load ... lds`) whose addresses are the tensor `addresses`: the elements a thread holds in its
/// `#ttg.blocked` layout divided by the contiguous elements it holds along the fastest dimension (one
/// instruction moves one such vector; Gluon's CDNA4 `async_copy` requires that vector to be a supported width).
/// This is the count Triton's UpdateAsyncWaitCount (third_party/amd, Triton 3.6) gives an async copy when it
/// turns `ttg.async_wait {num}` into vmcnt instructions. 0 for other layouts (unknown: counted as one).
int64_t directToLdsInstructions(Type addresses) {
  auto tensor = dyn_cast<RankedTensorType>(addresses);
  auto encoding = tensor ? dyn_cast_or_null<ir::EncodingAttr>(tensor.getEncoding()) : ir::EncodingAttr();
  if (!encoding || encoding.getMnemonic() != "blocked")
    return 0;
  auto spt = encoding.getIntArray("sizePerThread"), tpw = encoding.getIntArray("threadsPerWarp"),
       wpc = encoding.getIntArray("warpsPerCTA"), order = encoding.getIntArray("order");
  size_t rank = static_cast<size_t>(tensor.getRank());
  if (spt.size() != rank || tpw.size() != rank || wpc.size() != rank || order.size() != rank || order[0] < 0 ||
      order[0] >= static_cast<int64_t>(rank))
    return 0;
  int64_t perThread = 1;
  for (size_t d = 0; d < rank; ++d) {
    int64_t tile = std::max<int64_t>(1, spt[d] * tpw[d] * wpc[d]), shape = tensor.getShape()[d];
    perThread *= std::max<int64_t>(1, (shape + tile - 1) / tile) * std::max<int64_t>(1, std::min(spt[d], shape));
  }
  int64_t contiguous = std::max<int64_t>(1, std::min(spt[order[0]], tensor.getShape()[order[0]]));
  return std::max<int64_t>(1, perThread / contiguous);
}

/// The TMEM tile of each warp for a tcgen05.ld / st of a rank-2 tensor of type `registers` (PTX ISA 9.1
/// 9.7.16.2.3: the tensor's rows are TMEM lanes, its columns TMEM columns), from its `#ttg.linear` or
/// `#ttg.blocked` layout: the rows and columns the warp's registers and lanes hold. Empty if the layout is
/// another one or the tile does not fit 128 lanes x 512 columns. `blockM` = 64 (the view's
/// `tensor_memory_encoding`): row r sits in lane 32 * (r / 16) + r % 16 (16 lanes of each warp's quarter).
std::vector<TmemWarpTile> tmemWarpTiles(Type registers, int64_t blockM) {
  auto tensor = dyn_cast<RankedTensorType>(registers);
  auto encoding = tensor ? dyn_cast_or_null<ir::EncodingAttr>(tensor.getEncoding()) : ir::EncodingAttr();
  if (!encoding || tensor.getRank() != 2)
    return {};
  int64_t rows = tensor.getShape()[0], cols = tensor.getShape()[1];
  if (rows > 128 || cols > 512)
    return {};
  auto lane = [&](int64_t r) { return blockM == 64 ? 32 * (r / 16) + r % 16 : r; };
  if (blockM == 64 && rows > 64)
    return {};
  std::vector<TmemWarpTile> tiles;
  if (encoding.getMnemonic() == "linear") {
    // bases: arrays of [row, col]; a coordinate is the XOR of the bases of the set bits of (register, lane, warp)
    auto basesOf = [&](StringRef key, std::vector<std::pair<int64_t, int64_t>> &out) {
      auto array = dyn_cast_or_null<ArrayAttr>(encoding.getParams().get(key));
      if (!array)
        return false;
      for (Attribute basis : array) {
        auto pair = dyn_cast<ArrayAttr>(basis);
        if (!pair || pair.size() != 2)
          return false;
        auto r = dyn_cast<IntegerAttr>(pair[0]), c = dyn_cast<IntegerAttr>(pair[1]);
        if (!r || !c)
          return false;
        out.push_back({r.getInt(), c.getInt()});
      }
      return true;
    };
    std::vector<std::pair<int64_t, int64_t>> inWarp, warp;
    if (!basesOf("register", inWarp) || !basesOf("lane", inWarp) || !basesOf("warp", warp) || inWarp.size() > 16 ||
        warp.size() > 4)
      return {};
    for (int64_t w = 0; w < (int64_t(1) << warp.size()); ++w) {
      int64_t r0 = 0, c0 = 0;
      for (size_t b = 0; b < warp.size(); ++b)
        if (w >> b & 1)
          r0 ^= warp[b].first, c0 ^= warp[b].second;
      TmemWarpTile tile;
      for (int64_t i = 0; i < (int64_t(1) << inWarp.size()); ++i) {
        int64_t r = r0, c = c0;
        for (size_t b = 0; b < inWarp.size(); ++b)
          if (i >> b & 1)
            r ^= inWarp[b].first, c ^= inWarp[b].second;
        if (r < 0 || r >= rows || c < 0 || c >= cols)
          return {};
        tile.rows.set(lane(r));
        tile.cols.set(c);
      }
      tiles.push_back(tile);
    }
    return tiles;
  }
  if (encoding.getMnemonic() != "blocked")
    return {};
  auto spt = encoding.getIntArray("sizePerThread"), tpw = encoding.getIntArray("threadsPerWarp"),
       wpc = encoding.getIntArray("warpsPerCTA"), order = encoding.getIntArray("order");
  if (spt.size() != 2 || tpw.size() != 2 || wpc.size() != 2 || order.size() != 2 || wpc[0] * wpc[1] > 16)
    return {};
  int64_t shape[2] = {rows, cols};
  for (int64_t w = 0; w < wpc[0] * wpc[1]; ++w) {
    int64_t coord[2];
    coord[order[0]] = w % wpc[order[0]]; // warps are numbered along `order`, fastest dimension first
    coord[order[1]] = w / wpc[order[0]] % wpc[order[1]];
    TmemWarpTile tile;
    for (int d = 0; d < 2; ++d) {
      int64_t span = spt[d] * tpw[d], tileSize = span * wpc[d];
      for (int64_t start = coord[d] * span; start < std::max(shape[d], tileSize); start += tileSize)
        for (int64_t x = start; x < start + span; ++x)
          if (d == 0)
            tile.rows.set(lane(x % shape[0]));
          else
            tile.cols.set(x % shape[1]);
    }
    tiles.push_back(tile);
  }
  return tiles;
}

/// Bytes a value of `type` holds: all elements of a tensor or memdesc, one scalar otherwise.
int64_t bytesOf(Type type) { return numElements(type) * elementBytes(type); }

bool isSfuOp(StringRef name) {
  return name == "math.exp2" || name == "math.exp" || name == "math.log2" || name == "math.log" ||
         name == "math.rsqrt" || name == "math.sqrt" || name == "math.sin" || name == "math.cos" || name == "arith.divf";
}

} // namespace tlxsim::sim::lowering
