// An async wgmma issued as early as its operands allow, as ptxas schedules it: the engine issues a partition's
// instructions in program order, but ptxas places a `wgmma.mma_async` (a long-latency instruction whose work runs on
// the tensor pipe) ahead of the independent register work that precedes it in the TTGIR, and that work issues while
// the tensor pipe runs the dot. Read from the SASS of Gluon attention_fwd (traces/h200/proton-captures, triton 3.6):
// at BLOCK_N 128 the row sum `gl.sum(p, 1)` that the TTGIR computes before the P @ V dot is 104 of its 136 FADDs
// after the dot's first HGMMA (between its HGMMAs, before Proton's `pv_wait` record), at BLOCK_N 64 25 of 72.
#include "sim/lowering/Lowerer.h"

#include <algorithm>
#include <set>

namespace tlxsim::sim::lowering {

namespace {

/// Whether the wgmma at `i` is synchronous: the lowering put its own wait (same location, no operands) right after it.
bool synchronous(const std::vector<Instr> &instrs, size_t i) {
  return i + 1 < instrs.size() && instrs[i + 1].op == Op::WgmmaWait && instrs[i + 1].args.empty() &&
         instrs[i + 1].loc == instrs[i].loc;
}

} // namespace

void hoistAsyncWgmmas(std::vector<Instr> &instrs) {
  for (size_t d = 0; d < instrs.size(); ++d) {
    if (instrs[d].op != Op::WgmmaIssue || synchronous(instrs, d))
      continue;
    size_t begin = d; // the register-only run just before the dot: [begin, d)
    while (begin > 0 && registerOnly(instrs[begin - 1]))
      --begin;
    if (begin == d)
      continue;
    // The run's instructions the dot depends on (its operands' producers, transitively), found last to first.
    std::set<int32_t> needed;
    for (int32_t arg : instrs[d].args)
      if (arg >= 0)
        needed.insert(arg);
    std::vector<bool> feeds(d - begin, false);
    for (size_t j = d; j-- > begin;) {
      const Instr &in = instrs[j];
      bool defines = false;
      for (int32_t r = 0; r < in.numResults && !defines; ++r)
        defines = needed.count(in.result + r) > 0;
      if (!defines)
        continue;
      feeds[j - begin] = true;
      for (int32_t arg : in.args)
        if (arg >= 0)
          needed.insert(arg);
    }
    // [producers in order] dot [the rest in order]: every dependence is kept. No producer reads an instruction that
    // moves after the dot (that one would be a producer too), and a moved instruction still follows every
    // instruction of the run it reads (producers precede the dot; the moved keep their order).
    if (std::all_of(feeds.begin(), feeds.end(), [](bool f) { return f; }))
      continue;
    std::vector<Instr> producers, rest;
    for (size_t j = begin; j < d; ++j)
      (feeds[j - begin] ? producers : rest).push_back(std::move(instrs[j]));
    size_t k = begin;
    for (Instr &in : producers)
      instrs[k++] = std::move(in);
    instrs[k++] = std::move(instrs[d]);
    for (Instr &in : rest)
      instrs[k++] = std::move(in);
    // the dot moved to begin + producers.size(); continue after the moved instructions (they precede d + 1)
  }
}

} // namespace tlxsim::sim::lowering
