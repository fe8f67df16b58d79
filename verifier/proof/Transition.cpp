// The lock-step transition system (Encoder.h): the initial state (each partition's code up to its loop head,
// or the whole kernel without loops), one step (one iteration of every partition's innermost loop, or a tile
// transition, or the kernel's exit) and the merges of states under a condition.
#include "verifier/proof/Encoder.h"

using namespace mlir;

namespace tlxsim::verifier::proof {

Val Encoder::mergeVal(const z3::expr &cond, const Val &a, const Val &b) {
  if (a.k == b.k && (a.k == Val::Int || a.k == Val::Bool))
    return {a.k, z3::ite(cond, *a.e, *b.e), -1};
  if (a.k == Val::Buf && b.k == Val::Buf && a.group == b.group)
    return {Val::Buf, z3::ite(cond, *a.e, *b.e), a.group};
  if (a.k == Val::Bar && b.k == Val::Bar) {
    if (a.group != b.group)
      throw Unsupported{"a loop-carried barrier switches between allocations " + groups[a.group].name + " and " +
                        groups[b.group].name};
    return {Val::Bar, z3::ite(cond, *a.e, *b.e), a.group};
  }
  return a.k == Val::None ? b : a;
}

State Encoder::freshState(const std::string &tag) {
  State s;
  s.done = fresh(tag + "done", true);
  for (size_t i = 0; i < parts.size(); ++i) {
    const Part &p = parts[i];
    PState ps;
    auto freshArgs = [&](Operation *loop, std::vector<Val> &out, const std::string &n) {
      const std::vector<Val> &like = loop == p.l2 || p.depth == 1 ? shape->parts[i].inner : shape->parts[i].outer;
      for (const Val &v : like)
        out.push_back(v.k == Val::Bar || v.k == Val::Buf ? Val{v.k, fresh(tag + p.name + n), v.group}
                      : v.k == Val::Int ? Val{Val::Int, fresh(tag + p.name + n), -1}
                      : v.k == Val::Bool ? Val{Val::Bool, fresh(tag + p.name + n, true), -1}
                                         : Val{});
    };
    if (p.depth > 0) {
      ps.first = fresh(tag + p.name + "first", true);
      ps.ub = fresh(tag + p.name + "ub");
      ps.exited = fresh(tag + p.name + "exited", true);
      for (size_t d = 0; d < p.guards.size(); ++d)
        ps.conds.push_back(fresh(tag + p.name + "guard", true));
    }
    if (p.depth == 1) {
      ps.k = fresh(tag + p.name + "k");
      freshArgs(p.l1, ps.inner, "it");
    } else if (p.depth == 2) {
      ps.t = fresh(tag + p.name + "t");
      ps.k = fresh(tag + p.name + "k");
      freshArgs(p.l1, ps.outer, "ot");
      freshArgs(p.l2, ps.inner, "it");
      // A counted scf.while carries its induction variable (Loops.h): that carried value is the tile index in
      // every reachable state (both start at the lower bound and advance by the step together), so it is `t`.
      // Not for a loop in ratio (Part::tileRatio): its `t` runs over the reference's tiles, not only its own.
      if (!p.tileRatio && p.v1->ivCarried && p.v1->ivIndex < ps.outer.size() && ps.outer[p.v1->ivIndex].k == Val::Int)
        ps.outer[p.v1->ivIndex].e = *ps.t;
    }
    s.parts.push_back(ps);
  }
  s.ghost = freshGhost(tag);
  return s;
}

State Encoder::mergeState(const z3::expr &cond, const State &a, const State &b) {
  State s;
  s.done = z3::ite(cond, *a.done, *b.done);
  for (size_t i = 0; i < a.parts.size(); ++i) {
    PState ps;
    const PState &x = a.parts[i], &y = b.parts[i];
    if (x.t)
      ps.t = z3::ite(cond, *x.t, *y.t);
    if (x.k)
      ps.k = z3::ite(cond, *x.k, *y.k);
    if (x.first)
      ps.first = z3::ite(cond, *x.first, *y.first);
    if (x.ub)
      ps.ub = z3::ite(cond, *x.ub, *y.ub);
    if (x.exited)
      ps.exited = z3::ite(cond, *x.exited, *y.exited);
    for (size_t d = 0; d < x.conds.size(); ++d)
      ps.conds.push_back(z3::ite(cond, x.conds[d], y.conds[d]));
    for (size_t j = 0; j < x.outer.size(); ++j)
      ps.outer.push_back(mergeVal(cond, x.outer[j], y.outer[j]));
    for (size_t j = 0; j < x.inner.size(); ++j)
      ps.inner.push_back(mergeVal(cond, x.inner[j], y.inner[j]));
    s.parts.push_back(ps);
  }
  return s;
}

void Encoder::bindBody(Env &env, const LoopView &loop, const z3::expr &iv, const std::vector<Val> &carried) {
  for (size_t a = 0; a < carried.size() && a < loop.carried.size(); ++a)
    if (loop.carried[a])
      env[loop.carried[a]] = carried[a];
  if (loop.iv) // after the carried values: an scf.while's induction variable is one of them
    env[loop.iv] = {Val::Int, iv, -1};
}

void Encoder::bindResults(Env &env, const LoopView &loop, const std::vector<Val> &carried) {
  for (size_t r = 0; r < loop.results.size() && r < loop.op->getNumResults(); ++r)
    if (loop.results[r] < carried.size())
      env[loop.op->getResult(r)] = carried[loop.results[r]];
}

z3::expr Encoder::realIteration(const Part &p, const z3::expr &k) {
  // The terms as measured: `k >= lb` alone for a peeled first iteration (as before the upper bound was aligned),
  // `true && k < ub` for a peeled last one. Z3's search is sensitive to their shape: with `k < ub` alone TLX's
  // fused_attention_ws_device_tma_dp bn128_pingpong spends the default budget (151 timeout, 25 bounded), with
  // this form it proves 114 of its 176 properties (tests/bench/README.md, eighteenth session).
  std::optional<z3::expr> real;
  if (p.realLb)
    real = k >= c.int_val(*p.realLb);
  if (p.realUb)
    real = (real ? *real : c.bool_val(true)) && k < c.int_val(*p.realUb);
  return real ? *real : c.bool_val(true);
}

z3::expr Encoder::loopRuns(const LoopView &loop, const z3::expr &iv, const z3::expr &ub) {
  return loop.clc ? iv != ub : iv < ub;
}

z3::expr Encoder::loopStep(const LoopView &loop, Env &env, const std::string &who) {
  if (loop.clc)
    return c.int_val(0); // no step: the partitions' tile ids themselves must agree (loop-alignment)
  Val st = get(env, loop.step);
  if (st.k != Val::Int)
    throw Unsupported{who + ": loop step not followed"};
  return *st.e;
}

z3::expr Encoder::loopNext(const LoopView &loop, Env &env, const z3::expr &iv, const std::string &who) {
  if (!loop.clc)
    return iv + loopStep(loop, env, who);
  Val next = get(env, loop.yields()[loop.ivIndex]);
  if (next.k != Val::Int)
    throw Unsupported{who + ": the next tile id of the CLC tile loop is not followed"};
  return *next.e;
}

z3::expr Encoder::execPre(const Part &p, Env &env, const z3::expr &guard, std::vector<Event> *events, int part,
                          const std::vector<z3::expr> *pinned, std::vector<z3::expr> &conds) {
  Block *blk = p.v1->body;
  z3::expr enabled = c.bool_val(true);
  conds.clear();
  for (auto [ifOp, thenSide] : p.guards) {
    execOps(opsBefore(*blk, ifOp), env, guard && enabled, events, part);
    Val cond = get(env, ifOp->getOperand(0));
    if (cond.k != Val::Bool)
      throw Unsupported{p.name + ": the condition of the scf.if around the K loop is not followed"};
    conds.push_back(pinned ? (*pinned)[conds.size()] : *cond.e);
    enabled = enabled && (thenSide ? conds.back() : !conds.back());
    blk = &ifOp->getRegion(thenSide ? 0 : 1).front();
  }
  execOps(opsBefore(*blk, p.l2), env, guard && enabled, events, part);
  return enabled;
}

void Encoder::execPost(const Part &p, Env &env, const z3::expr &guard, std::vector<Event> *events, int part,
                       const std::vector<z3::expr> &conds) {
  // The guards' prefix conjunctions.
  std::vector<z3::expr> upTo = {c.bool_val(true)};
  for (size_t d = 0; d < p.guards.size(); ++d)
    upTo.push_back(upTo.back() && (p.guards[d].second ? conds[d] : !conds[d]));
  Operation *inner = p.l2;
  for (size_t d = p.guards.size(); d-- > 0;) {
    auto [ifOp, thenSide] = p.guards[d];
    execOps(opsAfter(ifOp->getRegion(thenSide ? 0 : 1).front(), inner), env, guard && upTo[d + 1], events, part);
    Region &other = ifOp->getRegion(thenSide ? 1 : 0);
    if (!other.empty())
      execOps(opsAfter(other.front(), nullptr), env, guard && upTo[d] && (thenSide ? !conds[d] : conds[d]), events,
              part);
    bindIfResults(*ifOp, env, conds[d]);
    inner = ifOp;
  }
  execOps(opsAfter(*p.v1->body, inner), env, guard, events, part);
}

State Encoder::initial(std::vector<Violation> &viol) {
  clcResponse.reset();
  State s;
  Ghost ghost = initGhost();
  std::vector<Event> events;
  // Inits in the kernel prefix (counts), then each partition's code up to its loop head.
  {
    Env env;
    Block &body = func->getRegion(0).front();
    (void)body;
    env = baseEnv(0);
    execOps(prefix, env, c.bool_val(true), &events, 0);
  }
  std::optional<z3::expr> enterAll;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Part &p = parts[i];
    PState ps;
    if (p.depth == 0) {
      s.parts.push_back(ps);
      continue;
    }
    Env env = baseEnv(i);
    Block &b = *p.block;
    execOps(opsBefore(b, p.l1), env, c.bool_val(true), &events, i);
    const LoopView &v1 = *p.v1;
    Val lb = get(env, v1.lb);
    std::vector<Val> init;
    for (Value v : v1.inits)
      init.push_back(get(env, v));
    if (lb.k != Val::Int)
      throw Unsupported{p.name + ": loop lower bound is not an integer the prover can follow"};
    ps.first = c.bool_val(true);
    ps.exited = c.bool_val(false);
    if (p.depth == 1) {
      ps.k = p.alignedLb ? c.int_val(*p.alignedLb) : *lb.e;
      ps.inner = init;
      Val ub = get(env, v1.ub);
      ps.ub = p.alignedUb ? c.int_val(*p.alignedUb) : ub.k == Val::Int ? *ub.e : fresh("ub");
    } else {
      Val ub = get(env, v1.ub);
      if (ub.k != Val::Int)
        throw Unsupported{p.name + ": tile loop bound not followed"};
      // A loop in ratio (Part::tileRatio) starts at the reference's first tile, its own or not.
      z3::expr t0 = virtualTileStart(p, *lb.e);
      ps.t = t0;
      ps.outer = init;
      z3::expr enter = loopRuns(v1, t0, *ub.e);
      bindBody(env, v1, t0, init);
      execPre(p, env, p.tileRatio ? enter && ownTile(p, t0, *lb.e) : enter, &events, i, nullptr, ps.conds);
      Val lb2 = get(env, p.v2->lb);
      if (lb2.k != Val::Int)
        throw Unsupported{p.name + ": K loop lower bound not followed"};
      ps.k = p.alignedLb ? c.int_val(*p.alignedLb) : *lb2.e;
      Val ub2 = get(env, p.v2->ub);
      ps.ub = p.alignedUb ? c.int_val(*p.alignedUb) : ub2.k == Val::Int ? *ub2.e : fresh("ub");
      for (Value v : p.v2->inits)
        ps.inner.push_back(get(env, v));
    }
    // Fill kinds for values the prover does not track so that merges line up.
    const LoopView &innermost = p.depth == 1 ? v1 : *p.v2;
    for (size_t a = 0; a < ps.inner.size(); ++a)
      if (ps.inner[a].k == Val::None)
        ps.inner[a] = typedFresh(innermost.inits[a].getType(), "init");
    for (size_t a = 0; a < ps.outer.size(); ++a)
      if (ps.outer[a].k == Val::None)
        ps.outer[a] = typedFresh(v1.inits[a].getType(), "init");
    s.parts.push_back(ps);
  }
  s.done = c.bool_val(false);
  if (maxDepth == 0) {
    // No loops: every partition runs to its end in this one transition.
    for (size_t i = 0; i < parts.size(); ++i) {
      Env env = baseEnv(i);
      execOps(opsBefore(*parts[i].block, nullptr), env, c.bool_val(true), &events, i);
    }
    Env env = baseEnv(0);
    execOps(suffix, env, c.bool_val(true), &events, 0);
    s.done = c.bool_val(true);
  }
  // Groups' waiters are known only after the events were collected: build the ghost now.
  ghost = initGhost();
  apply(ghost, events, viol);
  s.ghost = ghost;
  if (maxDepth == 0)
    checkEnd(*s.ghost, c.bool_val(true), viol);
  else
    checkBoundary(s, c.bool_val(true), viol);
  return s;
}

