// Lowering: Blackwell cluster launch control (CLC; PTX ISA 9.7.13.x clusterlaunchcontrol.try_cancel / query_cancel).
#include "sim/lowering/Lowerer.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// fbtriton 3.7.4's `ttng.async_clc_try_cancel %bar, %response` and `ttng.clc_query_cancel %response` (1 or 3
/// results), Triton 3.9's `ttng.clc_try_cancel %response, %bar {multicast}`, `clc_load_result`, `clc_is_canceled`
/// and `clc_get_program_id` (ir/README.md).
bool Lowerer::lowerClc(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "ttng.async_clc_try_cancel" || name == "ttng.clc_try_cancel") {
    Instr instr = make(Op::ClcTryCancel, op);
    bool tlx = name == "ttng.async_clc_try_cancel";
    instr.args = {required(op, tlx ? "mbarAlloc" : "mbarrier"), required(op, tlx ? "clcResAlloc" : "result")};
    // fbtriton always emits `.multicast::cluster::all` (predicated on the cluster's first CTA, `@pred_issue`);
    // Triton 3.9 says so with its `multicast` attribute.
    instr.sub = tlx || op.hasAttr("multicast") ? 1 : 0;
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.clc_query_cancel" || name == "ttng.clc_load_result") {
    Instr instr = make(name == "ttng.clc_query_cancel" ? Op::ClcQuery : Op::ClcLoad, op);
    instr.args = {required(op, name == "ttng.clc_query_cancel" ? "clcResAlloc" : "src")};
    instr.bits = name == "ttng.clc_query_cancel" ? 32 : 64;
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.clc_is_canceled" || name == "ttng.clc_get_program_id") {
    Instr instr = make(name == "ttng.clc_is_canceled" ? Op::ClcIsCanceled : Op::ClcProgramId, op);
    instr.args = {required(op, "clcResult")};
    instr.bits = name == "ttng.clc_is_canceled" ? 1 : 32;
    instr.imm = intAttr(op, "dim", 0);
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
