// Learned lemmas of the k-induction (Lemmas.h): sampling bounded runs, the table lemmas over the ghost state,
// the range lemmas on loop counters, and their refinement by base-case counterexamples.
#include "verifier/proof/Driver.h"

#include "ir/Location.h"

#include "llvm/Support/raw_ostream.h"

#include <climits>

namespace tlxsim::verifier::proof {

std::optional<TableChoice> chooseTableKey(const std::vector<std::vector<Obs>> &obsPerCand,
                                          const std::vector<Cand> &cands, int visitedInKey, int features,
                                          int required) {
  std::optional<TableChoice> chosen;
  constexpr int nFeatures = std::tuple_size_v<TableKey>;
  // The visited flag is part of the value when some key determines it, else part of the key.
  for (int hasInKey = std::max(visitedInKey, 0); hasInKey < (visitedInKey == 0 ? 1 : 2) && !chosen; ++hasInKey)
    for (int pop = 0; pop <= nFeatures && !chosen; ++pop)
      for (size_t ci = 0; ci < cands.size() && !chosen; ++ci)
        for (int mask = 0; mask < (1 << nFeatures) && !chosen; ++mask) {
          if (__builtin_popcount(mask) != pop || (mask & ~features) || (mask & required) != required ||
              ((mask & 1) != 0) != (cands[ci].var >= 0) ||
              ((mask & 4) != 0) != (hasInKey != 0))
            continue;
          std::map<TableKey, TableRow> r;
          bool ok = !obsPerCand[ci].empty();
          for (const Obs &o : obsPerCand[ci]) {
            TableKey k4 = o.key;
            for (int f = 0; f < nFeatures; ++f)
              if (!(mask & (1 << f)))
                k4[f] = 0;
            TableRow val = o.val;
            if (hasInKey)
              val[2] = -1;
            auto [it, inserted] = r.emplace(k4, val);
            if (!inserted && it->second != val) {
              ok = false;
              break;
            }
          }
          if (ok)
            chosen = TableChoice{ci, mask, std::move(r)};
        }
  return chosen;
}

// 2. Learned lemmas: the phase balance, first-wait parity and visited flag of every (barrier
//    slot, waiter) as a table over (a loop-carried value mod the stage count, first iteration
//    of the K loop, visited, iterations left), sampled from bounded runs and then checked like
//    every other lemma (bounded model checking for the base case, induction for the step).
void Driver::learnLemmas() {
  R = maxSlots + 1;
  if (anchor >= 0 && windowOk) {
    // The sampler lives until the lemmas are learned, as in the pre-split prover: Z3 recycles the AST ids of
    // freed terms, and the ids order the terms of later queries (their models).
    std::vector<z3::model> samples;
    z3::solver sampler = newSolver(true);
    takeSamples(sampler, samples);
    std::vector<SampleValues> values;
    values.reserve(samples.size());
    for (const z3::model &m : samples)
      values.emplace_back(m, options.memoizeSamples);
    measureOpSlots(values);
    int lemmaId = learnTables(values);
    lemmaId = learnRangeLemmas(values, lemmaId);
    lemmaId = learnOffsetLemmas(values, lemmaId);
    lemmaId = learnTileOffsets(values, lemmaId);
    lemmaId = learnWaiterLemmas(values, lemmaId);
    lemmaId = learnParityLemmas(values, lemmaId);
    learnNamedLemmas(values, lemmaId);
  }
}

int64_t modelValue(const z3::model &m, const z3::expr &e) {
  z3::expr v = m.eval(e, true);
  if (v.is_bool())
    return v.is_true() ? 1 : 0;
  int64_t x = 0;
  return v.is_numeral_i64(x) ? x : INT64_MIN;
}

int64_t SampleValues::operator()(const z3::expr &e) {
  if (!memoize) {
    ++evals;
    return modelValue(sample, e);
  }
  auto [it, fresh] = memo.try_emplace(Z3_get_ast_id(e.ctx(), e), 0);
  if (fresh) {
    ++evals;
    it->second = modelValue(sample, e);
  }
  return it->second;
}

namespace {
int64_t num(const z3::model &m, const z3::expr &e) { return modelValue(m, e); }
} // namespace

std::optional<z3::expr> Driver::varExpr(const State &st, const Cand &cd) {
  const PState &ps = st.parts[cd.part];
  if (cd.var == 0)
    return ps.k;
  if (cd.var == Cand::kTile)
    return ps.t;
  if (cd.var == Cand::kTileFromStart)
    return tileFromStart(cd.part, ps);
  if (cd.var >= 100) {
    size_t i = cd.var - 100;
    return i < ps.outer.size() && ps.outer[i].k == Val::Int ? ps.outer[i].e : std::nullopt;
  }
  size_t i = cd.var - 1;
  return i < ps.inner.size() && ps.inner[i].k == Val::Int ? ps.inner[i].e : std::nullopt;
}

void Driver::chooseAnchor() {
  for (size_t i = 0; i < parts.size() && anchor < 0; ++i)
    if (parts[i].depth == maxDepth && maxDepth > 0) // a partition with the K loop, if any has one
      anchor = static_cast<int>(i);
  if (anchor < 0)
    return;
  std::optional<int64_t> st = constantOf(innermostLoop(parts[anchor]).step);
  bool constant = constantTripCount(parts[anchor]).has_value();
  remStep = st && *st > 1 && constant ? *st : 1;
  remStepSymbolic = st && *st > 1 && !constant && !innermostLoop(parts[anchor]).clc ? *st : 1;
}

/// The anchor's iterations left, capped to [-1, R]: ub - k in a loop of step 1; ceil((ub - k) / step) in one of a
/// constant step above 1 (-1 where ub - k < 0, 0 where it is 0, as there: the exit of a loop whose bound is no
/// multiple of the step reads -1), so that the last R iterations of `range(0, 4096, 128)` have keys of their own.
/// `iterations`: the same count for a symbolic loop of constant step (remStepSymbolic; Table::remIter's tables).
z3::expr Driver::remOf(const State &st, bool iterations) {
  const PState &ps = st.parts[anchor];
  z3::expr d = *ps.ub - *ps.k;
  const int64_t step = iterations ? remStepSymbolic : remStep;
  if (step == 1)
    return z3::ite(d > R, c.int_val(R), z3::ite(d < 0, c.int_val(-1), d));
  z3::expr rem = z3::ite(d < 0, c.int_val(-1), c.int_val(0));
  for (int r = 1; r <= R; ++r)
    rem = z3::ite(d > c.int_val(static_cast<int64_t>(r - 1) * step), c.int_val(r), rem);
  return rem;
}

/// Whether the anchor is inside its tile loop (Encoder::tileLoopRuns); false in a kernel without tile loops. After
/// its last tile's transition the kernel still runs one step (the exit), in which per-tile arrivals of the last tile
/// may stand unconsumed: a state a table tells apart from a tile's start only by this feature.
z3::expr Driver::inTileOf(const State &st) {
  std::optional<z3::expr> in = maxDepth == 2 ? tileLoopRuns(anchor, st.parts[anchor]) : std::nullopt;
  return in ? *in : c.bool_val(false);
}

std::optional<z3::expr> Driver::clusterRank() const {
  auto it = params.find("cluster_rank");
  return numCtas > 1 && it != params.end() ? std::optional<z3::expr>(it->second) : std::nullopt;
}

// A learned table lemma: the ghost state (B, D, has; `last` for per-tile waits) of one (barrier slot, waiter) as a
// function of the key (residue of a loop-carried value, first iteration of the K loop, visited flag, iterations
// left, the anchor in its tile loop), with the features not in `mask` ignored. Rows come from sampled runs and from base-case
// counterexamples (a state reachable from the start: its row is a fact, added when no row with the
// same key disagrees); the lemma is checked whole by the base case and the induction.
std::optional<std::pair<TableKey, TableRow>> Driver::observe(const Table &t, const z3::model &m, const State &st) {
  int64_t res = 0;
  if (t.cd.var >= 0) {
    auto v = varExpr(st, t.cd);
    if (!v)
      return std::nullopt;
    int64_t x = num(m, *v);
    if (x == INT64_MIN)
      return std::nullopt;
    res = ((x % t.cd.mod) + t.cd.mod) % t.cd.mod;
  }
  std::optional<z3::expr> rank = clusterRank();
  TableKey k4 = {res,
                 num(m, *st.parts[anchor].first),
                 num(m, st.ghost->has.at(t.key)[t.slot]),
                 num(m, remOf(st, t.remIter)),
                 num(m, inTileOf(st)),
                 rank ? num(m, *rank) : 0};
  for (size_t f = 0; f < k4.size(); ++f)
    if (!(t.mask & (1 << f)))
      k4[f] = 0;
  TableRow val = {num(m, st.ghost->B.at(t.key)[t.slot]), num(m, st.ghost->D.at(t.key)[t.slot]),
                  (t.mask & 4) ? -1 : num(m, st.ghost->has.at(t.key)[t.slot]),
                  t.last ? num(m, st.ghost->last.at(t.key)[t.slot]) : -1};
  if (val[0] == INT64_MIN)
    return std::nullopt;
  return std::make_pair(k4, val);
}

/// The violation condition of table `t` at `st`: the kernel runs and no row holds.
z3::expr Driver::tableAt(const Table &t, const State &st) {
  z3::expr_vector alts(c);
  std::optional<z3::expr> v = t.cd.var >= 0 ? varExpr(st, t.cd) : std::nullopt;
  std::optional<z3::expr> rank = (t.mask & kRankFeature) ? clusterRank() : std::nullopt;
  for (auto &[k4, val] : t.rows) {
    z3::expr e = st.ghost->B.at(t.key)[t.slot] == c.int_val(val[0]) &&
                 st.ghost->D.at(t.key)[t.slot] == c.bool_val(val[1] != 0);
    if (val[2] >= 0)
      e = e && st.ghost->has.at(t.key)[t.slot] == c.bool_val(val[2] != 0);
    if (val[3] >= 0)
      e = e && st.ghost->last.at(t.key)[t.slot] == c.int_val(val[3]);
    if ((t.mask & 1) && v)
      e = e && z3::mod(*v, t.cd.mod) == c.int_val(k4[0]);
    if (t.mask & 2)
      e = e && *st.parts[anchor].first == c.bool_val(k4[1] != 0);
    if (t.mask & 4)
      e = e && st.ghost->has.at(t.key)[t.slot] == c.bool_val(k4[2] != 0);
    if (t.mask & 8)
      e = e && remOf(st, t.remIter) == c.int_val(k4[3]);
    if (t.mask & 16)
      e = e && inTileOf(st) == c.bool_val(k4[4] != 0);
    if (rank)
      e = e && *rank == c.int_val(k4[5]);
    alts.push_back(e);
  }
  return !*st.done && !z3::mk_or(alts);
}

/// Samples: a long run, a run that ends at the bound, and (tile loops) runs with many tiles.
void Driver::takeSamples(z3::solver &sampler, std::vector<z3::model> &samples) {
  // One solver for all samples (incremental: each sample is one push / check / pop).
  auto sample = [&](const z3::expr &cond) {
    sampler.push();
    sampler.add(cond);
    double secs = 0;
    if (check(sampler, secs) == z3::sat)
      samples.push_back(sampler.get_model());
    sampler.pop();
  };
  sample(!*states.back().done);
  // A cluster kernel: a long run of every CTA of the cluster (the rank is a table key feature: each CTA's own
  // barriers see the arrivals addressed to its rank).
  if (std::optional<z3::expr> rank = clusterRank())
    for (int r = 0; r < numCtas; ++r)
      sample(!*states.back().done && *rank == r);
  // Every short trip count of the first innermost loop: runs of one length may differ in their trip count
  // (a loop that runs zero times and one whose bound lies below its start both end after one step; a
  // pipelined prologue issues work for the first iterations whatever the loop then runs).
  for (int d = 0; d <= R; ++d) {
    const PState &p0 = states[0].parts[anchor];
    sample(*p0.ub - *p0.k == d);
  }
  // A loop whose bound lies below its start (a negative size argument): the small launches above never
  // show it, yet predicated prologues (Triton's pipeliner: `num_k > j`) take a value there of their own.
  {
    z3::solver wide = newSolver(false);
    const PState &p0 = states[0].parts[anchor];
    wide.add(*p0.ub - *p0.k < 0);
    double secs = 0;
    if (check(wide, secs) == z3::sat)
      samples.push_back(wide.get_model());
  }
  sample(*states.back().done && !*states[states.size() - 2].done);
  // Short runs, one per length up to R + 1 + 2 S steps: every number of iterations left (the `rem`
  // feature, capped at R) is seen at every residue of the stage index.
  for (size_t j = 1; j + 1 < states.size() && static_cast<int>(j) <= R + 1 + 2 * maxSlots; ++j)
    sample(*states[j].done && !*states[j - 1].done);
  if (maxDepth == 2) {
    z3::expr_vector firsts(c), notFirsts(c);
    for (size_t j = 1; j < states.size(); ++j) {
      firsts.push_back(z3::ite(*states[j].parts[anchor].first && !*states[j].done, c.int_val(1), c.int_val(0)));
      notFirsts.push_back(z3::ite(!*states[j].parts[anchor].first && !*states[j].done, c.int_val(1), c.int_val(0)));
    }
    sample(z3::sum(firsts) >= 4);
    sample(z3::sum(firsts) >= 2 && z3::sum(notFirsts) >= 4);
  }
}

/// The induction depth needs each waiter's previous wait on a slot inside the window: the period of a ring is
/// the number of slots one op cycles through, which is the array's size unless several ops share the array (TLX's
/// replicated consumers index `buf + S * cid`). Measured over the samples (every live step of every sample).
void Driver::measureOpSlots(std::vector<SampleValues> &samples) {
  std::map<std::pair<mlir::Operation *, int>, std::set<int64_t>> seen;
  for (SampleValues &m : samples)
    for (auto &[op, group, idx, guard] : slotUses)
      if (m(guard) == 1)
        seen[{op, group}].insert(m(idx));
  for (auto &[use, slots] : seen) {
    mlir::Operation *op = use.first;
    opSlots = std::max(opSlots, static_cast<int>(slots.size()));
    if (getenv("TLXSIM_PROOF_DEBUG")) {
 llvm::errs() << "slots of " << groups[use.second].name << " at " << op->getName().getStringRef() << " at " << ir::pythonLocation(op->getLoc()).str() << ":";
      for (int64_t v : slots)
        llvm::errs() << " " << v;
      llvm::errs() << "\n";
    }
  }
}

void Driver::addLemma(int id, int group, int part, const std::function<z3::expr(const State &)> &violatedAt) {
  for (size_t j = 0; j < states.size(); ++j)
    viol[j].push_back({LemmaTable, group, violatedAt(states[j]), nullptr, part, id});
  for (size_t j = 0; j < wstates.size(); ++j)
    wviol[j].push_back({LemmaTable, group, violatedAt(wstates[j]), nullptr, part, id});
}

/// Registers table `t` as lemma `id`: its violation at every unrolled and window state, its report line.
void Driver::addTable(int id, Table t) {
  const Table &tab = tables[id] = std::move(t);
  addLemma(id, tab.key.first, tab.key.second, [&](const State &st) { return tableAt(tab, st); });
  std::string line;
  llvm::raw_string_ostream os(line);
  os << groups[tab.key.first].name << "[" << tab.slot << "]@" << tab.key.second << ": var " << tab.cd.part << "/"
     << tab.cd.var << " mod " << tab.cd.mod << " mask " << tab.mask << (tab.remIter ? " (left in iterations)" : "")
     << ":";
  // The in-tile feature, the cluster rank and `last` only where the table has them (the lines of the other tables
  // as before).
  for (auto &[k4, val] : tab.rows)
    os << " (" << k4[0] << "," << k4[1] << "," << k4[2] << "," << k4[3]
       << ((tab.mask & 16) ? "," + std::to_string(k4[4]) : "")
       << ((tab.mask & kRankFeature) ? ",rank " + std::to_string(k4[5]) : "") << ")->(" << val[0] << "," << val[1]
       << "," << val[2] << (tab.last ? "," + std::to_string(val[3]) : "") << ")";
  report.tables.push_back(line);
  if (getenv("TLXSIM_PROOF_DEBUG")) {
    llvm::errs() << "lemma " << id << " " << groups[tab.key.first].name << "[" << tab.slot << "]@" << tab.key.second
                 << ": var " << tab.cd.part << "/" << tab.cd.var << " mod " << tab.cd.mod << " mask " << tab.mask
                 << ", " << tab.rows.size() << " rows\n";
    for (auto &[k4, val] : tab.rows)
      llvm::errs() << "  (" << k4[0] << "," << k4[1] << "," << k4[2] << "," << k4[3] << "," << k4[4] << "," << k4[5]
                   << ") -> B=" << val[0] << " D=" << val[1] << " has=" << val[2] << " last=" << val[3] << "\n";
  }
}

/// The key candidates of a table on a barrier of S slots: none, then each loop partition's innermost index and
/// loop-carried integers modulo S and 2 S; with `tiles`, each tile loop's index modulo S and 2 S after them.
std::vector<Cand> Driver::tableCands(int S, bool tiles) const {
  std::vector<Cand> cands = {{anchor, -1, 1}};
  for (size_t q = 0; q < parts.size(); ++q) {
    if (parts[q].depth == 0)
      continue;
    const PState &ps = states[0].parts[q];
    std::vector<int> vars = {0};
    for (size_t i = 0; i < ps.inner.size(); ++i)
      if (ps.inner[i].k == Val::Int)
        vars.push_back(static_cast<int>(i) + 1);
    for (size_t i = 0; i < ps.outer.size(); ++i)
      if (ps.outer[i].k == Val::Int)
        vars.push_back(static_cast<int>(i) + 100);
    for (int M : {S, 2 * S})
      for (int v : vars)
        cands.push_back({static_cast<int>(q), v, M});
  }
  if (tiles)
    for (size_t q = 0; q < parts.size(); ++q)
      if (parts[q].depth == 2)
        for (int M : {S, 2 * S})
          cands.push_back({static_cast<int>(q), Cand::kTile, M});
  if (tiles) // tile loops in ratio: the reference's tiles counted from its start, modulo n x its step (and twice)
    for (const Part &p : parts)
      if (p.tileRatio)
        for (int64_t M : {p.tileRatio * p.tileStep, 2 * p.tileRatio * p.tileStep})
          if (M <= INT32_MAX)
            cands.push_back({p.tileRef, Cand::kTileFromStart, static_cast<int>(M)});
  return cands;
}

bool Driver::perTileWaiter(int group, int waiter) const {
  const Group &grp = groups[group];
  return maxDepth == 2 && grp.loopWaiters.count(waiter) && !grp.innerWaiters.count(waiter) &&
         !grp.drainWaiters.count(waiter);
}

/// Per-tile waits: the key search with the tile loops' indices (Cand::kTile) first, where it keys on another
/// candidate or features than `choice` (the search in the given order). The samples' launches may not tell a tile
/// count from a loop-carried value that agrees with it on them (TLX's tile_idx = prog_id + i * num_progs on a
/// one-CTA sample), which the base case then refutes; as a second lemma, Houdini keeps whichever table holds.
static std::optional<std::pair<Cand, TableChoice>> tileFirstChoice(const std::vector<std::vector<Obs>> &obsPerCand,
                                                                   const std::vector<Cand> &cands,
                                                                   const TableChoice &choice, int features) {
  std::vector<size_t> order = {0};
  for (int tile : {1, 0})
    for (size_t ci = 1; ci < cands.size(); ++ci)
      if (Cand::isTile(cands[ci].var) == (tile != 0))
        order.push_back(ci);
  std::vector<Cand> reordered;
  std::vector<std::vector<Obs>> obs;
  for (size_t ci : order) {
    reordered.push_back(cands[ci]);
    obs.push_back(obsPerCand[ci]);
  }
  std::optional<TableChoice> alt = chooseTableKey(obs, reordered, -1, features);
  if (!alt || (order[alt->cand] == choice.cand && alt->mask == choice.mask))
    return std::nullopt;
  Cand cd = reordered[alt->cand];
  return std::make_pair(cd, std::move(*alt));
}

/// One table lemma per (barrier slot, waiter) whose samples some key determines; returns the next lemma id.
/// Model evaluations are cached per (sample, state): the features shared by every candidate key (first, iterations
/// left, in tile, done) once, each candidate's loop-carried value once for all slots, the ghost state once per slot.
///
/// A per-tile waiter (perTileWaiter: it waits on the barrier in its tile loop, never in its K loop) waits once per
/// tile, and a tile spans any number of lock-step steps: the induction window need not reach back to its previous
/// wait on the slot, whose parity (`last`) the next wait's is checked against (PTX ISA mbarrier.try_wait.parity:
/// a wait on the parity of the current, incomplete phase blocks; on the other one it passes). Its tables therefore
/// also hold `last`, keyed on the tile loops' indices too (the wait's parity is a function of the tile count, e.g.
/// `j & 1`) and on whether the anchor is still in its tile loop (after the last tile's transition, its per-tile
/// arrivals stand unconsumed for one step). Where no key determines that, the table without `last` is learned.
int Driver::learnTables(std::vector<SampleValues> &samples) {
  int lemmaId = 0;
  const size_t nS = samples.size(), nT = states.size();
  std::vector<size_t> live(nS, nT); // the first state of each sample where the kernel is done
  std::vector<std::vector<int64_t>> firstV(nS), remV(nS), remItV(nS), inTileV(nS);
  const std::optional<z3::expr> rank = clusterRank();
  const int rankFeature = rank ? kRankFeature : 0; // a key feature of cluster kernels that read the rank
  std::vector<int64_t> rankV(nS, 0); // the sample's cluster rank (a launch parameter: one value per sample)
  if (rank)
    for (size_t m = 0; m < nS; ++m)
      rankV[m] = samples[m](*rank);
  for (size_t m = 0; m < nS; ++m)
    for (size_t j = 0; j < nT; ++j) {
      if (samples[m](*states[j].done)) {
        live[m] = j;
        break;
      }
      firstV[m].push_back(samples[m](*states[j].parts[anchor].first));
      remV[m].push_back(modelValue(samples[m].model(), remOf(states[j])));       // a temporary: not memoized
      if (remStepSymbolic > 1)
        remItV[m].push_back(modelValue(samples[m].model(), remOf(states[j], true)));
      inTileV[m].push_back(modelValue(samples[m].model(), inTileOf(states[j]))); // likewise
    }
  std::map<std::pair<int, int>, std::vector<std::vector<int64_t>>> varCache; // (part, var) -> [sample][state]
  auto varValues = [&](const Cand &cd) -> const std::vector<std::vector<int64_t>> & {
    auto [it, fresh] = varCache.try_emplace({cd.part, cd.var});
    if (fresh)
      for (size_t m = 0; m < nS; ++m) {
        it->second.emplace_back();
        for (size_t j = 0; j < live[m]; ++j) {
          auto v = varExpr(states[j], cd);
          if (!v)
            break; // the sample's observations stop here
          it->second.back().push_back(samples[m](*v));
        }
      }
    return it->second;
  };
  std::vector<Table> alternatives; // second tables (visited flag in the key), registered after the first ones
  for (auto &[key, Bv] : states[0].ghost->B) {
    if (budget.exhausted())
      break; // no lemma without its samples' evaluation; the properties are then bounded at best
    int S = groups[key.first].slots;
    const bool perTile = perTileWaiter(key.first, key.second);
    const size_t nLoopCands = tableCands(S, false).size();
    const std::vector<Cand> cands = tableCands(S, perTile);
    for (int slot = 0; slot < S; ++slot, ++lemmaId) {
      // The slot's ghost state per (sample, state): (B, D, has, last).
      std::vector<std::vector<std::array<int64_t, 4>>> ghostV(nS);
      for (size_t m = 0; m < nS; ++m)
        for (size_t j = 0; j < live[m]; ++j) {
          const Ghost &g = *states[j].ghost;
          ghostV[m].push_back({samples[m](g.B.at(key)[slot]), samples[m](g.D.at(key)[slot]),
                               samples[m](g.has.at(key)[slot]), samples[m](g.last.at(key)[slot])});
        }
      // Rows (residue, first, has, rem, in tile) -> (B, D, has, last) over the samples; the smallest consistent
      // key (fewest features, then the candidate order) generalizes best.
      auto observations = [&](size_t nCands, bool withLast, bool remIter = false) {
        std::vector<std::vector<Obs>> obsPerCand(nCands);
        for (size_t ci = 0; ci < nCands; ++ci) {
          const Cand &cd = cands[ci];
          const std::vector<std::vector<int64_t>> *vals = cd.var >= 0 ? &varValues(cd) : nullptr;
          for (size_t m = 0; m < nS; ++m)
            for (size_t j = 0; j < live[m]; ++j) {
              int64_t res = 0;
              if (vals) {
                if (j >= (*vals)[m].size())
                  break;
                int64_t x = (*vals)[m][j];
                res = ((x % cd.mod) + cd.mod) % cd.mod;
              }
              const auto &gv = ghostV[m][j];
              obsPerCand[ci].push_back({{res, firstV[m][j], gv[2], (remIter ? remItV : remV)[m][j], inTileV[m][j],
                                         rankV[m]},
                                        {gv[0], gv[1], gv[2], withLast ? gv[3] : -1}});
            }
        }
        return obsPerCand;
      };
      bool withLast = perTile;
      std::vector<Cand> used = cands; // the candidates of `obsPerCand`
      std::vector<std::vector<Obs>> obsPerCand = observations(used.size(), withLast);
      int features = (perTile ? kAllFeatures : kLoopFeatures) | rankFeature;
      std::optional<TableChoice> choice = chooseTableKey(obsPerCand, used, -1, features);
      if (!choice && perTile) { // no key determines the parity: the table of the loop features alone
        withLast = false;
        features = kLoopFeatures | rankFeature;
        used.resize(nLoopCands);
        obsPerCand = observations(used.size(), false);
        choice = chooseTableKey(obsPerCand, used, -1, features);
      } else if (!perTile && maxDepth == 2) {
        // A waiter in its K loop of a persistent kernel: the step after the last tile's transition (the kernel
        // still runs it; the last tile's peeled release or the producer's last arrivals stand there) may look like
        // a tile's start to the loop features alone. The anchor in its tile loop tells them apart: its key is the
        // table where the loop features fit none (TLX's cooperative GEMM: the consumers' bars_full_a / _b, whose
        // waits sit in a peeled first iteration and the K loop), and a second lemma where it has no more features
        // than the one they fit (cooperative bm256_bn128_s4's bars_full_a[1]: residue, first, visited and
        // iterations left fit the samples, 79 rows, refuted by the base case at K = 320), so that Houdini can
        // drop the first alone.
        std::optional<TableChoice> inTile = chooseTableKey(obsPerCand, used, -1, kAllFeatures | rankFeature, 16);
        if (!choice && inTile) {
          features = kAllFeatures | rankFeature;
          choice = std::move(inTile);
        } else if (choice && inTile && __builtin_popcount(inTile->mask) <= __builtin_popcount(choice->mask))
          alternatives.push_back(Table{key, slot, used[inTile->cand], inTile->mask, std::move(inTile->rows), 0, false});
      }
      if (!choice)
        continue;
      if (withLast)
        if (std::optional<std::pair<Cand, TableChoice>> alt = tileFirstChoice(obsPerCand, used, *choice, features))
          alternatives.push_back(Table{key, slot, alt->first, alt->second.mask, std::move(alt->second.rows), 0, true});
      // A key that determines the visited flag from loop values (a residue, the first iteration) may hold only
      // on the samples' trip counts (a slot first visited at counter 0 and visited again at counter 2 S, which
      // no sample reaches at a tile's start). A table with the visited flag in its key and fewer features (a
      // coarser key), when the samples admit one, is a second lemma, so that the base case or the induction can
      // drop the first alone.
      if (!(choice->mask & 4))
        if (std::optional<TableChoice> alt = chooseTableKey(obsPerCand, used, 1, features);
            alt && __builtin_popcount(alt->mask) < __builtin_popcount(choice->mask))
          alternatives.push_back(Table{key, slot, used[alt->cand], alt->mask, std::move(alt->rows), 0, withLast});
      // A symbolic loop of constant step above 1: `iterations left` in index units reads the cap in every iteration
      // but the last; in iterations it tells the last R apart (TLX blackwell_fa_ws_pipelined ns3: 6 more proved),
      // but a key over it alone may fit the samples and not be inductive (blackwell_fa_ws_persistent's per-tile
      // waits: 6 fewer). So the table in iterations is a second lemma where its key uses the feature.
      if (remStepSymbolic > 1) {
        std::vector<std::vector<Obs>> obsIt = observations(used.size(), withLast, true);
        if (std::optional<TableChoice> alt = chooseTableKey(obsIt, used, -1, features); alt && (alt->mask & 8)) {
          Table t{key, slot, used[alt->cand], alt->mask, std::move(alt->rows), 0, withLast};
          t.remIter = true;
          alternatives.push_back(std::move(t));
        }
      }
      addTable(lemmaId, Table{key, slot, used[choice->cand], choice->mask, std::move(choice->rows), 0, withLast});
    }
  }
  for (Table &t : alternatives)
    addTable(lemmaId++, std::move(t));
  return lemmaId;
}

// The loop-carried integers of partition `q` as key candidates (modulo 1): the innermost loop's carried values
// (Cand::var 1..) and the tile loop's (100..).
void Driver::appendIntCarried(size_t q, std::vector<Cand> &out) const {
  const PState &p0 = states[0].parts[q];
  for (size_t i = 0; i < p0.inner.size(); ++i)
    if (p0.inner[i].k == Val::Int)
      out.push_back({static_cast<int>(q), static_cast<int>(i) + 1, 1});
  for (size_t i = 0; i < p0.outer.size(); ++i)
    if (p0.outer[i].k == Val::Int)
      out.push_back({static_cast<int>(q), static_cast<int>(i) + 100, 1});
}

// Range lemmas: a loop-carried counter (iteration index, stage counter, tile counter) that is
// non-negative in every sample is assumed non-negative (checked and dropped like the tables):
// without it an arbitrary induction state may start at a negative counter, e.g. a stage index
// (it - 1) % S = -1 that no run reaches. A CLC tile loop's tile id whose least sampled value is -1 (a tile, or -1
// once no cluster is left) is assumed >= -1 alike.
int Driver::learnRangeLemmas(std::vector<SampleValues> &samples, int lemmaId) {
  for (size_t q = 0; q < parts.size(); ++q) {
    if (parts[q].depth == 0)
      continue;
    std::vector<Cand> vars = {{static_cast<int>(q), 0, 1}};
    appendIntCarried(q, vars);
    for (const Cand &cd : vars) {
      bool known = !samples.empty();
      int64_t least = 0;
      for (SampleValues &m : samples)
        for (const State &st : states) {
          if (m(*st.done))
            break;
          auto v = varExpr(st, cd);
          int64_t x = v ? m(*v) : INT64_MIN;
          if (x == INT64_MIN)
            known = false;
          least = std::min(least, x);
        }
      // A CLC tile loop's tile id (LoopView::clc): the tile index of a tile-only partition, or the carried id.
      const LoopView &tiles = *parts[q].v1;
      bool clcId = tiles.clc && ((parts[q].depth == 1 && cd.var == 0) ||
                                 (parts[q].depth == 2 && cd.var == 100 + static_cast<int>(tiles.ivIndex)));
      if (!known || least < (clcId ? -1 : 0))
        continue;
      auto lemmaAt = [&, cd, least](const State &st) {
        std::optional<z3::expr> v = varExpr(st, cd);
        return !*st.done && *v < c.int_val(least);
      };
      addLemma(lemmaId++, -1, cd.part, lemmaAt);
    }
  }
  return lemmaId;
}

// Offset lemmas: loop-carried integers of different partitions that differ by the same constant in every sample
// (TLX's replicated `smem_accum_cnt`, counted alike by the producer and each consumer; a tile counter) keep that
// difference. Without it an arbitrary induction state lets one partition's ring index run ahead of another's, and
// the learned tables, keyed on one partition's value each, cannot tie their waits and arrivals together. Each
// value is tied to the first value of another partition it keeps an offset to (checked and dropped like the
// tables).
int Driver::learnOffsetLemmas(std::vector<SampleValues> &samples, int lemmaId) {
  std::vector<Cand> vars;
  for (size_t q = 0; q < parts.size(); ++q) {
    if (parts[q].depth != 0)
      appendIntCarried(q, vars);
  }
  return learnConstantDifferences(
      samples, lemmaId, vars.size(), [&](size_t i, const State &st) { return varExpr(st, vars[i]); },
      [&](size_t i, size_t j) { return vars[j].part != vars[i].part; }, [&](size_t i) { return vars[i].part; },
      [&](size_t i, size_t j) {
        return "partition " + std::to_string(vars[i].part) + " var " + std::to_string(vars[i].var) + " - partition " +
               std::to_string(vars[j].part) + " var " + std::to_string(vars[j].var);
      });
}

int Driver::learnConstantDifferences(std::vector<SampleValues> &samples, int lemmaId, size_t n, const TermOf &term,
                                     const std::function<bool(size_t, size_t)> &pairOk,
                                     const std::function<int(size_t)> &partOf,
                                     const std::function<std::string(size_t, size_t)> &describe) {
  // The constant difference a - b over every live state of every sample, if there is one.
  auto offset = [&](size_t a, size_t b) -> std::optional<int64_t> {
    std::optional<int64_t> d;
    for (SampleValues &m : samples)
      for (const State &st : states) {
        if (m(*st.done))
          break;
        auto x = term(a, st), y = term(b, st);
        if (!x || !y)
          return std::nullopt;
        int64_t vx = m(*x), vy = m(*y);
        if (vx == INT64_MIN || vy == INT64_MIN || (d && *d != vx - vy))
          return std::nullopt;
        d = vx - vy;
      }
    return d;
  };
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < i; ++j) {
      if (!pairOk(i, j))
        continue;
      std::optional<int64_t> d = offset(i, j);
      if (!d)
        continue;
      auto lemmaAt = [&, d = *d](const State &st) { return !*st.done && *term(i, st) - *term(j, st) != c.int_val(d); };
      addLemma(lemmaId, -1, partOf(i), lemmaAt);
      if (getenv("TLXSIM_PROOF_DEBUG"))
        llvm::errs() << "lemma " << lemmaId << ": " << describe(i, j) << " == " << *d << "\n";
      ++lemmaId;
      break; // tied to its first partner; the partners' own lemmas chain the rest
    }
  return lemmaId;
}

