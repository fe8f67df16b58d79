// Global memory through the LSU: tt.load / store, atomics, buffer ops, descriptor loads and stores, and the global
// side of cp.async (ops/AsyncCopy.cpp).
#include "sim/EngineState.h"
#include "sim/units/Lsu.h"

namespace tlxsim::sim {

using namespace engine;

Cycle Engine::Impl::globalAccess(Agent &a, const Instr &in, Cycle start, int32_t &hash) {
  Cta &cta = *a.cta;
  Sm &sm = sms[cta.sm];
  bool copy = in.op == Op::AsyncCopy;
  awaitOperands(a, in, copy ? 1 : 0);
  bool write = in.op == Op::GlobalStore;
  size_t firstAddress = copy ? 1 : 0; // a copy's destination view is not an address
  size_t addressArgs = copy ? in.args.size() - 1 : static_cast<size_t>(in.imm2);
  hash = provenance(a, in, in.args.size());
  // The key is the addresses only (not the op): a store and a later load of the same
  // tile hit. An atomic goes to L2 and returns its old value.
  uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(provenance(a, in, addressArgs, true, firstAddress))) << 1) | 1;
  if (in.op == Op::GlobalLoad && in.aux > 0) // a scalar load through an argument's pointer: keyed by its 128-byte line
    if (const Value &ptr = a.frame[in.args[0]]; ptr.kind == Value::Int && ptr.alloc >= 0)
      key = (((static_cast<uint64_t>(ptr.alloc) << 40) ^ static_cast<uint64_t>(ptr.i >> 7)) << 1) | 1;
  bool hit = write || in.sub == 1 || memory.lookup(key, in.imm, costs.l2Size);
  // Issue: one warp instruction moves up to lsu_bytes_per_thread_instr per thread; each of
  // the partition's SMSPs issues one per scalar_op_cycles. The LSU pipe then moves the bytes.
  busy(a, in, lsuIssueCost(costs, program.threadsPerWarp, a.info.numWarps, in.imm));
  Cycle done = lsuTransfer(costs, sm.lsu, memory, a.time, in.imm, hit, write || in.sub == 1);
  AsyncEvent::Unit unit = write ? AsyncEvent::LsuStore : AsyncEvent::LsuLoad;
  AsyncEvent e{unit, cta.sm, a.info.id, in.loc, start, done, in.imm, 0, hit};
  emit<EvAsync>([&](Listener &l) { l.onAsync(e); });
  return done;
}

bool Engine::Impl::loadedScalar(Agent &a, const Instr &in, Cycle done, Value &out) {
  out = Value::unknown(program.untracedLoadOrigin);
  out.readyAt = static_cast<int64_t>(done);
  const Value &ptr = a.frame[in.args[0]];
  if (in.args.size() > 1 && in.args[1] >= 0) { // the mask: a masked-off load yields `other` (or an undefined value)
    const Value &mask = a.frame[in.args[1]];
    if (mask.kind != Value::Int) {
      out.alloc = Value::originOf(mask);
      return true;
    }
    if (mask.i == 0) {
      if (in.args.size() > 2 && in.args[2] >= 0 && a.frame[in.args[2]].kind == Value::Int)
        out = Value::integer(a.frame[in.args[2]].i);
      out.readyAt = static_cast<int64_t>(done);
      return true;
    }
  }
  if (ptr.kind != Value::Int || ptr.alloc < 0 || ptr.alloc >= static_cast<int32_t>(program.args.size()))
    return true;
  const KernelArg &arg = program.args[ptr.alloc];
  auto it = launch.ptrValues.find(arg.name);
  if (it == launch.ptrValues.end() || arg.writtenByKernel) {
    out.alloc = arg.loadOrigin;
    unknownLoadLoc.emplace(ptr.alloc, in.loc);
    return true;
  }
  const std::vector<int64_t> &values = it->second;
  int64_t element = ptr.i / in.aux;
  if (ptr.i % in.aux != 0 || element < 0 || element >= static_cast<int64_t>(values.size()))
    return fail(in, "this load reads byte " + std::to_string(ptr.i) + " of pointer argument '" + arg.name +
                        "', outside the " + std::to_string(values.size()) + " elements of " +
                        std::to_string(in.aux) + " bytes the launch spec's \"ptrs\"." + arg.name +
                        ".values gives (is the launch the one the kernel expects?)");
  // the element as the load reads it: an i32 holds -2^31 .. 2^32 - 1 (a signed or an unsigned spelling of its bits),
  // an i1 0 or 1
  int64_t value = values[element];
  unsigned bits = in.bits;
  if (bits == 1 && value != 0 && value != 1)
    return fail(in, "element " + std::to_string(element) + " of the launch spec's \"ptrs\"." + arg.name +
                        ".values, " + std::to_string(value) + ", is not the 0 or 1 of the i1 this load reads");
  if (bits > 1 && bits < 64 && (value < -(int64_t(1) << (bits - 1)) || value >= (int64_t(1) << bits)))
    return fail(in, "element " + std::to_string(element) + " of the launch spec's \"ptrs\"." + arg.name +
                        ".values, " + std::to_string(value) + ", does not fit the i" + std::to_string(bits) +
                        " this load reads");
  out = Value::integer(truncateTo(value, bits));
  out.readyAt = static_cast<int64_t>(done);
  return true;
}

bool Engine::Impl::followPointer(const Agent &a, const Instr &in, Cycle ready, Value &out) const {
  if (in.args.size() != 2 || in.args[0] < 0 || in.args[1] < 0)
    return false;
  const Value &ptr = a.frame[in.args[0]], &offset = a.frame[in.args[1]];
  if (ptr.kind != Value::Int || ptr.alloc < 0 || offset.kind != Value::Int)
    return false;
  out = Value::integer(ptr.i + offset.i * in.aux);
  out.alloc = ptr.alloc;
  out.readyAt = static_cast<int64_t>(ready);
  return true;
}

/// The async op id of `a`'s newest direct-to-LDS copy (cp.async) still in flight, -1 if none.
int64_t Engine::Impl::newestCopy(const Agent &a) {
  if (!a.openCopies.ops.empty())
    return a.openCopies.ops.back();
  for (auto g = a.copyGroups.rbegin(); g != a.copyGroups.rend(); ++g)
    if (!g->ops.empty())
      return g->ops.back();
  return -1;
}

/// GlobalLoad, GlobalStore: the result is ready after the L2 (+HBM on a miss) round trip (a register scoreboard);
/// on AMD the result's slot also records the newest copy in flight (Agent::vmemAfter: in-order vmcnt);
/// a store writes through L2 to HBM; an atomic is a round trip to L2.
Step Engine::Impl::execGlobalMemory(Agent &a, const Instr &in, Cycle now) {
  int32_t hash = 0;
  Cycle done = globalAccess(a, in, a.time, hash);
  if (in.result >= 0 && in.op == Op::GlobalLoad && in.aux > 0) {
    Value v;
    if (!loadedScalar(a, in, done, v))
      return Step::Error;
    a.frame[in.result] = v;
  } else if (in.result >= 0) {
    a.frame[in.result] = Value::tensor(hash, static_cast<int64_t>(done));
    if (in.op == Op::GlobalLoad && program.target.rfind("hip:", 0) == 0) { // vmcnt: in issue order with copies
      if (int64_t copy = newestCopy(a); copy >= 0)
        a.vmemAfter[in.result] = copy;
      else
        a.vmemAfter.erase(in.result);
    }
  }
  return next(a);
}

} // namespace tlxsim::sim
