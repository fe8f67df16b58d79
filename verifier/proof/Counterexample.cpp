// Counterexample search and description (Driver.h): per violated property a model over the whole bound, a small
// launch where there is one, the abstracted tile counts concretized, the parameters moved toward the simulated
// launch (launchPreferences), and the witness (launch, lock-step step and loop iteration) the replay runs.
#include "verifier/proof/Driver.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace tlxsim::verifier::proof {

std::vector<std::pair<z3::expr, z3::expr>> launchPreferences(z3::context &c,
                                                             const std::map<std::string, z3::expr> &params,
                                                             const std::map<std::string, int64_t> &launch) {
  std::vector<std::pair<z3::expr, z3::expr>> prefs; // (param, preferred value), first ones first
  auto isCta = [](const std::string &n) { return n.starts_with("program_id_") || n == "cluster_rank"; };
  auto isSize = [&](const std::string &n) { return !n.starts_with("num_programs_") && !isCta(n); };
  for (auto &[n, e] : params)
    if (isCta(n))
      prefs.push_back({e, c.int_val(0)}); // the first CTA: the one a replay shows first
  for (auto &[n, v] : launch)
    if (auto it = params.find(n); it != params.end())
      prefs.push_back({it->second, c.int_val(v)});
  for (auto &[n, e] : params) {
    if (isSize(n)) {
      prefs.push_back({e >= 1, c.bool_val(true)}); // positive sizes read as real launches,
      prefs.push_back({e >= 0, c.bool_val(true)}); // else non-negative ones
    }
  }
  // Then small sizes, narrowed step by step: a replay simulates every iteration of the launch it is given, and a
  // size the solver left free (K = 2^30) would take hours to replay (a violation that holds at K = 16 reads better
  // there too).
  for (int64_t bound : {int64_t(1) << 20, int64_t(1) << 16, int64_t(1) << 12, int64_t(1) << 8})
    for (auto &[n, e] : params)
      if (isSize(n) && !launch.count(n))
        prefs.push_back({e <= c.int_val(bound), c.bool_val(true)});
  return prefs;
}

void Driver::searchCounterexample(size_t i, size_t cexDepth, size_t fullDepth) {
  ProofResult &r = results[i];
  size_t cexDepthFor = cexDepth;
  z3::check_result res = z3::unsat;
  std::optional<z3::model> model;
  {
    z3::solver q = newSolver(false);
    q.add(anyViol(0, cexDepth, sels[i], viol));
    res = check(q, r.seconds);
    if (res == z3::unsat && cexDepth < fullDepth) { // the induction's base case needs the full depth
      z3::solver full = newSolver(false);
      full.add(anyViol(0, fullDepth, sels[i], viol));
      res = check(full, r.seconds);
      if (res == z3::sat) {
        cexDepthFor = fullDepth;
        model = full.get_model();
      }
    } else if (res == z3::sat)
      model = q.get_model();
    if (res == z3::sat) {
      z3::solver small = newSolver(true); // a small launch reads better, when there is one
      small.add(anyViol(0, cexDepthFor, sels[i], viol));
      for (auto &a : abstracted)
        small.add(a.var >= 0 && a.var <= 64);
      if (check(small, r.seconds) == z3::sat)
        model = small.get_model();
    }
  }
  if (res == z3::sat && !abstracted.empty()) {
    // Concretize: the abstracted terms take their exact values.
    z3::solver q = newSolver(true);
    q.add(anyViol(0, cexDepthFor, sels[i], viol));
    for (auto &a : abstracted) {
      z3::expr v = model->eval(a.var, true);
      q.add(a.var == v && a.exact == v);
    }
    z3::check_result cr = check(q, r.seconds);
    if (cr != z3::sat) {
      z3::solver q2 = newSolver(false);
      q2.add(anyViol(0, cexDepthFor, sels[i], viol));
      for (auto &a : abstracted)
        q2.add(a.var == a.exact);
      cr = check(q2, r.seconds);
      if (cr == z3::sat)
        model = q2.get_model();
    } else
      model = q.get_model();
    if (cr != z3::sat) {
      res = z3::unknown;
      r.verdict = cr == z3::unsat ? "bounded" : "timeout";
      r.reason = "nonlinear-abstraction";
      if (cr != z3::unsat)
        r.limit = budget.stop();
      r.bound = N;
      r.witness = cr == z3::unsat ? "the violation found on the linear abstraction of the tile count is not "
                                    "realizable; no realizable violation within the bound"
                                  : "a violation on the linear abstraction could not be concretized in time";
    }
  }
  if (res == z3::sat && !options.launch.empty())
    preferLaunch(i, cexDepthFor, *model);
  if (res == z3::sat) {
    r.verdict = "counterexample";
    r.bound = N;
    auto [kind, group] = *std::next(props.begin(), i);
    describeCounterexample(*model, kind, group, r);
    std::string ps;
    for (auto &[n, v] : r.params)
      ps += (ps.empty() ? "" : ", ") + n + "=" + std::to_string(v);
    std::string where = r.iteration.empty() ? "lock-step step " + std::to_string(r.step)
                                            : r.iteration + " (lock-step step " + std::to_string(r.step) + ")";
    r.witness = ps.empty() ? "any launch; " + where : ps + "; " + where;
  } else if (res == z3::unknown && r.verdict.empty()) {
    r.verdict = "timeout";
    r.limit = budget.stop();
    r.witness = budget.exhausted() ? budget.spentText() + " before the bounded check finished"
                                   : budget.stopText() + " (bounded check)";
  }
}