z3::expr Encoder::inTileLoop(const Part &p, const PState &ps, const z3::expr &ub1) {
  return !*ps.exited && loopRuns(*p.v1, p.depth == 2 ? *ps.t : *ps.k, ub1);
}

std::optional<z3::expr> Encoder::tileLoopRuns(size_t i, const PState &ps) {
  const Part &p = parts[i];
  if (p.depth == 0 || !ps.exited)
    return std::nullopt;
  Env env = baseEnv(i);
  execOps(opsBefore(*p.block, p.l1), env, c.bool_val(true), nullptr, i);
  Val ub1 = get(env, p.v1->ub);
  if (ub1.k != Val::Int)
    return std::nullopt;
  return inTileLoop(p, ps, *ub1.e);
}

/// What the partitions' steps collect for the lock-step alignment and the step's events.
struct Encoder::StepAcc {
  std::vector<Event> events;
  std::vector<z3::expr> exits;
  std::vector<z3::expr> innerConts, tileConts, offsets; // offsets: iterations done, per level
  std::optional<z3::expr> tileEnd;  // the first partition with a K loop ends its tile in this step
  std::optional<z3::expr> anchorOut; // or has no tile left (left its loops: a tile-only partition then runs on)
  std::vector<z3::expr> tileOffsets; // tile-only partitions: tiles done and the step, per partition
  // Tile-only partitions with a peeled first tile (Part::peeledFirstTile): in their loop (their tiles match the
  // others' only then); nullopt for the other tile-only partitions (their tiles always match).
  std::vector<std::optional<z3::expr>> peeledIn;
  std::vector<z3::expr> enables;     // partitions with a guarded K loop: the guards hold in this tile
  std::vector<z3::expr> tripEnds;    // and the K loop's (pinned) bound from its aligned start
};

