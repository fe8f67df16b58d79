// Lowering: Global memory: loads, stores and atomics, their address operands first (they key the L2 model).
#include "sim/lowering/Lowerer.h"

#include "ir/Partitions.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// The kernel argument (its `tt.func` block argument) that the pointer `v` points into, followed back through
/// partition captures and pointer arithmetic and broadcasts (`tt.addptr`, `tt.bitcast`, `tt.splat`, `tt.broadcast`,
/// `tt.expand_dims`, `tt.reshape`, `ttg.convert_layout`: their first operand); null when it leads elsewhere (a
/// loop-carried pointer, a pointer loaded from memory).
mlir::BlockArgument pointerArgument(mlir::Value v) {
  for (int depth = 0; depth < 32; ++depth) {
    v = ir::capturedValue(v);
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      return owner && owner->getName().getStringRef() == "tt.func" ? arg : mlir::BlockArgument();
    }
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumOperands() < 1 ||
        !llvm::is_contained({"tt.addptr", "tt.bitcast", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape",
                             "ttg.convert_layout"},
                            def->getName().getStringRef()))
      return {};
    v = def->getOperand(0);
  }
  return {};
}

/// Whether the scalar pointer `v` feeds a scalar integer `tt.load`, directly or through more scalar `tt.addptr`:
/// the pointers the engine follows (Instr::aux), so that no other value changes (a pointer feeding only tensor
/// math or float loads stays a register value, as before).
bool feedsScalarIntLoad(mlir::Value v, int depth) {
  for (Operation *user : v.getUsers()) {
    llvm::StringRef name = user->getName().getStringRef();
    if (name == "tt.load" && user->getOperand(0) == v && user->getNumResults() == 1 &&
        user->getResult(0).getType().isInteger())
      return true;
    if (name == "tt.addptr" && user->getOperand(0) == v && user->getNumResults() == 1 &&
        isa<ir::PtrType>(user->getResult(0).getType()) && depth < 8 && feedsScalarIntLoad(user->getResult(0), depth + 1))
      return true;
  }
  return false;
}

/// Marks the kernel argument the store or atomic `op` writes through, its `ptr` operand (KernelArg::writtenByKernel):
/// the launch's contents of that buffer no longer tell what a load reads.
void Lowerer::markWritten(Operation &op) {
  auto ptr = ir::getOperandGroup(&op, "ptr");
  if (!ptr || ptr->empty())
    return;
  if (mlir::BlockArgument arg = pointerArgument(ptr->front()))
    for (KernelArg &a : p.args)
      if (a.kind == KernelArg::Pointer && a.slot == slot(arg))
        a.writtenByKernel = true;
}

/// global loads, stores and atomics (tt, amdg buffer and descriptor forms).
bool Lowerer::lowerGlobalMemory(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "tt.load" || name == "amdg.masked_load") {
    addressed(op, out, Op::GlobalLoad, {"ptr"}, resultBytes(op));
    // A scalar integer load: its value may steer control flow (a grouped GEMM's per-problem sizes). The engine reads
    // it from the launch's buffer contents (Instr::aux: its bytes), or makes it an unknown scalar naming its source.
    if (op.getNumResults() == 1 && op.getResult(0).getType().isInteger()) {
      out.back().aux = static_cast<int32_t>(elementBytes(op.getResult(0).getType()));
      out.back().bits = scalarBits(op.getResult(0).getType());
      p.hasScalarLoads = true;
      if (p.untracedLoadOrigin < 0) {
        p.untracedLoadOrigin = static_cast<int32_t>(p.unknownOps.size());
        p.unknownOps.push_back("a scalar load from global memory");
        p.unknownWhy.push_back("its pointer does not lead back to a kernel argument whose contents the launch can "
                               "give (a pointer loaded from memory, or made by an op the simulator does not follow)");
      }
    }
    return true;
  }
  if (name == "amdg.buffer_load")
    return addressed(op, out, Op::GlobalLoad, {"ptr", "offsets"}, resultBytes(op));
  if (name == "tt.descriptor_load" || name == "tt.descriptor_gather")
    return addressed(op, out, Op::GlobalLoad, {"desc", "indices", "x_offsets", "y_offset"}, resultBytes(op));
  if (name == "tt.atomic_rmw" || name == "tt.atomic_cas" || name == "amdg.buffer_atomic_rmw" ||
      name == "amdg.buffer_atomic_cas") {
    markWritten(op);
    addressed(op, out, Op::GlobalLoad, {"ptr", "offsets"}, resultBytes(op));
    out.back().sub = 1;
    return true;
  }
  if (name == "tt.store" || name == "amdg.masked_store" || name == "amdg.buffer_store")
    markWritten(op);
  if (name == "tt.store" || name == "amdg.masked_store")
    return addressed(op, out, Op::GlobalStore, {"ptr"}, operandBytes(op, "value"));
  if (name == "amdg.buffer_store")
    return addressed(op, out, Op::GlobalStore, {"ptr", "offsets"}, operandBytes(op, "value"));
  if (name == "tt.descriptor_store" || name == "tt.descriptor_reduce" || name == "tt.descriptor_scatter")
    return addressed(op, out, Op::GlobalStore, {"desc", "indices", "x_offsets", "y_offset"}, operandBytes(op, "src"));
  return false;
}

} // namespace tlxsim::sim::lowering
