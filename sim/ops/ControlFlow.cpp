// Control flow: scf.for / if / while, yield, return, ttg.warp_specialize (workers become agents).
#include "sim/EngineState.h"

namespace tlxsim::sim {

using namespace engine;

void Engine::Impl::setResults(Agent &a, const Instr &owner, const std::vector<Value> &values) {
  for (int32_t i = 0; i < owner.numResults && i < static_cast<int32_t>(values.size()); ++i)
    a.frame[owner.result + i] = values[i];
}


/// Leaves the innermost region: its owner's results take `values`, the parent goes on.
void Engine::Impl::exitRegion(Agent &a, const std::vector<Value> &values) {
  const Instr *owner = a.stack.back().owner;
  a.stack.pop_back();
  setResults(a, *owner, values);
  a.stack.back().pc++;
}

/// The slots a yield's `n` values go to in `c`'s region: the loop body's arguments while a loop goes on, the
/// condition region's in a while, else the owner's results.
std::vector<int32_t> Engine::Impl::yieldTargets(const Ctl &c, size_t n) const {
  std::vector<int32_t> to;
  if (c.kind == Ctl::For && c.owner) {
    Ctl next = c;
    if (next.advance() && next.inRange(next.iv)) {
      const Block &body = program.blocks[c.block];
      to.assign(body.args.begin() + (body.args.empty() ? 0 : 1), body.args.end());
      return to;
    }
  }
  if (c.kind == Ctl::While && c.owner) {
    to = program.blocks[c.owner->block].args;
    return to;
  }
  if (c.owner)
    for (int32_t i = 0; i < c.owner->numResults && static_cast<size_t>(i) < n; ++i)
      to.push_back(c.owner->result + i);
  return to;
}

Step Engine::Impl::yield(Agent &a, const Instr &in) {
  std::vector<Value> &values = scratch; // copied first: a yield may permute the block's arguments
  values.clear();
  for (int32_t s : in.args)
    values.push_back(a.frame[s]);
  Ctl &c = a.stack.back();
  if (!a.ldsSlots.empty()) // AMD: LDS reads in flight follow their values (ops/Amd.cpp)
    forwardLdsReads(a, in.args, 0, yieldTargets(c, in.args.size()));
  switch (c.kind) {
  case Ctl::For:
    if (c.advance() && c.inRange(c.iv)) {
      const Block &body = program.blocks[c.block];
      a.frame[body.args[0]] = Value::integer(c.iv);
      for (size_t i = 0; i < values.size() && i + 1 < body.args.size(); ++i)
        a.frame[body.args[i + 1]] = values[i];
      c.pc = 0;
      a.time += scalarCycles;
      return Step::Continue;
    }
    exitRegion(a, values);
    return Step::Continue;
  case Ctl::If:
    exitRegion(a, values);
    return Step::Continue;
  case Ctl::While: { // end of the after region: back to the condition
    const Block &before = program.blocks[c.owner->block];
    for (size_t i = 0; i < values.size() && i < before.args.size(); ++i)
      a.frame[before.args[i]] = values[i];
    c.block = c.owner->block;
    c.pc = 0;
    a.time += scalarCycles;
    return Step::Continue;
  }
  case Ctl::WsDefault:
    a.joinLoc = c.owner->loc;
    exitRegion(a, values);
    if (a.liveWorkers > 0) {
      a.state = Agent::Joining;
      a.joinReached = a.time;
      return Step::Suspend;
    }
    emit<EvJoin>([&](Listener &l) { l.onJoin(a.info.id, a.time); });
    return Step::Continue;
  case Ctl::Root:
    break;
  }
  fail(in, "a yield outside any region");
  return Step::Error;
}

/// How many threads of the partition execute the current instruction of `a`: the product of the thread
/// counts of the enclosing thread-id `scf.if`s (Op::If sub 1), 1 outside them. An mbarrier arrive counts once
/// per executing thread: TLX's AMD LDS barriers arrive under `tid % 64 == 0`, once per wave
/// (third_party/amd LowerBarrierOps; tlx_barriers.md: "AMD: number of warps that execute the arrive").
int64_t Engine::Impl::threadMultiplicity(const Agent &a) const {
  int64_t n = 1;
  for (const Ctl &c : a.stack)
    if (c.kind == Ctl::If && c.owner && c.owner->op == Op::If && c.owner->sub == 1 && c.owner->imm2 > 0)
      n *= threadsTaking(a, *c.owner);
  return n;
}

/// The threads of `a` that take the thread-id `scf.if` `in` (Op::If sub 1): the partition's (imm2), or for the agent
/// of one warp of a per-warp partition that warp's, of a wave group its warps' (Program::threadIfWarps).
int64_t Engine::Impl::threadsTaking(const Agent &a, const Instr &in) const {
  if (a.info.warp < 0 || in.aux < 0)
    return in.imm2;
  const std::vector<int32_t> &warps = program.threadIfWarps[in.aux];
  int32_t last = a.info.waveGroupOf >= 0 ? a.info.warp + a.info.numWarps : a.info.warp + 1; // a wave group: its warps
  int64_t n = 0;
  for (int32_t w = a.info.warp; w < last && w < static_cast<int32_t>(warps.size()); ++w)
    n += warps[w];
  return n;
}

/// Whether `a` runs inside a thread-id `scf.if` (whose condition chose the warps that execute it).
bool Engine::Impl::insideThreadIf(const Agent &a) {
  for (const Ctl &c : a.stack)
    if (c.kind == Ctl::If && c.owner && c.owner->op == Op::If && c.owner->sub == 1)
      return true;
  return false;
}

/// For, If, Yield, Return, WarpSpecialize, While, Condition: the agent's control stack (Ctl).
Step Engine::Impl::execControlFlow(Agent &a, const Instr &in, Cycle now) {
  Cta &cta = *a.cta;
  Ctl &c = a.stack.back();
  switch (in.op) {
  case Op::For: {
    int64_t lb = 0, ub = 0, step = 1;
    if (!intOf(a, in.args[0], in, lb) || !intOf(a, in.args[1], in, ub) || !intOf(a, in.args[2], in, step))
      return Step::Error;
    if (step <= 0)
      return err(in, "scf.for with a non-positive step (" + std::to_string(step) + ")");
    busyCycles(a, in, scalarCycles);
    Ctl loop{Ctl::For, in.block, 0, &in, lb, lb, ub, step, in.sub == 1, in.bits};
    if (!loop.inRange(lb)) {
      std::vector<Value> inits;
      for (size_t i = 3; i < in.args.size(); ++i)
        inits.push_back(a.frame[in.args[i]]);
      setResults(a, in, inits);
      return next(a);
    }
    const Block &body = program.blocks[in.block];
    a.frame[body.args[0]] = Value::integer(lb);
    for (size_t i = 3; i < in.args.size() && i - 2 < body.args.size(); ++i)
      a.frame[body.args[i - 2]] = a.frame[in.args[i]];
    if (!a.ldsSlots.empty())
      forwardLdsReads(a, in.args, 3, std::vector<int32_t>(body.args.begin() + 1, body.args.end()));
    a.stack.push_back(loop);
    return Step::Continue;
  }
  case Op::If: {
    int64_t cond = 0;
    if (in.sub == 1) // a thread-id condition: Lowering counted the threads that take the then region
      cond = threadsTaking(a, in) > 0;
    else if (!intOf(a, in.args[0], in, cond))
      return Step::Error;
    busyCycles(a, in, scalarCycles);
    int32_t block = cond ? in.block : in.block2;
    if (block < 0)
      return next(a);
    a.stack.push_back(Ctl{Ctl::If, block, 0, &in});
    return Step::Continue;
  }
  case Op::Yield:
    return yield(a, in);
  case Op::Return:
    finishAgent(a);
    return Step::Suspend;
  case Op::WarpSpecialize: {
    const WarpSpecialize &ws = program.warpSpecializes[in.imm];
    for (const WarpSpecialize::Worker &worker : ws.workers)
      for (int32_t warp = 0; warp < (worker.perWarp ? worker.numWarps : 1); ++warp) {
        Agent &w = newAgent(cta, worker.perWarp ? worker.name + " warp " + std::to_string(warp) : worker.name,
                            worker.numWarps, worker.block, a.time, a.info.id);
        w.info.firstWarp = worker.firstWarp;
        if (worker.perWarp) { // one agent per warp: warp 0's agent is created first
          w.info.warp = warp;
          w.info.warpGroup = w.info.id - warp;
        }
        w.mainAgent = a.info.id;
        w.frame.assign(program.numSlots, Value{});
        const Block &entry = program.blocks[worker.block];
        for (size_t i = 0; i < entry.args.size() && i < in.args.size(); ++i)
          w.frame[entry.args[i]] = a.frame[in.args[i]];
        w.stack.push_back(Ctl{Ctl::Root, worker.block});
        ++a.liveWorkers;
        emit<EvAgentStart>([&](Listener &l) { l.onAgentStart(w.info, w.time); });
        push(w.time, Event::RunAgent, w.info.id);
      }
    a.stack.push_back(Ctl{Ctl::WsDefault, ws.defaultBlock, 0, &in});
    return Step::Continue;
  }
  case Op::While: {
    busyCycles(a, in, scalarCycles);
    const Block &before = program.blocks[in.block];
    for (size_t i = 0; i < in.args.size() && i < before.args.size(); ++i)
      a.frame[before.args[i]] = a.frame[in.args[i]];
    a.stack.push_back(Ctl{Ctl::While, in.block, 0, &in});
    return Step::Continue;
  }
  case Op::Condition: {
    if (c.kind != Ctl::While || c.block != c.owner->block)
      return err(in, "scf.condition outside the before region of an scf.while");
    int64_t cond = 0;
    if (!intOf(a, in.args[0], in, cond))
      return Step::Error;
    std::vector<Value> values;
    for (size_t i = 1; i < in.args.size(); ++i)
      values.push_back(a.frame[in.args[i]]);
    busyCycles(a, in, scalarCycles);
    if (!cond) {
      exitRegion(a, values);
      return Step::Continue;
    }
    const Block &after = program.blocks[c.owner->block2];
    for (size_t i = 0; i < values.size() && i < after.args.size(); ++i)
      a.frame[after.args[i]] = values[i];
    c.block = c.owner->block2;
    c.pc = 0;
    return Step::Continue;
  }
  default:
    break;
  }
  return err(in, "internal: execControlFlow reached with another op family's op");
}

} // namespace tlxsim::sim
