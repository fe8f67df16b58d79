// Cluster kernels: barrier events that reach other CTAs of the cluster (peer events: a remote or multicast arrive,
// multicast TMA bytes) and the 2-CTA (cta_group::2) arrivals of tcgen05 MMAs and commits.
#include "verifier/proof/Encoder.h"

#include "ir/OpSyntax.h"

using namespace mlir;

namespace tlxsim::verifier::proof {

void Encoder::emitPeers(OpCtx &x, Event templ, const z3::expr &sel, bool isMask) {
  if (!x.events)
    return;
  z3::expr rank = *param("cluster_rank").e;
  std::vector<z3::expr> deps = {templ.guard, templ.idx, sel};
  if (templ.didx)
    deps.push_back(*templ.didx);
  peerExprs.push_back({deps, &x.op});
  Event issue = templ;
  issue.issueOnly = true;
  x.events->push_back(issue);
  for (int64_t cta = 0; cta < numCtas; ++cta) {
    Event e = templ;
    z3::expr sc = forPeer(sel, cta, clusterDims);
    z3::expr reach = c.bool_val(false);
    if (isMask) {
      for (int64_t r = 0; r < numCtas; ++r)
        reach = reach || (rank == c.int_val(r) && z3::mod(sc / c.int_val(int64_t(1) << r), 2) == 1);
    } else
      reach = sc == rank;
    e.guard = forPeer(templ.guard, cta, clusterDims) && reach;
    e.idx = forPeer(templ.idx, cta, clusterDims);
    if (e.didx)
      e.didx = forPeer(*e.didx, cta, clusterDims);
    e.peer = true;
    x.events->push_back(e);
  }
}

bool Encoder::pairArrives(Operation &op) const {
  if (numCtas < 2)
    return false;
  llvm::StringRef name = op.getName().getStringRef();
  if (name == "ttng.tc_gen5_mma" || name == "ttng.tc_gen5_mma_scaled")
    return op.hasAttr("two_ctas");
  if (name != "ttng.tc_gen5_commit")
    return false;
  auto module = op.getParentOfType<ModuleOp>();
  auto flag = [&](llvm::StringRef attr) {
    auto b = module ? module->getAttrOfType<BoolAttr>(attr) : BoolAttr();
    return b && b.getValue();
  };
  return op.hasAttr("two_ctas") || flag("ttng.two-ctas") || flag("tlx.enable_paired_cta_mma");
}

void Encoder::emitPairArrive(OpCtx &x, const Val &bar, const z3::expr &pred) {
  if (numCtas % 2 != 0)
    throw Unsupported{ir::pythonLocation(x.op.getLoc()).str() + ": cluster kernel (" + clusterText() + "): " +
                      x.name.str() + " pairs CTAs (cta_group::2) in a cluster of an odd number of CTAs"};
  // The issuer's CTA mask: 3 << rank for an even rank, nothing for an odd one (it issues nothing).
  z3::expr rank = *param("cluster_rank").e;
  z3::expr mask = c.int_val(0);
  for (int64_t r = 0; r + 1 < numCtas; r += 2)
    mask = z3::ite(rank == c.int_val(r), c.int_val(int64_t(3) << r), mask);
  if (x.events) {
    groups[bar.group].users.insert(x.part);
    groups[bar.group].arrivers.insert(x.part);
    groups[bar.group].asyncSignals = true; // the tensor core's arrival when the MMAs complete
  }
  emitPeers(x, {Event::Arrive, bar.group, *bar.e, x.guard && pred, c.int_val(0), 1, &x.op, x.part}, mask, true);
}

} // namespace tlxsim::verifier::proof
