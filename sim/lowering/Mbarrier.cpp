// Lowering: mbarriers (NVIDIA ttng and AMD amdg forms).
#include "sim/lowering/Lowerer.h"

#include "ir/Compiler.h"
#include "ir/Partitions.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// init / inval / expect / wait / arrive barriers, async_copy_mbarrier_arrive.
bool Lowerer::lowerMbarrier(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "ttng.init_barrier" || name == "ttng.inval_barrier" || name == "amdg.init_barrier") {
    Instr instr = make(name == "ttng.inval_barrier" ? Op::InvalBarrier : Op::InitBarrier, op);
    instr.args = {required(op, "alloc")};
    instr.imm = intAttr(op, "count");
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.barrier_expect") {
    Instr instr = make(Op::BarrierExpect, op);
    instr.args = {required(op, "alloc"), required(op, "pred")};
    instr.imm = intAttr(op, "size");
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.wait_barrier" || name == "amdg.wait_barrier") {
    Instr instr = make(Op::WaitBarrier, op);
    instr.args = {required(op, "alloc"), required(op, "phase"), operand(op, "pred")};
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.arrive_barrier" || name == "amdg.arrive_barrier") {
    Instr instr = make(Op::ArriveBarrier, op); // amdg: the result (the barrier's old state) stays unknown
    instr.args = {required(op, "alloc"), operand(op, "pred")};
    instr.imm = intAttr(op, "count", 1);
    // TLX warp barriers (tlx.alloc_warp_barrier, `perThread`): every thread of the partition arrives, not one
    // elected thread (PTX ISA 9.7.13.15.13: mbarrier.arrive counts one arrival per executing thread); in an `if` on
    // the thread id the engine multiplies by the threads taking it
    if (ir::isPerThreadArrive(op) && !insideThreadIf(op)) {
      instr.imm *= ir::partitionThreads(op);
      instr.sub = 2; // per thread: the agent of one warp of a per-warp partition arrives for its warp's threads
    } else if (name == "ttng.arrive_barrier" && ir::compiledByFbtriton(op.getParentOfType<mlir::ModuleOp>())) {
      // One elected thread arrives for the partition. fbtriton's lowering first syncs the partition's warps
      // (ArriveBarrierOpConversion: a `bar.sync id, threads` before the elected SYNCS.ARRIVE), which EngineState.h
      // electedSync charges; Triton 3.6's does not (its PTX has no bar.sync before an arrive that a gpu.barrier
      // precedes). The bar.syncs of Triton's Membar analysis come on top (Lowerer::membarSyncs): one before each
      // of TLX hopper_gemm_ws's two arrives per K step, as in its SASS (two BAR.SYNC before each SYNCS.ARRIVE).
      instr.sub = 3;
    }
    instr.imm2 = intAttr(op, "ctaMask", 0); // Triton main: arrive on the barrier of every CTA of the mask
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.async_copy_mbarrier_arrive" || name == "amdg.async_copy_mbarrier_arrive") {
    Instr instr = make(Op::ArriveBarrier, op);
    instr.args = {required(op, "barrier"), -1};
    instr.imm = 1;
    instr.sub = 1; // when the issuer's earlier cp.async complete
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
