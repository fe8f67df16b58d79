// Lowering: Shared-memory allocations, memdesc views and register <-> shared-memory traffic.
#include "sim/lowering/Lowerer.h"
#include "sim/lowering/TmemGeometry.h"

#include "ir/Cga.h"

using namespace mlir;

namespace tlxsim::sim::lowering {


namespace {
/// The element offset, within its allocation, of the first element of a `ttg.memdesc_subslice` view at `offsets` of
/// a rank-2 `#ttg.nvmma_shared` buffer, as the layout stores it: rows of swizzlingByteWidth bytes, so a buffer wider
/// than the swizzle is column blocks of W = swizzle bytes / element bytes each (the TMA box of a 128B-swizzled copy
/// is at most 128 bytes wide: PTX ISA 9.1, "Tensor swizzling modes"): [r, c] lies at block c / W, row r, column
/// c % W. A column subslice at a block border (TLX `local_slice` of one half of B for a 2-CTA multicast) is then its
/// own contiguous range. Other layouts: row-major. Returns 0 when the shape or offsets are not known.
int64_t subsliceOffset(Operation &op) {
  auto offsets = op.getAttrOfType<DenseI32ArrayAttr>("offsets");
  auto type = op.getNumOperands() ? dyn_cast<ir::MemDescType>(op.getOperand(0).getType()) : ir::MemDescType();
  if (!offsets || !type)
    return 0;
  llvm::ArrayRef<int64_t> shape = type.getShape();
  llvm::ArrayRef<int32_t> at = offsets.asArrayRef();
  if (at.size() != shape.size() || shape.empty())
    return 0;
  size_t n = shape.size();
  int64_t offset = 0, stride = 1;
  for (size_t i = n; i-- > 0;) { // row-major over all dimensions
    offset += at[i] * stride;
    stride *= shape[i];
  }
  auto enc = dyn_cast_or_null<ir::EncodingAttr>(type.getEncoding());
  if (n < 2 || !enc || enc.getInt("transposed").value_or(0) != 0)
    return offset;
  int64_t swizzle = enc.getInt("swizzlingByteWidth").value_or(0), bits = enc.getInt("elementBitWidth").value_or(0);
  int64_t rows = shape[n - 2], cols = shape[n - 1];
  if (swizzle <= 0 || bits <= 0 || swizzle * 8 % bits != 0)
    return offset;
  int64_t width = swizzle * 8 / bits;
  if (cols <= width || cols % width != 0)
    return offset;
  int64_t outer = offset - (at[n - 2] * cols + at[n - 1]); // the leading dimensions, row-major
  return outer + (at[n - 1] / width) * rows * width + at[n - 2] * width + at[n - 1] % width;
}
} // namespace

/// local_alloc / tmem_alloc, memdesc_index / views, local_load / local_store.
bool Lowerer::lowerSharedMemory(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "ttg.local_alloc" || name == "ttng.tmem_alloc") {
    if (op.getNumResults() < 1)
      return reject(op, "expected a result");
    auto type = typed<ir::MemDescType>(op, op.getResult(0), "the result", "!ttg.memdesc");
    if (!type)
      return true;
    Instr instr = make(Op::LocalAlloc, op);
    Alloc alloc;
    alloc.name = ir::variableName(op.getLoc()).value_or("alloc" + std::to_string(p.allocs.size()));
    alloc.loc = ir::pythonLocation(op.getLoc());
    alloc.shape.assign(type.getAllocShape().begin(), type.getAllocShape().end());
    alloc.bytes = ir::bytesPerCta(type); // one CTA's part of a buffer a CGA layout splits (ir/Cga.h)
    alloc.elementBytes = alloc.bytes / std::max<int64_t>(1, ir::elementsPerCta(type));
    alloc.isBarrier = type.getElementType().isInteger(64);
    alloc.inTensorMemory = type.isTensorMemory();
    if (alloc.inTensorMemory && alloc.shape.size() >= 2) { // TMEM geometry: buffers x lanes x 32-bit columns
      alloc.shape[alloc.shape.size() - 2] = tmemBufferRows(type);
      alloc.shape.back() = tmemBufferColumns(type);
    }
    instr.imm = static_cast<int64_t>(p.allocs.size());
    allocOf[&op] = static_cast<int32_t>(p.allocs.size());
    p.allocs.push_back(alloc);
    out.push_back(instr);
    if (op.getNumOperands() > 0) { // allocation initialized from registers
      Instr store = make(Op::LocalStore, op);
      store.result = -1;
      store.numResults = 0;
      store.args = {slot(op.getOperand(0)), instr.result};
      store.imm = alloc.bytes;
      store.viewElems[0] = viewExtent(type);
      out.push_back(store);
    }
    return true;
  }
  if (name == "ttg.memdesc_index" || name == "ttg.memdesc_subview") {
    if (op.getNumOperands() < 2 || op.getNumResults() != 1 ||
        !typed<ir::MemDescType>(op, op.getOperand(0), "the source", "!ttg.memdesc") ||
        !typed<ir::MemDescType>(op, op.getResult(0), "the result", "!ttg.memdesc"))
      return reject(op, "expected a memdesc source, an index and a memdesc result");
    Instr instr = make(Op::MemDescIndex, op);
    auto source = cast<ir::MemDescType>(op.getOperand(0).getType());
    instr.imm2 = source.getShape().front(); // bound of the index
    instr.args = {slot(op.getOperand(0)), slot(op.getOperand(1))};
    // the stride of one buffer: its elements in shared memory, its TMEM columns in tensor memory (Triton's
    // getTMemViewOffset: index x the columns of one buffer)
    instr.imm = source.isTensorMemory() ? tmemBufferColumns(source) : numElements(op.getResult(0).getType());
    out.push_back(instr);
    return true;
  }
  if (name == "ttg.memdesc_trans" || name == "ttg.memdesc_reshape" || name == "ttg.memdesc_reinterpret" ||
      name == "ttg.memdesc_subslice" || name == "ttng.tmem_subslice") {
    if (op.getNumOperands() < 1 || op.getNumResults() != 1)
      return reject(op, "expected a source and one result");
    Instr instr = make(Op::MemDescView, op);
    instr.args = {slot(op.getOperand(0))};
    if (name == "ttng.tmem_subslice") // elements N.. of the source's rows: the view starts at element N's column
      if (auto source = dyn_cast<ir::MemDescType>(op.getOperand(0).getType()))
        instr.imm = tmemSubsliceColumn(source, intAttr(op, "N"));
    if (name == "ttg.memdesc_subslice")
      instr.imm = subsliceOffset(op);
    out.push_back(instr);
    return true;
  }
  if (name == "ttg.local_store" || name == "ttg.local_load" || name == "amdg.local_load_packed_tranposed") {
    bool store = name == "ttg.local_store";
    if (op.getNumOperands() < (store ? 2u : 1u))
      return reject(op, "lacks its operands");
    auto memdesc = typed<ir::MemDescType>(op, op.getOperand(store ? 1 : 0), store ? "the destination" : "the source",
                                          "!ttg.memdesc");
    if (!memdesc)
      return true;
    Instr instr = make(store ? Op::LocalStore : Op::LocalLoad, op);
    instr.args = slotsOf(op.getOperands());
    instr.viewElems[0] = viewExtent(memdesc);
    instr.imm = ir::bytesPerCta(memdesc);
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
