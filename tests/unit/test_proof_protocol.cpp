// Prover stage 1, protocol extraction (verifier/proof/Protocol.h): partitions, loop nests, barrier groups and
// data buffers of a tiny kernel, and the errors for kernels the prover does not encode.
#include "ProofTestModule.h"

#include "verifier/proof/Protocol.h"
#include "verifier/proof/StrengthReduce.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"

#include "ir/Dialects.h"
#include "ir/Reader.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace tlxsim;
using namespace tlxsim::verifier::proof;

TEST_CASE("proof extraction: one partition with a K loop, a 3-slot barrier array and a staged buffer") {
  prooftest::Kernel k;
  REQUIRE_MESSAGE(k.module, k.diagnostics);
  Protocol p = extractProtocol(*k.module);
  CHECK(p.func == k.find("tt.func"));
  CHECK(p.prefix.empty()); // no warp_specialize: the kernel body is the default partition
  CHECK(p.suffix.empty());
  REQUIRE(p.parts.size() == 1);
  CHECK(p.parts[0].name == "default");
  CHECK(p.parts[0].depth == 1);
  CHECK(p.parts[0].l1 == k.find("scf.for"));
  CHECK(p.parts[0].l2 == nullptr);
  CHECK(p.maxDepth == 1);
  CHECK(p.numCtas == 1);
  // Barriers (i64 allocations of the body) come first, then data buffers.
  REQUIRE(p.groups.size() == 2);
  CHECK(p.groups[0].name == "bars");
  CHECK_FALSE(p.groups[0].data);
  CHECK(p.groups[0].slots == 3);
  CHECK(p.groups[0].count == std::vector<int64_t>{1, 1, 1}); // init counts are read by the encoding
  CHECK(p.groups[0].loc.line == 12);
  CHECK(p.groups[1].name == "bufs");
  CHECK(p.groups[1].data);
  CHECK(p.groups[1].slots == 3);
  CHECK(p.mostSlots() == 3);
  CHECK(p.groupOfAlloc.size() == 2);
  CHECK(p.namedOf.empty());
  CHECK(p.namedNote.empty());
}

TEST_CASE("proof extraction: the cluster of TLX's ttg.cluster-dim-x/-y/-z, else ttg.num-ctas along x") {
  std::string base = prooftest::kernelText();
  const std::string attrs = R"(module attributes {"ttg.num-warps" = 4 : i32,)";
  REQUIRE(base.find(attrs) != std::string::npos);
  auto with = [&](const std::string &extra) {
    std::string text = base;
    text.replace(text.find(attrs), attrs.size(), attrs + " " + extra);
    return text;
  };
  {
    prooftest::Kernel k(with(R"("ttg.cluster-dim-x" = 4 : i32, "ttg.cluster-dim-y" = 2 : i32, "ttg.cluster-dim-z" = 1 : i32, "ttg.num-ctas" = 1 : i32,)"));
    REQUIRE_MESSAGE(k.module, k.diagnostics);
    Protocol p = extractProtocol(*k.module);
    CHECK(p.numCtas == 8);
    CHECK(p.clusterDims == std::array<int64_t, 3>{4, 2, 1});
    CHECK(p.clusterText() == "ttg.cluster-dim = 4x2x1");
  }
  {
    prooftest::Kernel k(with(R"("ttg.num-ctas" = 2 : i32,)"));
    REQUIRE_MESSAGE(k.module, k.diagnostics);
    Protocol p = extractProtocol(*k.module);
    CHECK(p.numCtas == 2);
    CHECK(p.clusterDims == std::array<int64_t, 3>{2, 1, 1});
    CHECK(p.clusterText() == "ttg.num-ctas = 2");
  }
}

