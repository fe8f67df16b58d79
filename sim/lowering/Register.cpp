// Lowering: Register work with a cost beyond one op per element: register MMAs, reductions, layout conversions.
#include "sim/lowering/Lowerer.h"
#include "sim/RegisterLayout.h"
#include "sim/SharedScratch.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

namespace {
/// The dependent chain of a `tt.reduce` (Instr::imm2): Triton reduces a thread's elements along the axis in a
/// linear chain (ReduceOpToLLVM reduceWithinThreads: acc = combine(acc, x_i); the SASS of TLX's hopper_fa_ws is one
/// FMNMX chain per row), then one warp-shuffle round (shfl.sync.bfly) and combine per lane bit along the axis
/// (warpReduce). From the operand's register layout (sim/RegisterLayout.h): 2^r elements per thread along the axis
/// for r register bases that move along it, one round per lane basis that does. An unknown layout keeps no chain.
void reduceChain(Operation &op, Instr &instr) {
  auto axis = op.getAttrOfType<IntegerAttr>("axis");
  auto tensor = op.getNumOperands() > 0 ? dyn_cast<RankedTensorType>(op.getOperand(0).getType()) : nullptr;
  if (!axis || !tensor || axis.getInt() < 0 || axis.getInt() >= tensor.getRank())
    return;
  auto layout = toRegisterLayout(tensor.getEncoding(), tensor.getShape());
  if (!layout)
    return;
  size_t a = static_cast<size_t>(axis.getInt());
  auto along = [&](const std::vector<std::vector<int64_t>> &bases) {
    int32_t n = 0;
    for (const std::vector<int64_t> &b : bases)
      n += a < b.size() && b[a] != 0;
    return n;
  };
  int64_t combineOps = 0;
  if (op.getNumRegions() == 1 && !op.getRegion(0).empty())
    combineOps = static_cast<int64_t>(op.getRegion(0).front().getOperations().size()) - 1; // less tt.reduce.return
  combineOps = std::max<int64_t>(1, combineOps);
  int32_t regBits = along(layout->reg);
  instr.imm2 = ((int64_t{1} << std::min(regBits, 30)) - 1) * combineOps * kReduceRoundsRadix + along(layout->lane);
}
} // namespace

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
    if (name == "tt.reduce")
      reduceChain(op, instr);
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
