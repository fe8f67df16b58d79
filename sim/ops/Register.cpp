// Register work: elementwise ops and reductions on the ALU lanes, SFU math, layout conversions through shared
// memory, TMEM ld/st, and register MMAs (mma.sync, MFMA) on the tensor pipe.
#include "sim/EngineState.h"
#include "sim/units/Lsu.h"
#include "sim/units/Tmem.h"

namespace tlxsim::sim {

using namespace engine;

/// A warp issues in order, and an exp2-class op's MUFU instructions issue at the SFUs' rate (sfu_ops_per_clk_sm at
/// the partition's share): the warp cannot issue what follows them in its instruction stream until the last has
/// issued. ptxas fills the issue slots between the MUFUs with register math (the FFMAs of `qk * scale - m` that feed
/// them, the row sum's FADDs and the F2FP packs that consume them), but not with the ops that order or leave the
/// warp. Read from the SASS of TLX hopper_fa_ws and Gluon attention_fwd (traces/h200/proton-captures): the v_full
/// mbarrier wait (BAR.SYNC + SYNCS try-wait), Proton's records and the P @ V HGMMAs follow the last MUFU.EX2 (the
/// `acc * alpha` FMULs before them consume alpha, whose MUFUs are the stream's last). So, while the agent's latest
/// SFU job runs, register math (ALU and further exp2-class ops, which join the job) and scalar, view and
/// control-flow ops go on in its shadow; any other op (a barrier, a record, a wgmma, a memory op, a TMEM access)
/// waits for the job's end, the warps issuing (busy, charged to the exp2-class op). Without this the model ran the
/// barrier wait and the records beside the MUFUs, and TLX fa_ws g2's iteration was 2780 clk against Proton's 3150.
void Engine::Impl::awaitMufuIssue(Agent &a, const Instr &in) {
  if (registerOnly(in)) // register math: interleaved with the MUFUs
    return;
  switch (in.op) {
  case Op::For: case Op::If: case Op::Yield: case Op::While: case Op::Condition: case Op::ProgramId:
  case Op::NumPrograms: case Op::LocalAlloc: case Op::Unknown:
    return;
  case Op::MembarSync:
    if (a.info.numWarps <= 1) // no bar.sync in a 1-warp partition (electedSync)
      return;
    break;
  default:
    break;
  }
  Cycle until = sms[a.cta->sm].sfu.end(a.mufuJob);
  if (a.time < until) {
    span(a, *a.mufuInstr, a.time, until, /*operandWait=*/false);
    a.work.mufuHeld += until - a.time;
    a.time = until;
  }
  a.mufuJob = -1;
}

/// TensorOp, Dot.
Step Engine::Impl::execRegister(Agent &a, const Instr &in, Cycle now) {
  Cta &cta = *a.cta;
  Sm &sm = sms[cta.sm];
  switch (in.op) {
  case Op::TensorOp: {
    checkPendingUses(a, in);
    size_t first = in.sub == 3 ? 1 : 0; // a tensor-memory access names its view first (not a register)
    bool elementwise = in.sub == 0 || in.sub == 1;
    int32_t sfuJob = -1; // the SFU request the result streams from
    Cycle ready = awaitOperands(a, in, first, /*streamSfu=*/elementwise, &sfuJob);
    double share = smspShare(a.info.numWarps), work = static_cast<double>(in.imm), cost = 0;
    Cycle chainReady = 0; // a reduction's dependent chain: its result is ready then, not streamed
    switch (in.sub) {
    case 0: {
      // The partition's SMSPs run its elementwise work at their share of the SM's lanes; the SMSPs are shared
      // with the SM's other partitions (and CTAs), so the work waits while theirs holds the lanes.
      // Zero-work ops (splats, broadcasts, expand_dims) run out of time order (Impl::isShared) and reserve nothing.
      Cycle begin = work > 0 ? sm.alu.reserve(a.time, cycles(work / costs.aluLanes)) : a.time;
      cost = static_cast<double>(begin - a.time) + work / (costs.aluLanes * share);
      powerCycles += vectorPowerCycles(costs, work / costs.aluLanes);
      // A reduction's result waits for its dependent chain (lowering/Register.cpp reduceChain): the combine steps
      // one after another, then each shuffle round and its combine. The warps issue other work meanwhile. A model
      // without the latencies (B200 so far) charges no chain, but still the order below.
      if (in.imm2 > 0) {
        double latency = std::isfinite(costs.aluDependentLatency) ? costs.aluDependentLatency : 0;
        double shuffle = std::isfinite(costs.shuffleLatency) ? costs.shuffleLatency : 0;
        double steps = static_cast<double>(in.imm2 / kReduceRoundsRadix), rounds = in.imm2 % kReduceRoundsRadix;
        double roundsCost = rounds * (shuffle + latency);
        chainReady = begin + cycles(steps * latency + roundsCost);
        // Inputs still streaming from the SFUs (a sum of exp2 results): the chain consumes them as they come, but
        // its last combine needs the last element, and the shuffle rounds follow it. The result is then complete
        // (not streamed): a reduction over a row needs all of it.
        if (ready > a.time)
          chainReady = std::max(chainReady, ready + cycles(latency + roundsCost));
      }
      break;
    }
    case 1: {
      powerCycles += vectorPowerCycles(costs, work / costs.sfuOps);
      if (!(costs.sfuPipe > 0)) { // CDNA: transcendentals are VALU instructions at a reduced rate
        cost = work / (costs.sfuOps * share);
        break;
      }
      // NVIDIA: the warps issue one MUFU instruction per 32 elements (an issue slot each, like the ALU ops), and
      // the SM's SFUs run them at sfu_ops_per_clk_sm, the partition's SMSPs at most at their share (CUDA C++
      // Programming Guide, arithmetic instruction throughput: 16 results per clock per SM for exp2 / rcp / rsqrt /
      // lg2 / sin / cos on cc 9.0); partitions whose MUFU work overlaps share them (units/SharingPipe.h). The result
      // streams (Value::streamed) until the SFUs are done.
      cost = work / (costs.aluLanes * share);
      if (work > 0) {
        auto [job, end] = sm.sfu.add(a.time, work, costs.sfuOps * share, a.info.id);
        ready = std::max(ready, end);
        sfuJob = job;
        a.mufuJob = job; // a running job of the agent's is joined (units/SharingPipe.h): the same MUFU stream
        a.mufuInstr = &in;
      }
      break;
    }
    case 2: cost = 2 * work / costs.smemBytesPerClk; break; // written to and read back from shared memory
    default: {
      double rate = 0;
      if (!optionalKnob(costs.tmemBytesPerClk, "tmem_bytes_per_clk_sm", in, rate))
        return Step::Error;
      cost = tmemCost(rate, a.info.numWarps, in.imm); // tcgen05.ld/st: each warp moves its own 32 TMEM lanes
    }
    }
    busy(a, in, cost);
    if (in.sub == 3)
      access(a, -1, in.args[0], in.viewElems[0], /*write=*/in.imm2 == 1, /*asyncProxy=*/false, in);
    int32_t hash = provenance(a, in, in.args.size() - first, false, first);
    for (int32_t i = 0; i < in.numResults; ++i) {
      Value &v = a.frame[in.result + i];
      v = Value::tensor(hash + i, static_cast<int64_t>(std::max({a.time, ready, chainReady})));
      v.streamed = ready > a.time && chainReady <= ready; // consumers of a reduction wait for its whole chain
      v.sfuJob = v.streamed ? sfuJob : -1;
    }
    if (Value pointer; in.aux > 0 && in.sub == 0 && followPointer(a, in, std::max(a.time, ready), pointer))
      a.frame[in.result] = pointer; // a scalar pointer into an argument's buffer (its scalar loads read the launch's)
    return next(a);
  }
  case Op::Dot: {
    // mma.sync / v_mfma: the partition's warps issue one instruction per
    // mma_sync_flops_per_instr (each SMSP one per scalar_op_cycles) and go on; the products
    // run on the SM's tensor cores (a FIFO pipe shared by the SM's CTAs) at their share of
    // the SM's rate, and the result is ready when the last one completes (scoreboard). The
    // accumulator operand chains consecutive dots.
    awaitOperands(a, in);
    double flops = static_cast<double>(in.imm), share = smspShare(a.info.numWarps);
    Cycle issueStart = a.time;
    busy(a, in, std::ceil(flops / (costs.mmaSyncFlopsPerInstr * std::min(4, std::max(1, a.info.numWarps)))) *
         costs.scalarOp);
    Cycle smBusy = cycles(flops / costs.mmaSyncFlopsPerClk);
    Cycle begin = sm.tensor.run(issueStart, smBusy, powerCycles);
    Cycle done = std::max(a.time, begin + cycles(flops / (costs.mmaSyncFlopsPerClk * share)));
    AsyncEvent e{AsyncEvent::TensorCore, cta.sm, a.info.id, in.loc, begin, begin + smBusy, 0, in.imm, true};
    emit<EvAsync>([&](Listener &l) { l.onAsync(e); });
    a.frame[in.result] = Value::tensor(provenance(a, in, 0), static_cast<int64_t>(done + cycles(costs.wgmmaLatency)));
    return next(a);
  }
  default:
    break;
  }
  return err(in, "internal: execRegister reached with another op family's op");
}

} // namespace tlxsim::sim
