// Lowering: AMD-only ops: TLX LDS barrier phase reads, s_sleep and the LDS counter waits (s_waitcnt lgkmcnt).
#include "sim/lowering/Lowerer.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// amdg.read_barrier_phase, s_sleep, amdg.memory_counter_wait, rocdl.s.waitcnt.
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
  if (name == "amdg.memory_counter_wait") { // s_waitcnt: only its LDS field (ds) retires what the simulator tracks
    auto ds = op.getAttrOfType<IntegerAttr>("ds");
    Instr instr = make(Op::LgkmWait, op);
    instr.imm = ds ? ds.getInt() : -1; // -1: no LDS field, no LDS read retires
    out.push_back(instr);
    return true;
  }
  if (name == "rocdl.s.waitcnt") {
    // The SOPP immediate of gfx9 (CDNA3 / CDNA4 ISA, S_WAITCNT): LGKM_CNT in bits 11:8.
    auto bits = op.getAttrOfType<IntegerAttr>("bitfield");
    if (!bits)
      return reject(op, "expected a bitfield attribute");
    Instr instr = make(Op::LgkmWait, op);
    instr.imm = (bits.getInt() >> 8) & 0xf;
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
