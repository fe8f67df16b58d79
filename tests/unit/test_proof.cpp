// The Z3 protocol prover (verifier/proof): assumptions, verdicts on a correct kernel, a counterexample's
// launch on a parametric bug.
#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "verifier/proof/Lemmas.h"
#include "verifier/proof/Prover.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace tlxsim;
using verifier::proof::Assumption;
using verifier::proof::parseAssumption;

namespace {

verifier::proof::ProofReport prove(const std::string &relPath, verifier::proof::ProofOptions options = {}) {
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  auto module = ir::readTTGIR(std::string(TLXSIM_SOURCE_DIR) + "/" + relPath, *ctx, llvm::errs());
  REQUIRE(module);
  return verifier::proof::proveProtocol(*module, options);
}

} // namespace

TEST_CASE("assumptions parse as NAME OP INTEGER in either order") {
  Assumption a;
  CHECK(parseAssumption("K>=64", a).empty());
  CHECK(a.name == "K");
  CHECK(a.op == ">=");
  CHECK(a.value == 64);
  CHECK(parseAssumption(" 16 < num_programs_x ", a).empty());
  CHECK(a.name == "num_programs_x");
  CHECK(a.op == ">");
  CHECK(a.value == 16);
  CHECK(parseAssumption("K!=-1", a).empty());
  CHECK(a.value == -1);
  CHECK_FALSE(parseAssumption("K=>64", a).empty());
  CHECK_FALSE(parseAssumption("K>=", a).empty());
  CHECK_FALSE(parseAssumption("K", a).empty());
}

TEST_CASE("the correct Hopper WS GEMM (S = 2) is proved for all trip counts") {
  auto report = prove("tests/inputs/hopper/ws_gemm/s2/ws_gemm_kernel.ttgir");
  // 4 barrier properties x {ready, empty} + stage-ownership x {a_bufs, b_bufs, c_smem} + proxy-fence on c_smem
  // (c_smem: the epilogue's TMA store reads it until async_tma_store_wait; rewriting it before is a violation)
  REQUIRE(report.results.size() == 12);
  int stageOwnership = 0;
  for (const auto &r : report.results)
    if (r.property == "stage-ownership") {
      ++stageOwnership;
      CHECK((r.barrier == "a_bufs" || r.barrier == "b_bufs" || r.barrier == "c_smem"));
    }
  CHECK(stageOwnership == 3);
  for (const auto &r : report.results) {
    INFO(r.property << " on " << r.barrier << ": " << r.witness);
    CHECK(r.verdict == "proved");
    CHECK(r.bound == -1);
    if (r.property == "proxy-fence" || r.barrier == "c_smem")
      CHECK(r.partitions == std::vector<std::string>{"default"});
    else
      CHECK(r.partitions == std::vector<std::string>{"default", "partition0"});
  }
  CHECK(report.seconds > 0);
}

TEST_CASE("unsatisfiable assumptions prove nothing") {
  verifier::proof::ProofOptions options;
  options.assumptions = {{"K", ">=", 64}, {"K", "<", 0}};
  auto report = prove("tests/inputs/hopper/ws_gemm/s2/ws_gemm_kernel.ttgir", options);
  CHECK(report.assumptionsUnsat);
  CHECK(report.results.empty());
}

TEST_CASE("an arrive in a zero-trip loop: counterexample at K <= 0, none once K >= 1 is assumed") {
  const char *path = "tests/inputs/proof/ws_gemm_parametric/s3_bug_zero_trip_arrive/ws_gemm_parametric_kernel.ttgir";
  verifier::proof::ProofOptions options;
  options.launch = {{"K", 8192}, {"M", 8192}, {"N", 8192}};
  auto report = prove(path, options);
  int counterexamples = 0;
  for (const auto &r : report.results) {
    if (r.verdict != "counterexample")
      continue;
    ++counterexamples;
    CHECK(r.property == "phase-balance");
    CHECK(r.barrier == "loaded");
    REQUIRE(r.params.count("K"));
    CHECK(r.params.at("K") <= 0);
    CHECK(r.params.at("M") == 8192); // kept from the launch: the violation does not depend on it
    CHECK(r.partitions == std::vector<std::string>{"default"});
    CHECK(r.location.line == 92); // the wait on `loaded`
  }
  CHECK(counterexamples == 1);

  options.assumptions = {{"K", ">=", 1}};
  auto assumed = prove(path, options);
  for (const auto &r : assumed.results)
    CHECK(r.verdict != "counterexample");
}

