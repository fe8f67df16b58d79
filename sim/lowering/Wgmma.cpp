// Lowering: wgmma (Hopper warp-group MMAs) and their waits.
#include "sim/lowering/Lowerer.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// ttng.warp_group_dot (a synchronous one waits for itself), warp_group_dot_wait.
bool Lowerer::lowerWgmma(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "ttng.warp_group_dot") {
    if (op.getNumOperands() < 3 || op.getNumResults() != 1)
      return reject(op, "expected operands a, b, c and one result");
    Type aType = op.getOperand(0).getType(), bType = op.getOperand(1).getType();
    auto dType = typed<RankedTensorType>(op, op.getResult(0), "the result", "a rank-2 tensor");
    bool aOk = isa<ir::MemDescType, RankedTensorType>(aType);
    if (!dType || dType.getRank() != 2 || !aOk || !isa<ir::MemDescType>(bType))
      return reject(op, "expected a (memdesc or tensor) x b (memdesc) -> rank-2 tensor");
    Instr instr = make(Op::WgmmaIssue, op);
    instr.args = {required(op, "a"), required(op, "b"), required(op, "c"), operand(op, "useC")};
    int64_t k = isa<ir::MemDescType>(aType) ? cast<ir::MemDescType>(aType).getShape().back()
                                             : cast<RankedTensorType>(aType).getShape().back();
    instr.imm = 2 * dType.getShape()[0] * dType.getShape()[1] * k;
    if (auto a = dyn_cast<ir::MemDescType>(aType)) {
      instr.imm2 += a.getSizeInBytes();
      instr.viewElems[0] = a.getNumElements();
    }
    if (auto b = dyn_cast<ir::MemDescType>(bType)) {
      instr.imm2 += b.getSizeInBytes();
      instr.viewElems[1] = b.getNumElements();
    }
    out.push_back(instr);
    if (!op.hasAttr("isAsync")) { // a synchronous wgmma waits for itself
      Instr wait;
      wait.op = Op::WgmmaWait;
      wait.loc = instr.loc;
      out.push_back(wait);
    }
    return true;
  }
  if (name == "ttng.warp_group_dot_wait") {
    Instr instr = make(Op::WgmmaWait, op);
    instr.args = slotsOf(op.getOperands());
    instr.imm = intAttr(op, "pendings");
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
