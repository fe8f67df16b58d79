// The tlx-sim command line: subcommands, the options they share, exit codes and the
// command registry. Every subcommand lives in its own file (tools/*Command.cpp) and
// registers itself with `RegisterCommand`; options shared by several subcommands are
// declared here once.
#pragma once

#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace tlxsim::tool {

/// Exit codes of design.md "Command line and output contract".
enum ExitCode { kClean = 0, kFindings = 1, kBadInput = 2, kInternal = 3 };

/// The subcommands. Function-local statics, so that options in any translation unit can
/// name them in `cl::sub(...)` regardless of static initialisation order.
llvm::cl::SubCommand &checkCommand();
llvm::cl::SubCommand &predictCommand();
llvm::cl::SubCommand &irCommand();
llvm::cl::SubCommand &xcheckCommand();
llvm::cl::SubCommand &runCommand();
llvm::cl::SubCommand &traceCommand();
llvm::cl::SubCommand &reportCommand();
llvm::cl::SubCommand &diffCommand();

/// Option categories shown by `--help`.
llvm::cl::OptionCategory &launchCategory();
llvm::cl::OptionCategory &outputCategory();

/// The positional input of check / predict / ir: a .ttgir file or a Triton cache directory;
/// of run: a capture folder (tests/inputs/<arch>/<kernel>/<config>) or its launch.json.
extern llvm::cl::opt<std::string> inputFile;
/// Launch options (check, predict): grid, scalar args, descriptor shapes, launch JSON,
/// companion files, CTA limit, GPU model and knob overrides.
extern llvm::cl::opt<std::string> gridOpt;
extern llvm::cl::list<std::string> argOpts;
extern llvm::cl::list<std::string> descOpts;
extern llvm::cl::opt<std::string> launchOpt;
/// The launch spec to read: --launch, else the `launch.json` of a capture folder given as the input (what
/// tlx_sim.capture writes: the launch the kernel was compiled for), else "" (the launch comes from the other
/// launch options alone).
std::string launchFilePath();
extern llvm::cl::opt<std::string> metadataOpt;
extern llvm::cl::opt<std::string> binaryOpt;
extern llvm::cl::opt<bool> irOnlyOpt;
extern llvm::cl::opt<int64_t> maxCtasOpt;
extern llvm::cl::opt<std::string> modelOpt;
extern llvm::cl::list<std::string> setOpts;
/// `-o FILE` of trace and report (`-` is stdout) and `--sm N`: the SM whose timeline they show.
extern llvm::cl::opt<std::string> outputOpt;
extern llvm::cl::opt<int32_t> smOpt;
extern llvm::cl::opt<std::string> protonTimelineOpt;
extern llvm::cl::opt<int32_t> steadyIterationsOpt;
/// `--json`: print one JSON object (schema_version 1).
extern llvm::cl::opt<bool> jsonOpt;

/// Prints `tlx-sim: error: <message>` to stderr and returns kBadInput (2); keeps the message for lastError().
int badInput(const llvm::Twine &message);
/// The message of the last badInput() of this process ("" if none): the `error.message` of the JSON object that
/// `--json` prints on bad input (tools/tlx-sim.cpp), where other paths report to stderr only.
const std::string &lastError();
/// Keeps `message` for lastError() without printing it (a diagnostic already printed its own way).
void noteError(llvm::StringRef message);

/// One subcommand: its llvm::cl::SubCommand and the function that runs it (returns the exit code).
struct CommandEntry {
  llvm::cl::SubCommand *sub;
  int (*run)();
};

/// All registered subcommands, in registration order.
std::vector<CommandEntry> &commandRegistry();

/// Registers a subcommand at static-initialisation time: `static RegisterCommand r(fooCommand(), runFoo);`.
struct RegisterCommand {
  RegisterCommand(llvm::cl::SubCommand &sub, int (*run)()) { commandRegistry().push_back({&sub, run}); }
};

} // namespace tlxsim::tool