// Moves the parameters toward the simulated launch where the violation allows it: each preference in turn is
// kept when the property's violation stays satisfiable with it (under a resource limit, so that the launch chosen
// does not depend on the machine's load).
void Driver::preferLaunch(size_t i, size_t depth, z3::model &model) {
  ProofResult &r = results[i];
  z3::solver q = newSolver(false);
  q.add(anyViol(0, depth, sels[i], viol));
  for (auto &a : abstracted)
    q.add(a.var == a.exact);
  std::vector<std::pair<z3::expr, z3::expr>> prefs = launchPreferences(c, params, options.launch);
  for (auto &[lhs, v] : prefs) {
    q.push();
    q.add(lhs == v);
    z3::check_result pr = check(q, r.seconds); // --timeout's resource limit: deterministic like every query's
    if (getenv("TLXSIM_PROOF_DEBUG"))
      llvm::errs() << "prefer " << lhs.to_string() << " = " << v.to_string() << ": " // no new term: same models
                   << (pr == z3::sat ? "kept" : pr == z3::unsat ? "violation needs otherwise" : "unknown") << "\n";
    if (pr == z3::sat) {
      model = q.get_model();
      q.pop();
      q.add(lhs == v);
    } else {
      q.pop();
      if (pr == z3::unknown)
        break; // out of resources: the later preferences would be too; keep the model found
    }
  }
}

// The parameters the violated formulas mention and the first step (with its partition, op and loop iteration)
// where the violation holds in `m`.
void Driver::describeCounterexample(z3::model &m, int kind, int group, ProofResult &r) {
  // Parameters the violated formulas mention (the launch values that matter).
  std::vector<z3::expr> roots;
  for (auto &vs : viol)
    for (const Violation &v : vs)
      if (v.kind == kind && v.group == group)
        roots.push_back(v.cond);
  for (auto &a : abstracted)
    roots.push_back(a.exact);
  std::set<std::string> used = symbolNames(std::move(roots));
  for (auto &[n, e] : params) {
    if (!used.count(n))
      continue;
    z3::expr v = m.eval(e, true);
    if (v.is_numeral())
      r.params[n] = v.get_numeral_int64();
  }
  if (getenv("TLXSIM_PROOF_DEBUG"))
    for (size_t st = 0; st < states.size(); ++st) {
      llvm::errs() << "cex state " << st << ": done=" << m.eval(*states[st].done, true).to_string();
      for (size_t q = 0; q < states[st].parts.size(); ++q) {
        const PState &ps = states[st].parts[q];
        llvm::errs() << " | " << parts[q].name;
        for (auto *e : {&ps.t, &ps.k, &ps.ub, &ps.exited})
          if (*e)
            llvm::errs() << " " << m.eval(**e, true).to_string();
        for (const Val &v : ps.inner)
          if (v.e)
            llvm::errs() << " i:" << m.eval(*v.e, true).to_string();
        for (const Val &v : ps.outer)
          if (v.e)
            llvm::errs() << " o:" << m.eval(*v.e, true).to_string();
      }
      llvm::errs() << "\n";
    }
  for (size_t st = 0; st < viol.size(); ++st)
    for (const Violation &v : viol[st]) {
      if (v.kind != kind || v.group != group || !m.eval(v.cond, true).is_true())
        continue;
      r.step = static_cast<int64_t>(st);
      if (v.op)
        r.location = ir::pythonLocation(v.op->getLoc());
      if (v.part >= 0) {
        r.partitions = {parts[v.part].name};
        // The loop iteration that ran in this step: the state before it.
        const State &pre = states[st > 0 ? st - 1 : 0];
        const PState &ps = pre.parts[v.part];
        std::string it;
        auto val = [&](const std::optional<z3::expr> &e) {
          z3::expr x = m.eval(*e, true);
          return x.is_numeral() ? std::to_string(x.get_numeral_int64()) : std::string("?");
        };
        if (st == 0)
          it = "before the loop";
        else {
          // A CLC tile loop's index is the tile id the last response gave (-1: none left), not a count.
          const Part &part = parts[v.part];
          bool clc = part.v1 && part.v1->clc;
          if (ps.t)
            it = (clc ? "tile id " : "tile iteration ") + val(ps.t) + ", ";
          if (ps.k) {
            // The state holds the induction variable; the simulator counts iterations from 0. With constant bounds
            // other than range(0, n), both are given (a loop over 128..N step 128 at 256 is its iteration 1); the
            // tile loop's (ps.t) stays its induction variable (its bounds are program ids).
            const std::optional<LoopView> &inner = part.depth == 2 ? part.v2 : part.v1;
            std::optional<int64_t> lb = inner ? mlir::getConstantIntValue(inner->lb) : std::nullopt;
            std::optional<int64_t> step = inner ? mlir::getConstantIntValue(inner->step) : std::nullopt;
            z3::expr kv = m.eval(*ps.k, true);
            if (clc && part.depth == 1)
              it += "tile id " + val(ps.k);
            else if (lb && step && *step > 0 && (*lb != 0 || *step != 1) && kv.is_numeral() &&
                     kv.get_numeral_int64() >= *lb && (kv.get_numeral_int64() - *lb) % *step == 0)
              it += "loop iteration " + std::to_string((kv.get_numeral_int64() - *lb) / *step) +
                    " (induction variable " + val(ps.k) + ")";
            else
              it += "loop iteration " + val(ps.k);
          }
        }
        r.iteration = it;
      }
      return;
    }
}

} // namespace tlxsim::verifier::proof
