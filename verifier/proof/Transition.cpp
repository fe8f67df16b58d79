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
    }
    if (p.depth == 1) {
      ps.k = fresh(tag + p.name + "k");
      freshArgs(p.l1, ps.inner, "it");
    } else if (p.depth == 2) {
      ps.t = fresh(tag + p.name + "t");
      ps.k = fresh(tag + p.name + "k");
      freshArgs(p.l1, ps.outer, "ot");
      freshArgs(p.l2, ps.inner, "it");
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
    for (size_t j = 0; j < x.outer.size(); ++j)
      ps.outer.push_back(mergeVal(cond, x.outer[j], y.outer[j]));
    for (size_t j = 0; j < x.inner.size(); ++j)
      ps.inner.push_back(mergeVal(cond, x.inner[j], y.inner[j]));
    s.parts.push_back(ps);
  }
  return s;
}

static std::vector<Value> initOperands(Operation *loop) {
  std::vector<Value> v;
  for (unsigned i = 3; i < loop->getNumOperands(); ++i)
    v.push_back(loop->getOperand(i));
  return v;
}

State Encoder::initial(std::vector<Violation> &viol) {
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
    Val lb = get(env, p.l1->getOperand(0));
    std::vector<Val> init;
    for (Value v : initOperands(p.l1))
      init.push_back(get(env, v));
    if (lb.k != Val::Int)
      throw Unsupported{p.name + ": loop lower bound is not an integer the prover can follow"};
    ps.first = c.bool_val(true);
    ps.exited = c.bool_val(false);
    if (p.depth == 1) {
      ps.k = p.alignedLb ? c.int_val(*p.alignedLb) : *lb.e;
      ps.inner = init;
      Val ub = get(env, p.l1->getOperand(1));
      ps.ub = ub.k == Val::Int ? *ub.e : fresh("ub");
    } else {
      Val ub = get(env, p.l1->getOperand(1));
      if (ub.k != Val::Int)
        throw Unsupported{p.name + ": tile loop bound not followed"};
      ps.t = *lb.e;
      ps.outer = init;
      z3::expr enter = *lb.e < *ub.e;
      Block &b1 = p.l1->getRegion(0).front();
      env[b1.getArgument(0)] = lb;
      for (size_t a = 0; a < init.size(); ++a)
        env[b1.getArgument(a + 1)] = init[a];
      execOps(opsBefore(b1, p.l2), env, enter, &events, i);
      Val lb2 = get(env, p.l2->getOperand(0));
      if (lb2.k != Val::Int)
        throw Unsupported{p.name + ": K loop lower bound not followed"};
      ps.k = p.alignedLb ? c.int_val(*p.alignedLb) : *lb2.e;
      Val ub2 = get(env, p.l2->getOperand(1));
      ps.ub = ub2.k == Val::Int ? *ub2.e : fresh("ub");
      for (Value v : initOperands(p.l2))
        ps.inner.push_back(get(env, v));
      // Fill kinds for values the prover does not track so that merges line up.
      Block &b2 = p.l2->getRegion(0).front();
      for (size_t a = 0; a < ps.inner.size(); ++a)
        if (ps.inner[a].k == Val::None)
          ps.inner[a] = typedFresh(b2.getArgument(a + 1).getType(), "init");
    }
    Block &bl = (p.depth == 1 ? p.l1 : p.l2)->getRegion(0).front();
    for (size_t a = 0; a < ps.inner.size(); ++a)
      if (ps.inner[a].k == Val::None)
        ps.inner[a] = typedFresh(bl.getArgument(a + 1).getType(), "init");
    for (size_t a = 0; a < ps.outer.size(); ++a)
      if (ps.outer[a].k == Val::None)
        ps.outer[a] = typedFresh(p.l1->getRegion(0).front().getArgument(a + 1).getType(), "init");
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

/// What the partitions' steps collect for the lock-step alignment and the step's events.
struct Encoder::StepAcc {
  std::vector<Event> events;
  std::vector<z3::expr> exits;
  std::vector<z3::expr> innerConts, tileConts, offsets; // offsets: iterations done, per level
};

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
  Val ub1 = get(env, p.l1->getOperand(1)), st1 = get(env, p.l1->getOperand(2));
  if (ub1.k != Val::Int || st1.k != Val::Int)
    throw Unsupported{p.name + ": loop bounds not followed"};
  Block &b1 = p.l1->getRegion(0).front();
  auto yieldsOf = [&](Block &blk) {
    std::vector<Val> y;
    for (Value v : blk.getTerminator()->getOperands())
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
  Val lb1 = get(env, p.l1->getOperand(0));
  if (lb1.k != Val::Int)
    throw Unsupported{p.name + ": loop bounds not followed"};
  if (p.depth == 1) {
    z3::expr cont = !*ps.exited && *ps.k < *ub1.e;
    // A peeled loop (Part::alignedLb) runs from the aligned bound; its iterations below the real one do nothing.
    z3::expr real = p.realLb ? *ps.k >= c.int_val(*p.realLb) : c.bool_val(true);
    innerConts.push_back(cont);
    offsets.push_back(*ps.k - (p.alignedLb ? c.int_val(*p.alignedLb) : *lb1.e));
    offsets.push_back(*st1.e);
    viol.push_back({LemmaAlign, -1, active && *ps.ub != *ub1.e, nullptr, (int)i});
    ns.first = z3::ite(active && cont, c.bool_val(false), *ps.first);
    env[b1.getArgument(0)] = {Val::Int, *ps.k, -1};
    for (size_t a = 0; a < ps.inner.size(); ++a)
      env[b1.getArgument(a + 1)] = ps.inner[a];
    execOps(opsBefore(b1, nullptr), env, active && cont && real, &events, i);
    std::vector<Val> y = yieldsOf(b1);
    fixKinds(y, ps.inner);
    ns.k = z3::ite(active && cont, *ps.k + *st1.e, *ps.k);
    for (size_t a = 0; a < ps.inner.size(); ++a)
      ns.inner[a] = mergeVal(active && cont && real, y[a], ps.inner[a]);
    // Exit: the code after the loop sees the loop's results.
    for (size_t a = 0; a < ps.inner.size(); ++a)
      env[p.l1->getResult(a)] = ps.inner[a];
    z3::expr leave = active && !cont && !*ps.exited; // once: the code after the loop runs when it ends
    execOps(opsAfter(b, p.l1), env, leave, &events, i);
    ns.exited = *ps.exited || leave;
    exits.push_back(!cont);
  } else {
    z3::expr inTile = !*ps.exited && *ps.t < *ub1.e;
    env[b1.getArgument(0)] = {Val::Int, *ps.t, -1};
    for (size_t a = 0; a < ps.outer.size(); ++a)
      env[b1.getArgument(a + 1)] = ps.outer[a];
    execOps(opsBefore(b1, p.l2), env, c.bool_val(true), nullptr, i);
    Val ub2 = get(env, p.l2->getOperand(1)), st2 = get(env, p.l2->getOperand(2));
    if (ub2.k != Val::Int || st2.k != Val::Int)
      throw Unsupported{p.name + ": K loop bounds not followed"};
    z3::expr cont = inTile && *ps.k < *ub2.e;
    innerConts.push_back(cont);
    tileConts.push_back(inTile);
    Val lb2 = get(env, p.l2->getOperand(0));
    offsets.push_back(*ps.t - *lb1.e);
    offsets.push_back(*st1.e);
    offsets.push_back(p.alignedLb ? *ps.k - c.int_val(*p.alignedLb) : lb2.k == Val::Int ? *ps.k - *lb2.e : fresh("off"));
    z3::expr real = p.realLb ? *ps.k >= c.int_val(*p.realLb) : c.bool_val(true); // see depth 1
    offsets.push_back(*st2.e);
    viol.push_back({LemmaAlign, -1, active && inTile && *ps.ub != *ub2.e, nullptr, (int)i});
    Block &b2 = p.l2->getRegion(0).front();
    env[b2.getArgument(0)] = {Val::Int, *ps.k, -1};
    for (size_t a = 0; a < ps.inner.size(); ++a)
      env[b2.getArgument(a + 1)] = ps.inner[a];
    execOps(opsBefore(b2, nullptr), env, active && cont && real, &events, i);
    std::vector<Val> y2 = yieldsOf(b2);
    fixKinds(y2, ps.inner);
    // Tile transition: post1 with the K loop's results, next tile's pre1.
    z3::expr tileEnd = active && inTile && !cont;
    for (size_t a = 0; a < ps.inner.size(); ++a)
      env[p.l2->getResult(a)] = ps.inner[a];
    execOps(opsAfter(b1, p.l2), env, tileEnd, &events, i);
    std::vector<Val> y1 = yieldsOf(b1);
    fixKinds(y1, ps.outer);
    z3::expr t2 = *ps.t + *st1.e;
    z3::expr nextIn = t2 < *ub1.e;
    Env env2 = baseEnv(i);
    execOps(opsBefore(b, p.l1), env2, c.bool_val(true), nullptr, i);
    env2[b1.getArgument(0)] = {Val::Int, t2, -1};
    for (size_t a = 0; a < y1.size(); ++a)
      env2[b1.getArgument(a + 1)] = y1[a];
    execOps(opsBefore(b1, p.l2), env2, tileEnd && nextIn, &events, i);
    Val lb2n = get(env2, p.l2->getOperand(0));
    Val ub2n = get(env2, p.l2->getOperand(1));
    std::vector<Val> init2;
    for (Value v : initOperands(p.l2))
      init2.push_back(get(env2, v));
    fixKinds(init2, ps.inner);
    // Kernel exit: code after the tile loop sees its results.
    z3::expr leave = active && !inTile && !*ps.exited; // once: the code after the tile loop runs when it ends
    for (size_t a = 0; a < ps.outer.size(); ++a)
      env[p.l1->getResult(a)] = ps.outer[a];
    execOps(opsAfter(b, p.l1), env, leave, &events, i);
    ns.exited = *ps.exited || leave;
    exits.push_back(!inTile);
    // Next state.
    z3::expr inner = active && cont;
    z3::expr nextLb = p.alignedLb ? c.int_val(*p.alignedLb) : lb2n.k == Val::Int ? *lb2n.e : fresh("lb");
    ns.k = z3::ite(inner, *ps.k + *st2.e, z3::ite(tileEnd, nextLb, *ps.k));
    ns.t = z3::ite(tileEnd, t2, *ps.t);
    ns.first = z3::ite(inner, c.bool_val(false), z3::ite(tileEnd, c.bool_val(true), *ps.first));
    ns.ub = z3::ite(tileEnd, ub2n.k == Val::Int ? *ub2n.e : fresh("ub"), *ps.ub);
    for (size_t a = 0; a < ps.inner.size(); ++a)
      ns.inner[a] = mergeVal(inner && real, y2[a], mergeVal(tileEnd, init2[a], ps.inner[a]));
    for (size_t a = 0; a < ps.outer.size(); ++a)
      ns.outer[a] = mergeVal(tileEnd, y1[a], ps.outer[a]);
  }
}

State Encoder::step(const State &s, std::vector<Violation> &viol) {
  StepAcc acc;
  std::vector<Event> &events = acc.events;
  std::vector<z3::expr> &innerConts = acc.innerConts, &tileConts = acc.tileConts, &offsets = acc.offsets;
  State out = s;
  z3::expr active = !*s.done;
  for (size_t i = 0; i < parts.size(); ++i)
    stepPartition(i, s, out, active, acc, viol);
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
