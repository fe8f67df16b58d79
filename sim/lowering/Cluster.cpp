// Lowering: Clusters and distributed shared memory (PTX ISA 9.1 5.1.1).
#include "sim/lowering/Lowerer.h"

#include "ir/Cga.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// fbtriton 3.7 (TritonGPUToLLVM.cpp maybeInsertClusterSync) bootstraps barriers other CTAs use: in a kernel with a
/// physical cluster (TLX's `ttg.cluster-dim-x/-y/-z`, more than one CTA) that arrives on a remote barrier
/// (`map_to_remote_buffer`), multicasts an arrive (`arrive_barrier` with a CTA mask) or a TMA load (its
/// `multicastTargets`), cancels clusters (CLC, `.multicast::cluster::all`) or pairs CTAs for MMAs
/// (`tlx.enable_paired_cta_mma`), it puts fence.mbarrier_init.release.cluster, barrier.cluster.arrive.relaxed and
/// barrier.cluster.wait after the last `init_barrier` of the kernel's entry block (PTX ISA 9.1 9.7.13.15.18: a
/// barrier another CTA arrives on must be initialized and the init made visible first). Warp-specialized workers
/// join it at their entry (`@!isDefault barrier.cluster.arrive`): here they do not exist yet when the kernel body
/// reaches it, and a cluster barrier waits for the agents alive. SASS of the captures: UCGABAR_ARV / UCGABAR_WAIT
/// right after the SYNCS.EXCH.64 inits. Returns that last init, or null.
Operation *Lowerer::entryClusterSync(Operation *func) const {
  ModuleOp module = func->getParentOfType<ModuleOp>();
  if (!module || p.clusterSize() < 2 || p.numCtas > 1 || !module->hasAttr("ttg.cluster-dim-x"))
    return nullptr; // not a physical (TLX) cluster: Triton's num-ctas clusters get no entry sync
  auto flag = [&](StringRef attr) {
    auto b = module->getAttrOfType<BoolAttr>(attr);
    return b && b.getValue();
  };
  auto hasGroup = [](Operation *op, StringRef group) {
    auto range = ir::getOperandGroup(op, group);
    return range && !range->empty();
  };
  bool remote = flag("tlx.enable_paired_cta_mma");
  module.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    remote |= name == "ttng.map_to_remote_buffer" || name == "ttng.async_clc_try_cancel" ||
              name == "ttng.clc_try_cancel" || (name == "ttng.arrive_barrier" && op->hasAttr("ctaMask")) ||
              (name == "ttng.async_tma_copy_global_to_local" && hasGroup(op, "multicastTargets"));
  });
  if (!remote || func->getNumRegions() != 1 || func->getRegion(0).empty())
    return nullptr;
  Operation *last = nullptr;
  for (Operation &op : func->getRegion(0).front())
    if (op.getName().getStringRef() == "ttng.init_barrier")
      last = &op;
  return last;
}

/// cluster barriers, nvgpu.cluster_id, map_to_remote_buffer, remote shared-memory stores.
bool Lowerer::lowerCluster(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "ttng.cluster_arrive" || name == "ttng.cluster_wait") {
    out.push_back(make(name == "ttng.cluster_arrive" ? Op::ClusterArrive : Op::ClusterWait, op));
    return true;
  }
  if (name == "ttng.cluster_barrier") {
    // Triton 3.9's one-op cluster barrier: barrier.cluster.arrive then barrier.cluster.wait (PTX ISA 9.7.13.3).
    out.push_back(make(Op::ClusterArrive, op));
    out.push_back(make(Op::ClusterWait, op));
    return true;
  }
  if (name == "nvgpu.cluster_id" || name == "nvg.cluster_id") { // nvg: fbtriton 3.7 (TLX cluster_cta_rank)
    Instr instr = make(Op::ClusterCtaRank, op);
    instr.bits = 32;
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.map_to_remote_buffer") {
    Instr instr = make(Op::MapRemote, op);
    instr.args = {required(op, "src"), required(op, "ctaRank")};
    out.push_back(instr);
    return true;
  }
  if (name == "ttg.remote_shmem_store" || name == "ttg.async_remote_shmem_store" ||
      name == "ttg.async_remote_shmem_copy") {
    mlir::Value dst = requiredValue(op, "dst");
    auto type = dst ? typed<ir::MemDescType>(op, dst, "the destination", "!ttg.memdesc") : ir::MemDescType();
    if (!type)
      return true;
    Instr instr = make(Op::RemoteStore, op);
    instr.sub = name == "ttg.remote_shmem_store" ? 0 : name == "ttg.async_remote_shmem_store" ? 1 : 2;
    instr.args = {required(op, "src"), slot(dst), required(op, "ctaRank"), operand(op, "barrier")};
    instr.imm = ir::bytesPerCta(type);
    instr.viewElems[0] = ir::elementsPerCta(type);
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
