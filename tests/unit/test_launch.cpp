// Launch binding: flags, JSON, and errors that name what is missing.
#include "sim/Launch.h"

#include <doctest/doctest.h>

using namespace tlxsim::sim;

namespace {
Program programWithArgs() {
  Program p;
  p.numSlots = 6;
  KernelArg desc;
  desc.kind = KernelArg::Desc;
  desc.name = "a_desc";
  desc.slot = 0;
  desc.block = {128, 64};
  p.args.push_back(desc);
  for (int i = 0; i < 4; ++i) {
    KernelArg part;
    part.kind = i < 2 ? KernelArg::DescShape : KernelArg::DescStride;
    part.name = "a_desc";
    part.slot = 1 + i;
    part.dim = i % 2;
    p.args.push_back(part);
  }
  KernelArg k;
  k.name = "K";
  k.slot = 5;
  p.args.push_back(k);
  return p;
}
} // namespace

TEST_CASE("flags bind scalars by name and expand descriptor shapes and strides") {
  Launch l;
  REQUIRE_FALSE(llvm::errorToBool(l.setGrid("64,2")));
  REQUIRE_FALSE(llvm::errorToBool(l.setArg("K=8192")));
  REQUIRE_FALSE(llvm::errorToBool(l.setDesc("a_desc=4096x8192")));
  CHECK(l.numCtas() == 128);
  auto frame = l.bind(programWithArgs());
  REQUIRE(frame);
  CHECK((*frame)[0].kind == Value::Desc);
  CHECK((*frame)[1].i == 4096);
  CHECK((*frame)[2].i == 8192);
  CHECK((*frame)[3].i == 8192); // row stride
  CHECK((*frame)[4].i == 1);
  CHECK((*frame)[5].i == 8192);
}

TEST_CASE("a missing value is an error naming it") {
  Launch l;
  auto frame = l.bind(programWithArgs());
  REQUIRE_FALSE(frame);
  std::string message = llvm::toString(frame.takeError());
  CHECK(message.find("the grid") != std::string::npos);
  CHECK(message.find("'K'") != std::string::npos);
  CHECK(message.find("'a_desc'") != std::string::npos);
}

TEST_CASE("malformed flags are rejected") {
  Launch l;
  CHECK(llvm::errorToBool(l.setGrid("0")));
  CHECK(llvm::errorToBool(l.setGrid("1,2,3,4")));
  CHECK(llvm::errorToBool(l.setGrid("x")));
  CHECK(llvm::errorToBool(l.setArg("K")));
  CHECK(llvm::errorToBool(l.setArg("K=abc")));
  CHECK(llvm::errorToBool(l.setDesc("a_desc=12xq")));
  CHECK(llvm::errorToBool(l.loadJson("/nonexistent/launch.json")));
}

TEST_CASE("cluster launches: Triton's num-ctas multiplies the grid, ctas_per_cga regroups it") {
  Launch l;
  REQUIRE_FALSE(llvm::errorToBool(l.setGrid("4,2")));
  Program tlx; // TLX ctas_per_cga = (2, 2, 1): ttg.num-ctas 1, the grid counts CTAs
  tlx.clusterDims = {2, 2, 1};
  CHECK(tlx.clusterSize() == 4);
  CHECK(l.ctaGrid(tlx) == std::array<int64_t, 3>{4, 2, 1});
  CHECK_FALSE(llvm::errorToBool(l.checkClusters(tlx)));
  Program triton; // Triton num_ctas = 2: clusters of 2 along x, the grid counts clusters
  triton.numCtas = 2;
  triton.clusterDims = {2, 1, 1};
  CHECK(l.ctaGrid(triton) == std::array<int64_t, 3>{8, 2, 1});
  CHECK_FALSE(llvm::errorToBool(l.checkClusters(triton)));
  REQUIRE_FALSE(llvm::errorToBool(l.setGrid("3,2")));
  llvm::Error err = l.checkClusters(tlx);
  REQUIRE(static_cast<bool>(err));
  std::string message = llvm::toString(std::move(err));
  CHECK(message.find("(3, 2, 1) is not a whole number of clusters of shape (2, 2, 1)") != std::string::npos);
  CHECK(message.find("CUDA_ERROR_INVALID_CLUSTER_SIZE") != std::string::npos);
  CHECK_FALSE(llvm::errorToBool(l.checkClusters(triton))); // (6, 2, 1): whole clusters of (2, 1, 1)
}

TEST_CASE("a launch spec's cluster_dims must match the module's cluster shape") {
  auto spec = llvm::json::parse(R"({"grid": [4, 2], "cluster_dims": [2, 2]})");
  REQUIRE(static_cast<bool>(spec));
  Launch l;
  REQUIRE_FALSE(llvm::errorToBool(l.loadJsonObject(*spec->getAsObject(), "launch.json")));
  REQUIRE(l.clusterDims.has_value());
  CHECK(*l.clusterDims == std::array<int64_t, 3>{2, 2, 1});
  Program tlx;
  tlx.clusterDims = {2, 2, 1};
  CHECK_FALSE(llvm::errorToBool(l.checkClusters(tlx)));
  Program single; // no cluster in the module
  llvm::Error err = l.checkClusters(single);
  REQUIRE(static_cast<bool>(err));
  CHECK(llvm::toString(std::move(err)).find("cluster_dims (2, 2, 1) disagree with the module's cluster shape (1, 1, 1)") !=
        std::string::npos);
  auto bad = llvm::json::parse(R"({"cluster_dims": [2, 0]})");
  REQUIRE(static_cast<bool>(bad));
  Launch b;
  CHECK(llvm::errorToBool(b.loadJsonObject(*bad->getAsObject(), "launch.json")));
}
