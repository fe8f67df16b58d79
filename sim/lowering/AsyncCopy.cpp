// Lowering: cp.async and AMD direct-to-LDS copies, commit groups, waits.
#include "sim/lowering/Lowerer.h"

#include "ir/Cga.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// cp.async / direct-to-LDS copies, async_commit_group, async_wait.
bool Lowerer::lowerAsyncCopy(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "ttg.async_copy_global_to_local" || name == "amdg.buffer_load_to_local") {
    bool amd = name == "amdg.buffer_load_to_local";
    mlir::Value dst = requiredValue(op, amd ? "dest" : "result");
    auto type = dst ? typed<ir::MemDescType>(op, dst, "the destination", "!ttg.memdesc") : ir::MemDescType();
    if (!type)
      return true;
    Instr instr = make(Op::AsyncCopy, op);
    instr.args = {slot(dst)};
    for (StringRef group : {"src", "ptr", "offsets"})
      for (int32_t s : operands(op, group))
        instr.args.push_back(s);
    instr.imm = ir::bytesPerCta(type);
    instr.viewElems[0] = ir::elementsPerCta(type);
    if (mlir::Value addresses = amd ? requiredValue(op, "offsets") : requiredValue(op, "src"))
      instr.imm2 = directToLdsInstructions(addresses.getType());
    out.push_back(instr);
    return true;
  }
  if (name == "ttg.async_commit_group") {
    out.push_back(make(Op::AsyncCommit, op));
    return true;
  }
  if (name == "ttg.async_wait" || name == "amdg.async_wait") {
    Instr instr = make(Op::AsyncWait, op);
    instr.imm = intAttr(op, "num", intAttr(op, "num_inst", 0));
    instr.sub = name == "amdg.async_wait" ? 1 : 0; // num_inst counts instructions (vmcnt), num commit groups
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
