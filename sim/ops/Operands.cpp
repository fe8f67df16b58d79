// Operands, results and access events shared by every op family: scalars, predicates, barrier operands, the
// register scoreboard, provenance hashes, async op ids.
#include "sim/EngineState.h"

namespace tlxsim::sim {

using namespace engine;

Step Engine::Impl::err(const Instr &in, const std::string &what) {
  fail(in, what);
  return Step::Error;
}

Step Engine::Impl::fault(const Instr &in, const char *cls, const std::string &what) {
  if (error.empty()) { // the first error wins
    faultClass = cls;
    faultMessage = what;
    faultLoc = in.loc;
  }
  fail(in, what);
  return Step::Error;
}

bool Engine::Impl::fail(const Instr &in, const std::string &what) {
  if (error.empty()) {
    const ir::SourceLoc &loc = program.locs[in.loc];
    error = loc.str() + ": " + what;
  }
  return false;
}

bool Engine::Impl::notAnInteger(const Value &v, const Instr &in) {
  if (v.kind == Value::Unknown && v.alloc >= 0 && !program.unknownWhy[v.alloc].empty()) {
    std::string where; // the load, where the origin is an argument's loads
    for (size_t i = 0; i < program.args.size(); ++i)
      if (auto it = unknownLoadLoc.find(static_cast<int32_t>(i));
          program.args[i].loadOrigin == v.alloc && it != unknownLoadLoc.end())
        where = " (" + program.locs[it->second].str() + ")";
    return fail(in, "the simulator needs this scalar, but it depends on " + program.unknownOps[v.alloc] + where +
                        ": " + program.unknownWhy[v.alloc]);
  }
  if (v.kind == Value::Unknown && v.alloc >= 0)
    return fail(in, "the simulator needs this scalar, but it depends on '" + program.unknownOps[v.alloc] +
                        "', which has no simulator semantics yet");
  return fail(in, "the simulator needs this scalar, but it is not an integer the simulator can compute");
}

/// An optional predicate operand: true when absent.
bool Engine::Impl::predicate(Agent &a, int32_t slot, const Instr &in, bool &out) {
  out = true;
  if (slot < 0)
    return true;
  int64_t v = 0;
  if (!intOf(a, slot, in, v))
    return false;
  out = v != 0;
  return true;
}

bool Engine::Impl::barrierOf(Agent &a, int32_t slot, const Instr &in, BarrierKey &key) {
  const Value &v = a.frame[slot];
  if (v.kind != Value::Mem || (program.allocs[v.alloc].isBarrier && (v.i < 0 || v.i >= barrierCount[v.alloc])))
    return badBarrierOperand(v, in);
  Cta *owner = v.rank < 0 ? a.cta : peerCta(*a.cta, v.rank, in); // a DSMEM view names a peer's barrier
  if (!owner)
    return false;
  key = BarrierKey{owner->id, v.alloc, v.i};
  return true;
}

bool Engine::Impl::badBarrierOperand(const Value &v, const Instr &in) {
  if (v.kind != Value::Mem)
    return fail(in, "the barrier operand does not trace back to a shared-memory allocation");
  // an index outside the barrier array: a kernel bug at this launch (KernelFault)
  fault(in, "barrier-lifecycle",
        "mbarrier index " + std::to_string(v.i) + " is outside the " + std::to_string(barrierCount[v.alloc]) +
            " mbarriers of '" + program.allocs[v.alloc].name + "': this operation uses shared memory that is not an "
            "initialized mbarrier (PTX ISA 9.7.13.15: an mbarrier object is used only after mbarrier.init)");
  return false;
}

/// Reports reads of wgmma accumulators whose group is still outstanding (their values carry the op).
void Engine::Impl::checkPendingUses(Agent &a, const Instr &in) {
  if (!wants<EvPendingUse>())
    return;
  for (int32_t slot : in.args) {
    if (slot < 0)
      continue;
    const Value &v = a.frame[slot];
    if (v.kind != Value::Tensor || v.pendingOp < 0)
      continue;
    PendingUseEvent e{a.time, a.info.id, v.pendingOp, v.pendingLoc, in.loc, iteration(a)};
    emit<EvPendingUse>([&](Listener &l) { l.onPendingUse(e); });
  }
}

/// The innermost loop iteration of `a`, -1 outside loops.
int64_t Engine::Impl::iteration(const Agent &a) {
  for (auto it = a.stack.rbegin(); it != a.stack.rend(); ++it)
    if (it->kind == Ctl::For)
      return (it->iv - it->lb) / it->step;
  return -1;
}

/// Announces an async operation of `a` (to complete after `after`, or -1); returns its id.
int64_t Engine::Impl::issueAsync(Agent &a, int64_t after) {
  int64_t op = nextAsyncOp++;
  emit<EvAsyncIssue>([&](Listener &l) { l.onAsyncIssue(a.info.id, op, after, a.time); });
  return op;
}

/// Reports an access to the shared-memory view in `slot` (`elems` elements), if it is one.
/// `ctaId` overrides the CTA the view lies in (a multicast or 2-CTA operation's other destinations).
void Engine::Impl::access(Agent &a, int64_t op, int32_t slot, int64_t elems, bool write, bool asyncProxy, const Instr &in,
            int64_t ctaId) {
  Op kind = in.op;
  int32_t loc = in.loc;
  if (!wants<EvAccess>() || slot < 0 || elems <= 0 || a.frame[slot].kind != Value::Mem)
    return;
  const Value &view = a.frame[slot];
  AccessEvent e{a.time, ctaId >= 0 ? ctaId : viewCtaId(*a.cta, view), a.info.id, op, view.alloc, view.i, elems, write, asyncProxy, loc, iteration(a),
                kind};
  if (kind == Op::TensorOp && in.aux >= 0 && in.aux < static_cast<int32_t>(program.tmemWarpTiles.size()))
    e.warpTiles = &program.tmemWarpTiles[in.aux];
  e.instr = &in;
  emit<EvAccess>([&](Listener &l) { l.onAccess(e); });
}

Cycle Engine::Impl::readyAt(int32_t sm, const Value &v) const {
  Cycle t = static_cast<Cycle>(v.i);
  return v.sfuJob >= 0 ? std::max(t, sms[sm].sfu.end(v.sfuJob)) : t;
}

/// Waits until the tensor operands of `in` (from `first` on) are ready: a register
/// scoreboard for global loads and register MMAs in flight. The stall is reported as a
/// wait on its operands. With `streamSfu` (elementwise register math), operands still being produced by the
/// SFUs (Value::streamed) are not waited for: returns the latest cycle such an operand is ready (0: none), and
/// its SFU job in `sfuJob` when given.
Cycle Engine::Impl::awaitOperands(Agent &a, const Instr &in, size_t first, bool streamSfu, int32_t *sfuJob) {
  if (!a.ldsSlots.empty()) // AMD: the s_waitcnt lgkmcnt before the first use of an LDS read's value
    awaitLdsReads(a, in, first);
  Cycle ready = a.time, streamed = 0;
  int64_t vmemAfter = -1; // AMD: the newest direct-to-LDS copy an awaited load was issued after
  for (size_t i = first; i < in.args.size(); ++i)
    if (in.args[i] >= 0) {
      const Value &v = a.frame[in.args[i]];
      if (v.kind == Value::Tensor && streamSfu && v.streamed) {
        Cycle t = readyAt(a.cta->sm, v);
        if (t > streamed && sfuJob)
          *sfuJob = v.sfuJob;
        streamed = std::max(streamed, t);
      } else if (v.kind == Value::Tensor) {
        ready = std::max(ready, readyAt(a.cta->sm, v));
      }
      if (a.vmemAfter.empty())
        continue;
      if (auto it = a.vmemAfter.find(in.args[i]); it != a.vmemAfter.end()) {
        vmemAfter = std::max(vmemAfter, it->second);
        a.vmemAfter.erase(it); // waited for once
      }
    }
  if (vmemAfter >= 0) { // in-order vmcnt: the load's wait retires the copies issued before it
    Cycle before = a.time;
    retireCopiesThrough(a, vmemAfter);
    ready = std::max(ready, a.time);
    a.time = before;
  }
  if (ready > a.time) {
    span(a, in, a.time, ready, /*operandWait=*/true);
    a.time = ready;
  }
  return streamed;
}

/// A hash of the values `in` computes from (its first `count` operands) and, unless
/// `valuesOnly`, of the op itself: equal in every CTA that computes the same addresses
/// (see Value::alloc).
int32_t Engine::Impl::provenance(Agent &a, const Instr &in, size_t count, bool valuesOnly, size_t first) {
  uint64_t h = (valuesOnly ? 0 : static_cast<uint64_t>(in.loc) + 1) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  for (size_t i = first; i < first + count && i < in.args.size(); ++i) {
    if (in.args[i] < 0)
      continue;
    const Value &v = a.frame[in.args[i]];
    uint64_t x = v.kind == Value::Int ? static_cast<uint64_t>(v.i)
                 : v.kind == Value::Mem ? (static_cast<uint64_t>(v.alloc) << 40) ^ static_cast<uint64_t>(v.i)
                                        : static_cast<uint64_t>(static_cast<uint32_t>(v.alloc));
    h = (h ^ (x + static_cast<uint64_t>(v.kind))) * 0x100000001B3ull;
    h ^= h >> 29;
  }
  return static_cast<int32_t>(h ^ (h >> 32));
}

/// A knob only some ops need; fails naming it when the model lacks it.
bool Engine::Impl::optionalKnob(double value, const char *name, const Instr &in, double &out) {
  if (std::isnan(value))
    return fail(in, std::string("this op needs model parameter '") + name + "', which the model lacks");
  out = value;
  return true;
}

} // namespace tlxsim::sim
