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
    out.push_back(make(Op::CtaBarrier, op));
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
