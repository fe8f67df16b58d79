// The k-induction / BMC driver (Driver.h): run() and its phases, from the unrolling to the induction.
#include "verifier/proof/Driver.h"

#include "ir/Location.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <ctime>

using namespace mlir;

namespace tlxsim::verifier::proof {

Driver::Driver(Protocol protocol, const ProofOptions &options, QueryBudget &budget, ProofReport report)
    : Encoder(std::move(protocol)), options(options), budget(budget), report(std::move(report)), solverParams(c) {
  setQueryLimits(solverParams, options);
}

namespace {
/// TLXSIM_PROOF_DEBUG: the CPU seconds of each phase of run() on stderr (the calibration in tests/bench/README.md).
struct PhaseClock {
  bool on = getenv("TLXSIM_PROOF_DEBUG") != nullptr;
  timespec last{};
  PhaseClock() { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &last); }
  void lap(const char *phase) {
    if (!on)
      return;
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    llvm::errs() << "phase " << phase << ": cpu "
                 << (now.tv_sec - last.tv_sec) + 1e-9 * (now.tv_nsec - last.tv_nsec) << " s\n";
    last = now;
  }
};
} // namespace

ProofReport Driver::run() {
  PhaseClock clock;
  maxSlots = mostSlots();
  depths = proofDepths(maxSlots, options.bmcSteps, getenv("TLXSIM_PROOF_K"));
  k = depths.k;
  N = depths.bound;
  chooseAnchor();
  deepenForConstantLoop();
  if (!unrollFromStart())
    return report;
  constrainLaunch();
  if (!launchesExist() || !collectProperties())
    return report;
  clock.lap("unroll");
  findEndStep();
  buildWindow();
  if (!clusterPeersAgree())
    return report;
  clock.lap("window");
  learnLemmas();
  clock.lap("lemmas");
  if (opSlots > 0 && !getenv("TLXSIM_PROOF_K")) {
    // The depth from the slots one op reaches (a ring of S stages indexed `buf` and `buf + S` in an array of
    // 2 S slots: S), never above the array-sized default (Budget.cpp proofDepths).
    ProofDepths d = proofDepths(opSlots, options.bmcSteps, nullptr);
    if (d.k < k) {
      k = d.k;
      N = std::max(d.bound, k);
    }
  }
  baseBound = N;
  if (endStep > N)
    N = endStep; // every run ends by then: the bounded check to it is complete (proveByCompleteBmc)
  shortInductionFirst();
  clock.lap("short");
  runBmc();
  clock.lap("bmc");
  runInduction();
  clock.lap("induction");
  classifyUnproved();
  statePremises();
  if (budget.exhausted())
    report.notes.push_back(budget.spentText() + ": the queries after it were not run, their properties read "
                           "'timeout'");
  report.seconds = budget.totalSeconds();
  report.rlimit = budget.totalUnits();
  report.results = std::move(results);
  return report;
}

void Driver::findEndStep() {
  if (anchor < 0 || !constantTripCount(parts[anchor]) || states.size() < 2)
    return;
  z3::solver s = newSolver(false);
  auto mayRun = [&](size_t j) {
    s.push();
    s.add(!*states[j].done);
    double secs = 0;
    z3::check_result r = check(s, secs);
    s.pop();
    return r != z3::unsat; // sat or unknown: a run may still be active at step j
  };
  size_t hi = states.size() - 1;
  if (mayRun(hi)) {
    // Runs go on (a persistent kernel's tile loop): the lemmas are learned from the usual unrolling. Samples of the
    // constant loop's end made the tables larger, not more inductive (fused_attention_ws_device_tma_dp
    // bn128_pingpong: 114 proved in 139.9 M units without them; with them the 200 M budget is spent, 114 timeout,
    // and with 800 M the same 114 proved in 248 M). TLXSIM_PROOF_DEEP_SAMPLES=1 keeps them (an experiment).
    if (defaultUnroll > 0 && states.size() > static_cast<size_t>(defaultUnroll) + 1 &&
        !getenv("TLXSIM_PROOF_DEEP_SAMPLES")) {
      states.erase(states.begin() + defaultUnroll + 1, states.end());
      viol.erase(viol.begin() + defaultUnroll + 1, viol.end());
      slotUses.erase(slotUses.begin() + static_cast<long>(defaultSlotUses), slotUses.end());
      depths.unroll = defaultUnroll;
    }
    return;
  }
  size_t lo = 0; // mayRun(lo) (the initial state runs), !mayRun(hi); `done` only turns true
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    (mayRun(mid) ? lo : hi) = mid;
  }
  endStep = static_cast<int>(hi);
}