TEST_CASE("proof extraction: opsBefore / opsAfter split a block at an op, registered terminators excluded") {
  prooftest::Kernel k;
  REQUIRE(k.module);
  mlir::Operation *loop = k.find("scf.for");
  mlir::Block &body = *loop->getBlock();
  std::vector<mlir::Operation *> before = opsBefore(body, loop), after = opsAfter(body, loop);
  CHECK(before.size() == 8); // 4 constants, 2 allocs, memdesc_index, init_barrier
  CHECK(before.back()->getName().getStringRef() == "ttng.init_barrier");
  // tt.return follows; the reader keeps Triton's ops unregistered, so it carries no terminator trait.
  REQUIRE(after.size() == 1);
  CHECK(after[0]->getName().getStringRef() == "tt.return");
  CHECK(opsBefore(body, nullptr).size() == 10);
  CHECK(opsAfter(body, nullptr).size() == 10);
  mlir::Block &inner = loop->getRegion(0).front();
  CHECK(opsBefore(inner, nullptr).size() == 4); // remsi, memdesc_index, arrive, wait; scf.yield excluded
  CHECK(opsAfter(inner, loop).empty()); // `start` not in the block: nothing
}

TEST_CASE("proof extraction: sequential loops and a module without a kernel are not analyzed") {
  prooftest::Kernel two(prooftest::kernelText(2));
  REQUIRE_MESSAGE(two.module, two.diagnostics);
  try {
    extractProtocol(*two.module);
    FAIL("expected Unsupported");
  } catch (const Unsupported &u) {
    CHECK(u.why == "default: 2 sequential loops (one loop nest is encoded)");
  }
  prooftest::Kernel empty("module {\n}\n");
  REQUIRE(empty.module);
  try {
    extractProtocol(*empty.module);
    FAIL("expected Unsupported");
  } catch (const Unsupported &u) {
    CHECK(u.why == "the module holds no tt.func kernel with a body");
  }
}

