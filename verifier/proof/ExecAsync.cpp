// Op family: the async proxy and data stages (tcgen05 / wgmma MMAs and their waits, local_load / local_store,
// TMA stores, fence.proxy.async) and every other op (opaque, or rejected when it synchronizes) of execOp.
#include "verifier/proof/Encoder.h"

#include "ir/OpSyntax.h"

using namespace mlir;

namespace tlxsim::verifier::proof {

void Encoder::execAsync(OpCtx &x) {
  Operation &op = x.op;
  Env &env = x.env;
  llvm::StringRef name = x.name;
  auto opaque = [&]() { x.opaque(); };
  const z3::expr &guard = x.guard;
  std::vector<Event> *events = x.events;
  int part = x.part;
  auto predOf = [&](const char *g) { return x.predOf(g); };
  auto emit = [&](Event::K k, const Val &bar, const z3::expr &pred, const z3::expr &parity, int64_t amount) {
    x.emit(k, bar, pred, parity, amount);
  };
  auto emitRead = [&](Value v, const z3::expr &pred, int64_t how = 0) { x.emitRead(v, pred, how); };
  auto emitWrite = [&](Value v) { x.emitWrite(v); };
  if (name == "ttng.tc_gen5_mma" || name == "ttng.tc_gen5_mma_scaled") {
    auto bars = ir::getOperandGroup(&op, "barriers");
    auto preds = ir::getOperandGroup(&op, "barrier_preds");
    z3::expr pred = predOf("pred");
    for (const char *operand : {"a", "b"})
      if (auto r = ir::getOperandGroup(&op, operand); r && !r->empty())
        emitRead((*r)[0], pred, 1);
    if (bars)
      for (unsigned i = 0; i < bars->size(); ++i) {
        Val b = get(env, (*bars)[i]);
        if (b.k != Val::Bar)
          throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": tc_gen5_mma barrier not traced"};
        Val p = preds && i < preds->size() ? get(env, (*preds)[i]) : Val{};
        z3::expr arrives = pred && (p.k == Val::Bool ? *p.e : c.bool_val(true));
        if (pairArrives(op))
          emitPairArrive(x, b, arrives);
        else
          emit(Event::Arrive, b, arrives, c.int_val(0), 1);
      }
    for (Value r : op.getResults())
      env[r] = typedFresh(r.getType(), "mma");
    return;
  }
  if (name == "ttng.warp_group_dot") {
    // One wgmma group: committed, its shared operands read until a warp_group_dot_wait retires it; a
    // synchronous one waits for itself (wgmma.wait_group 0, as the simulator lowers it).
    if (events)
      events->push_back({Event::Dot, -1, c.int_val(0), guard, c.int_val(0), 0, &op, part});
    for (const char *operand : {"a", "b"})
      if (auto r = ir::getOperandGroup(&op, operand); r && !r->empty()) {
        size_t before = events ? events->size() : 0;
        emitRead((*r)[0], c.bool_val(true), 1);
        if (events && events->size() > before) {
          events->back().wgmma = true;
          groups[events->back().group].wgmmaReaders.insert(part);
        }
      }
    if (events && !op.hasAttr("isAsync"))
      events->push_back({Event::DotWait, -1, c.int_val(0), guard, c.int_val(0), 0, &op, part});
    return opaque();
  }
  if (name == "ttng.warp_group_dot_wait") {
    int64_t pendings = std::max<int64_t>(0, intAttr(op, "pendings", 0));
    ageCap = std::max(ageCap, pendings + 1);
    if (events)
      events->push_back({Event::DotWait, -1, c.int_val(0), guard, c.int_val(0), pendings, &op, part});
    // The results are the operands, retired: the same values (an accumulator, the operand views).
    for (unsigned i = 0; i < op.getNumResults() && i < op.getNumOperands(); ++i) {
      Val v = get(env, op.getOperand(i));
      env[op.getResult(i)] = v.k != Val::None ? v : typedFresh(op.getResult(i).getType(), "opaque");
    }
    return;
  }
  if (name == "ttg.local_load") {
    if (auto r = ir::getOperandGroup(&op, "src"); r && !r->empty())
      emitRead((*r)[0], c.bool_val(true), 0);
    return opaque();
  }
  if (name == "ttng.async_tma_copy_local_to_global") {
    if (auto r = ir::getOperandGroup(&op, "src"); r && !r->empty())
      emitRead((*r)[0], c.bool_val(true), 2);
    return;
  }
  if (name == "ttng.async_tma_store_wait") {
    storeWait(x, std::max<int64_t>(0, intAttr(op, "pendings", 0)));
    return;
  }
  if (name == "ttng.async_tma_store_token_wait") {
    // fbtriton's token wait: cp.async.bulk.wait_group.read N until the token's store has read its shared memory,
    // N the stores issued after it (tokenPendings), then one arrive of count 1 on each barrier whose predicate
    // holds (fbtriton NVGPUTMAStoreTokenWaitLowering: ttng.async_tma_store_wait, then a ttng.arrive_barrier per
    // barrier; the simulator lowers it the same way, sim/lowering/Tma.cpp).
    storeWait(x, tokenPendings(op));
    if (auto toks = ir::getOperandGroup(&op, "release_tokens"); toks && !toks->empty())
      throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": " + name.str() +
                        " releases NVWS tokens (nvws_token operands), which the prover does not encode"};
    auto bars = ir::getOperandGroup(&op, "barriers");
    auto preds = ir::getOperandGroup(&op, "barrier_preds");
    for (unsigned i = 0; bars && i < bars->size(); ++i) {
      Val b = get(env, (*bars)[i]);
      if (b.k != Val::Bar)
        throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": " + name.str() +
                          " on a barrier the prover cannot trace to its allocation"};
      Val p = preds && i < preds->size() ? get(env, (*preds)[i]) : Val{};
      emit(Event::Arrive, b, preds && i < preds->size() ? (p.k == Val::Bool ? *p.e : fresh("pred", true))
                                                        : c.bool_val(true),
           c.int_val(0), 1);
    }
    return;
  }
  if (name == "ttg.local_store") {
    if (auto r = ir::getOperandGroup(&op, "dst"); r && !r->empty())
      emitWrite((*r)[0]);
    return;
  }
  if (name == "ttng.fence_async_shared") {
    if (events)
      events->push_back({Event::Fence, -1, c.int_val(0), guard, c.int_val(0), 0, &op, part});
    return;
  }
}

