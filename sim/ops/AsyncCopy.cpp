// cp.async (PTX ISA 9.1 9.7.9.25.3) and AMD direct-to-LDS copies: open copies, commit groups, waits.
#include "sim/EngineState.h"

namespace tlxsim::sim {

using namespace engine;

/// Every cp.async of `a`, committed or not, completes by the returned cycle.
Cycle Engine::Impl::copiesDone(const Agent &a) {
  Cycle done = a.openCopies.done;
  for (const Agent::CopyGroup &g : a.copyGroups)
    done = std::max(done, g.done);
  return done;
}

/// AsyncCopy, AsyncCommit, AsyncWait.
Step Engine::Impl::execAsyncCopy(Agent &a, const Instr &in, Cycle now) {
  Cycle start = a.time;
  switch (in.op) {
  case Op::AsyncCopy: {
    int32_t hash = 0;
    Cycle done = globalAccess(a, in, start, hash);
    int64_t op = issueAsync(a);
    // Reported as an async-proxy write made visible by the wait on its group: Triton 3.6's
    // own cp.async -> wgmma pipelines put no fence.proxy.async between the two.
    access(a, op, in.args[0], in.viewElems[0], /*write=*/true, /*asyncProxy=*/true, in);
    a.openCopies.done = std::max(a.openCopies.done, done);
    a.openCopies.ops.push_back(op);
    a.openCopies.instrs.push_back(std::max<int64_t>(1, in.imm2));
    a.openCopies.opDone.push_back(done);
    if (in.result >= 0)
      a.frame[in.result] = Value::tensor();
    return next(a);
  }
  case Op::AsyncCommit:
    busyCycles(a, in, scalarCycles);
    a.openCopies.done = std::max(a.openCopies.done, a.time);
    a.copyGroups.push_back(std::move(a.openCopies));
    a.openCopies = Agent::CopyGroup{};
    if (in.result >= 0)
      a.frame[in.result] = Value::tensor();
    return next(a);
  case Op::AsyncWait: {
    if (in.sub == 1) { // amdg.async_wait {num_inst}: s_waitcnt vmcnt(num_inst)
      retireCopyInstructions(a, in.imm);
      span(a, in, start, a.time, /*operandWait=*/false);
      if (in.result >= 0)
        a.frame[in.result] = Value::tensor();
      return next(a);
    }
    while (static_cast<int64_t>(a.copyGroups.size()) > in.imm) {
      Agent::CopyGroup &group = a.copyGroups.front();
      a.time = std::max(a.time, group.done);
      for (int64_t op : group.ops)
        emit<EvAsyncRetired>([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
      a.copyGroups.pop_front();
    }
    span(a, in, start, a.time, /*operandWait=*/false);
    if (in.result >= 0)
      a.frame[in.result] = Value::tensor();
    return next(a);
  }
  default:
    break;
  }
  return err(in, "internal: execAsyncCopy reached with another op family's op");
}

} // namespace tlxsim::sim