void Encoder::stepTileOnly(size_t i, const State &s, State &out, const z3::expr &active, StepAcc &acc,
                           std::vector<Violation> &viol) {
  const Part &p = parts[i];
  const PState &ps = s.parts[i];
  PState &ns = out.parts[i];
  const LoopView &v1 = *p.v1;
  Env env = baseEnv(i);
  execOps(opsBefore(*p.block, p.l1), env, c.bool_val(true), nullptr, i);
  Val lb1 = get(env, v1.lb), ub1 = get(env, v1.ub);
  if (lb1.k != Val::Int || ub1.k != Val::Int)
    throw Unsupported{p.name + ": loop bounds not followed"};
  z3::expr st1 = loopStep(v1, env, p.name);
  z3::expr inTile = !*ps.exited && loopRuns(v1, *ps.k, *ub1.e);
  // One iteration per tile transition of the anchor (tileEnd holds only while the kernel is active), and one per
  // step once the anchor has no tile left: a partition with more tiles than the anchor still runs all of them.
  z3::expr fire = (*acc.tileEnd || *acc.anchorOut) && inTile;
  // A partition with a peeled first tile leaves its loop a tile before the others; any other is in its loop
  // exactly when they are in theirs.
  if (p.peeledFirstTile)
    acc.peeledIn.push_back(inTile);
  else {
    acc.tileConts.push_back(inTile);
    acc.peeledIn.push_back(std::nullopt);
  }
  acc.tileOffsets.push_back(*ps.k - *lb1.e);
  acc.tileOffsets.push_back(st1);
  viol.push_back({LemmaAlign, -1, active && *ps.ub != *ub1.e, nullptr, (int)i});
  ns.first = z3::ite(fire, c.bool_val(false), *ps.first);
  bindBody(env, v1, *ps.k, ps.inner);
  execOps(opsBefore(*v1.body, nullptr), env, fire, &acc.events, i);
  std::vector<Val> y;
  for (Value v : v1.yields())
    y.push_back(get(env, v));
  ns.k = z3::ite(fire, loopNext(v1, env, *ps.k, p.name), *ps.k);
  for (size_t a = 0; a < ps.inner.size(); ++a) {
    if (y[a].k != ps.inner[a].k || y[a].group != ps.inner[a].group) {
      if (ps.inner[a].k == Val::Bar || ps.inner[a].k == Val::Buf)
        throw Unsupported{p.name + ": a loop-carried barrier or buffer stage the prover cannot follow"};
      y[a] = typedFresh(v1.inits[a].getType(), "y");
    }
    ns.inner[a] = mergeVal(fire, y[a], ps.inner[a]);
  }
  bindResults(env, v1, ps.inner);
  z3::expr leave = active && !inTile && !*ps.exited; // once: the code after the loop runs when it ends
  execOps(opsAfter(*p.block, p.l1), env, leave, &acc.events, i);
  ns.exited = *ps.exited || leave;
  acc.exits.push_back(!inTile);
}

