// `tlx-sim predict --sweep-arg NAME=SPEC`: one prediction per value of a launch scalar.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

#include "llvm/Support/CommandLine.h"

namespace tlxsim::tool {

/// `--sweep-arg NAME=SPEC` of predict (empty: no sweep).
extern llvm::cl::opt<std::string> sweepArgOpt;

/// The values of a sweep spec: `A:B:xF` (geometric, A, A*F, ... up to B; F > 1), `A:B:+S` or `A:B:S`
/// (arithmetic, step S > 0), or a list `A,B,C`. At most 1000 values. Errors name the spec.
llvm::Expected<std::vector<int64_t>> parseSweepValues(llvm::StringRef spec);

/// Runs `predict` once per value of `--sweep-arg` (each value prepared by prepareSimulation with
/// `--arg NAME=value` appended) and prints a row per value, or with --json an array of the
/// predict objects, each with `sweep_arg: {name, value}`. Exit 0 when every value was predicted,
/// 1 when some value had findings (its row says so), 2 on a bad spec or launch.
int runPredictSweep();

} // namespace tlxsim::tool
