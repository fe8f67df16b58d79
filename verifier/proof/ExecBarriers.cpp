// Op family: barriers and their memory (local_alloc, memdesc_index, init_barrier, wait / arrive / expect, TMA
// loads, tcgen05 commits, and the cluster kernels' multicast and remote arrivals) of execOp.
#include "verifier/proof/Encoder.h"

#include "ir/Cga.h"
#include "ir/OpSyntax.h"
#include "ir/Partitions.h"
#include "ir/Types.h"

using namespace mlir;

namespace tlxsim::verifier::proof {

/// The arrivals of a `ttng.arrive_barrier`: its count, once per thread of the partition for a TLX warp-barrier
/// arrive (`perThread`; an arrive of one elected thread otherwise).
static int64_t arrivalsOf(Operation &op) {
  return intAttr(op, "count", 1) * (ir::isPerThreadArrive(op) ? ir::partitionThreads(op) : 1);
}

bool isStageView(Operation &op) {
  llvm::StringRef name = op.getName().getStringRef();
  if (!(name == "ttg.memdesc_trans" || name == "ttg.memdesc_reshape" || name == "ttg.memdesc_reinterpret" ||
        name == "ttg.memdesc_subslice") ||
      op.getNumOperands() < 1)
    return false;
  Operation *src = op.getOperand(0).getDefiningOp();
  if (!src)
    return false;
  llvm::StringRef from = src->getName().getStringRef();
  return from == "ttg.memdesc_index" || from == "ttg.memdesc_subview" || isStageView(*src);
}

void Encoder::execMemory(OpCtx &x) {
  Operation &op = x.op;
  Env &env = x.env;
  llvm::StringRef name = x.name;
  auto in = [&](unsigned i) { return x.in(i); };
  const z3::expr &guard = x.guard;
  std::vector<Event> *events = x.events;
  int part = x.part;
  auto groupOperand = [&](const char *g) { return x.groupOperand(g); };
  if (name == "ttg.local_alloc") {
    auto it = groupOfAlloc.find(&op);
    if (it != groupOfAlloc.end())
      env[op.getResult(0)] = {groups[it->second].data ? Val::Buf : Val::Bar, c.int_val(0), it->second};
    if (events && it != groupOfAlloc.end() && groups[it->second].local) {
      groups[it->second].users.insert(part);
      events->push_back({Event::Alloc, it->second, c.int_val(0), guard, c.int_val(0), 0, &op, part});
    }
    if (events && it != groupOfAlloc.end() && groups[it->second].data && op.getNumOperands() > 0) {
      // Initialized from registers: a generic-proxy write.
      groups[it->second].genericWriters.insert(part);
      groups[it->second].users.insert(part);
      events->push_back({Event::Write, it->second, c.int_val(0), guard, c.int_val(0), 0, &op, part});
    }
    return;
  }
  if (name == "ttg.memdesc_index" || name == "ttg.memdesc_subview") {
    Val src = in(0), idx = in(1);
    Operation *from = op.getOperand(0).getDefiningOp();
    if (from && (isStageView(*from) || from->getName().getStringRef() == "ttg.memdesc_index" ||
                 from->getName().getStringRef() == "ttg.memdesc_subview")) {
      if (src.k == Val::Bar || src.k == Val::Buf) // a part of one stage (or of a view of it): that stage
        env[op.getResult(0)] = src;
      return;
    }
    if (src.k == Val::Bar || src.k == Val::Buf)
      env[op.getResult(0)] = {src.k, idx.k == Val::Int ? *idx.e : fresh("index"), src.group};
    return;
  }
  if (isStageView(op)) {
    // A view of one stage (TLX local_trans / local_reinterpret, Gluon permute / reshape / slice of an indexed
    // buffer) names the same stage: a wgmma reading K through memdesc_trans reads stage j of K's buffer.
    Val src = in(0);
    if (src.k == Val::Bar || src.k == Val::Buf)
      env[op.getResult(0)] = src;
    return;
  }
  if (name == "ttng.init_barrier") {
    if (auto bar = groupOperand("alloc")) {
      Group &g = groups[bar->group];
      z3::expr idx = bar->e->simplify();
      if (idx.is_numeral() && idx.get_numeral_int64() >= 0 && idx.get_numeral_int64() < g.slots)
        g.count[idx.get_numeral_int64()] = intAttr(op, "count", 1);
    }
    return;
  }
}

bool Encoder::execCluster(OpCtx &x) {
  Operation &op = x.op;
  Env &env = x.env;
  llvm::StringRef name = x.name;
  auto in = [&](unsigned i) { return x.in(i); };
  const z3::expr &guard = x.guard;
  std::vector<Event> *events = x.events;
  int part = x.part;
  auto groupOperand = [&](const char *g) { return x.groupOperand(g); };
  auto predOf = [&](const char *g) { return x.predOf(g); };
  if (numCtas > 1) {
    // The prover follows one CTA, rank `cluster_rank`, and assumes its peers run the same code on the same loop
    // state (checked in run()). A TMA multicast completes its bytes on the barriers of every CTA of its mask, a
    // remote arrive (map_to_remote_buffer) or a ctaMask arrive arrives on other CTAs' barriers, a 2-CTA tcgen05 MMA
    // or commit arrives on both CTAs of its pair (ExecPair.cpp): this CTA's barrier receives them from every
    // issuer whose mask or target names it (events `peer`). 2-CTA copies and layout-implied multicasts are not
    // encoded.
    auto targets = ir::getOperandGroup(&op, "multicastTargets");
    bool layoutMulticast = op.hasAttr("multicast") && (!targets || targets->empty()); // fbtriton: a mask is TLX's form
    if (op.hasAttr("two_cta") || layoutMulticast ||
        (op.hasAttr("two_ctas") && !name.starts_with("ttng.tc_gen5_mma") && name != "ttng.tc_gen5_commit") ||
        (op.hasAttr("ctaMask") && name != "ttng.arrive_barrier"))
      throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": cluster kernel (" + clusterText() + "): " +
                        name.str() +
                        " spans the CTAs of a pair or a CTA layout, whose barriers then count the peers' copies and "
                        "arrivals; not encoded"};
    auto peers = [&](const Event &templ, const z3::expr &sel, bool isMask) { emitPeers(x, templ, sel, isMask); };
    if (name == "ttng.map_to_remote_buffer") {
      Val src = in(0), target = in(1);
      if (src.k != Val::Bar || target.k != Val::Int)
        throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": cluster kernel: a remote view of a barrier or "
                          "a target CTA the prover cannot follow"};
      remoteViews.erase(op.getResult(0)); // this execution's view (an earlier step's expressions are stale)
      remoteViews.insert({op.getResult(0), RemoteView{src, *target.e}});
      return true;
    }
    if (name == "ttng.arrive_barrier") {
      auto range = ir::getOperandGroup(&op, "alloc");
      auto rv = range && !range->empty() ? remoteViews.find((*range)[0]) : remoteViews.end();
      if (rv != remoteViews.end() || op.hasAttr("ctaMask")) {
        Val bar = rv != remoteViews.end() ? rv->second.bar : *groupOperand("alloc");
        z3::expr sel = rv != remoteViews.end() ? rv->second.target : c.int_val(intAttr(op, "ctaMask", 0));
        if (events) {
          groups[bar.group].users.insert(part);
          groups[bar.group].arrivers.insert(part);
        }
        peers({Event::Arrive, bar.group, *bar.e, guard && predOf("pred"), c.int_val(0),
               arrivalsOf(op), &op,
               part},
              sel, rv == remoteViews.end());
        return true;
      }
    }
    auto mask = ir::getOperandGroup(&op, "multicastTargets");
    if (name == "ttng.async_tma_copy_global_to_local" && mask && !mask->empty()) {
      Val m = get(env, (*mask)[0]);
      auto desc = ir::getOperandGroup(&op, "desc");
      int64_t bytes = 0;
      if (desc && !desc->empty())
        if (auto t = dyn_cast<ir::TensorDescType>((*desc)[0].getType()))
          bytes = ir::boxBytesPerCta(t); // one CTA's part of a CGA-split box (ir/Cga.h)
      auto bar = groupOperand("barrier");
      if (!bar || m.k != Val::Int)
        throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": cluster kernel: a multicast whose mask or "
                          "barrier the prover cannot follow"};
      auto dst = ir::getOperandGroup(&op, "result");
      Val d = dst && !dst->empty() ? get(env, (*dst)[0]) : Val{};
      Event e{Event::Tma, bar->group, *bar->e, guard && predOf("pred"), c.int_val(0), bytes, &op, part};
      if (events) {
        groups[bar->group].users.insert(part);
        groups[bar->group].signallers.insert(part);
        groups[bar->group].asyncSignals = true;
        if (d.k == Val::Buf) {
          groups[d.group].fill.insert(bar->group);
          groups[d.group].tmaWriters.insert(part);
          groups[d.group].users.insert(part);
          remoteData.insert(d.group);
        }
      }
      if (d.k == Val::Buf) {
        e.dgroup = d.group;
        e.didx = *d.e;
      }
      peers(e, *m.e, true);
      return true;
    }
  }
  return false;
}

