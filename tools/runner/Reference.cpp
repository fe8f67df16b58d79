#include "tools/runner/Reference.h"

#include "tools/runner/HostData.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tlxsim::runner {

namespace {

constexpr double kTolerance = 1e-2; ///< rtol and atol (relative to max|ref|) of tlx_sim/hw_time.py compare()

/// The 2-D tensors of the launch in signature order.
std::vector<const TensorSpec *> matrices(const Capture &c) {
  std::vector<const TensorSpec *> out;
  for (const auto &[name, type] : c.signature) {
    auto t = c.tensors.find(name);
    if (t != c.tensors.end() && t->second.shape.size() == 2)
      out.push_back(&t->second);
  }
  return out;
}

bool shapeIs(const TensorSpec *t, int64_t rows, int64_t cols) { return t->shape[0] == rows && t->shape[1] == cols; }

std::optional<ReferenceSpec> recogniseGemm(const Capture &c, std::string &why) {
  auto m = c.shapeValue("M"), n = c.shapeValue("N"), k = c.shapeValue("K");
  if (!m || !n || !k) {
    why = "launch.json \"shape\" has no M, N, K";
    return std::nullopt;
  }
  auto mats = matrices(c);
  if (mats.size() != 3 || !shapeIs(mats[0], *m, *k) || !shapeIs(mats[1], *k, *n) || !shapeIs(mats[2], *m, *n)) {
    why = "the 2-D tensors are not A [M, K], B [K, N], C [M, N]";
    return std::nullopt;
  }
  ReferenceSpec s;
  s.kind = ReferenceKind::Gemm;
  s.operands = {mats[0]->name, mats[1]->name, mats[2]->name};
  s.m = *m, s.n = *n, s.k = *k;
  s.flops = 2.0 * double(*m) * double(*n) * double(*k);
  return s;
}

std::optional<ReferenceSpec> recogniseAttention(const Capture &c, std::string &why) {
  auto z = c.shapeValue("Z"), h = c.shapeValue("H"), nCtx = c.shapeValue("N_CTX");
  if (!z || !h || !nCtx) {
    why = "launch.json \"shape\" has no Z, H, N_CTX";
    return std::nullopt;
  }
  auto mats = matrices(c);
  int64_t rows = *z * *h * *nCtx;
  if (mats.size() != 4 || !std::all_of(mats.begin(), mats.end(), [&](const TensorSpec *t) {
        return shapeIs(t, rows, mats[0]->shape[1]);
      })) {
    why = "the 2-D tensors are not Q, K, V, O of [Z * H * N_CTX, D]";
    return std::nullopt;
  }
  ReferenceSpec s;
  s.kind = ReferenceKind::Attention;
  for (auto *t : mats)
    s.operands.push_back(t->name);
  s.heads = *z * *h;
  s.rowsPerHead = *nCtx;
  s.headDim = mats[0]->shape[1];
  s.flops = 4.0 * double(s.heads) * double(*nCtx) * double(*nCtx) * double(s.headDim);
  return s;
}

/// Element (row, col) of a 2-D host tensor.
struct Matrix {
  const TensorSpec *spec;
  const uint8_t *data;
  bool half = spec->dtype == "fp16"; // the common case, decoded without the dtype dispatch
  double at(int64_t row, int64_t col) const {
    int64_t index = row * spec->strides[0] + col * spec->strides[1];
    if (half) {
      uint16_t bits;
      std::memcpy(&bits, data + 2 * index, 2);
      return halfBitsToDouble(bits);
    }
    return loadElement(data, spec->dtype, index);
  }
};

struct Comparison {
  double maxRef = 0, maxAbsErr = 0;
  int64_t samples = 0;
  std::string firstBad;
  std::vector<std::array<double, 2>> pairs; // (out, ref)
  void add(double out, double ref, const std::string &where) {
    pairs.push_back({out, ref});
    maxRef = std::max(maxRef, std::fabs(ref));
    if (!std::isfinite(out) && firstBad.empty())
      firstBad = where + llvm::formatv(": {0} (reference {1})", out, ref).str();
    ++samples;
  }
  CheckResult finish(std::vector<std::string> wheres) {
    CheckResult r;
    double scale = std::max(maxRef, 1e-30);
    r.ok = true;
    for (size_t i = 0; i < pairs.size(); ++i) {
      auto [out, ref] = pairs[i];
      double err = std::fabs(out - ref);
      if (!std::isfinite(out))
        err = INFINITY;
      r.maxRelErr = std::max(r.maxRelErr, err / scale);
      if (!(err <= kTolerance * scale + kTolerance * std::fabs(ref)) && r.ok) {
        r.ok = false;
        r.message = llvm::formatv("{0}: {1} but the reference is {2}", wheres[i], out, ref).str();
      }
    }
    r.samples = samples;
    return r;
  }
};

CheckResult checkGemm(const ReferenceSpec &s, const Matrix &a, const Matrix &b, const Matrix &c, uint64_t seed) {
  Comparison cmp;
  std::vector<std::string> wheres;
  constexpr int64_t kCell = 64;
  uint64_t draw = seed;
  for (int64_t i0 = 0; i0 < s.m; i0 += kCell)
    for (int64_t j0 = 0; j0 < s.n; j0 += kCell) {
      draw = splitmix64(draw);
      int64_t i = i0 + int64_t(draw % uint64_t(std::min(kCell, s.m - i0)));
      int64_t j = j0 + int64_t((draw >> 32) % uint64_t(std::min(kCell, s.n - j0)));
      double ref = 0;
      for (int64_t k = 0; k < s.k; ++k)
        ref += a.at(i, k) * b.at(k, j);
      std::string where = llvm::formatv("{0}[{1}, {2}]", s.output(), i, j).str();
      cmp.add(c.at(i, j), ref, where);
      wheres.push_back(where);
    }
  return cmp.finish(wheres);
}

CheckResult checkAttention(const ReferenceSpec &s, const Matrix &q, const Matrix &k, const Matrix &v,
                           const Matrix &o, uint64_t seed) {
  Comparison cmp;
  std::vector<std::string> wheres;
  constexpr int64_t kBand = 128, kMaxRows = 512;
  std::vector<int64_t> rows;
  uint64_t draw = seed;
  for (int64_t h = 0; h < s.heads; ++h)
    for (int64_t r0 = 0; r0 < s.rowsPerHead; r0 += kBand) {
      draw = splitmix64(draw);
      rows.push_back(h * s.rowsPerHead + r0 + int64_t(draw % uint64_t(std::min(kBand, s.rowsPerHead - r0))));
    }
  if (int64_t(rows.size()) > kMaxRows) { // keep an evenly spread subset
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < kMaxRows; ++i)
      kept.push_back(rows[size_t(i * int64_t(rows.size()) / kMaxRows)]);
    rows = std::move(kept);
  }
  const double scale = 1.0 / std::sqrt(double(s.headDim));
  std::vector<double> scores(s.rowsPerHead), acc(s.headDim);
  for (int64_t row : rows) {
    int64_t first = row / s.rowsPerHead * s.rowsPerHead;
    double maxScore = -INFINITY;
    for (int64_t j = 0; j < s.rowsPerHead; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < s.headDim; ++d)
        dot += q.at(row, d) * k.at(first + j, d);
      scores[j] = dot * scale;
      maxScore = std::max(maxScore, scores[j]);
    }
    double sum = 0;
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t j = 0; j < s.rowsPerHead; ++j) {
      double p = std::exp(scores[j] - maxScore);
      sum += p;
      for (int64_t d = 0; d < s.headDim; ++d)
        acc[d] += p * v.at(first + j, d);
    }
    for (int64_t d = 0; d < s.headDim; ++d) {
      std::string where = llvm::formatv("{0}[{1}, {2}]", s.output(), row, d).str();
      cmp.add(o.at(row, d), acc[d] / sum, where);
      wheres.push_back(where);
    }
  }
  return cmp.finish(wheres);
}

} // namespace