void Driver::deepenForConstantLoop() {
  std::optional<int64_t> trips = anchor >= 0 ? constantTripCount(parts[anchor]) : std::nullopt;
  // The loop's trip count, the ring's 2 S steps around the tile transition and the transition itself (a few more
  // steps than the short-run samples of takeSamples reach); loops above kMaxSampledTrips are left as before.
  if (!trips || *trips > kMaxSampledTrips)
    return;
  defaultUnroll = depths.unroll;
  depths.unroll = std::max<int>(depths.unroll, static_cast<int>(*trips) + 2 * maxSlots + 4);
}

bool Driver::unrollFromStart() {
  try {
    // Dry run: which partitions wait on / use each barrier (sizes the ghost state).
    resolveTilePhases(); // tile loops in ratio (TileRatio.cpp): before the dry run, which steps them
    collecting = true;
    {
      std::vector<Violation> none;
      State s0 = initial(none);
      shape = s0;
      step(s0, none);
      // Then one step from an arbitrary state: which barriers release which data buffers (Group::releases; the
      // initial state's numeral indices would pair unrelated rings). Its symbols reach no later query: the
      // constraints and peer expressions it records are dropped.
      size_t constraints = paramConstraints.size(), peers = peerExprs.size();
      scanReleases = true;
      step(freshState("scan."), none);
      scanReleases = false;
      paramConstraints.erase(paramConstraints.begin() + constraints, paramConstraints.end());
      peerExprs.erase(peerExprs.begin() + peers, peerExprs.end());
    }
    collecting = false;
    findDrainWaiters();
    recordSlots = true;
    viol.emplace_back();
    states.push_back(initial(viol.back()));
    for (int i = 0; i < depths.unroll; ++i) {
      viol.emplace_back();
      states.push_back(step(states.back(), viol.back()));
      if (i + 1 == defaultUnroll)
        defaultSlotUses = slotUses.size();
    }
    recordSlots = false;
  } catch (const Unsupported &u) {
    report.notes.push_back("not analyzed: " + u.why);
    return false;
  } catch (const z3::exception &e) {
    report.notes.push_back(std::string("not analyzed: Z3 error: ") + e.msg());
    return false;
  }
  return true;
}

