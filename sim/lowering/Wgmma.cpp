// Lowering: wgmma (Hopper warp-group MMAs) and their waits.
#include "sim/lowering/Lowerer.h"

#include "ir/Cga.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

namespace {
/// The shared-memory bytes the wgmma instructions of a warp_group_dot `m` x `n` x `k` read (bytes): the dot runs
/// as m64nNk instructions (PTX ISA 9.1 9.7.15.5.1: M is 64 per warp group, N at most 256), each reading its A slice
/// (64 x k, when A is in shared memory) and the B slice (k x N) of its N columns; so A is read once per N slice
/// and B once per 64-row slice. `aBytes` / `bBytes`: element bytes, 0 for an operand held in registers.
int64_t wgmmaOperandBytes(int64_t m, int64_t n, int64_t k, int64_t aBytes, int64_t bBytes) {
  constexpr int64_t kWgmmaM = 64, kMaxWgmmaN = 256;
  int64_t nSlices = (n + kMaxWgmmaN - 1) / kMaxWgmmaN;
  int64_t mSlices = (m + kWgmmaM - 1) / kWgmmaM;
  return m * k * aBytes * nSlices + mSlices * k * n * bBytes;
}

/// Bytes of one element of `type` (fp4 / packed types round up to a byte); 2 when it is not an int or float type.
int64_t elementBytes(ir::MemDescType type) {
  Type element = type.getElementType();
  return element && element.isIntOrFloat() ? (element.getIntOrFloatBitWidth() + 7) / 8 : 2;
}
/// The wgmma.mma_async instructions of an M x N x K dot (PTX ISA 9.1 9.7.15.5.1, shapes m64nNk{K0}): M / 64 row
/// blocks x N / n column blocks x K / K0 steps, where K0 is 32 bytes of the B element (k16 for fp16 / bf16, k32
/// for fp8, k8 for tf32) and n the largest multiple of 8 up to 256 that divides N (Triton's instrShape choice).
/// N of one wgmma.mma_async instruction of a dot with `n` columns: the widest multiple of 8 up to 256 that divides
/// n (PTX ISA 9.1 9.7.15.5.1: N = 8 ... 256 in steps of 8; Triton's mmaVersionToInstrShape picks it so).
int64_t wgmmaInstrN(int64_t n) {
  int64_t instrN = 256;
  while (instrN > 8 && n % instrN != 0)
    instrN -= 8;
  return instrN;
}

int64_t wgmmaInstructions(int64_t m, int64_t n, int64_t k, int64_t bElementBytes) {
  int64_t instrN = wgmmaInstrN(n);
  int64_t instrK = std::max<int64_t>(1, 32 / std::max<int64_t>(1, bElementBytes));
  auto ceilDiv = [](int64_t x, int64_t y) { return (x + y - 1) / y; };
  return ceilDiv(m, 64) * ceilDiv(n, instrN) * ceilDiv(k, instrK);
}
} // namespace

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
    // One CTA's part of the product when CGA layouts split it (`num_ctas` > 1): M x N of its part of D, K of its
    // part of A (ir/Cga.h; Triton's wgmma lowering works on getShapePerCTA of each operand).
    auto aShape = isa<ir::MemDescType>(aType) ? cast<ir::MemDescType>(aType).getShape()
                                              : cast<RankedTensorType>(aType).getShape();
    Attribute aEnc = isa<ir::MemDescType>(aType) ? cast<ir::MemDescType>(aType).getEncoding()
                                                 : cast<RankedTensorType>(aType).getEncoding();
    llvm::SmallVector<int64_t> dSplit = ir::ctaSplitNum(dType.getEncoding(), 2);
    int64_t m = dType.getShape()[0] / dSplit[0], n = dType.getShape()[1] / dSplit[1];
    int64_t k = aShape.back() / ir::ctaSplitNum(aEnc, aShape.size()).back();
    instr.imm = 2 * m * n * k;
    if (auto a = dyn_cast<ir::MemDescType>(aType)) {
      instr.imm2 += ir::bytesPerCta(a);
      instr.viewElems[0] = ir::elementsPerCta(a);
    }
    if (auto b = dyn_cast<ir::MemDescType>(bType)) {
      instr.imm2 += ir::bytesPerCta(b);
      instr.viewElems[1] = ir::elementsPerCta(b);
    }
    auto aMem = dyn_cast<ir::MemDescType>(aType);
    int64_t bytes = wgmmaOperandBytes(m, n, k, aMem ? elementBytes(aMem) : 0,
                                      elementBytes(cast<ir::MemDescType>(bType)));
    instr.operandBytes = static_cast<int32_t>(std::min<int64_t>(bytes, INT32_MAX));
    instr.aux = static_cast<int32_t>(std::min<int64_t>(
        wgmmaInstructions(dType.getShape()[0], dType.getShape()[1], k, elementBytes(cast<ir::MemDescType>(bType))),
        INT32_MAX));
    instr.sub = static_cast<int16_t>(wgmmaInstrN(dType.getShape()[1]));
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