void Encoder::execBarrier(OpCtx &x) {
  Operation &op = x.op;
  Env &env = x.env;
  llvm::StringRef name = x.name;
  std::vector<Event> *events = x.events;
  int part = x.part;
  auto groupOperand = [&](const char *g) { return x.groupOperand(g); };
  auto predOf = [&](const char *g) { return x.predOf(g); };
  auto emit = [&](Event::K k, const Val &bar, const z3::expr &pred, const z3::expr &parity, int64_t amount) {
    x.emit(k, bar, pred, parity, amount);
  };
  if (isNamedBarrierOp(op)) { // not encoded when Protocol::namedNote says why (no pseudo-group then)
    if (auto it = namedOf.find(&op); events && it != namedOf.end())
      events->push_back({Event::Named, it->second, c.int_val(0), x.guard, c.int_val(0),
                         name == "ttng.wait_barrier_named" ? 1 : 0, &op, part});
    return;
  }
  if (name == "ttng.wait_barrier") {
    auto bar = groupOperand("alloc");
    auto range = ir::getOperandGroup(&op, "phase");
    Val ph = range && !range->empty() ? get(env, (*range)[0]) : Val{};
    z3::expr parity = ph.k == Val::Int ? z3::mod(*ph.e, 2)
                      : ph.k == Val::Bool ? z3::ite(*ph.e, c.int_val(1), c.int_val(0))
                                          : z3::mod(fresh("phase"), 2);
    if (bar)
      emit(Event::Wait, *bar, predOf("pred"), parity, 0);
    return;
  }
  if (name == "ttng.arrive_barrier") {
    if (auto bar = groupOperand("alloc"))
      emit(Event::Arrive, *bar, predOf("pred"), c.int_val(0),
           arrivalsOf(op));
    return;
  }
  if (name == "ttng.barrier_expect") {
    if (auto bar = groupOperand("alloc"))
      emit(Event::Expect, *bar, predOf("pred"), c.int_val(0), intAttr(op, "size", 0));
    return;
  }
  if (name == "ttng.async_tma_copy_global_to_local") {
    auto desc = ir::getOperandGroup(&op, "desc");
    int64_t bytes = 0;
    if (desc && !desc->empty())
      if (auto t = dyn_cast<ir::TensorDescType>((*desc)[0].getType()))
        bytes = ir::boxBytesPerCta(t); // one CTA's part of a CGA-split box (ir/Cga.h)
    if (auto bar = groupOperand("barrier")) {
      emit(Event::Tma, *bar, predOf("pred"), c.int_val(0), bytes);
      auto dst = ir::getOperandGroup(&op, "result");
      Val d = dst && !dst->empty() ? get(env, (*dst)[0]) : Val{};
      if (events && d.k == Val::Buf) {
        events->back().dgroup = d.group;
        events->back().didx = *d.e;
        groups[d.group].fill.insert(bar->group);
        groups[d.group].tmaWriters.insert(part);
        groups[d.group].users.insert(part);
      }
    }
    return;
  }
  if (name == "ttng.async_clc_try_cancel" || name == "ttng.clc_query_cancel") {
    // Cluster launch control (fbtriton's TLX forms, sim/lowering/Clc.cpp). In a cluster kernel the response and
    // its bytes reach every CTA of the cluster from the one that issues it: not encoded.
    if (numCtas > 1)
      throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": cluster kernel (ttg.num-ctas = " +
                        std::to_string(numCtas) + "): " + name.str() + " (the response reaches the cluster's CTAs)"};
    if (name == "ttng.async_clc_try_cancel") {
      // PTX ISA clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128: the 16-byte
      // response is written asynchronously and completes 16 tx bytes on the mbarrier, like a TMA load.
      if (auto bar = groupOperand("mbarAlloc"))
        emit(Event::Tma, *bar, c.bool_val(true), c.int_val(0), 16);
      return;
    }
    // clusterlaunchcontrol.query_cancel: the first CTA id of the cancelled cluster (x, then y and z), or -1 when
    // the request failed (no cluster left): this step's response (Encoder::clcResponse), shared by every query
    // of the step; y and z are not followed.
    if (!clcResponse) {
      z3::expr tile = fresh("clc_tile"), stop = fresh("clc_stop", true);
      paramConstraints.push_back(tile >= 0);
      clcResponse = z3::ite(stop, c.int_val(-1), tile);
    }
    x.opaque();
    if (op.getNumResults() > 0 && op.getResult(0).getType().isInteger(32))
      env[op.getResult(0)] = {Val::Int, *clcResponse, -1};
    return;
  }
  if (name == "ttng.tc_gen5_commit") {
    if (auto bar = groupOperand("barrier")) {
      if (pairArrives(op))
        emitPairArrive(x, *bar, predOf("pred"));
      else
        emit(Event::Arrive, *bar, predOf("pred"), c.int_val(0), 1);
    }
    return;
  }
}

} // namespace tlxsim::verifier::proof