void Driver::constrainLaunch() {
  // Launch constraints: arguments within 2^30 (no i32 overflow in index arithmetic), their
  // tt.divisibility, the grid, and the user's assumptions.
  Block &body = func->getRegion(0).front();
  const std::set<std::string> extents = descriptorExtentParams();
  for (auto &[n, e] : params) {
    if (extents.count(n)) {
      // A tensor descriptor's shape and strides: the CUDA driver's cuTensorMapEncodeTiled requires globalDim >= 1
      // and globalStrides > 0 (CUDA Driver API, Tensor Map Object Management), so no launch has a zero or negative
      // extent; without this a model could pick one (seen in the ping-pong GEMM's loop-alignment model).
      paramConstraints.push_back(e >= 1 && e <= kArgumentBound);
      smallConstraints.push_back(e <= 4096);
    } else if (n.starts_with("num_programs_"))
      paramConstraints.push_back(e >= 1 && e <= (1 << 20));
    else if (n == "cluster_rank")
      paramConstraints.push_back(e >= 0 && e < c.int_val(numCtas));
    else if (n.starts_with("program_id_")) {
      std::string axis = n.substr(std::string("program_id_").size());
      auto np = params.find("num_programs_" + axis);
      paramConstraints.push_back(e >= 0);
      if (np != params.end())
        paramConstraints.push_back(e < np->second);
      else
        paramConstraints.push_back(e < (1 << 20));
    } else {
      paramConstraints.push_back(e >= -kArgumentBound && e <= kArgumentBound);
      smallConstraints.push_back(e >= 0 && e <= 4096);
    }
  }
  if (numCtas > 1) {
    // A cluster is a box of clusterDims CTAs of the grid (CUDA clusterDim); the rank is x-major within it.
    auto rank = params.find("cluster_rank");
    for (int axis = 0; axis < 3; ++axis) {
      std::string a(1, "xyz"[axis]);
      auto pid = params.find("program_id_" + a), np = params.find("num_programs_" + a);
      z3::expr d = c.int_val(clusterDims[axis]);
      if (rank != params.end() && pid != params.end())
        paramConstraints.push_back(z3::mod(pid->second, d) == clusterCoord(rank->second, axis, clusterDims));
      if (np != params.end())
        paramConstraints.push_back(z3::mod(np->second, d) == 0);
    }
  }
  for (unsigned i = 0; i < body.getNumArguments(); ++i) {
    if (std::optional<int64_t> d = ir::argDivisibility(func, i)) {
      std::string n = ir::variableName(body.getArgument(i).getLoc()).value_or("");
      auto it = params.find(n);
      if (it != params.end() && *d > 1)
        paramConstraints.push_back(z3::mod(it->second, c.int_val(*d)) == 0);
    }
  }
  for (auto &[n, e] : params)
    if (n.starts_with("num_programs_"))
      smallConstraints.push_back(e <= 4);
  for (const Assumption &a : options.assumptions) {
    auto it = params.find(a.name);
    llvm::StringRef axis(a.name);
    if (it == params.end() && axis.consume_front("num_programs_")) {
      // A bound on a grid size the protocol does not read bounds the program ids it does read: program_id <
      // num_programs (a persistent kernel launched on min(NUM_SMS, tiles) CTAs, launch.json `preconditions`).
      auto pid = params.find("program_id_" + axis.str());
      if (pid != params.end() && (a.op == "<=" || a.op == "<" || a.op == "==")) {
        int64_t most = a.op == "<" ? a.value - 1 : a.value; // the largest grid size it allows
        paramConstraints.push_back(pid->second < c.int_val(most));
        continue;
      }
    }
    if (it == params.end()) {
      report.notes.push_back("assumption on '" + a.name + "' ignored: the kernel's protocol does not use it");
      continue;
    }
    z3::expr x = it->second, v = c.int_val(a.value);
    paramConstraints.push_back(assumptionHolds(a, x, v));
  }
}

bool Driver::launchesExist() {
  z3::solver &base = launchSolver.emplace(c);
  base.set(solverParams);
  for (auto &e : paramConstraints)
    base.add(e);
  double satSeconds = 0;
  z3::check_result sat = check(base, satSeconds);
  report.seconds += satSeconds;
  if (sat == z3::unsat) {
    report.assumptionsUnsat = true;
    report.notes.push_back("the assumptions admit no launch: nothing is proved");
    return false;
  }
  return true;
}

// Stage-ownership of buffers that other CTAs write is not analyzed (a note below): its checks leave.
void Driver::dropRemote(std::vector<std::vector<Violation>> &vv) {
  for (auto &vs : vv)
    vs.erase(std::remove_if(vs.begin(), vs.end(),
                            [&](const Violation &v) { return v.kind == StageOwnership && remoteData.count(v.group); }),
             vs.end());
}

z3::expr Driver::anyViol(size_t from, size_t to, const Selector &sel, const std::vector<std::vector<Violation>> &vv) {
  z3::expr_vector xs(c);
  for (size_t st = from; st < to && st < vv.size(); ++st)
    for (auto &v : vv[st])
      if (sel(v) && !(v.kind == LemmaTable && dropped.count(v.lemma)))
        xs.push_back(v.cond);
  return z3::mk_or(xs);
}

z3::solver Driver::newSolver(bool small) {
  z3::solver s(c);
  s.set(solverParams);
  for (auto &e : paramConstraints)
    s.add(e);
  if (small)
    for (auto &e : smallConstraints)
      s.add(e);
  return s;
}

