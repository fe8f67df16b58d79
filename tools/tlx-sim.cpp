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

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
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
      uint64_t before = outs().tell(); // the stream's offset: a redirected stdout may start past 0
      int code = command.run();
      if (jsonOpt && (code == kBadInput || code == kInternal) && outs().tell() == before) {
        // --json promises one object on stdout: on bad input or an internal error it says so (the diagnostic with
        // its location is on stderr as always)
        std::string message = lastError().empty() ? "see standard error" : lastError();
        outs() << formatv("{0:2}", json::Value(json::Object{
                                       {"schema_version", 1},
                                       {"command", command.sub->getName()},
                                       {"error", json::Object{{"exit_code", code}, {"message", message}}}}))
               << "\n";
      }
      return flushStandardOutput() ? code : kBadInput;
    }
    names += (names.empty() ? "" : ", ") + command.sub->getName().str();
  }
  errs() << "tlx-sim: error: expected a subcommand: " << names << " (see --help)\n";
  return kBadInput;
}
