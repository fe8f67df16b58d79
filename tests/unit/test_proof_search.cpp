// Prover stages 3 and 5: the lemma tables' key choice (verifier/proof/Lemmas.h), the counterexample search's
// launch preferences (verifier/proof/Driver.h), and the whole pipeline's counterexample on a tiny kernel.
#include "ProofTestModule.h"

#include "verifier/proof/Driver.h"

#include <doctest/doctest.h>

using namespace tlxsim;
using namespace tlxsim::verifier::proof;

TEST_CASE("proof lemmas: the smallest consistent key wins; none when no key determines the value") {
  std::vector<Cand> cands = {{0, -1, 1}, {0, 0, 2}}; // no variable; the loop index mod 2
  // B alternates with the index's parity; first / has / rem are constant.
  std::vector<std::vector<Obs>> obs(2);
  for (int64_t i = 0; i < 6; ++i) {
    obs[0].push_back({{0, 0, 1, 5}, {i % 2, 0, 1}});
    obs[1].push_back({{i % 2, 0, 1, 5}, {i % 2, 0, 1}});
  }
  auto choice = chooseTableKey(obs, cands);
  REQUIRE(choice);
  CHECK(choice->cand == 1);
  CHECK(choice->mask == 1); // the residue alone
  CHECK(choice->rows == std::map<TableKey, TableRow>{{{0, 0, 0, 0}, {0, 0, 1}}, {{1, 0, 0, 0}, {1, 0, 1}}});
  // A required feature is in every key tried: the residue and the in-tile feature (the second-lemma search).
  auto withInTile = chooseTableKey(obs, cands, -1, kAllFeatures, 16);
  REQUIRE(withInTile);
  CHECK(withInTile->cand == 1);
  CHECK(withInTile->mask == (1 | 16));
  CHECK_FALSE(chooseTableKey(obs, cands, -1, kLoopFeatures, 16)); // required but not allowed: no key
  // A constant value: the empty key of the first candidate (no features at all).
  std::vector<std::vector<Obs>> flat(2);
  for (int64_t i = 0; i < 4; ++i) {
    flat[0].push_back({{0, i % 2, 1, i}, {2, 1, 1}});
    flat[1].push_back({{i % 2, i % 2, 1, i}, {2, 1, 1}});
  }
  choice = chooseTableKey(flat, cands);
  REQUIRE(choice);
  CHECK(choice->cand == 0);
  CHECK(choice->mask == 0);
  CHECK(choice->rows.size() == 1);
  // The value depends on nothing observed: no table.
  std::vector<std::vector<Obs>> noise(2);
  noise[0] = {{{0, 0, 1, 5}, {0, 0, 1}}, {{0, 0, 1, 5}, {1, 0, 1}}};
  noise[1] = {{{0, 0, 1, 5}, {0, 0, 1}}, {{0, 0, 1, 5}, {1, 0, 1}}};
  CHECK_FALSE(chooseTableKey(noise, cands));
  CHECK_FALSE(chooseTableKey({{}, {}}, cands));
}

TEST_CASE("proof lemmas: the visited flag forced into the key gives the coarser second table") {
  // A slot first visited at counter 0: in the samples, (counter mod 4 == 0, first iteration) says "not visited",
  // which a later tile start at counter 4 S would contradict; keyed on the visited flag alone the value is the same.
  std::vector<Cand> cands = {{0, -1, 1}, {0, 1, 4}};
  std::vector<std::vector<Obs>> obs(2);
  for (int64_t cnt = 0; cnt < 8; ++cnt) {
    bool first = cnt == 0 || cnt == 5, visited = cnt > 0;
    TableRow val = {visited ? 1 : 0, visited ? 1 : 0, visited ? 1 : 0};
    obs[0].push_back({{0, first, visited, 0}, val});
    obs[1].push_back({{cnt % 4, first, visited, 0}, val});
  }
  auto primary = chooseTableKey(obs, cands);
  REQUIRE(primary);
  CHECK((primary->mask & 4) == 0); // the visited flag in the value: residue and first iteration in the key
  CHECK(primary->mask == 3);
  auto second = chooseTableKey(obs, cands, 1);
  REQUIRE(second);
  CHECK(second->cand == 0);
  CHECK(second->mask == 4); // the visited flag alone
  CHECK(second->rows == std::map<TableKey, TableRow>{{{0, 0, 0, 0}, {0, 0, -1}}, {{0, 0, 1, 0}, {1, 1, -1}}});
  CHECK(chooseTableKey(obs, cands, 0)->mask == primary->mask);
}