// The induction step's solver: Z3's `smt` tactic after simplify / propagate-values / solve-eqs (one query per
// Houdini round, not incremental). Z3's default solver runs its QF_LIA preprocessing pipeline on this query, 2-4
// times the resource units (tests/bench/README.md, "Issue 18, third pass"); TLXSIM_PROOF_INDUCTION=plain selects it.
z3::solver Driver::inductionSolver() {
  const char *mode = getenv("TLXSIM_PROOF_INDUCTION");
  bool plain = mode && std::string(mode) == "plain";
  z3::solver s = plain ? z3::solver(c)
                       : (z3::tactic(c, "simplify") & z3::tactic(c, "propagate-values") & z3::tactic(c, "solve-eqs") &
                          z3::tactic(c, "smt"))
                             .mk_solver();
  s.set(solverParams);
  for (auto &e : paramConstraints)
    s.add(e);
  return s;
}

/// The reported properties (kind, barrier or buffer) the encoding emitted; false (with a note) when there is none.
bool Driver::collectProperties() {
  dropRemote(viol);
  // Which (kind, group) properties exist.
  for (auto &vs : viol)
    for (auto &v : vs)
      if (v.kind < LemmaAlign)
        props.insert({v.kind, v.group});
  for (int d : remoteData)
    report.notes.push_back("stage-ownership on " + groups[d].name +
                           " not analyzed: other CTAs of the cluster write it (TMA multicast), and their release "
                           "of its stages is not encoded");
  if (props.empty()) {
    bool anyBarrier = std::any_of(groups.begin(), groups.end(), [](const Group &g) { return !g.data; });
    report.notes.push_back(!anyBarrier
                               ? kNoMbarrierNote
                               : "no mbarrier protocol: no barrier is waited on, arrived at or filled by TMA in "
                                 "the encoded code, nothing to prove");
    report.seconds = budget.totalSeconds();
    return false;
  }
  // One result per property, in `props` order (checked all at once by BMC, alone only when one fails).
  for (auto [kind, group] : props) {
    ProofResult r;
    r.property = kindName(kind);
    r.barrier = groups[group].name;
    r.location = groups[group].loc;
    for (int w : groups[group].users)
      r.partitions.push_back(parts[w].name);
    results.push_back(r);
    sels.push_back([kind = kind, group = group](const Violation &v) { return v.kind == kind && v.group == group; });
  }
  return true;
}

void Driver::buildWindow() {
  // The k-induction window: k + 1 steps from an arbitrary state.
  try {
    windowPeerStart = peerExprs.size();
    wviol.emplace_back();
    wstates.push_back(freshState("w"));
    for (int i = 0; i < k + 1; ++i) {
      wviol.emplace_back();
      wstates.push_back(step(wstates.back(), wviol.back()));
    }
  } catch (...) {
    windowOk = false;
  }
  dropRemote(wviol);
}

