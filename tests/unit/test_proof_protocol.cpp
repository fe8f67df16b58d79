// Prover stage 1, protocol extraction (verifier/proof/Protocol.h): partitions, loop nests, barrier groups and
// data buffers of a tiny kernel, and the errors for kernels the prover does not encode.
#include "ProofTestModule.h"

#include "verifier/proof/Protocol.h"

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
  CHECK_FALSE(usesNamedBarriers(*k.module));
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