llvm::Expected<ReferenceSpec> findReference(const Capture &c, llvm::StringRef request) {
  ReferenceSpec none;
  if (request == "none") {
    none.reason = "--reference none";
    return none;
  }
  std::string kind = request == "auto" ? "" : request.str();
  if (kind.empty()) {
    if (const llvm::json::Value *ref = c.launchJson.get("reference")) {
      const llvm::json::Object *o = ref->getAsObject();
      auto k = o ? o->getString("kind") : std::nullopt;
      const llvm::json::Array *ops = o ? o->getArray("operands") : nullptr;
      if (!k || (*k != "gemm" && *k != "attention"))
        return llvm::createStringError("%s/launch.json: \"reference\" needs \"kind\": \"gemm\" or \"attention\"",
                                       c.dir.c_str());
      kind = k->str();
      if (ops) { // explicit operands: check that they are the recognised ones
        std::string why;
        auto spec = kind == "gemm" ? recogniseGemm(c, why) : recogniseAttention(c, why);
        if (!spec)
          return llvm::createStringError("%s/launch.json: \"reference\" %s does not fit the launch: %s",
                                         c.dir.c_str(), kind.c_str(), why.c_str());
        std::vector<std::string> named;
        for (const auto &v : *ops)
          named.push_back(v.getAsString().value_or("").str());
        if (named != spec->operands)
          return llvm::createStringError("%s/launch.json: \"reference\" operands must be the %s tensors in "
                                         "signature order",
                                         c.dir.c_str(), kind.c_str());
        return *spec;
      }
    }
  }
  std::string whyGemm, whyAttention;
  if (kind.empty() || kind == "gemm")
    if (auto spec = recogniseGemm(c, whyGemm))
      return *spec;
  if (kind.empty() || kind == "attention")
    if (auto spec = recogniseAttention(c, whyAttention))
      return *spec;
  if (!kind.empty())
    return llvm::createStringError("%s: not a %s launch: %s", c.dir.c_str(), kind.c_str(),
                                   (kind == "gemm" ? whyGemm : whyAttention).c_str());
  none.reason = "no reference: " + whyGemm + "; " + whyAttention;
  return none;
}

CheckResult checkReference(const ReferenceSpec &s, const Capture &c, const HostTensors &tensors, uint64_t seed) {
  std::vector<Matrix> m;
  for (const std::string &name : s.operands)
    m.push_back({&c.tensors.at(name), tensors.at(name).data()});
  CheckResult r = s.kind == ReferenceKind::Gemm ? checkGemm(s, m[0], m[1], m[2], seed)
                                                : checkAttention(s, m[0], m[1], m[2], m[3], seed);
  const TensorSpec &out = c.tensors.at(s.output());
  const Matrix o{&out, tensors.at(s.output()).data()};
  for (int64_t i = 0; i < out.shape[0]; ++i)
    for (int64_t j = 0; j < out.shape[1]; ++j)
      if (!std::isfinite(o.at(i, j)))
        ++r.nonFinite;
  if (r.nonFinite && r.ok) {
    r.ok = false;
    r.message = llvm::formatv("{0} of {1} elements of {2} are NaN or inf (unwritten?)", r.nonFinite,
                              out.shape[0] * out.shape[1], s.output())
                    .str();
  }
  return r;
}

} // namespace tlxsim::runner
