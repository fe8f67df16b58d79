// Learned lemmas of tile loops in ratio (Driver.h learnTileOffsets, tileFromStart; TileRatio.cpp has the encoding):
// how a replica's loop-carried values relate to the reference partition's on its own tiles and on the other
// replicas' tiles, and the reference's tile index from its start as a table key candidate.
#include "verifier/proof/Driver.h"

#include "llvm/Support/raw_ostream.h"

#include <climits>
#include <cstdlib>
#include <functional>
#include <set>

namespace tlxsim::verifier::proof {

std::optional<z3::expr> Driver::tileFromStart(int part, const PState &ps) {
  if (!ps.t)
    return std::nullopt;
  if (!tileStarts.count(part)) {
    std::optional<z3::expr> lb = tileLoopStart(static_cast<size_t>(part));
    if (!lb)
      return std::nullopt;
    tileStarts.emplace(part, *lb);
  }
  // Kept alive (per state term): the samples memoize values by AST id, which Z3 recycles once a term is freed.
  unsigned id = Z3_get_ast_id(c, *ps.t);
  auto it = tileOffsetTerms.find({part, id});
  if (it == tileOffsetTerms.end())
    it = tileOffsetTerms.emplace(std::make_pair(part, id), *ps.t - tileStarts.at(part)).first;
  return it->second;
}

namespace {
/// `d = a + b x T` over the points (T, d), b an integer of at most 8 in magnitude; nullopt when no such line holds.
std::optional<std::pair<int64_t, int64_t>> fitLine(const std::vector<std::pair<int64_t, int64_t>> &pts) {
  if (pts.empty())
    return std::nullopt;
  int64_t b = 0;
  for (const auto &[t, d] : pts)
    if (t != pts[0].first) {
      int64_t dt = t - pts[0].first, dd = d - pts[0].second;
      if (dd % dt != 0 || std::llabs(dd / dt) > 8)
        return std::nullopt;
      b = dd / dt;
      break;
    }
  int64_t a = pts[0].second - b * pts[0].first;
  for (const auto &[t, d] : pts)
    if (d != a + b * t)
      return std::nullopt;
  return std::make_pair(a, b);
}
} // namespace

int Driver::learnTileOffsets(std::vector<SampleValues> &samples, int lemmaId) {
  using Cond = std::function<std::optional<z3::expr>(const State &)>;
  using Param = std::function<z3::expr(const State &)>;
  // A lemma `x - y == a + b * param` where `where` holds, when every such sample state fits one line; true if added.
  auto learnLine = [&](const Cand &x, const Cand &y, const Cond &where, const Param &param, int part,
                       const std::string &what) {
    std::vector<std::pair<int64_t, int64_t>> pts;
    for (SampleValues &m : samples)
      for (const State &st : states) {
        if (m(*st.done))
          break;
        std::optional<z3::expr> w = where(st), vx = varExpr(st, x), vy = varExpr(st, y);
        if (!w || !vx || !vy)
          return false;
        if (modelValue(m.model(), *w) == 0) // temporaries: not memoized (Z3 recycles their ids)
          continue;
        int64_t a = m(*vx), b = m(*vy), t = modelValue(m.model(), param(st));
        if (a == INT64_MIN || b == INT64_MIN || t == INT64_MIN)
          return false;
        pts.push_back({t, a - b});
      }
    std::optional<std::pair<int64_t, int64_t>> line = fitLine(pts);
    if (!line)
      return false;
    auto lemmaAt = [&](const State &st) {
      return !*st.done && *where(st) &&
             *varExpr(st, x) - *varExpr(st, y) != c.int_val(line->first) + c.int_val(line->second) * param(st);
    };
    addLemma(lemmaId, -1, part, lemmaAt);
    if (getenv("TLXSIM_PROOF_DEBUG"))
      llvm::errs() << "lemma " << lemmaId << ": " << what << ": var " << x.var << " - var " << y.var
                   << " == " << line->first << " + " << line->second << " x param\n";
    ++lemmaId;
    return true;
  };
  std::set<int> refsDone;
  for (size_t q = 0; q < parts.size(); ++q) {
    const Part &p = parts[q];
    const int ref = p.tileRef;
    std::optional<int64_t> lbK = p.tileRatio ? constantOf(parts[ref].v2->lb) : std::nullopt;
    std::optional<z3::expr> start0 = p.tileRatio ? tileFromStart(static_cast<int>(q), states[0].parts[q]) : std::nullopt;
    if (!lbK || !start0)
      continue; // the reference's trip count or the replica's start not followed: no lemma
    const z3::expr lbQ = tileStarts.at(static_cast<int>(q));
    std::vector<Cand> mine, theirs;
    appendIntCarried(q, mine);
    appendIntCarried(ref, theirs);
    Param trips = [&](const State &st) { return *st.parts[ref].ub - c.int_val(*lbK); };
    if (refsDone.insert(ref).second) {
      // The reference's K-loop values against its tile loop's, by the iterations done in the tile (k - lb): the
      // link between a tile's start and its end that the replicas' lemmas below rest on.
      Cond inTile = [&](const State &st) { return tileLoopRuns(ref, st.parts[ref]); };
      Param done = [&](const State &st) { return *st.parts[ref].k - c.int_val(*lbK); };
      for (const Cand &x : theirs)
        for (const Cand &y : theirs)
          if (x.var < 100 && y.var >= 100 && learnLine(x, y, inTile, done, ref, "in the tile, partition " +
                                                                         std::to_string(ref) + "'s"))
            break;
    }
    const int64_t period = p.tileRatio * p.tileStep;
    for (int64_t rho = 0; rho < period; rho += p.tileStep) {
      // In the replica's tile loop on a tile at `rho` above one of its own (0: its own).
      Cond where = [&, rho](const State &st) -> std::optional<z3::expr> {
        std::optional<z3::expr> runs = tileLoopRuns(q, st.parts[q]);
        if (!runs)
          return std::nullopt;
        return *runs && z3::mod(*st.parts[q].t - lbQ, c.int_val(period)) == c.int_val(rho);
      };
      std::string what = "tiles at " + std::to_string(rho) + " from partition " + std::to_string(q) +
                         "'s own, against partition " + std::to_string(ref);
      for (const Cand &x : mine)
        for (const Cand &y : theirs)
          if (learnLine(x, y, where, trips, static_cast<int>(q), what))
            break; // tied to its first partner, as the constant offsets
    }
  }
  return lemmaId;
}

} // namespace tlxsim::verifier::proof