TEST_CASE("a tensor descriptor's shape arguments are at least 1: a K loop bounded by one has no zero-trip case") {
  // The zero-trip bug kernel above with its K loop bounded by the A descriptor's second shape argument (%a_desc_1,
  // Triton 3.6 names it after the descriptor) instead of K: cuTensorMapEncodeTiled requires every globalDim >= 1,
  // so the loop runs at least once on every launch and the arrive is never skipped.
  const char *path = "tests/inputs/proof/ws_gemm_parametric/s3_bug_zero_trip_arrive/ws_gemm_parametric_kernel.ttgir";
  auto buffer = llvm::MemoryBuffer::getFile(std::string(TLXSIM_SOURCE_DIR) + "/" + path);
  REQUIRE(buffer);
  std::string text = (*buffer)->getBuffer().str();
  size_t body = text.find("attributes {noinline = false} {");
  REQUIRE(body != std::string::npos);
  int replaced = 0;
  for (const char *use : {"%off_n, %K)", "arith.addi %K,"}) {
    size_t at = text.find(use, body);
    REQUIRE(at != std::string::npos);
    std::string now = use;
    now.replace(now.find("%K"), 2, "%a_desc_1");
    text.replace(at, std::string(use).size(), now);
    ++replaced;
  }
  CHECK(replaced == 2);
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  auto module = ir::readTTGIRText(text, "desc_k.ttgir", *ctx, llvm::errs());
  REQUIRE(module);
  verifier::proof::ProofOptions options;
  options.launch = {{"K", 8192}, {"M", 8192}, {"N", 8192}};
  auto report = verifier::proof::proveProtocol(*module, options);
  bool sawLoaded = false;
  for (const auto &r : report.results) {
    CHECK(r.verdict != "counterexample");
    if (r.property == "phase-balance" && r.barrier == "loaded") {
      sawLoaded = true;
      CHECK(r.verdict == "proved");
    }
  }
  CHECK(sawLoaded);
}

TEST_CASE("lemma learning: the per-sample memo evaluates each term once and gives the plain path's values") {
  z3::context c;
  z3::expr x = c.int_const("x"), y = c.int_const("y");
  z3::expr next = y + 1, flag = x > 2;
  z3::solver s(c);
  s.add(x == 3 && y == x + 1);
  REQUIRE(s.check() == z3::sat);
  z3::model m = s.get_model();
  verifier::proof::SampleValues memo(m, true), plain(m, false);
  for (int round = 0; round < 3; ++round) {
    CHECK(memo(next) == 5);
    CHECK(plain(next) == 5);
    CHECK(memo(flag) == 1);
    CHECK(plain(flag) == 1);
  }
  CHECK(memo.evaluations() == 2); // one per term
  CHECK(plain.evaluations() == 6);
  CHECK(verifier::proof::modelValue(m, c.int_const("free")) == 0); // model completion
}

TEST_CASE("lemma learning: memoized and plain evaluation learn the same tables and verdicts") {
  for (const char *path : {"tests/inputs/hopper/ws_gemm/s3/ws_gemm_kernel.ttgir",
                           "tests/inputs/hopper/persistent_ws_gemm/s2/persistent_ws_gemm_kernel.ttgir"}) {
    INFO(path);
    verifier::proof::ProofOptions memoized, plain;
    plain.memoizeSamples = false;
    auto a = prove(path, memoized), b = prove(path, plain);
    CHECK(a.tables.size() >= 4);
    CHECK(a.results.size() >= 8);
    CHECK(a.tables == b.tables);
    REQUIRE(a.results.size() == b.results.size());
    for (size_t i = 0; i < a.results.size(); ++i)
      CHECK(a.results[i].verdict == b.results[i].verdict);
  }
}
