// Triton's shared-memory barrier analysis (Lowerer::membarSyncs, lowering/Membar.cpp): where the lowering puts
// Op::MembarSync (a conflicting shared-memory access since the last barrier, an mbarrier arrive touching every
// buffer), and fbtriton's own bar.sync before an elected arrive.
#include "ir/Dialects.h"
#include "sim/Lowering.h"
#include "LowerText.h"

#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

using namespace tlxsim;

namespace {

/// A 4-warp default partition's loop: wait `full`, BODY, arrive `empty`; then after the loop TAIL. A 1-warp worker
/// arrives on `full` only.
const char *kLoop = R"(#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#loc1 = loc("m.py":1:0)
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @m(%n: i32 loc("n"(#loc1))) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %full = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("full"("m.py":3:4))
    %empty = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("empty"("m.py":4:4))
    %other = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("other"("m.py":5:4))
    ttng.init_barrier %full, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %empty, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %other, 2 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %p = arith.andi %i, %c1 : i32
      ttng.wait_barrier %full, %p : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("m.py":10:8)
      BODY
      ttng.arrive_barrier %empty, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("m.py":12:8)
      %q = arith.xori %p, %c1 : i32
    }
    TAIL
    tt.return
  }
}
)";

/// The ops of the lowered program in order (every block), as (op, source line).
/// kLoop with BODY and TAIL; with `fbtriton`, the module carries the attribute fbtriton's make_ttgir writes.
sim::Program programOf(mlir::MLIRContext &ctx, const std::string &body, const std::string &tail, bool fbtriton) {
  std::string text = std::regex_replace(std::regex_replace(kLoop, std::regex("BODY"), body), std::regex("TAIL"), tail);
  if (fbtriton)
    text = std::regex_replace(text, std::regex("ttg.target ="), "tlx.has_tlx_ops = true, ttg.target =");
  return testing::lowerText(ctx, text);
}

std::vector<std::pair<sim::Op, int>> opsOf(const std::string &body, const std::string &tail) {
  auto ctx = ir::makeContext();
  sim::Program program = programOf(*ctx, body, tail, /*fbtriton=*/false);
  std::vector<std::pair<sim::Op, int>> out;
  for (const sim::Block &block : program.blocks)
    for (const sim::Instr &in : block.instrs)
      if (in.op == sim::Op::MembarSync || in.op == sim::Op::WaitBarrier || in.op == sim::Op::ArriveBarrier ||
          in.op == sim::Op::BarrierExpect || in.op == sim::Op::AsyncWait)
        out.emplace_back(in.op, in.loc >= 0 ? static_cast<int>(program.locs[in.loc].line) : -1);
  return out;
}

int syncsBefore(const std::vector<std::pair<sim::Op, int>> &ops, int line) {
  int n = 0;
  for (size_t i = 0; i + 1 < ops.size(); ++i)
    n += ops[i].first == sim::Op::MembarSync && ops[i + 1].second == line && ops[i + 1].first != sim::Op::MembarSync;
  return n;
}

} // namespace

TEST_CASE("Membar: the loop's first shared-memory op after the back edge's arrive gets a barrier") {
  auto ops = opsOf("", "");
  // The arrive at line 12 leaves every shared interval pending; across the back edge the wait at line 10 conflicts.
  CHECK(syncsBefore(ops, 10) == 1);
  // The wait's read of `full` is pending at the arrive, which touches every buffer: a barrier (Gluon ws_gemm's
  // consumer: one BAR.SYNC before its SYNCS.ARRIVE, Triton 3.6)
  CHECK(syncsBefore(ops, 12) == 1);
  CHECK(std::count_if(ops.begin(), ops.end(), [](auto &o) { return o.first == sim::Op::MembarSync; }) == 2);
}

