// Lowering: Global memory: loads, stores and atomics, their address operands first (they key the L2 model).
#include "sim/lowering/Lowerer.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// global loads, stores and atomics (tt, amdg buffer and descriptor forms).
bool Lowerer::lowerGlobalMemory(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "tt.load" || name == "amdg.masked_load") {
    addressed(op, out, Op::GlobalLoad, {"ptr"}, resultBytes(op));
    // A scalar integer load: its value may steer control flow (a grouped GEMM's per-problem sizes). The engine reads
    // it from the launch's buffer contents (Instr::aux: its bytes), or makes it an unknown scalar naming its source.
    if (op.getNumResults() == 1 && op.getResult(0).getType().isInteger()) {
      out.back().aux = static_cast<int32_t>(elementBytes(op.getResult(0).getType()));
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
    addressed(op, out, Op::GlobalLoad, {"ptr", "offsets"}, resultBytes(op));
    out.back().sub = 1;
    return true;
  }
  if (name == "tt.store" || name == "amdg.masked_store")
    return addressed(op, out, Op::GlobalStore, {"ptr"}, operandBytes(op, "value"));
  if (name == "amdg.buffer_store")
    return addressed(op, out, Op::GlobalStore, {"ptr", "offsets"}, operandBytes(op, "value"));
  if (name == "tt.descriptor_store" || name == "tt.descriptor_reduce" || name == "tt.descriptor_scatter")
    return addressed(op, out, Op::GlobalStore, {"desc", "indices", "x_offsets", "y_offset"}, operandBytes(op, "src"));
  return false;
}

} // namespace tlxsim::sim::lowering