TEST_CASE("proof lemmas: per-tile tables key on the in-tile feature and hold the latest wait's parity") {
  // A per-tile barrier: `last` follows the tile index's parity; after the last tile's transition (not in tile) one
  // arrival stands unconsumed (B = 1), which no loop feature tells apart from a tile's start.
  std::vector<Cand> cands = {{0, -1, 1}, {0, Cand::kTile, 2}};
  std::vector<std::vector<Obs>> obs(2);
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t in : {1, 0}) {
      TableRow val = {in ? 0 : 1, 0, 1, in ? t % 2 : (t + 1) % 2};
      obs[0].push_back({{0, 1, 1, 3, in}, val});
      obs[1].push_back({{t % 2, 1, 1, 3, in}, val});
    }
  CHECK_FALSE(chooseTableKey(obs, cands)); // the loop features alone determine neither B nor last
  auto choice = chooseTableKey(obs, cands, -1, kAllFeatures);
  REQUIRE(choice);
  CHECK(choice->cand == 1);
  CHECK(choice->mask == (1 | 16)); // the tile index's residue and the in-tile feature
  CHECK(choice->rows.size() == 4);
  CHECK(choice->rows.at({1, 0, 0, 0, 1}) == TableRow{0, 0, 1, 1});
  CHECK(choice->rows.at({1, 0, 0, 0, 0}) == TableRow{1, 0, 1, 0});
}

TEST_CASE("proof lemmas: a cluster kernel's tables key on the CTA's rank") {
  // TLX blackwell_gemm_2cta's bar_cta: every CTA arrives on its pair leader's barrier, only the leader waits. The
  // leader's (rank 0) phase balance alternates 2 / 0 with the loop index, its visited flag set from its first wait
  // on; the odd CTA's (rank 1) stays 0, never visited. At the first iteration the two tell apart by nothing else.
  std::vector<Cand> cands = {{0, -1, 1}, {0, 0, 2}};
  std::vector<std::vector<Obs>> obs(2);
  for (int64_t rank : {0, 1})
    for (int64_t i = 0; i < 6; ++i) {
      TableRow val = {rank == 0 && i % 2 == 0 ? 2 : 0, 0, rank == 0 && i > 0 ? 1 : 0};
      obs[0].push_back({{0, i == 0, val[2], 3, 0, rank}, val});
      obs[1].push_back({{i % 2, i == 0, val[2], 3, 0, rank}, val});
    }
  CHECK_FALSE(chooseTableKey(obs, cands)); // the loop features alone: rank 0 and rank 1 disagree at one key
  auto choice = chooseTableKey(obs, cands, -1, kLoopFeatures | kRankFeature);
  REQUIRE(choice);
  CHECK(choice->cand == 1);
  CHECK(choice->mask == (1 | 2 | kRankFeature)); // the loop index's residue, the first iteration and the rank
  CHECK(choice->rows.size() == 6);
  CHECK(choice->rows.at({0, 1, 0, 0, 0, 0}) == TableRow{2, 0, 0, 0});
  CHECK(choice->rows.at({0, 0, 0, 0, 0, 0}) == TableRow{2, 0, 1, 0});
  CHECK(choice->rows.at({0, 1, 0, 0, 0, 1}) == TableRow{0, 0, 0, 0});
}