bool Driver::clusterPeersAgree() {
  // Cluster kernels: the peers' versions of the ops that reach this CTA's barriers substitute the issuer's rank
  // (and program id) and keep everything else. That is exact only when nothing else they read differs between
  // the CTAs: launch arguments, and loop-carried values that depend neither on the rank nor on the program id
  // nor on values the prover does not follow (a fixed point over one step of the window).
  if (!peerExprs.empty()) {
    std::string why;
    // Abstracted terms (tile counts) are the same in every CTA unless they read the rank or program id.
    // Terms that read the rank or a program id (and launch parameters, and such terms) have each peer's own
    // version (Symbols::forPeer): substituted like the rank itself, but not the same in every CTA.
    std::map<std::string, bool> abstractedOk;
    std::set<std::string> substitutedTerms;
    for (auto &a : abstracted) {
      if (a.peerOf >= 0)
        continue;
      bool ok = true, exact = true, reads = false;
      for (const std::string &n : symbolNames(a.exact)) {
        ok &= params.count(n) && !perCtaParam(n);
        bool inner = substitutedTerms.count(n) > 0;
        // divS's value for a zero divisor (a fresh symbol): only where the divisor, here a tile count, is 0 and the
        // tile loop does not run; the peers share it there.
        bool divByZero = llvm::StringRef(n).starts_with("div_by_zero!");
        exact &= params.count(n) || inner || divByZero || (abstractedOk.count(n) && abstractedOk[n]);
        reads |= perCtaParam(n) || inner;
      }
      abstractedOk[a.var.decl().name().str()] = ok;
      if (exact && reads)
        substitutedTerms.insert(a.var.decl().name().str());
    }
    // (window const, its next value, its initial value) per loop-carried component.
    std::vector<std::tuple<std::optional<z3::expr>, std::optional<z3::expr>, std::optional<z3::expr>>> comps;
    if (windowOk && wstates.size() >= 2) {
      auto add = [&](const std::optional<z3::expr> &w, const std::optional<z3::expr> &n,
                     const std::optional<z3::expr> &i) { comps.push_back({w, n, i}); };
      add(wstates[0].done, wstates[1].done, states[0].done);
      for (size_t q = 0; q < parts.size(); ++q) {
        const PState &w = wstates[0].parts[q], &n = wstates[1].parts[q], &i = states[0].parts[q];
        add(w.t, n.t, i.t);
        add(w.k, n.k, i.k);
        add(w.first, n.first, i.first);
        add(w.ub, n.ub, i.ub);
        add(w.exited, n.exited, i.exited);
        for (size_t d = 0; d < w.conds.size(); ++d)
          add(w.conds[d], n.conds[d], i.conds[d]);
        for (size_t a = 0; a < w.outer.size(); ++a)
          add(w.outer[a].e, a < n.outer.size() ? n.outer[a].e : std::nullopt,
              a < i.outer.size() ? i.outer[a].e : std::nullopt);
        for (size_t a = 0; a < w.inner.size(); ++a)
          add(w.inner[a].e, a < n.inner.size() ? n.inner[a].e : std::nullopt,
              a < i.inner.size() ? i.inner[a].e : std::nullopt);
      }
    } else
      why = "the loop state of the window could not be built";
    std::set<std::string> windowConsts, tainted;
    for (auto &[w, n, i] : comps)
      if (w && w->is_const())
        windowConsts.insert(w->decl().name().str());
    auto sameEverywhere = [&](const std::string &n) {
      if (perCtaParam(n))
        return false;
      if (params.count(n))
        return true;
      if (auto it = abstractedOk.find(n); it != abstractedOk.end())
        return it->second;
      return windowConsts.count(n) && !tainted.count(n);
    };
    for (bool changed = true; changed && why.empty();) {
      changed = false;
      for (auto &[w, n, i] : comps) {
        if (!w || !w->is_const() || tainted.count(w->decl().name().str()))
          continue;
        bool ok = n && i;
        for (const std::optional<z3::expr> &x : {n, i})
          if (x)
            for (const std::string &name : symbolNames(*x))
              ok &= sameEverywhere(name);
        if (!ok) {
          tainted.insert(w->decl().name().str());
          changed = true;
        }
      }
    }
    // The note's name of a symbol: an abstracted term with its exact expression, a loop-carried value of the
    // window, else the symbol itself.
    auto describe = [&](const std::string &n) {
      for (auto &a : abstracted)
        if (a.var.decl().name().str() == n)
          return "the nonlinear term " + n + " = " + a.exact.to_string();
      if (windowConsts.count(n))
        return "a loop-carried value of the loop state, " + n + ", which depends on the rank or program id";
      return n;
    };
    // The bounded check's steps are unrolled from the launch: their expressions read the launch's symbols, which
    // the peers' versions substitute, and the abstracted terms. The window's steps also read its loop state.
    std::string windowWhy;
    for (size_t e = 0; e < peerExprs.size() && why.empty(); ++e) {
      auto &[deps, op] = peerExprs[e];
      bool inWindow = e >= windowPeerStart;
      if (inWindow && !windowWhy.empty())
        continue;
      for (const z3::expr &d : deps)
        for (const std::string &name : symbolNames(d))
          if (!perCtaParam(name) && !substitutedTerms.count(name) && !sameEverywhere(name)) {
            (inWindow ? windowWhy : why) = // a window step's failure only rules out the induction
                ir::pythonLocation(op->getLoc()).str() + ": " + op->getName().getStringRef().str() +
                " reaches other CTAs' barriers and depends on a value that may differ between the CTAs (" +
                describe(name) + ")";
            break;
          }
    }
    if (why.empty() && !windowWhy.empty()) {
      // Exact in the bounded check (a peer that runs fewer tiles stops arriving there: a counterexample), not in
      // the window: no induction, the clean properties read `bounded`.
      peerWindowWhy = windowWhy;
      windowOk = false;
      report.notes.push_back("cluster kernel (" + clusterText() + "): bounded model checking only: " + windowWhy +
                             "; the bounded check unrolls every CTA of the cluster from the launch, the induction "
                             "step's arbitrary state cannot say what the peers' state is");
    }
    if (!why.empty()) {
      std::erase_if(report.notes, [](const std::string &n) { return n.starts_with("stage-ownership on "); });
      report.notes.push_back("not analyzed: cluster kernel (" + clusterText() + "): " + why);
      report.seconds = budget.totalSeconds();
      return false;
    }
  }
  return true;
}