// Barriers that several partitions wait on (TLX's replicated consumers: `full_a[buf + 4 * cid]`): each waiter's
// ghost balance on a slot it has not waited on is the slot's arrivals, the same as every other such waiter's (both
// start at zero, arrivals add to both, only a waiter's own wait changes its balance and sets its visited flag), and
// its first-wait flag is clear (Properties.cpp applySlots). checkEnd judges such a slot by the first waiter when
// none has waited; these lemmas tie the others' balances to it. A slot a waiter never visits in any sample (the
// other consumer's half of the array) stays unvisited: a lemma too, without which an arbitrary induction state
// could mark it visited with any balance. All are checked and dropped like the tables.
int Driver::learnWaiterLemmas(std::vector<SampleValues> &samples, int lemmaId) {
  auto add = [&](int group, int part, const std::function<z3::expr(const State &)> &bad, const char *what) {
    addLemma(lemmaId, group, part, [&](const State &st) { return !*st.done && bad(st); });
    if (getenv("TLXSIM_PROOF_DEBUG"))
      llvm::errs() << "lemma " << lemmaId << " " << groups[group].name << "@" << part << ": " << what << "\n";
    ++lemmaId;
  };
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Group &grp = groups[gi];
    if (phaseWaiters(grp) < 2)
      continue;
    const int g = static_cast<int>(gi), w0 = phaseKey(g, *grp.waiters.begin()).second;
    for (int w : grp.waiters) {
      auto key = std::make_pair(g, w), key0 = std::make_pair(g, w0);
      if (!states[0].ghost->has.count(key))
        continue;
      for (int s = 0; s < grp.slots; ++s) {
        add(g, w, [&, key, s](const State &st) { return !st.ghost->has.at(key)[s] && st.ghost->D.at(key)[s]; },
            "not visited: first-wait flag clear");
        if (w != w0)
          add(g, w, [&, key, key0, s](const State &st) {
            const Ghost &gh = *st.ghost;
            return !gh.has.at(key)[s] && !gh.has.at(key0)[s] && gh.B.at(key)[s] != gh.B.at(key0)[s];
          }, "not visited by either: the first waiter's balance");
        bool visited = samples.empty();
        for (SampleValues &m : samples)
          for (const State &st : states) {
            if (m(*st.done))
              break;
            visited |= m(st.ghost->has.at(key)[s]) != 0;
          }
        if (!visited)
          add(g, w, [&, key, s](const State &st) { return st.ghost->has.at(key)[s]; }, "never visited");
      }
    }
  }
  return lemmaId;
}

