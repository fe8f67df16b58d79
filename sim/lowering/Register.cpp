// Lowering: Register work with a cost beyond one op per element: register MMAs, reductions, layout conversions.
#include "sim/lowering/Lowerer.h"
#include "sim/SharedScratch.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// register MMAs (tt.dot, dot_scaled), reductions / scans, layout conversions, local gather / scatter.
bool Lowerer::lowerRegister(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "tt.dot" || name == "tt.dot_scaled") {
    mlir::Value a = requiredValue(op, "a");
    if (!a || op.getNumResults() != 1)
      return malformed(op, "expected operands a, b, c and one result"), true;
    auto aType = typed<RankedTensorType>(op, a, "operand a", "a rank-2 tensor");
    auto dType = typed<RankedTensorType>(op, op.getResult(0), "the result", "a rank-2 tensor");
    if (!aType || !dType || aType.getRank() != 2 || dType.getRank() != 2)
      return malformed(op, "expected rank-2 tensors a (M x K) and d (M x N)"), true;
    Instr instr = make(Op::Dot, op);
    instr.args = slotsOf(op.getOperands());
    int64_t k = aType.getShape()[1];
    if (name == "tt.dot_scaled" && aType.getElementType().isInteger(8))
      k *= 2; // e2m1 packs two elements per byte along K
    instr.imm = 2 * dType.getShape()[0] * dType.getShape()[1] * k;
    instr.sub = p.target.rfind("hip:", 0) == 0 ? 1 : 0;
    out.push_back(instr);
    return true;
  }
  if (name == "tt.reduce" || name == "tt.scan" || name == "tt.map_elementwise") {
    // The combine region is applied across the operands' elements: ALU work over every
    // input element (its ops are arith on scalars); no memory or barrier ops may hide in it.
    Instr instr = make(Op::TensorOp, op);
    instr.args = slotsOf(op.getOperands());
    for (mlir::Value v : op.getOperands())
      instr.imm += numElements(v.getType());
    out.push_back(instr);
    return true;
  }
  if (name == "ttg.convert_layout" || name == "ttg.local_gather" || name == "ttg.local_scatter") {
    if (op.getNumOperands() < 1)
      return malformed(op, "lacks its operands"), true;
    if (name == "ttg.convert_layout") {
      Instr instr = make(Op::TensorOp, op);
      instr.args = {slot(op.getOperand(0))};
      if (op.getNumResults() == 1 && op.getResult(0).getType() != op.getOperand(0).getType()) {
        // Triton converts through shared memory only when some warp needs elements another warp holds (the
        // scratch rule, sim/SharedScratch.h); otherwise in registers (moves, permutes, warp shuffles): ALU work,
        // one op per element (e.g. Hopper's wgmma accumulator -> 16-bit dot operand A, FA's P).
        auto scratch = scratchSize(&op, nullptr);
        bool throughShared = !scratch || scratch->bytes > 0;
        if (!scratch)
          llvm::consumeError(scratch.takeError());
        instr.sub = throughShared ? 2 : 0; // 2: written to shared memory, then read back
        instr.imm = throughShared ? bytesOf(op.getResult(0).getType()) : numElements(op.getResult(0).getType());
      }
      out.push_back(instr);
      return true;
    }
    bool gather = name == "ttg.local_gather";
    Instr instr = make(gather ? Op::LocalLoad : Op::LocalStore, op);
    instr.args = gather ? std::vector<int32_t>{slot(op.getOperand(0))}
                        : std::vector<int32_t>{required(op, "values"), required(op, "dst")};
    instr.imm = gather ? resultBytes(op) : operandBytes(op, "values");
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
