// tlx-sim: verify and predict warp-specialized Triton kernels from their TTGIR.
//
//   tlx-sim check   FILE.ttgir [launch options] [--json]
//   tlx-sim predict FILE.ttgir [--model h200] [--set KNOB=VALUE] [launch options] [--json]
//   tlx-sim ir      FILE.ttgir            (prints the module as read, MLIR generic form)
//
// Each subcommand lives in tools/<Name>Command.cpp and registers itself (tools/CommandLine.h).
// Exit codes (design.md): 0 clean, 1 findings, 2 bad input or usage, 3 internal error.
#include "tools/CommandLine.h"
#include "tools/OutputFile.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace tlxsim::tool;

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions({&launchCategory(), &outputCategory()});
  if (!cl::ParseCommandLineOptions(argc, argv, "tlx-sim: verify and predict warp-specialized Triton kernels\n",
                                   &errs()))
    return kBadInput;
  std::string names;
  for (const CommandEntry &command : commandRegistry()) {
    if (*command.sub) {
      int code = command.run();
      return flushStandardOutput() ? code : kBadInput;
    }
    names += (names.empty() ? "" : ", ") + command.sub->getName().str();
  }
  errs() << "tlx-sim: error: expected a subcommand: " << names << " (see --help)\n";
  return kBadInput;
}