// 1. Bounded model checking from the initial state, incrementally (one solver; a clean depth
//    is asserted before the next is checked), properties and learned lemmas together: a
//    violated lemma is dropped (Houdini) and the depth checked again; a violated property ends
//    the search and each property is then checked alone for its counterexample.
//    `quick` (the short pass's base case, ShortInduction.cpp): false at an unknown or when a property is violated,
//    with no counterexample search and no verdict (the full check reports it); the lemmas are refined or dropped
//    to the end of the bound either way.
bool Driver::runBmc(bool quick) {
  size_t bmcEnd = static_cast<size_t>(N) + 1; // viol[0] (before the loops) .. viol[N]
  int failDepth = -1;
  bool unknownSeen = false;
  std::map<std::pair<int, int>, size_t> propIndex;
  for (auto kg : props)
    propIndex[kg] = propIndex.size();
  std::set<size_t> failed; // properties violated: searched alone for their counterexample below
  z3::solver s = newSolver(false);
  auto sel = [&](const Violation &v) {
    return v.kind < LemmaAlign ? !failed.count(propIndex.at({v.kind, v.group})) : lemmasHold;
  };
  for (size_t d = 0; d < bmcEnd && !unknownSeen; ++d) {
    if (getenv("TLXSIM_PROOF_DEBUG"))
      llvm::errs() << "bmc depth " << d << " of " << bmcEnd - 1 << " (k " << k << ")\n";
    for (;;) {
      z3::expr bad = anyViol(d, d + 1, sel, viol);
      s.push();
      s.add(bad);
      double secs = 0;
      z3::check_result r = check(s, secs);
      if (r == z3::unsat) {
        s.pop();
        s.add(!bad);
        break;
      }
      if (r == z3::unknown && !quick && static_cast<int>(d) > baseBound) {
        // Beyond the usual bound (the complete check's extra depths): the check stops here as if its bound were
        // d - 1, which still covers the induction's base case; nothing is proved complete.
        s.pop();
        N = static_cast<int>(d) - 1;
        bmcEnd = d;
        break;
      }
      if (r == z3::unknown) {
        s.pop();
        if (quick)
          return false;
        unknownSeen = true;
        break;
      }
      z3::model m = s.get_model();
      s.pop();
      bool propBad = false, structural = false;
      size_t before = dropped.size();
      std::set<int> refinedNow;
      for (const Violation &v : viol[d]) {
        if (!sel(v) || (v.kind == LemmaTable && dropped.count(v.lemma)) || !m.eval(v.cond, true).is_true())
          continue;
        if (v.kind < LemmaAlign) {
          propBad = true;
          failed.insert(propIndex.at({v.kind, v.group}));
          if (getenv("TLXSIM_PROOF_DEBUG"))
            llvm::errs() << "bmc: property " << kindName(v.kind) << " on "
                         << (v.group >= 0 ? groups[v.group].name : std::string("-")) << " violated at step " << d << "\n";
        } else if (v.kind == LemmaTable) {
          // A table without a row for this reachable state learns it (when no row of the same key
          // disagrees); otherwise the lemma is dropped.
          if (refineTable(v.lemma, m, d, refinedNow))
            continue;
          dropped.insert(v.lemma);
          if (getenv("TLXSIM_PROOF_DEBUG"))
          {
            llvm::errs() << "base case: dropped lemma " << v.lemma << " at step " << d << ":";
            for (auto &[pn, pe] : params)
              llvm::errs() << " " << pn << "=" << m.eval(pe, true).to_string();
            llvm::errs() << "\n";
          }
        } else if (!structural) {
          structural = true;
          if (getenv("TLXSIM_PROOF_DEBUG")) {
            llvm::errs() << "base case: lemma " << kindName(v.kind) << " fails at step " << d << " (partition "
                         << v.part << "):";
            for (auto &[pn, pe] : params)
              llvm::errs() << " " << pn << "=" << m.eval(pe, true).to_string();
            for (size_t j = 0; j <= d && j < states.size(); ++j)
              for (size_t q = 0; q < parts.size(); ++q) {
                const PState &ps = states[j].parts[q];
                llvm::errs() << "\n  step " << j << " " << parts[q].name;
                for (auto [n, e] : {std::pair{"t", &ps.t}, {"k", &ps.k}, {"ub", &ps.ub}, {"exited", &ps.exited}})
                  if (*e)
                    llvm::errs() << " " << n << "=" << m.eval(**e, true).to_string();
              }
            llvm::errs() << "\n";
          }
          structuralFailed = v.kind;
          std::string mismatch = v.kind == LemmaAlign ? loopMismatch(parts) : "";
          report.notes.push_back(std::string("lemma '") + kindName(v.kind) + "' fails at lock-step step " +
                                 std::to_string(d) +
                                 (v.group >= 0 ? " on " + groups[v.group].name : std::string()) +
                                 (mismatch.empty() ? "" : " (" + mismatch + ")") +
                                 ": properties are proved without it if possible");
        }
      }
      if (propBad) { // the other properties and the lemmas go on
        if (failDepth < 0)
          failDepth = static_cast<int>(d);
        continue;
      }
      updateRefined(refinedNow);
      if (structural)
        lemmasHold = false;
      else if (dropped.size() == before && refinedNow.empty()) { // cannot happen: a violation was seen; stay sound
        unknownSeen = true;
        break;
      }
    }
  }
  if (quick)
    return !unknownSeen && failed.empty();
  bmcReachedBound = !unknownSeen && bmcEnd == static_cast<size_t>(N) + 1 && N >= endStep;
  z3::check_result any = failDepth >= 0 ? z3::sat : unknownSeen ? z3::unknown : z3::unsat;
  // Each property's counterexample is searched over the whole bound: a deeper one often needs a more
  // realistic launch (the parameters are then moved toward the simulated one).
  // After an unknown (at most at the usual bound: one beyond it stops the check instead, above), the searches stay
  // within the usual bound: the complete check's extra depths would cost every property's search their steps.
  const size_t fullDepth = unknownSeen ? std::min(bmcEnd, static_cast<size_t>(baseBound) + 1) : bmcEnd;
  size_t cexDepth = fullDepth;
  if (any != z3::unsat) {
    if (unknownSeen) {
      lemmasHold = false; // their base case was not checked to the full depth
      bmcStop = budget.stop(); // the induction then runs without them: its failures are this limit's
    }
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i].verdict == "proved") { // by the short pass: an invariant no run can violate
        if (failed.count(i))
          report.notes.push_back("internal error: the bounded check violates " + results[i].property + " on " +
                                 results[i].barrier + ", which the short induction pass proved; please report it");
        continue;
      }
      if (!unknownSeen && !failed.count(i))
        continue; // clean to the full depth: left to the induction
      searchCounterexample(i, cexDepth, fullDepth);
    }
  }
  return true;
}