namespace {
/// A kernel whose tile loop is an scf.while (`counted`: `while t < n: ...; t += 4`; otherwise its step is read
/// from the carried value itself, `t += t`) and whose K loop sits in `if n > 0`.
std::string whileKernel(bool counted) {
  std::string step = counted ? "%c4" : "%t";
  return R"(#loc = loc(unknown)
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @k(%n: i32 loc("n"(#loc))) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32 loc(#loc)
    %c1 = arith.constant 1 : i32 loc(#loc)
    %c4 = arith.constant 4 : i32 loc(#loc)
    %r:2 = scf.while (%t = %c1, %cnt = %c0) : (i32, i32) -> (i32, i32) {
      %lt = arith.cmpi slt, %t, %n : i32 loc(#loc)
      scf.condition(%lt) %t, %cnt : i32, i32 loc(#loc)
    } do {
    ^bb0(%t: i32 loc(#loc), %cnt: i32 loc(#loc)):
      %has = arith.cmpi sgt, %n, %c0 : i32 loc(#loc)
      %o = scf.if %has -> (i32) {
        %c = scf.for %k = %c0 to %n step %c1 iter_args(%ci = %cnt) -> (i32) : i32 {
          %cn = arith.addi %ci, %c1 : i32 loc(#loc)
          scf.yield %cn : i32 loc(#loc)
        } loc(#loc)
        scf.yield %c : i32 loc(#loc)
      } else {
        scf.yield %cnt : i32 loc(#loc)
      } loc(#loc)
      %tn = arith.addi %t, )" + step + R"( : i32 loc(#loc)
      scf.yield %tn, %o : i32, i32 loc(#loc)
    } loc(#loc)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
)";
}
} // namespace

TEST_CASE("proof extraction: a counted scf.while tile loop around a K loop in an scf.if") {
  prooftest::Kernel k(whileKernel(true));
  REQUIRE_MESSAGE(k.module, k.diagnostics);
  Protocol p = extractProtocol(*k.module);
  REQUIRE(p.parts.size() == 1);
  const Part &d = p.parts[0];
  CHECK(d.depth == 2);
  CHECK(d.l1 == k.find("scf.while"));
  CHECK(d.l2 == k.find("scf.for"));
  REQUIRE(d.guards.size() == 1);
  CHECK(d.guards[0].first == k.find("scf.if"));
  CHECK(d.guards[0].second); // the K loop is in the then branch
  // The while's view: iv = the after block's argument 0, lb its init (1), ub = n, step = 4, both carried values.
  REQUIRE(d.v1);
  mlir::Block &after = d.l1->getRegion(1).front();
  CHECK(d.v1->body == &after);
  CHECK(d.v1->iv == after.getArgument(0));
  CHECK(d.v1->lb == d.l1->getOperand(0));
  CHECK(d.v1->ub == k.find("tt.func")->getRegion(0).front().getArgument(0));
  CHECK(d.v1->step.getDefiningOp() == k.find("arith.constant")->getNextNode()->getNextNode());
  CHECK(d.v1->carried.size() == 2);
  CHECK(d.v1->yields().size() == 2);
  // The for's view: iv = argument 0, one carried value after it.
  REQUIRE(d.v2);
  CHECK(d.v2->iv == d.l2->getRegion(0).front().getArgument(0));
  CHECK(d.v2->carried.size() == 1);
}

TEST_CASE("proof extraction: an scf.while that does not count is not analyzed") {
  prooftest::Kernel k(whileKernel(false));
  REQUIRE_MESSAGE(k.module, k.diagnostics);
  std::string why;
  CHECK_FALSE(loopView(k.find("scf.while"), &why));
  CHECK(why.find("an scf.while that is not counted") == 0);
  try {
    extractProtocol(*k.module);
    FAIL("expected Unsupported");
  } catch (const Unsupported &u) {
    CHECK(u.why.find("default: an scf.while that is not counted") == 0);
  }
}

TEST_CASE("proof extraction: named barriers become pseudo-groups, or a note says why they are not encoded") {
  // `op` inserted into the tiny kernel's K loop (one partition of 4 warps: 128 threads).
  auto with = [](const std::string &op) {
    std::string text = prooftest::kernelText();
    std::string at = "      ttng.wait_barrier %b";
    size_t pos = text.find(at);
    REQUIRE(pos != std::string::npos);
    return text.insert(pos, op);
  };
  {
    prooftest::Kernel k(with("      %c128 = arith.constant 128 : i32 loc(#loc)\n"
                             "      ttng.arrive_barrier_named %c3, %c128 : i32, i32 loc(#loc5)\n"
                             "      ttng.wait_barrier_named %c3, %c128 : i32, i32 loc(#loc5)\n"));
    REQUIRE_MESSAGE(k.module, k.diagnostics);
    Protocol p = extractProtocol(*k.module);
    CHECK(p.namedNote.empty());
    REQUIRE(p.groups.size() == 3); // bars, bufs, then the named barrier
    const Group &g = p.groups[2];
    CHECK(g.named);
    CHECK(g.name == "named barrier 3");
    CHECK(g.count == std::vector<int64_t>{128});
    CHECK(g.namedThreads == std::map<int, int64_t>{{0, 128}});
    REQUIRE(g.syncers.size() == 1);
    CHECK(g.syncers.at(0) == k.find("ttng.wait_barrier_named"));
    CHECK(g.loc.line == 20);
    CHECK(p.namedOf.size() == 2);
    CHECK(p.namedOf.lookup(k.find("ttng.arrive_barrier_named")) == 2);
  }
  {
    // 256 threads of a 128-thread kernel: a phase is not one arrival of the partition.
    prooftest::Kernel k(with("      %c256 = arith.constant 256 : i32 loc(#loc)\n"
                             "      ttng.wait_barrier_named %c3, %c256 : i32, i32 loc(#loc5)\n"));
    REQUIRE_MESSAGE(k.module, k.diagnostics);
    Protocol p = extractProtocol(*k.module);
    CHECK(p.groups.size() == 2);
    CHECK(p.namedOf.empty());
    CHECK(p.namedNote.find("named barrier 3 counts 256 threads, its partitions have 128 (default 128), so a phase "
                           "is not one arrival of each") != std::string::npos);
  }
  {
    // A computed id (the loop's slot index).
    prooftest::Kernel k(with("      %c128 = arith.constant 128 : i32 loc(#loc)\n"
                             "      ttng.wait_barrier_named %s, %c128 : i32, i32 loc(#loc5)\n"));
    REQUIRE_MESSAGE(k.module, k.diagnostics);
    Protocol p = extractProtocol(*k.module);
    CHECK(p.groups.size() == 2);
    CHECK(p.namedNote.find("kernels/k.py:20:6: a named barrier whose id or thread count is computed") !=
          std::string::npos);
  }
}

TEST_CASE("proof extraction: tile loops in ratio 2:1 (a producer stepping 1, two consumer replicas stepping 2)") {
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  auto module =
      ir::readTTGIR(std::string(TLXSIM_SOURCE_DIR) + "/tests/lit/proof/Inputs/tlx_pingpong.mlir", *ctx, llvm::errs());
  REQUIRE(module);
  Protocol p = extractProtocol(*module);
  REQUIRE(p.parts.size() == 3);
  CHECK(p.parts[0].tileRatio == 0); // the producer: the reference
  for (int i : {1, 2}) {
    CHECK(p.parts[i].tileRatio == 2);
    CHECK(p.parts[i].tileStep == 1);
    CHECK(p.parts[i].tileRef == 0);
    CHECK(p.parts[i].phaseWaiter == 1); // the replicas share the first one's phase accounting
  }
  CHECK(loopMismatch(p.parts).empty()); // the steps differ by a whole ratio: not named as a mismatch
  // Without the ratio (as where the replicas' phases do not resolve, Encoder::resolveTilePhases) the steps are named.
  p.parts[1].tileRatio = p.parts[2].tileRatio = 0;
  p.parts[1].phaseWaiter = p.parts[2].phaseWaiter = -1;
  CHECK(loopMismatch(p.parts).find("partition0's tile loop steps 2, default's 1") != std::string::npos);
}

TEST_CASE("proof extraction: a K loop's constant trip count (ceil((ub - lb) / step); none for a symbolic bound)") {
  auto tripsOf = [](const std::string &text) -> std::optional<int64_t> {
    prooftest::Kernel k(text);
    REQUIRE_MESSAGE(k.module, k.diagnostics);
    Protocol p = extractProtocol(*k.module);
    REQUIRE(p.parts.size() == 1);
    return constantTripCount(p.parts[0]);
  };
  CHECK_FALSE(tripsOf(prooftest::kernelText()).has_value()); // 0 to %n
  CHECK(tripsOf(prooftest::kernelWithBounds("%c0 to %c3 step %c1")) == 3);
  CHECK(tripsOf(prooftest::kernelWithBounds("%c1 to %c3 step %c3")) == 1); // ceil(2 / 3)
  CHECK(tripsOf(prooftest::kernelWithBounds("%c3 to %c1 step %c1")) == 0); // a bound below the start
}

TEST_CASE("proof strength reduction: a loop-carried product with a loop-invariant becomes an iter_arg") {
  // rank starts at 3 and advances by -2 written `c + r`; the product is written `n * rank`: the reduced iter_arg
  // must start at 3 * n and advance by n * -2 whatever the operand order.
  const std::string text = R"(module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%n: i32, %t: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %cm2 = arith.constant -2 : i32
    %r = scf.for %i = %c0 to %t step %c1 iter_args(%rank = %c3) -> (i32) : i32 {
      %p = arith.muli %n, %rank : i32
      %q = arith.muli %rank, %c2 : i32
      %s = arith.addi %p, %q : i32
      %next = arith.addi %cm2, %rank : i32
      scf.yield %next : i32
    }
    %after = arith.addi %r, %c1 : i32
    tt.return
  }
})";
  prooftest::Kernel k(text);
  REQUIRE_MESSAGE(k.module, k.diagnostics);
  mlir::OwningOpRef<mlir::ModuleOp> reduced = strengthReduced(*k.module);
  REQUIRE(reduced);
  CHECK(mlir::succeeded(mlir::verify(reduced->getOperation())));
  // The original is untouched: one iter_arg, both products in the body.
  auto loopOf = [](mlir::ModuleOp m) {
    mlir::scf::ForOp loop;
    m.walk([&](mlir::scf::ForOp f) { loop = f; });
    return loop;
  };
  CHECK(loopOf(*k.module).getNumRegionIterArgs() == 1);
  mlir::scf::ForOp loop = loopOf(*reduced);
  REQUIRE(loop.getNumRegionIterArgs() == 2);
  mlir::BlockArgument rank = loop.getRegionIterArgs()[0], g = loop.getRegionIterArgs()[1];
  mlir::Value n = loop->getParentRegion()->getArgument(0); // the function's %n
  // %p reads the new iter_arg; %q (a constant factor) is still a product.
  int products = 0;
  for (mlir::Operation &op : *loop.getBody())
    if (auto mul = llvm::dyn_cast<mlir::arith::MulIOp>(op)) {
      ++products;
      CHECK(mul.getLhs() == rank);
      CHECK(mlir::matchPattern(mul.getRhs(), mlir::m_Constant()));
    }
  CHECK(products == 1);
  auto sum = llvm::cast<mlir::arith::AddIOp>(*g.getUsers().begin());
  CHECK(sum.getLhs() == g);
  // The init is rank0 * n before the loop; the yield advances it by n * -2; rank's own yield is unchanged and the
  // loop's first result still feeds %after.
  llvm::APInt c;
  auto init = loop.getInitArgs()[1].getDefiningOp<mlir::arith::MulIOp>();
  REQUIRE(init);
  CHECK((mlir::matchPattern(init.getLhs(), mlir::m_ConstantInt(&c)) && c == 3));
  CHECK(init.getRhs() == n);
  CHECK(init->isBeforeInBlock(loop));
  auto yield = llvm::cast<mlir::scf::YieldOp>(loop.getBody()->getTerminator());
  auto next = yield.getOperand(1).getDefiningOp<mlir::arith::AddIOp>();
  REQUIRE(next);
  CHECK(next.getLhs() == g);
  auto inc = next.getRhs().getDefiningOp<mlir::arith::MulIOp>();
  REQUIRE(inc);
  CHECK(inc.getLhs() == n);
  CHECK((mlir::matchPattern(inc.getRhs(), mlir::m_ConstantInt(&c)) && c.getSExtValue() == -2));
  auto rankNext = yield.getOperand(0).getDefiningOp<mlir::arith::AddIOp>();
  REQUIRE(rankNext);
  CHECK(rankNext.getRhs() == rank);
  bool afterUsesResult = false;
  for (mlir::Operation *user : loop.getResult(0).getUsers())
    afterUsesResult |= llvm::isa<mlir::arith::AddIOp>(user);
  CHECK(afterUsesResult);
  // Without a loop-invariant symbolic factor, nothing to reduce.
  std::string plain = text;
  plain.replace(plain.find("%p = arith.muli %n, %rank"), 25, "%p = arith.addi %n, %rank");
  prooftest::Kernel k2(plain);
  REQUIRE_MESSAGE(k2.module, k2.diagnostics);
  CHECK(!strengthReduced(*k2.module));
  // A rank yielded through a select (not `r + c`) is no counter: nothing to reduce either.
  std::string selected = text;
  selected.replace(selected.find("scf.yield %next : i32"), 21,
                   "%cond = arith.cmpi slt, %next, %n : i32\n      %sel = arith.select %cond, %next, %rank : i32\n"
                   "      scf.yield %sel : i32");
  prooftest::Kernel k3(selected);
  REQUIRE_MESSAGE(k3.module, k3.diagnostics);
  CHECK(!strengthReduced(*k3.module));
}
