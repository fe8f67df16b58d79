// Lowers a TTGIR module given as text, for the simulator's unit tests (test_sim.cpp, test_warp_agents.cpp): the
// text goes through a temporary file and ir::readTTGIR, as a captured .ttgir does.
#pragma once

#include "ir/Reader.h"
#include "sim/Lowering.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <fstream>
#include <string>

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

} // namespace tlxsim::testing
