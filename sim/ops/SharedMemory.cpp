// Shared-memory views and register <-> shared traffic: local_alloc, memdesc_index / views, local_load /
// store (the SM's shared-memory pipe, units/Lsu.h), fence.proxy.async.
#include "sim/EngineState.h"
#include "sim/units/Lsu.h"

namespace tlxsim::sim {

using namespace engine;

/// LocalAlloc, MemDescIndex, MemDescView, LocalStore, LocalLoad, FenceAsync.
Step Engine::Impl::execSharedMemory(Agent &a, const Instr &in, Cycle now) {
  Sm &sm = sms[a.cta->sm];
  switch (in.op) {
  case Op::LocalAlloc:
    a.frame[in.result] = Value::mem(static_cast<int32_t>(in.imm), 0);
    return next(a);
  case Op::MemDescIndex: {
    const Value &src = a.frame[in.args[0]];
    int64_t index = 0;
    if (src.kind == Value::Unknown && src.alloc >= 0)
      return err(in, "memdesc_index of a view made by '" + program.unknownOps[src.alloc] +
                 "', which has no simulator semantics yet");
    if (src.kind != Value::Mem)
      return err(in, "memdesc_index of a value that is not a shared-memory view");
    if (!intOf(a, in.args[1], in, index))
      return Step::Error;
    // An mbarrier index outside its array is only a bug where an mbarrier operation uses it (barrierOf: a
    // KernelFault there); kernels compute such indices ahead of a guard (`bars[(i - 1) % 2]` at i = 0).
    if ((index < 0 || (in.imm2 > 0 && index >= in.imm2)) && !program.allocs[src.alloc].isBarrier)
      return err(in, "memdesc index " + std::to_string(index) + " is out of bounds for a buffer array of " +
                 std::to_string(in.imm2) + " (allocation '" + program.allocs[src.alloc].name + "')");
    a.frame[in.result] = Value::mem(src.alloc, src.i + index * in.imm);
    a.frame[in.result].rank = src.rank;
    busyCycles(a, in, scalarCycles);
    return next(a);
  }
  case Op::MemDescView:
    a.frame[in.result] = a.frame[in.args[0]];
    if (in.imm != 0 && a.frame[in.result].kind == Value::Mem)
      a.frame[in.result] = Value::mem(a.frame[in.result].alloc, a.frame[in.result].i + in.imm);
    return next(a);
  case Op::LocalStore:
  case Op::LocalLoad: {
    // st.shared / ld.shared / ldmatrix (ds_write / ds_read): the warps issue one instruction
    // per lsu_bytes_per_thread_instr per thread and go on; the bytes cross the SM's shared
    // memory at smem_bytes_per_clk_sm (a FIFO pipe). A load's result is ready after
    // smem_latency_cycles at the earliest (scoreboard); stores drain before a fence.
    checkPendingUses(a, in);
    bool store = in.op == Op::LocalStore;
    if (store)
      awaitOperands(a, in, 0);
    Cycle issued = a.time;
    busy(a, in, lsuIssueCost(costs, program.threadsPerWarp, a.info.numWarps, in.imm));
    Cycle crossed = smemTransfer(costs, sm.smem, issued, in.imm);
    if (store) {
      a.smemWritesDone = std::max(a.smemWritesDone, crossed);
      access(a, -1, in.args[1], in.viewElems[0], /*write=*/true, /*asyncProxy=*/false, in);
    } else if (amd) { // ds_read: in flight until lgkmcnt retires it (ops/Amd.cpp)
      int64_t op = issueAsync(a);
      access(a, op, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/false, in);
      issueLdsRead(a, in, op);
    } else {
      access(a, -1, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/false, in);
    }
    if (in.result >= 0)
      a.frame[in.result] = Value::tensor(provenance(a, in, 0),
                                         static_cast<int64_t>(std::max(a.time + cycles(costs.smemLatency), crossed)));
    return next(a);
  }
  case Op::FenceAsync:
    a.time = std::max(a.time, a.smemWritesDone); // generic-proxy stores complete before the fence
    busy(a, in, costs.fence);
    emit<EvProxyFence>([&](Listener &l) { l.onProxyFence(a.info.id, a.time); });
    return next(a);
  default:
    break;
  }
  return err(in, "internal: execSharedMemory reached with another op family's op");
}

} // namespace tlxsim::sim
