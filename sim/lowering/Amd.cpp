// Lowering: AMD-only ops: TLX LDS barrier phase reads and s_sleep.
#include "sim/lowering/Lowerer.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// amdg.read_barrier_phase, s_sleep.
bool Lowerer::lowerAmd(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "amdg.read_barrier_phase") {
    Instr instr = make(Op::ReadBarrierPhase, op);
    instr.args = {required(op, "alloc")};
    instr.bits = 32;
    out.push_back(instr);
    return true;
  }
  if (name == "rocdl.s.sleep" || name == "llvm.amdgcn.s.sleep") {
    Instr instr = make(Op::Sleep, op);
    for (NamedAttribute attr : op.getAttrs())
      if (auto integer = dyn_cast<IntegerAttr>(attr.getValue()))
        instr.imm = integer.getInt();
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
