// Lowering: Execution barriers: named barriers and CTA barriers (ttg.barrier, gpu.barrier, s_barrier, cond_barrier).
#include "sim/lowering/Lowerer.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// named barriers (bar.sync / bar.arrive) and CTA-wide execution barriers.
bool Lowerer::lowerNamedBarrier(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "ttng.arrive_barrier_named" || name == "ttng.wait_barrier_named") {
    if (op.getNumOperands() != 2)
      return reject(op, "expected a barrier id and a thread count");
    Instr instr = make(Op::NamedBarrier, op);
    instr.args = slotsOf(op.getOperands());
    instr.sub = name == "ttng.wait_barrier_named" ? 1 : 0;
    out.push_back(instr);
    return true;
  }
  if (name == "ttg.barrier" || name == "ttg.local_barrier" || name == "gpu.barrier" || name == "rocdl.s.barrier" ||
      name == "amdg.cond_barrier") {
    // The fenced forms lower to a workgroup release fence, s_barrier, acquire fence (LLVM AMDGPUUsage, memory model
    // GFX942 "fence release workgroup": `s_waitcnt lgkmcnt(0)` first); `rocdl.s.barrier` and `amdg.cond_barrier`
    // (CondBarrierOpConversion: a branch around a bare s_barrier) are the bare S_BARRIER, which orders execution only
    // (CDNA3 ISA 4.4 "Data Dependency Resolution").
    Instr instr = make(Op::CtaBarrier, op);
    instr.imm2 = name == "rocdl.s.barrier" || name == "amdg.cond_barrier";
    if (name == "amdg.cond_barrier") {
      if (op.getNumOperands() != 1)
        return reject(op, "expected a predicate");
      instr.args = slotsOf(op.getOperands());
    }
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
