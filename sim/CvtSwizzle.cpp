#include "sim/CvtSwizzle.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace tlxsim::sim {

namespace {

using Vec = std::vector<int64_t>;

bool contains(const Vec &v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }
bool isPow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/// Rank over GF(2) of the flattened bases `v`.
int32_t rankOf(const Vec &v) {
  int64_t pivots[64] = {};
  int32_t rank = 0;
  for (int64_t x : v)
    for (int bit = 63; bit >= 0 && x != 0; --bit) {
      if (!(x >> bit & 1))
        continue;
      if (!pivots[bit]) {
        pivots[bit] = x;
        ++rank;
        break;
      }
      x ^= pivots[bit];
    }
  return rank;
}

/// Dimension of span(a) & span(b): what GenericSwizzling's intersectionBasis returns the size of.
int32_t intersectionSize(const Vec &a, const Vec &b) {
  Vec both(a);
  both.insert(both.end(), b.begin(), b.end());
  return rankOf(a) + rankOf(b) - rankOf(both);
}

/// intersectionBasis for single-bit bases: those of `a` (in its order) that `b` has; nullopt otherwise (the general
/// case returns the bases in an order this does not reproduce).
std::optional<Vec> intersection(const Vec &a, const Vec &b) {
  if (!std::all_of(a.begin(), a.end(), isPow2) || !std::all_of(b.begin(), b.end(), isPow2))
    return std::nullopt;
  Vec out;
  for (int64_t x : a)
    if (contains(b, x) && !contains(out, x))
      out.push_back(x);
  return out;
}

/// One layout flattened (register broadcasts removed).
struct Flat {
  Vec reg, lane, warp;
};

Flat flatten(const RegisterLayout &l) {
  Flat f;
  for (const auto &b : l.reg)
    if (int64_t x = l.flatten(b))
      f.reg.push_back(x); // actionRemoveBroadcastedRegs
  for (const auto &b : l.lane)
    f.lane.push_back(l.flatten(b));
  for (const auto &b : l.warp)
    f.warp.push_back(l.flatten(b));
  return f;
}

/// `v` written in `a`'s bases (b.invertAndCompose(a) for one basis of b): the masks of a's registers and lanes it
/// uses. nullopt if a's non-zero bases are dependent (the inverse is not unique) or `v` is outside their span.
struct InA {
  uint64_t regs = 0, lanes = 0;
};
std::optional<InA> decompose(const Flat &a, int64_t v) {
  struct Row {
    int64_t value;
    uint64_t regs, lanes;
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < a.reg.size(); ++i)
    rows.push_back({a.reg[i], uint64_t(1) << i, 0});
  for (size_t i = 0; i < a.lane.size(); ++i)
    if (a.lane[i])
      rows.push_back({a.lane[i], 0, uint64_t(1) << i});
  for (int64_t w : a.warp)
    if (w)
      rows.push_back({w, 0, 0});
  Row pivots[64] = {};
  for (Row r : rows) {
    for (int bit = 63; bit >= 0 && r.value; --bit) {
      if (!(r.value >> bit & 1))
        continue;
      if (!pivots[bit].value) {
        pivots[bit] = r;
        break;
      }
      r.value ^= pivots[bit].value, r.regs ^= pivots[bit].regs, r.lanes ^= pivots[bit].lanes;
    }
    if (!r.value)
      return std::nullopt; // dependent bases
  }
  InA out;
  for (int bit = 63; bit >= 0 && v; --bit)
    if (v >> bit & 1) {
      if (!pivots[bit].value)
        return std::nullopt;
      v ^= pivots[bit].value, out.regs ^= pivots[bit].regs, out.lanes ^= pivots[bit].lanes;
    }
  return out;
}

/// GenericSwizzling.cpp computeSegment.
Vec computeSegment(const Vec &bankSrc, const Vec &bankDst, int32_t dim, int32_t lenSegment) {
  Vec setSrc, setDst;
  for (int64_t x : bankSrc)
    if (x && !contains(setSrc, x))
      setSrc.push_back(x);
  for (int64_t x : bankDst)
    if (x && !contains(setDst, x))
      setDst.push_back(x);
  Vec segment;
  for (int32_t b = 0; b < dim; ++b)
    if (!contains(setSrc, int64_t(1) << b) && !contains(setDst, int64_t(1) << b))
      segment.push_back(int64_t(1) << b);
  if (static_cast<int32_t>(segment.size()) >= lenSegment) {
    segment.resize(std::max(lenSegment, 0));
    return segment;
  }
  Vec a, b;
  for (int64_t v : setSrc)
    if (!contains(setDst, v))
      a.push_back(v);
  for (int64_t v : setDst)
    if (!contains(setSrc, v))
      b.push_back(v);
  if (a.size() > b.size())
    std::swap(a, b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  int32_t sizeA = static_cast<int32_t>(a.size());
  int32_t conflicts = std::min(std::max(0, lenSegment - sizeA - static_cast<int32_t>(segment.size())), sizeA);
  for (int32_t i = conflicts; i < sizeA; ++i)
    segment.push_back(a[i] ^ b[i]);
  segment.insert(segment.end(), a.begin(), a.begin() + conflicts);
  segment.insert(segment.end(), b.begin(), b.begin() + conflicts);
  if (static_cast<int32_t>(segment.size()) > lenSegment)
    segment.resize(lenSegment);
  return segment;
}

/// The swizzled layout's segment and the number of its bases split off as reps (optimalSwizzling + buildReps).
struct Smem {
  Vec segment;
  int32_t log2Reps = 0;
};
Smem swizzle(const Flat &src, const Flat &dst, int32_t dim, int32_t bitwidth, const Vec &vbasis, const Vec &tileSrc,
             const Vec &tileDst, int32_t leaveReps) {
  Vec bankSrc(vbasis), bankDst(vbasis);
  bankSrc.insert(bankSrc.end(), tileSrc.begin(), tileSrc.end());
  bankDst.insert(bankDst.end(), tileDst.begin(), tileDst.end());
  int64_t perBank = (int64_t(1) << vbasis.size()) * bitwidth;
  int32_t log2Bank = 32 * 32 / perBank > 0 ? static_cast<int32_t>(llvm::Log2_64(32 * 32 / perBank)) : -1;
  int32_t lenB = std::min(log2Bank, dim - static_cast<int32_t>(vbasis.size()));
  int32_t lenS = dim - lenB - static_cast<int32_t>(vbasis.size());
  Smem out;
  for (int64_t s : computeSegment(bankSrc, bankDst, dim, lenS)) {
    if (contains(out.segment, s))
      continue;
    if (contains(src.reg, s) && contains(dst.reg, s) && leaveReps-- <= 0)
      ++out.log2Reps;
    else
      out.segment.push_back(s);
  }
  return out;
}

/// GenericSwizzling.cpp intersectAfterBank0.
Vec extraVector(const Vec &regs, const Vec &vbasis, const Vec &otherLane, int32_t bitwidth) {
  Vec vec;
  size_t maxLog2 = llvm::Log2_32(128 / std::max(bitwidth, 32));
  for (int64_t r : regs) {
    if (contains(vbasis, r))
      continue;
    if (contains(otherLane, r))
      vec.push_back(r);
    if (vec.size() == maxLog2)
      break;
  }
  return vec;
}

/// GenericSwizzling.cpp getVbasis.
std::optional<Vec> vectorBasis(Flat src, Flat dst, int32_t bitwidth) {
  auto common = intersection(src.reg, dst.reg);
  if (!common)
    return std::nullopt;
  Vec vbasis = *common;
  size_t maxVec = llvm::Log2_32(128 / bitwidth);
  if (vbasis.size() > maxVec)
    vbasis.resize(maxVec);
  size_t perBank = bitwidth > 32 ? 0 : llvm::Log2_32(32 / bitwidth);
  bool vecSrc = true;
  if ((int64_t(1) << vbasis.size()) * bitwidth < 32) {
    auto isPrefix = [&](const Vec &regs) {
      return vbasis.size() <= regs.size() && std::equal(vbasis.begin(), vbasis.end(), regs.begin());
    };
    auto toFront = [&](const Vec &regs) {
      Vec out(vbasis);
      for (int64_t r : regs)
        if (!contains(vbasis, r))
          out.push_back(r);
      return out;
    };
    bool srcPrefix = isPrefix(src.reg), dstPrefix = isPrefix(dst.reg);
    if (!vbasis.empty() && !srcPrefix && !dstPrefix) {
      src.reg = toFront(src.reg);
      dst.reg = toFront(dst.reg);
      srcPrefix = dstPrefix = true;
    }
    auto fill = [&](const Vec &regs) {
      Vec out(vbasis);
      for (size_t i = vbasis.size(); i < perBank && i < regs.size(); ++i)
        out.push_back(regs[i]);
      return out;
    };
    if (srcPrefix && dstPrefix) {
      size_t bySrc = extraVector(src.reg, fill(src.reg), dst.lane, bitwidth).size();
      size_t byDst = extraVector(dst.reg, fill(dst.reg), src.lane, bitwidth).size();
      srcPrefix = bySrc >= byDst;
      dstPrefix = byDst > bySrc;
    }
    if (srcPrefix == dstPrefix)
      return std::nullopt;
    vecSrc = srcPrefix;
    vbasis = fill(vecSrc ? src.reg : dst.reg);
  }
  Vec extra = vecSrc ? extraVector(src.reg, vbasis, dst.lane, bitwidth)
                     : extraVector(dst.reg, vbasis, src.lane, bitwidth);
  vbasis.insert(vbasis.end(), extra.begin(), extra.end());
  return vbasis;
}

/// GenericSwizzling.cpp optimalSwizzlingLdSt: ld.shared / st.shared of up to 128 bits.
std::optional<Smem> swizzleLdSt(const Flat &src, const Flat &dst, int32_t dim, int32_t bitwidth) {
  auto vbasis = vectorBasis(src, dst, bitwidth);
  if (!vbasis)
    return std::nullopt;
  auto vectorSize = [&](const Vec &regs) {
    size_t i = 0;
    while (i < vbasis->size() && i < regs.size() && regs[i] == (*vbasis)[i])
      ++i;
    return i;
  };
  auto tile = [&](Vec lanes, const Vec &regs) -> std::optional<Vec> {
    int64_t bits = (int64_t(1) << vectorSize(regs)) * bitwidth;
    if (bits > 32) {
      size_t drop = llvm::Log2_64(bits / 32);
      if (drop > lanes.size())
        return std::nullopt;
      lanes.resize(lanes.size() - drop);
    }
    Vec out;
    for (int64_t l : lanes)
      if (!contains(*vbasis, l))
        out.push_back(l);
    return out;
  };
  auto tileSrc = tile(src.lane, src.reg), tileDst = tile(dst.lane, dst.reg);
  if (!tileSrc || !tileDst)
    return std::nullopt;
  return swizzle(src, dst, dim, bitwidth, *vbasis, *tileSrc, *tileDst, 0);
}

/// A shared-memory instruction's tile (LocalMemOpTile): lanes holding contiguous data, lanes giving addresses.
struct Tile {
  std::vector<int32_t> laneContig, laneAddr;
};

/// GenericSwizzling.cpp optimalSwizzlingTile; `cvtFail` set when a layout is outside what this computes with.
std::optional<Vec> swizzlingTile(const Flat &a, const Flat &b, int32_t nRegA, int32_t nRegB,
                                 const std::vector<int32_t> &idsA, const std::vector<int32_t> &idsB, bool &cvtFail) {
  if (nRegA < nRegB)
    return swizzlingTile(b, a, nRegB, nRegA, idsB, idsA, cvtFail);
  auto common = intersection(a.reg, b.reg);
  if (!common) {
    cvtFail = true;
    return std::nullopt;
  }
  Vec vbasis = *common;
  if (static_cast<int32_t>(vbasis.size()) < nRegB)
    return std::nullopt;
  vbasis.resize(nRegB);
  Vec tileB;
  for (int32_t id : idsA)
    if (id >= static_cast<int32_t>(a.lane.size()) || a.lane[id] == 0)
      return std::nullopt;
  for (int32_t id : idsB) {
    if (id >= static_cast<int32_t>(b.lane.size()) || b.lane[id] == 0)
      return std::nullopt;
    tileB.push_back(b.lane[id]);
  }
  for (int32_t i = 0; i < nRegA - nRegB; ++i) {
    auto inA = decompose(a, b.lane[idsB[i]]);
    if (!inA) {
      cvtFail = true;
      return std::nullopt;
    }
    if (inA->regs == 0)
      return std::nullopt;
  }
  for (size_t i = 0; i < idsA.size(); ++i) {
    auto inA = decompose(a, b.lane[idsB[idsB.size() - idsA.size() + i]]);
    if (!inA) {
      cvtFail = true;
      return std::nullopt;
    }
    if (inA->lanes != uint64_t(1) << idsA[i])
      return std::nullopt;
  }
  vbasis.insert(vbasis.end(), tileB.begin(), tileB.end());
  return vbasis;
}

/// GenericSwizzling.cpp optimalSwizzling over instruction tiles: the pair with the fewest bank conflicts, ties to
/// the most reps; ld/st when no pair fits.
std::optional<Smem> swizzleTiles(const Flat &src, const Flat &dst, int32_t dim, int32_t bitwidth,
                                 const std::vector<Tile> &srcTiles, const std::vector<Tile> &dstTiles) {
  int32_t totalBases = llvm::Log2_32(128 / bitwidth);
  std::optional<Smem> best;
  int32_t bestConflicts = 0;
  auto getTile = [&](const Tile &t, const Vec &regs, const Vec &lanes, const Vec &vbasis) -> std::optional<Vec> {
    Vec tile;
    int32_t needed = 3 - static_cast<int32_t>(t.laneAddr.size());
    for (int64_t r : regs) {
      if (needed == 0)
        break;
      if (!contains(vbasis, r))
        tile.push_back(r), --needed;
    }
    if (needed > 0)
      return std::nullopt;
    for (int32_t i : t.laneAddr) {
      if (i >= static_cast<int32_t>(lanes.size()))
        return std::nullopt;
      tile.push_back(lanes[i]);
    }
    return tile;
  };
  for (const Tile &s : srcTiles)
    for (const Tile &d : dstTiles) {
      bool fail = false;
      auto vbasis = swizzlingTile(src, dst, totalBases - static_cast<int32_t>(s.laneContig.size()),
                                  totalBases - static_cast<int32_t>(d.laneContig.size()), s.laneContig, d.laneContig,
                                  fail);
      if (fail)
        return std::nullopt;
      if (!vbasis)
        continue;
      auto tileSrc = getTile(s, src.reg, src.lane, *vbasis), tileDst = getTile(d, dst.reg, dst.lane, *vbasis);
      if (!tileSrc || !tileDst)
        continue;
      int32_t leaveReps = static_cast<int32_t>(std::min(s.laneContig.size() + s.laneAddr.size(),
                                                        d.laneContig.size() + d.laneAddr.size())) - 3;
      Smem smem = swizzle(src, dst, dim, bitwidth, *vbasis, *tileSrc, *tileDst, leaveReps);
      int32_t conflicts = ((1 << intersectionSize(smem.segment, *tileDst)) - 1) +
                          ((1 << intersectionSize(smem.segment, *tileSrc)) - 1);
      if (!best || conflicts < bestConflicts || (conflicts == bestConflicts && smem.log2Reps > best->log2Reps)) {
        best = smem;
        bestConflicts = conflicts;
      }
    }
  return best ? best : swizzleLdSt(src, dst, dim, bitwidth);
}

/// lib/Conversion/TritonGPUToLLVM/Utility.cpp getSrcDstTiles for an NVIDIA target.
std::pair<std::vector<Tile>, std::vector<Tile>> nvidiaTiles(int32_t capability, int32_t bitwidth) {
  std::vector<Tile> src{{{}, {0, 1, 2}}}, dst{{{}, {0, 1, 2}}};
  bool ldmatrix = capability >= 80, stmatrix = capability >= 90;
  if (bitwidth <= 32) {
    if (stmatrix)
      src.push_back({{0, 1}, {2, 3, 4}});
    if (ldmatrix)
      dst.push_back({{0, 1}, {2, 3, 4}});
  }
  if (bitwidth == 16) {
    if (stmatrix)
      src.push_back({{2, 3, 4}, {0, 1}});
    if (ldmatrix)
      dst.push_back({{2, 3, 4}, {0, 1}});
  }
  return {src, dst};
}

} // namespace

std::optional<int64_t> swizzledCvtScratchElements(const RegisterLayout &src, const RegisterLayout &dst,
                                                  int32_t bitwidth, CvtTarget target) {
  if (src.shape != dst.shape || bitwidth < 8 || bitwidth > 128 || !llvm::isPowerOf2_32(bitwidth))
    return std::nullopt;
  int32_t dim = src.log2Elements();
  if (dim > 40)
    return std::nullopt;
  Flat s = flatten(src), d = flatten(dst);
  std::optional<Smem> smem;
  if (target.nvidia) {
    auto [srcTiles, dstTiles] = nvidiaTiles(target.capability, bitwidth);
    smem = swizzleTiles(s, d, dim, bitwidth, srcTiles, dstTiles);
  } else {
    smem = swizzleLdSt(s, d, dim, bitwidth);
  }
  if (!smem)
    return std::nullopt;
  return (int64_t(1) << dim) >> smem->log2Reps;
}

} // namespace tlxsim::sim