// One partition's part of a step: its innermost loop's iteration (depth 1), or the K loop's iteration, the tile
// transition (post1 with the K loop's results, the next tile's pre1) and the kernel's exit (depth 2).
void Encoder::stepPartition(size_t i, const State &s, State &out, const z3::expr &active, StepAcc &acc,
                            std::vector<Violation> &viol) {
  std::vector<Event> &events = acc.events;
  std::vector<z3::expr> &exits = acc.exits, &innerConts = acc.innerConts, &tileConts = acc.tileConts,
                        &offsets = acc.offsets;
  const Part &p = parts[i];
  if (p.depth == 0)
    return;
  const PState &ps = s.parts[i];
  PState &ns = out.parts[i];
  Env env = baseEnv(i);
  Block &b = *p.block;
  execOps(opsBefore(b, p.l1), env, c.bool_val(true), nullptr, i);
  const LoopView &v1 = *p.v1;
  Val ub1 = get(env, v1.ub);
  if (ub1.k != Val::Int)
    throw Unsupported{p.name + ": loop bounds not followed"};
  z3::expr st1 = loopStep(v1, env, p.name);
  Block &b1 = *v1.body;
  auto yieldsOf = [&](const LoopView &loop) {
    std::vector<Val> y;
    for (Value v : loop.yields())
      y.push_back(get(env, v));
    return y;
  };
  auto fixKinds = [&](std::vector<Val> &vals, const std::vector<Val> &like) {
    for (size_t a = 0; a < vals.size() && a < like.size(); ++a)
      if (vals[a].k != like[a].k ||
          ((like[a].k == Val::Bar || like[a].k == Val::Buf) && vals[a].group != like[a].group)) {
        if (like[a].k == Val::Buf)
          throw Unsupported{p.name + ": a loop-carried buffer stage the prover cannot follow"};
        if (like[a].k == Val::Bar)
          throw Unsupported{p.name + ": a loop-carried barrier the prover cannot follow"};
        vals[a] = like[a].k == Val::Int ? Val{Val::Int, fresh("y"), -1}
                  : like[a].k == Val::Bool ? Val{Val::Bool, fresh("y", true), -1}
                                           : Val{};
      }
  };
  Val lb1 = get(env, v1.lb);
  if (lb1.k != Val::Int)
    throw Unsupported{p.name + ": loop bounds not followed"};
  if (p.depth == 1) {
    z3::expr ubK = p.alignedUb ? c.int_val(*p.alignedUb) : *ub1.e;
    z3::expr cont = !*ps.exited && loopRuns(v1, *ps.k, ubK);
    // A peeled loop (Part::alignedLb / alignedUb) runs from and to the aligned bounds; its iterations outside the
    // real ones do nothing.
    z3::expr real = realIteration(p, *ps.k);
    innerConts.push_back(cont);
    offsets.push_back(*ps.k - (p.alignedLb ? c.int_val(*p.alignedLb) : *lb1.e));
    offsets.push_back(st1);
    viol.push_back({LemmaAlign, -1, active && *ps.ub != ubK, nullptr, (int)i});
    ns.first = z3::ite(active && cont, c.bool_val(false), *ps.first);
    bindBody(env, v1, *ps.k, ps.inner);
    execOps(opsBefore(b1, nullptr), env, active && cont && real, &events, i);
    std::vector<Val> y = yieldsOf(v1);
    fixKinds(y, ps.inner);
    ns.k = z3::ite(active && cont, loopNext(v1, env, *ps.k, p.name), *ps.k);
    for (size_t a = 0; a < ps.inner.size(); ++a)
      ns.inner[a] = mergeVal(active && cont && real, y[a], ps.inner[a]);
    // Exit: the code after the loop sees the loop's results.
    bindResults(env, v1, ps.inner);
    z3::expr leave = active && !cont && !*ps.exited; // once: the code after the loop runs when it ends
    execOps(opsAfter(b, p.l1), env, leave, &events, i);
    ns.exited = *ps.exited || leave;
    exits.push_back(!cont);
  } else {
    z3::expr inTile = inTileLoop(p, ps, *ub1.e);
    const LoopView &v2 = *p.v2;
    // A loop in ratio (Part::tileRatio, TileRatio.cpp) runs the reference's tiles from its virtual start, by the
    // reference's step; the tiles that are not its own do nothing and keep its carried values.
    // Without a ratio the terms are the same as before (Z3's search is sensitive to their shape).
    z3::expr lbT = virtualTileStart(p, *lb1.e);
    z3::expr own = ownTile(p, *ps.t, *lb1.e);
    auto ifOwn = [&](const z3::expr &e) { return p.tileRatio ? e && own : e; };
    if (p.tileRatio)
      st1 = c.int_val(p.tileStep);
    bindBody(env, v1, *ps.t, ps.outer);
    std::vector<z3::expr> conds;
    z3::expr enabled = execPre(p, env, c.bool_val(true), nullptr, i, &ps.conds, conds); // the tile's guards
    Val ub2 = get(env, v2.ub), st2 = get(env, v2.step);
    if (ub2.k != Val::Int || st2.k != Val::Int)
      throw Unsupported{p.name + ": K loop bounds not followed"};
    z3::expr ubK = p.alignedUb ? c.int_val(*p.alignedUb) : *ub2.e; // a peeled last iteration: Part::alignedUb
    // A guarded K loop takes its bound at the tile's start (PState::conds); others re-evaluate it (the
    // loop-alignment lemma below says they agree).
    z3::expr cont = inTile && enabled && *ps.k < (p.guards.empty() ? ubK : *ps.ub);
    innerConts.push_back(cont);
    tileConts.push_back(inTile);
    Val lb2 = get(env, v2.lb);
    if (!p.guards.empty()) {
      acc.enables.push_back(inTile && enabled);
      acc.tripEnds.push_back(*ps.ub - (p.alignedLb ? c.int_val(*p.alignedLb) : lb2.k == Val::Int ? *lb2.e : *ps.ub));
    }
    offsets.push_back(*ps.t - lbT);
    offsets.push_back(st1);
    offsets.push_back(p.alignedLb ? *ps.k - c.int_val(*p.alignedLb) : lb2.k == Val::Int ? *ps.k - *lb2.e : fresh("off"));
    z3::expr real = realIteration(p, *ps.k); // see depth 1
    offsets.push_back(*st2.e);
    if (p.guards.empty())
      viol.push_back({LemmaAlign, -1, active && inTile && *ps.ub != ubK, nullptr, (int)i});
    bindBody(env, v2, *ps.k, ps.inner);
    execOps(opsBefore(*v2.body, nullptr), env, ifOwn(active && cont && real), &events, i);
    std::vector<Val> y2 = yieldsOf(v2);
    fixKinds(y2, ps.inner);
    // Tile transition: post1 with the K loop's results, next tile's pre1.
    z3::expr tileEnd = active && inTile && !cont;
    bindResults(env, v2, ps.inner);
    if (!acc.tileEnd) {
      acc.tileEnd = tileEnd;
      acc.anchorOut = active && !inTile;
    }
    execPost(p, env, ifOwn(tileEnd), &events, i, ps.conds);
    std::vector<Val> y1 = yieldsOf(v1);
    fixKinds(y1, ps.outer);
    for (size_t a = 0; p.tileRatio && a < y1.size() && a < ps.outer.size(); ++a) // not its own: values stay
      y1[a] = mergeVal(own, y1[a], ps.outer[a]);
    z3::expr t2 = p.tileRatio ? *ps.t + st1 : loopNext(v1, env, *ps.t, p.name);
    z3::expr nextIn = loopRuns(v1, t2, *ub1.e);
    Env env2 = baseEnv(i);
    execOps(opsBefore(b, p.l1), env2, c.bool_val(true), nullptr, i);
    bindBody(env2, v1, t2, y1);
    std::vector<z3::expr> nextConds;
    execPre(p, env2, p.tileRatio ? tileEnd && nextIn && ownTile(p, t2, *lb1.e) : tileEnd && nextIn, &events, i, nullptr,
            nextConds);
    for (size_t d = 0; d < nextConds.size(); ++d)
      ns.conds[d] = z3::ite(tileEnd, nextConds[d], ps.conds[d]);
    Val lb2n = get(env2, v2.lb);
    Val ub2n = get(env2, v2.ub);
    std::vector<Val> init2;
    for (Value v : v2.inits)
      init2.push_back(get(env2, v));
    fixKinds(init2, ps.inner);
    // Kernel exit: code after the tile loop sees its results.
    z3::expr leave = active && !inTile && !*ps.exited; // once: the code after the tile loop runs when it ends
    bindResults(env, v1, ps.outer);
    execOps(opsAfter(b, p.l1), env, leave, &events, i);
    ns.exited = *ps.exited || leave;
    exits.push_back(!inTile);
    // Next state.
    z3::expr inner = active && cont;
    z3::expr nextLb = p.alignedLb ? c.int_val(*p.alignedLb) : lb2n.k == Val::Int ? *lb2n.e : fresh("lb");
    ns.k = z3::ite(inner, *ps.k + *st2.e, z3::ite(tileEnd, nextLb, *ps.k));
    ns.t = z3::ite(tileEnd, t2, *ps.t);
    ns.first = z3::ite(inner, c.bool_val(false), z3::ite(tileEnd, c.bool_val(true), *ps.first));
    ns.ub = z3::ite(tileEnd, p.alignedUb ? c.int_val(*p.alignedUb) : ub2n.k == Val::Int ? *ub2n.e : fresh("ub"), *ps.ub);
    for (size_t a = 0; a < ps.inner.size(); ++a)
      ns.inner[a] = mergeVal(ifOwn(inner && real), y2[a], mergeVal(tileEnd, init2[a], ps.inner[a]));
    for (size_t a = 0; a < ps.outer.size(); ++a)
      ns.outer[a] = mergeVal(tileEnd, y1[a], ps.outer[a]);
  }
}

