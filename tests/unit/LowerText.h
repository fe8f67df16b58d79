// Lowers a TTGIR module given as text, for the simulator's unit tests (test_sim.cpp, test_warp_agents.cpp): the
// text goes through a temporary file and ir::readTTGIR, as a captured .ttgir does.
#pragma once

#include "ir/Reader.h"
#include "sim/Engine.h"
#include "sim/Lowering.h"
#include "verifier/Verifier.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

namespace tlxsim::testing {

/// The program `text` lowers to; the test fails (REQUIRE) with the reader's diagnostics when it does not parse or
/// lower. `ctx` must outlive the returned program's use of source locations.
inline sim::Program lowerText(mlir::MLIRContext &ctx, const std::string &text) {
  llvm::SmallString<128> path;
  llvm::sys::fs::createTemporaryFile("tlxsim-unit", "ttgir", path);
  std::ofstream(path.c_str()) << text;
  std::string diag;
  llvm::raw_string_ostream os(diag);
  auto module = ir::readTTGIR(path, ctx, os);
  llvm::sys::fs::remove(path);
  REQUIRE_MESSAGE(module, diag);
  auto lowered = sim::lowerModule(*module);
  REQUIRE(lowered);
  return std::move(*lowered);
}

/// What one checked simulation of a lowered program gave (checkedRun).
struct CheckedRun {
  std::vector<verifier::Finding> findings;
  std::vector<std::string> agents; ///< the agents' partition names, in start order
  bool stalled = false;
};

/// Simulates one CTA of `program` on GPU model `model` (models/<model>.json) with the dynamic checkers attached.
inline CheckedRun checkedRun(const sim::Program &program, const char *model, const char *modelsDir) {
  CheckedRun out;
  struct Names : sim::Listener {
    std::vector<std::string> *names;
    void onAgentStart(const sim::AgentInfo &info, sim::Cycle) override { names->push_back(info.partition); }
  } names;
  names.names = &out.agents;
  auto gpu = sim::GpuModel::load(model, modelsDir);
  REQUIRE(gpu);
  sim::Launch launch;
  REQUIRE_FALSE(llvm::errorToBool(launch.setGrid("1")));
  auto engine = sim::Engine::create(program, *gpu, launch, {});
  REQUIRE(engine);
  verifier::Verifier checks(program);
  checks.attach(**engine);
  (*engine)->addListener(&names);
  auto r = (*engine)->run();
  REQUIRE_MESSAGE(r, llvm::toString(r.takeError()));
  out.stalled = r->stalled;
  out.findings = checks.findings();
  return out;
}

} // namespace tlxsim::testing
