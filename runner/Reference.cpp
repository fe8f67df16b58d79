#include "runner/Reference.h"

#include "runner/HostData.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

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

/// Runs body(i) for i in [0, n) on `threads` threads (contiguous chunks).
template <typename Body> void parallelFor(int64_t n, unsigned threads, Body body) {
  threads = std::max(1u, std::min<unsigned>(threads, unsigned(std::max<int64_t>(1, n))));
  std::vector<std::thread> pool;
  int64_t chunk = (n + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int64_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i)
        body(i);
    });
  for (auto &th : pool)
    th.join();
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

/// One random index in each `band`-wide band of [0, n), at most `maxBands` bands (evenly spread).
std::vector<int64_t> bandSamples(int64_t n, int64_t band, int64_t maxBands, uint64_t &draw) {
  std::vector<int64_t> out;
  for (int64_t b0 = 0; b0 < n; b0 += band) {
    draw = splitmix64(draw);
    out.push_back(b0 + int64_t(draw % uint64_t(std::min(band, n - b0))));
  }
  if (int64_t(out.size()) > maxBands) {
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < maxBands; ++i)
      kept.push_back(out[size_t(i * int64_t(out.size()) / maxBands)]);
    out = std::move(kept);
  }
  return out;
}

CheckResult checkGemm(const ReferenceSpec &s, const Matrix &a, const Matrix &b, const Matrix &c, uint64_t seed,
                      unsigned threads) {
  // One row in every 64-row band and one column in every 64-column band: their crossings put one
  // sample in every 64 x 64 cell of C, and the sampled rows of A and columns of B are decoded once.
  constexpr int64_t kCell = 64, kMaxBands = 256;
  uint64_t draw = seed;
  std::vector<int64_t> rows = bandSamples(s.m, kCell, kMaxBands, draw), cols = bandSamples(s.n, kCell, kMaxBands, draw);
  std::vector<std::vector<float>> aRows(rows.size()), bCols(cols.size()); // fp16/bf16/fp8 values are exact in float
  parallelFor(int64_t(rows.size() + cols.size()), threads, [&](int64_t t) {
    bool isRow = t < int64_t(rows.size());
    std::vector<float> &out = isRow ? aRows[t] : bCols[t - rows.size()];
    out.resize(s.k);
    for (int64_t k = 0; k < s.k; ++k)
      out[k] = float(isRow ? a.at(rows[t], k) : b.at(k, cols[t - rows.size()]));
  });
  std::vector<double> refs(rows.size() * cols.size());
  parallelFor(int64_t(refs.size()), threads, [&](int64_t p) {
    const std::vector<float> &x = aRows[p / cols.size()], &y = bCols[p % cols.size()];
    double ref = 0;
    for (int64_t k = 0; k < s.k; ++k)
      ref += double(x[k]) * double(y[k]);
    refs[p] = ref;
  });
  Comparison cmp;
  std::vector<std::string> wheres;
  for (size_t p = 0; p < refs.size(); ++p) {
    int64_t i = rows[p / cols.size()], j = cols[p % cols.size()];
    std::string where = llvm::formatv("{0}[{1}, {2}]", s.output(), i, j).str();
    cmp.add(c.at(i, j), refs[p], where);
    wheres.push_back(where);
  }
  return cmp.finish(wheres);
}

CheckResult checkAttention(const ReferenceSpec &s, const Matrix &q, const Matrix &k, const Matrix &v,
                           const Matrix &o, uint64_t seed, unsigned threads) {
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
  std::vector<std::vector<double>> refs(rows.size());
  parallelFor(int64_t(rows.size()), threads, [&](int64_t r) {
    int64_t row = rows[r], first = row / s.rowsPerHead * s.rowsPerHead;
    std::vector<double> scores(s.rowsPerHead), acc(s.headDim, 0.0);
    double maxScore = -INFINITY;
    for (int64_t j = 0; j < s.rowsPerHead; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < s.headDim; ++d)
        dot += q.at(row, d) * k.at(first + j, d);
      scores[j] = dot * scale;
      maxScore = std::max(maxScore, scores[j]);
    }
    double sum = 0;
    for (int64_t j = 0; j < s.rowsPerHead; ++j) {
      double p = std::exp(scores[j] - maxScore);
      sum += p;
      for (int64_t d = 0; d < s.headDim; ++d)
        acc[d] += p * v.at(first + j, d);
    }
    for (double &x : acc)
      x /= sum;
    refs[r] = std::move(acc);
  });
  Comparison cmp;
  std::vector<std::string> wheres;
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t d = 0; d < s.headDim; ++d) {
      std::string where = llvm::formatv("{0}[{1}, {2}]", s.output(), rows[r], d).str();
      cmp.add(o.at(rows[r], d), refs[r][d], where);
      wheres.push_back(where);
    }
  return cmp.finish(wheres);
}