State Encoder::step(const State &s, std::vector<Violation> &viol) {
  clcResponse.reset(); // one cancellation response per step
  StepAcc acc;
  std::vector<Event> &events = acc.events;
  std::vector<z3::expr> &innerConts = acc.innerConts, &tileConts = acc.tileConts, &offsets = acc.offsets;
  State out = s;
  z3::expr active = !*s.done;
  // Partitions with the deepest nest first: a tile-only partition follows their tile transitions.
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].depth == maxDepth)
      stepPartition(i, s, out, active, acc, viol);
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].depth > 0 && parts[i].depth < maxDepth)
      stepTileOnly(i, s, out, active, acc, viol);
  std::vector<z3::expr> &exits = acc.exits;
  // Lock-step alignment: all partitions continue, change tile or leave together.
  z3::expr aligned = c.bool_val(true);
  for (size_t a = 1; a < innerConts.size(); ++a)
    aligned = aligned && innerConts[a] == innerConts[0];
  for (size_t a = 1; a < tileConts.size(); ++a)
    aligned = aligned && tileConts[a] == tileConts[0];
  size_t per = maxDepth == 2 ? 4 : 2;
  for (size_t a = per; a < offsets.size(); ++a)
    aligned = aligned && offsets[a] == offsets[a % per];
  for (size_t a = 1; a < acc.enables.size(); ++a) // guarded K loops: run in the same tiles, as many iterations
    aligned = aligned && acc.enables[a] == acc.enables[0] &&
              (!acc.enables[0] || acc.tripEnds[a] == acc.tripEnds[0]);
  for (size_t a = 0; a < acc.tileOffsets.size(); ++a) // tile-only partitions: their tiles, those of the others
    aligned = aligned && (acc.peeledIn[a / 2] ? z3::implies(*acc.peeledIn[a / 2], acc.tileOffsets[a] == offsets[a % 2])
                                              : acc.tileOffsets[a] == offsets[a % 2]);
  for (const std::optional<z3::expr> &in : acc.peeledIn) // ... and while in it, the others are in their tile loops
    if (in)
      aligned = aligned && (!*in || tileConts[0]);
  viol.push_back({LemmaAlign, -1, active && !aligned, nullptr, -1});
  // The kernel ends when every partition has left its loops (each ran the code after them once, at its own
  // step): partitions whose trip counts differ (a peeled first iteration, a different tile stride) each run all
  // of their iterations.
  z3::expr_vector allLeft(c);
  for (const z3::expr &e : exits)
    allLeft.push_back(e);
  z3::expr leaving = exits.empty() ? c.bool_val(true) : z3::mk_and(allLeft);
  z3::expr finishing = active && leaving;
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].depth == 0) {
      Env env = baseEnv(i);
      execOps(opsBefore(*parts[i].block, nullptr), env, finishing, &events, i);
    }
  {
    Env env = baseEnv(0);
    execOps(suffix, env, finishing, &events, 0);
  }
  Ghost g = *s.ghost;
  apply(g, events, viol);
  out.ghost = g;
  out.done = *s.done || finishing;
  checkEnd(g, finishing, viol);
  checkBoundary(out, active && !finishing, viol);
  return out;
}

} // namespace tlxsim::verifier::proof