void Driver::printWindow(const z3::model &m, int group) {
  auto val = [&](const z3::expr &e) { return m.eval(e, true).to_string(); };
  for (size_t j = 0; j < wstates.size(); ++j) {
    const State &st = wstates[j];
    llvm::errs() << "  window " << j << " done=" << val(*st.done);
    for (size_t q = 0; q < parts.size(); ++q) {
      const PState &ps = st.parts[q];
      llvm::errs() << " | " << parts[q].name;
      for (auto [n, e] : {std::pair{"t", &ps.t}, {"k", &ps.k}, {"ub", &ps.ub}, {"first", &ps.first},
                          {"exited", &ps.exited}})
        if (*e)
          llvm::errs() << " " << n << "=" << val(**e);
      for (size_t a = 0; a < ps.outer.size(); ++a)
        if (ps.outer[a].k == Val::Int)
          llvm::errs() << " o" << a << "=" << val(*ps.outer[a].e);
      for (size_t a = 0; a < ps.inner.size(); ++a)
        if (ps.inner[a].k == Val::Int)
          llvm::errs() << " i" << a << "=" << val(*ps.inner[a].e);
    }
    llvm::errs() << "\n";
    for (auto &[key, B] : st.ghost->B)
      if (key.first == group)
        for (size_t s = 0; s < B.size(); ++s)
          llvm::errs() << "    " << groups[group].name << "[" << s << "]@" << parts[key.second].name
                       << " B=" << val(B[s]) << " D=" << val(st.ghost->D.at(key)[s])
                       << " has=" << val(st.ghost->has.at(key)[s]) << " last=" << val(st.ghost->last.at(key)[s])
                       << "\n";
  }
}