/// The scale reference a launch.json "reference" object declares: operands [X, Y], two 2-D tensors
/// of one shape, and "factor", a scalar argument's name or a number.
llvm::Expected<ReferenceSpec> declaredScale(const Capture &c, const llvm::json::Object &o) {
  auto fail = [&](const std::string &why) {
    return llvm::createStringError("%s/launch.json: \"reference\" scale: %s", c.dir.c_str(), why.c_str());
  };
  const llvm::json::Array *ops = o.getArray("operands");
  if (!ops || ops->size() != 2)
    return fail("\"operands\" must name two tensors [X, Y]");
  ReferenceSpec s;
  s.kind = ReferenceKind::Scale;
  for (const llvm::json::Value &v : *ops) {
    auto name = v.getAsString();
    if (!name || !c.tensors.count(name->str()))
      return fail("operand " + (name ? name->str() : std::string("?")) + " is not a tensor of the launch");
    if (c.tensors.at(name->str()).shape.size() != 2)
      return fail("operand " + name->str() + " is not 2-D");
    s.operands.push_back(name->str());
  }
  if (c.tensors.at(s.operands[0]).shape != c.tensors.at(s.operands[1]).shape)
    return fail("X and Y differ in shape");
  const llvm::json::Value *factor = o.get("factor");
  if (!factor)
    return fail("no \"factor\"");
  if (auto number = factor->getAsNumber()) {
    s.factor = *number;
  } else if (auto name = factor->getAsString()) {
    auto arg = c.args.find(name->str());
    if (arg == c.args.end())
      return fail("factor " + name->str() + " is not a scalar argument of the launch");
    s.factor = arg->second.isFloat ? arg->second.f : double(arg->second.i);
  } else {
    return fail("\"factor\" must be a scalar argument's name or a number");
  }
  const TensorSpec &x = c.tensors.at(s.operands[0]);
  s.flops = double(x.shape[0]) * double(x.shape[1]);
  return s;
}

/// Every element of Y against factor * X, in two passes (max |ref|, then the errors) so that no
/// per-element state is kept.
CheckResult checkScale(const ReferenceSpec &s, const Matrix &x, const Matrix &y, unsigned threads) {
  const int64_t rows = x.spec->shape[0], cols = x.spec->shape[1];
  std::vector<double> maxRef(threads, 0.0);
  const int64_t chunk = (rows + threads - 1) / threads;
  parallelFor(threads, threads, [&](int64_t t) {
    for (int64_t i = t * chunk; i < std::min(rows, (t + 1) * chunk); ++i)
      for (int64_t j = 0; j < cols; ++j)
        maxRef[t] = std::max(maxRef[t], std::fabs(s.factor * x.at(i, j)));
  });
  const double scale = std::max(*std::max_element(maxRef.begin(), maxRef.end()), 1e-30);
  struct Part {
    double maxRelErr = 0;
    int64_t firstBad = -1; // flat index
  };
  std::vector<Part> parts(threads);
  parallelFor(threads, threads, [&](int64_t t) {
    for (int64_t i = t * chunk; i < std::min(rows, (t + 1) * chunk); ++i)
      for (int64_t j = 0; j < cols; ++j) {
        double ref = s.factor * x.at(i, j), out = y.at(i, j);
        double err = std::isfinite(out) ? std::fabs(out - ref) : INFINITY;
        parts[t].maxRelErr = std::max(parts[t].maxRelErr, err / scale);
        if (!(err <= kTolerance * scale + kTolerance * std::fabs(ref)) && parts[t].firstBad < 0)
          parts[t].firstBad = i * cols + j;
      }
  });
  CheckResult r;
  r.ok = true;
  r.samples = rows * cols;
  for (const Part &p : parts) {
    r.maxRelErr = std::max(r.maxRelErr, p.maxRelErr);
    if (p.firstBad >= 0 && r.ok) {
      int64_t i = p.firstBad / cols, j = p.firstBad % cols;
      r.ok = false;
      r.message = llvm::formatv("{0}[{1}, {2}]: {3} but the reference is {4}", s.output(), i, j, y.at(i, j),
                                s.factor * x.at(i, j))
                      .str();
    }
  }
  return r;
}

} // namespace

const char *referenceKindName(ReferenceKind k) {
  switch (k) {
  case ReferenceKind::Gemm:
    return "gemm";
  case ReferenceKind::Attention:
    return "attention";
  case ReferenceKind::Scale:
    return "scale";
  case ReferenceKind::None:
    break;
  }
  return "none";
}

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
      if (k && *k == "scale")
        return declaredScale(c, *o);
      if (!k || (*k != "gemm" && *k != "attention"))
        return llvm::createStringError("%s/launch.json: \"reference\" needs \"kind\": \"gemm\", \"attention\" "
                                       "or \"scale\"",
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

CheckResult checkReference(const ReferenceSpec &s, const Capture &c, const HostTensors &tensors, uint64_t seed,
                           unsigned threads) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Matrix> m;
  for (const std::string &name : s.operands)
    m.push_back({&c.tensors.at(name), tensors.at(name).data()});
  CheckResult r = s.kind == ReferenceKind::Gemm    ? checkGemm(s, m[0], m[1], m[2], seed, threads)
                  : s.kind == ReferenceKind::Scale ? checkScale(s, m[0], m[1], threads)
                                                   : checkAttention(s, m[0], m[1], m[2], m[3], seed, threads);
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