TEST_CASE("proof counterexamples: launch preferences put the first CTA, then the simulated launch, then sizes, "
          "then small sizes of the parameters the launch leaves free") {
  z3::context c;
  std::map<std::string, z3::expr> params;
  for (const char *n : {"K", "M", "cluster_rank", "num_programs_x", "program_id_x"})
    params.emplace(n, c.int_const(n));
  auto prefs = launchPreferences(c, params, {{"K", 64}, {"absent", 1}});
  std::vector<std::string> text;
  for (auto &[lhs, v] : prefs)
    text.push_back(lhs.to_string() + "=" + v.to_string());
  CHECK(text == std::vector<std::string>{"cluster_rank=0", "program_id_x=0", "K=64", "(>= K 1)=true",
                                         "(>= K 0)=true", "(>= M 1)=true", "(>= M 0)=true", "(<= M 1048576)=true",
                                         "(<= M 65536)=true", "(<= M 4096)=true", "(<= M 256)=true"});
}

namespace {
/// The result of `property` on `barrier` in `report`, null when it has none.
const ProofResult *resultOf(const ProofReport &report, const std::string &property, const std::string &barrier) {
  for (const ProofResult &r : report.results)
    if (r.property == property && r.barrier == barrier)
      return &r;
  return nullptr;
}
} // namespace

TEST_CASE("proof pipeline: the tiny kernel's repeated wait parity is a counterexample from n = 4 on") {
  prooftest::Kernel k;
  REQUIRE(k.module);
  ProofOptions options;
  ProofReport report = proveProtocol(*k.module, options);
  const ProofResult *parity = resultOf(report, "wait-parity", "bars");
  REQUIRE(parity);
  CHECK(parity->verdict == "counterexample");
  REQUIRE(parity->params.count("n"));
  CHECK(parity->params.at("n") >= 4);
  CHECK(parity->step == 4); // the 4th iteration (k = 3) revisits slot 0
  CHECK(parity->iteration == "loop iteration 3");
  CHECK(parity->location.line == 20);
  CHECK(parity->partitions == std::vector<std::string>{"default"});
  // With the launch n = 5 the search keeps the simulated value.
  options.launch = {{"n", 5}};
  report = proveProtocol(*k.module, options);
  for (const ProofResult &r : report.results)
    if (r.property == "wait-parity" && r.barrier == "bars")
      CHECK(r.params.at("n") == 5);
}

TEST_CASE("proof pipeline: constant loop bounds make the bounded check complete (runs of bounded length)") {
  // The tiny kernel over k = 1, 2 (slots 1 and 2, each arrived on once and waited with parity 0): every run ends
  // after the loop's two iterations, so the bounded check to that step sees every run and proves every property
  // without an induction query (Driver::findEndStep). Over k = 1 .. 5 slot 1 is waited on again with parity 0 at
  // k = 4: the same check finds the wait-parity counterexample there.
  auto proveTo = [](int64_t ub) {
    prooftest::Kernel k(
        prooftest::kernelWithBounds("%c1 to %ub step %c1", "%ub = arith.constant " + std::to_string(ub) + " : i32"));
    REQUIRE_MESSAGE(k.module, k.diagnostics);
    return proveProtocol(*k.module, ProofOptions{});
  };
  ProofReport ok = proveTo(3);
  REQUIRE_FALSE(ok.results.empty());
  for (const ProofResult &r : ok.results) {
    CHECK_MESSAGE(r.verdict == "proved", r.property << " " << r.verdict << " " << r.witness);
    CHECK(r.witness.find("every run ends within") == 0);
  }
  ProofReport bug = proveTo(6);
  const ProofResult *parity = resultOf(bug, "wait-parity", "bars");
  REQUIRE(parity);
  CHECK(parity->verdict == "counterexample");
  CHECK(parity->step == 4); // the loop's fourth iteration, k = 4, revisits slot 1
}