void Encoder::storeWait(OpCtx &x, int64_t pendings) {
  ageCap = std::max(ageCap, pendings + 1);
  if (x.events)
    x.events->push_back({Event::StoreWait, -1, c.int_val(0), x.guard, c.int_val(0), pendings, &x.op, x.part});
}

Operation *tokenDef(Operation &wait) {
  auto tok = ir::getOperandGroup(&wait, "token");
  return tok && !tok->empty() ? (*tok)[0].getDefiningOp() : nullptr;
}

int64_t Encoder::tokenPendings(Operation &wait) {
  Operation *store = tokenDef(wait);
  if (!store || store->getBlock() != wait.getBlock() || !store->isBeforeInBlock(&wait))
    return 0; // a loop-carried or poison token: its store's place is not followed; all of them retire
  int64_t n = 0;
  for (Operation *o = store->getNextNode(); o && o != &wait; o = o->getNextNode()) {
    llvm::StringRef name = o->getName().getStringRef();
    n += name == "ttng.async_tma_copy_local_to_global" || name == "ttng.async_tma_reduce";
    bool nested = false;
    o->walk([&](Operation *inner) {
      nested |= inner != o && inner->getName().getStringRef() == "ttng.async_tma_copy_local_to_global";
    });
    if (nested)
      throw Unsupported{ir::pythonLocation(wait.getLoc()).str() + ": " + wait.getName().getStringRef().str() +
                        " waits on a token across a region that holds TMA stores: its pending count is not followed"};
  }
  return n;
}

void Encoder::execOther(OpCtx &x) {
  Operation &op = x.op;
  Env &env = x.env;
  llvm::StringRef name = x.name;
  auto in = [&](unsigned i) { return x.in(i); };
  auto opaque = [&]() { x.opaque(); };
  if (name == "scf.for" || name == "scf.while")
    throw Unsupported{"unexpected loop"};
  // Any other op that takes a barrier synchronizes in a way the prover does not encode.
  for (Value v : op.getOperands())
    if (get(env, v).k == Val::Bar && !name.starts_with("ttg.memdesc") && name != "ttng.inval_barrier" &&
        name != "ttg.local_dealloc")
      throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": " +
                        (numCtas > 1 && name.contains("remote")
                             ? "cluster kernel (" + clusterText() + "): " + name.str() +
                                   " reaches a peer CTA's barrier; the prover models one CTA"
                             : name.str() + " takes a barrier and has no proof semantics")};
  if (op.getNumRegions() > 0) {
    bool sync = false;
    op.walk([&](Operation *inner) {
      llvm::StringRef n = inner->getName().getStringRef();
      if (n.starts_with("ttng.") && (n.contains("barrier") || n.contains("tma_copy") || n.contains("tc_gen5")))
        sync = true;
    });
    if (sync)
      throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": " + name.str() +
                        " holds synchronization in a region the prover does not encode"};
  }
  opaque();
}

} // namespace tlxsim::verifier::proof