bool Driver::refineTable(int lemma, const z3::model &m, size_t d, std::set<int> &refinedNow) {
  auto tit = tables.find(lemma);
  if (tit != tables.end() && tit->second.refined < kMaxRefinements && !refinedNow.count(lemma)) {
    Table &t = tit->second;
    auto obs = observe(t, m, states[d]);
    if (obs && !t.rows.count(obs->first)) {
      t.rows.emplace(obs->first, obs->second);
      ++t.refined;
      refinedNow.insert(lemma);
      if (getenv("TLXSIM_PROOF_DEBUG"))
        llvm::errs() << "base case: lemma " << lemma << " learns a row at step " << d << "\n";
      return true;
    }
  }
  return false;
}

/// The refined tables' conditions, at every step and in the window.
void Driver::updateRefined(const std::set<int> &refinedNow) {
  for (int id : refinedNow) { // the refined tables' conditions, at every step and in the window
    const Table &t = tables.at(id);
    for (size_t j = 0; j < viol.size(); ++j)
      for (Violation &v : viol[j])
        if (v.kind == LemmaTable && v.lemma == id)
          v.cond = tableAt(t, states[j]);
    for (size_t j = 0; j < wviol.size(); ++j)
      for (Violation &v : wviol[j])
        if (v.kind == LemmaTable && v.lemma == id)
          v.cond = tableAt(t, wstates[j]);
  }
}

} // namespace tlxsim::verifier::proof