// The repeated waits the encoding took as re-observations (Encoder::reobserves) are premises of every verdict of the
// kernel: the properties are proved together (each is a hypothesis of the others' induction step).
void Driver::statePremises() {
  for (auto &[group, pairs] : reobservable)
    for (auto &[first, second] : pairs)
      report.premises.push_back("the wait at " + ir::pythonLocation(second->getLoc()).str() + " re-observes the phase of " +
                         groups[group].name + " that the wait at " + ir::pythonLocation(first->getLoc()).str() +
                         " observed (the same barrier and parity, no phase completed in between: PTX ISA "
                         "mbarrier.try_wait.parity passes at once; not proved, the simulation's parity-aliasing and "
                         "deadlock checks judge it on their schedules)");
}

void Driver::classifyUnproved() {
  assert(results.size() == props.size() && "one result per property, in props order (collectProperties)");
  auto limitReason = [](const std::string &limit) {
    return limit == "proof-budget" || limit == "wall-clock-budget" ? "budget" : "query-limit";
  };
  auto kg = props.begin();
  for (ProofResult &r : results) {
    auto [kind, group] = *kg++;
    if ((r.verdict != "bounded" && r.verdict != "timeout") || !r.reason.empty())
      continue;
    if (structuralFailed == LemmaAlign)
      r.reason = "unaligned-loops";
    else if (r.verdict == "timeout")
      r.reason = limitReason(r.limit);
    else if (!bmcStop.empty()) // a BMC query stopped: the lemmas were dropped, so the induction had none
      r.reason = limitReason(bmcStop);
    else if (!peerWindowWhy.empty())
      r.reason = "cluster-peers";
    else
      r.reason = boundedReason(kind, group).empty() ? "not-inductive" : "counter-barrier";
  }
}

std::string Driver::boundedReason(int kind, int group) const {
  if ((kind != WaitParity && kind != PhaseBalance) || group < 0 || !wstates.size() || !wstates[0].ghost)
    return "";
  for (const auto &[key, avail] : wstates[0].ghost->avail)
    if (key.first == group)
      return " (" + groups[group].name + " is a counter barrier: " + parts[key.second].name +
             " waits on it only after its loops while its phases complete inside them, so its phase balance grows "
             "with the trip count, which the learned tables (one balance per key) do not express)";
  return "";
}

} // namespace tlxsim::verifier::proof
