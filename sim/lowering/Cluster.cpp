// Lowering: Clusters and distributed shared memory (PTX ISA 9.1 5.1.1).
#include "sim/lowering/Lowerer.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

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
    instr.imm = type.getSizeInBytes();
    instr.viewElems[0] = type.getNumElements();
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
