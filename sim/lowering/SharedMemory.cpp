// Lowering: Shared-memory allocations, memdesc views and register <-> shared-memory traffic.
#include "sim/lowering/Lowerer.h"
#include "sim/lowering/TmemGeometry.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

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
    alloc.bytes = type.getSizeInBytes();
    alloc.elementBytes = alloc.bytes / std::max<int64_t>(1, type.getNumElements());
    alloc.isBarrier = type.getElementType().isInteger(64);
    alloc.inTensorMemory = type.isTensorMemory();
    if (alloc.inTensorMemory && alloc.shape.size() >= 2) { // TMEM geometry: buffers x lanes x 32-bit columns
      alloc.shape[alloc.shape.size() - 2] = tmemBufferRows(type);
      alloc.shape.back() = tmemBufferColumns(type);
    }
    instr.imm = static_cast<int64_t>(p.allocs.size());
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
    instr.imm = memdesc.getSizeInBytes();
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
