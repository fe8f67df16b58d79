// Lowering: Scalars: integer constants, arith on integers, compares, selects, casts, program ids, thread ids.
#include "sim/lowering/Lowerer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

namespace {

/// How many dependent SASS instructions ptxas makes of the scalar integer op `op` of kind `kind`: the length of the
/// chain its result waits for (Instr::imm of a Binary; the engine charges each one alu_dependent_latency_cycles).
/// One for add / sub / mul (IMAD) / logic / shifts / min / max. A division or remainder by a constant is a
/// multiply-high and a fix-up: `x // 3` is IMAD.HI, LEA.HI (2), `x % 3` adds the IMAD of x - 3q (3); a signed division
/// by a power of two is SHF.R.S32.HI, LEA.HI, SHF.R.S32.HI (3), an unsigned one a shift or mask (1); by a register,
/// Triton's signed division is IABS, I2F.RP, MUFU.RCP, F2I, then the Newton step and two corrections: 16 dependent
/// instructions (an i64 one, a called subroutine in SASS, is charged the same: a floor). By 1 none, by -1 a
/// negation. Source: the SASS of TLX hopper_gemm_ws's cubin (traces/h200/proton-captures/tlx_hopper_gemm_ws-
/// M8192_N8192_K8192/bm256_bn128_s3, cuobjdump -sass: 0x1000-0x1040 for `cnt // 3` / `cnt % 3`, 0x0410-0x04b0 for
/// `(M + 255) // 256`, 0x0b80-0x0d30 for `tile_id // num_pid_in_group`).
int64_t dependentSteps(Operation &op, int16_t kind) {
  bool div = kind == DivS || kind == DivU || kind == CeilDivS || kind == FloorDivS;
  bool rem = kind == RemS || kind == RemU;
  if (!div && !rem)
    return 1;
  auto constant = op.getOperand(1).getDefiningOp<arith::ConstantOp>();
  auto value = constant ? dyn_cast<IntegerAttr>(constant.getValue()) : IntegerAttr();
  if (!value)
    return 16;
  const APInt &c = value.getValue();
  if (c.isOne() || c.isAllOnes()) // x / 1 is x, x % +-1 is 0; x / -1 a negation
    return div && c.isAllOnes() ? 1 : 0;
  bool isUnsigned = kind == DivU || kind == RemU;
  int64_t steps = c.isPowerOf2() ? (isUnsigned ? 1 : 3) : 2;
  return rem && !(isUnsigned && c.isPowerOf2()) ? steps + 1 : steps;
}

} // namespace

/// arith.constant, integer arith, cmpi, select, casts, program ids, thread ids (a partition runs thread 0).
bool Lowerer::lowerScalar(Operation &op, StringRef name, std::vector<Instr> &out) {
  bool scalar = op.getNumResults() == 1 && op.getResult(0).getType().isIntOrIndexOrFloat();
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    Instr instr = make(Op::Const, op);
    if (auto integer = dyn_cast<IntegerAttr>(constant.getValue())) {
      instr.imm = integer.getValue().getSExtValue();
      instr.bits = scalarBits(integer.getType());
    } else if (!scalar) {
      instr = make(Op::TensorOp, op); // a splat constant: materialized in registers, no cost
    }
    out.push_back(instr);
    return true;
  }
  if (auto kind = binaryKind(name)) {
    if (!scalar)
      return tensorOp(op, name, 0, out);
    Instr instr = make(Op::Binary, op);
    instr.sub = *kind;
    instr.imm = dependentSteps(op, *kind);
    instr.bits = scalarBits(op.getResult(0).getType());
    instr.args = slotsOf(op.getOperands());
    out.push_back(instr);
    return true;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    if (!scalar)
      return tensorOp(op, name, 0, out);
    Instr instr = make(Op::Cmp, op);
    instr.sub = static_cast<int16_t>(cmp.getPredicate());
    instr.bits = 1;
    instr.imm = scalarBits(op.getOperand(0).getType()); // operand width, for unsigned predicates
    instr.args = slotsOf(op.getOperands());
    out.push_back(instr);
    return true;
  }
  if (name == "arith.select" && scalar) {
    Instr instr = make(Op::Select, op);
    instr.bits = scalarBits(op.getResult(0).getType());
    instr.args = slotsOf(op.getOperands());
    out.push_back(instr);
    return true;
  }
  if ((name == "arith.extsi" || name == "arith.extui" || name == "arith.trunci" || name == "arith.index_cast" ||
       name == "arith.index_castui") &&
      scalar) {
    Instr instr = make(Op::Cast, op);
    instr.sub = name == "arith.extui" || name == "arith.index_castui" ? 1 : name == "arith.trunci" ? 2 : 0;
    instr.bits = scalarBits(op.getResult(0).getType());
    instr.imm = scalarBits(op.getOperand(0).getType());
    instr.args = slotsOf(op.getOperands());
    out.push_back(instr);
    return true;
  }
  if (name == "ub.poison") {
    // A value with no defined content (MLIR ub dialect; fbtriton seeds loop-carried tokens with it): no
    // instruction, and a value that carries nothing (a token no op made: waits on it wait for nothing; a scalar the
    // simulator needs from it is reported as not computable).
    Instr instr = make(Op::TensorOp, op);
    out.push_back(instr);
    return true;
  }
  if (name == "tt.get_program_id" || name == "tt.get_num_programs") {
    Instr instr = make(name == "tt.get_program_id" ? Op::ProgramId : Op::NumPrograms, op);
    instr.sub = static_cast<int16_t>(intAttr(op, "axis"));
    instr.bits = 32;
    out.push_back(instr);
    return true;
  }
  if (name == "rocdl.workitem.id.x" || name == "gpu.thread_id") {
    // The partition runs thread 0's path (its thread-id conditions are counted at the scf.if instead); the agent of
    // warp w of a per-warp partition runs thread 32 w's path (the engine adds it: sub 1).
    Instr instr = make(Op::Const, op);
    instr.imm = 0;
    instr.sub = 1;
    instr.bits = op.getNumResults() ? scalarBits(op.getResult(0).getType()) : 32;
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