TEST_CASE("Membar: accesses conflict per buffer: a write after a read of the same barrier array, not of another") {
  // After the wait's read of `full`, an expect_tx on `other` writes another buffer: no barrier; one on `full` writes
  // the buffer just read: a barrier (TLX hopper_gemm_ws's producer: BAR.SYNC before the first of its three
  // expect_tx per K step, none before the second and third, which write other barrier arrays than those pending)
  std::string other = "ttng.barrier_expect %other, 16, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(\"m.py\":11:8)";
  std::string full = "ttng.barrier_expect %full, 16, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(\"m.py\":11:8)";
  auto pre = [](const std::string &op) { return "%true = arith.constant true\n      " + op; };
  CHECK(syncsBefore(opsOf(pre(other), ""), 11) == 0);
  CHECK(syncsBefore(opsOf(pre(full), ""), 11) == 1);
}

TEST_CASE("Membar: fbtriton's lowering adds its own bar.sync to an elected arrive; Triton 3.6's does not") {
  auto ctx = ir::makeContext();
  auto arriveSubs = [&](bool fbtriton) {
    std::vector<int> subs;
    for (const sim::Block &block : programOf(*ctx, "", "", fbtriton).blocks)
      for (const sim::Instr &in : block.instrs)
        if (in.op == sim::Op::ArriveBarrier)
          subs.push_back(in.sub);
    return subs;
  };
  CHECK(arriveSubs(true) == std::vector<int>{3});  // sub 3: electedSync charges cta_barrier_cycles
  CHECK(arriveSubs(false) == std::vector<int>{0}); // PTX of Triton 3.6: none when a gpu.barrier precedes
}

TEST_CASE("Membar: a second arrive right after the first waits at a barrier; an execution barrier clears the state") {
  std::string second = "ttng.arrive_barrier %other, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(\"m.py\":20:4)";
  auto ops = opsOf("", second);
  CHECK(syncsBefore(ops, 20) == 1); // after the loop: the loop's last arrive (or, with no trips, none) is pending
  // gpu.barrier between them: Membar has nothing left to order
  auto fenced = opsOf("", "gpu.barrier\n    " + second);
  CHECK(syncsBefore(fenced, 20) == 0);
  CHECK(syncsBefore(fenced, 10) == 1);
}

TEST_CASE("Membar: ops without a shared-memory effect pass the pending state on; the next one takes the barrier") {
  // A register op between the arrive and the next wait does not take the barrier; in a branch taken on one path
  // only, the join keeps it pending (either path may have arrived).
  std::string branch = "%cnd = arith.cmpi eq, %n, %c0 : i32\n    scf.if %cnd {\n"
                       "      ttng.arrive_barrier %other, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(\"m.py\":21:6)\n"
                       "    }\n"
                       "    ttng.wait_barrier %other, %c0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(\"m.py\":22:4)";
  auto ops = opsOf("", branch);
  CHECK(syncsBefore(ops, 21) == 1); // the loop's arrive is pending at the if's arrive
  CHECK(syncsBefore(ops, 22) == 1);
}

TEST_CASE("Membar: a barrier follows an asynchronous wait and clears what is pending") {
  // ttg.async_wait has MemWaitOpTrait: Membar puts a barrier right after it (triton_gemm's SASS: BAR.SYNC after
  // the DEPBAR of each K step) and nothing is pending after it, so the arrive after it gets no second one
  auto ops = opsOf("%t = ttg.async_wait {num = 0 : i32} loc(\"m.py\":11:8)", "");
  auto wait = std::find_if(ops.begin(), ops.end(), [](auto &o) { return o.first == sim::Op::AsyncWait; });
  REQUIRE(wait != ops.end());
  REQUIRE(wait + 2 < ops.end());
  CHECK((wait + 1)->first == sim::Op::MembarSync);
  CHECK((wait + 2)->first == sim::Op::ArriveBarrier);
  CHECK(std::count_if(ops.begin(), ops.end(), [](auto &o) { return o.first == sim::Op::MembarSync; }) == 2);
}
