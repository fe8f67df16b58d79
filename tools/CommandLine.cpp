#include "tools/CommandLine.h"

#include "ir/InputPath.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace tlxsim::tool {

cl::SubCommand &checkCommand() {
  static cl::SubCommand sub("check", "Find deadlocks and barrier-protocol errors by simulating a launch");
  return sub;
}
cl::SubCommand &predictCommand() {
  static cl::SubCommand sub("predict", "Predict the kernel's time on a modeled GPU");
  return sub;
}
cl::SubCommand &irCommand() {
  static cl::SubCommand sub("ir", "Print the module as tlx-sim reads it (MLIR generic form)");
  return sub;
}
cl::SubCommand &runCommand() {
  static cl::SubCommand sub("run", "Launch a captured cubin/hsaco on the GPU (CUDA driver API / HIP), check and time it");
  return sub;
}

cl::SubCommand &xcheckCommand() {
  static cl::SubCommand sub("xcheck", "Compare predictions with the hardware runs recorded in traces/");
  return sub;
}
cl::SubCommand &traceCommand() {
  static cl::SubCommand sub("trace", "Write a Chrome/Perfetto trace of one SM's partitions and units");
  return sub;
}
cl::SubCommand &reportCommand() {
  static cl::SubCommand sub("report", "Write a self-contained HTML report of one launch (summary, timeline, waits, "
                                      "findings, model)");
  return sub;
}
cl::SubCommand &diffCommand() {
  static cl::SubCommand sub("diff", "Compare two `predict --json` outputs");
  return sub;
}

cl::OptionCategory &launchCategory() {
  static cl::OptionCategory cat("Launch options");
  return cat;
}
cl::OptionCategory &outputCategory() {
  static cl::OptionCategory cat("Output options");
  return cat;
}

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<FILE.ttgir | Triton cache dir | capture dir (its launch.json gives the launch)>"),
                               cl::Required, cl::sub(checkCommand()), cl::sub(predictCommand()), cl::sub(irCommand()),
                               cl::sub(runCommand()), cl::sub(traceCommand()), cl::sub(reportCommand()));

#define TLXSIM_LAUNCH_SUBS                                                                                           \
  cl::cat(launchCategory()), cl::sub(checkCommand()), cl::sub(predictCommand()), cl::sub(traceCommand()),              \
      cl::sub(reportCommand())

cl::opt<std::string> gridOpt("grid", cl::desc("Grid size X[,Y[,Z]]"), cl::value_desc("X,Y,Z"), TLXSIM_LAUNCH_SUBS);
cl::list<std::string> argOpts("arg", cl::desc("Scalar kernel argument by its Python name (repeatable)"),
                              cl::value_desc("NAME=VALUE"), TLXSIM_LAUNCH_SUBS);
cl::list<std::string> descOpts("desc", cl::desc("Global shape of a tensor-descriptor argument (repeatable)"),
                               cl::value_desc("NAME=D0xD1"), TLXSIM_LAUNCH_SUBS);
cl::opt<std::string> launchOpt("launch", cl::desc("Launch spec JSON with keys grid, args, descs"),
                               cl::value_desc("FILE.json"), TLXSIM_LAUNCH_SUBS);

std::string launchFilePath() {
  if (!launchOpt.empty() || !llvm::sys::fs::is_directory(inputFile))
    return launchOpt;
  // The capture folder of the input's .ttgir: the input itself, or the one capture folder inside it.
  std::string ttgir = ir::resolveTTGIRPath(inputFile.getValue(), llvm::nulls());
  llvm::SmallString<256> inFolder(ttgir.empty() ? inputFile.getValue() : llvm::sys::path::parent_path(ttgir));
  llvm::sys::path::append(inFolder, "launch.json");
  return llvm::sys::fs::exists(inFolder) ? std::string(inFolder) : std::string();
}
cl::opt<std::string> metadataOpt("metadata",
                                 cl::desc("Triton metadata JSON (default: <FILE>.json next to the input, if present)"),
                                 cl::value_desc("FILE.json"), TLXSIM_LAUNCH_SUBS);
cl::opt<std::string> binaryOpt("binary",
                               cl::desc("Captured cubin for register-limited occupancy (default: <FILE>.cubin next to "
                                        "the input, if present)"),
                               cl::value_desc("FILE.cubin"), TLXSIM_LAUNCH_SUBS);
cl::opt<bool> irOnlyOpt("ir-only",
                        cl::desc("Ignore the metadata JSON and binary next to the input: shared memory from Triton's "
                                 "allocation rules applied to the IR, registers from the IR (as a user without the "
                                 "binary has them)"),
                        TLXSIM_LAUNCH_SUBS);
cl::opt<int64_t> maxCtasOpt("max-ctas", cl::desc("Simulate only the first N CTAs of the grid"), cl::init(-1),
                            TLXSIM_LAUNCH_SUBS);
cl::opt<std::string> modelOpt("model", cl::desc("GPU model name (models/<name>.json) or path; default from ttg.target"),
                              TLXSIM_LAUNCH_SUBS, cl::sub(xcheckCommand()));
cl::list<std::string> setOpts("set", cl::desc("Override a model parameter (repeatable)"), cl::value_desc("KNOB=VALUE"),
                              TLXSIM_LAUNCH_SUBS, cl::sub(xcheckCommand()));
#undef TLXSIM_LAUNCH_SUBS

cl::opt<std::string> outputOpt("o", cl::desc("Output file ('-' for stdout)"), cl::value_desc("FILE"), cl::Required,
                                cl::cat(outputCategory()), cl::sub(traceCommand()), cl::sub(reportCommand()));
cl::opt<int32_t> smOpt("sm", cl::desc("The SM whose CTAs and units the timeline shows (default 0)"), cl::init(0),
                       cl::cat(outputCategory()), cl::sub(traceCommand()), cl::sub(reportCommand()));

cl::opt<std::string> protonTimelineOpt(
    "proton",
    cl::desc("A measured Proton timeline of the same launch (the Chrome trace `tlx-sim run --proton` writes): drawn "
             "under the predicted steady state, aligned at the windows' starts"),
    cl::value_desc("TRACE.json"), cl::cat(outputCategory()), cl::sub(traceCommand()), cl::sub(reportCommand()));
cl::opt<int32_t> steadyIterationsOpt(
    "steady-iterations",
    cl::desc("Loop iterations in the zoomed steady-state view of one CTA (default 4): the window runs from the middle "
             "occurrence of the most repeated wait over this many more"),
    cl::init(4), cl::cat(outputCategory()), cl::sub(traceCommand()), cl::sub(reportCommand()));

cl::opt<bool> jsonOpt("json", cl::desc("Print one JSON object (schema_version 1)"), cl::cat(outputCategory()),
                      cl::sub(checkCommand()), cl::sub(predictCommand()), cl::sub(irCommand()),
                      cl::sub(xcheckCommand()), cl::sub(runCommand()), cl::sub(diffCommand()));

namespace {
std::string &lastErrorText() {
  static std::string text;
  return text;
}
} // namespace

int badInput(const Twine &message) {
  lastErrorText() = message.str();
  errs() << "tlx-sim: error: " << lastErrorText() << "\n";
  return kBadInput;
}

const std::string &lastError() { return lastErrorText(); }

void noteError(StringRef message) { lastErrorText() = message.str(); }

std::vector<CommandEntry> &commandRegistry() {
  static std::vector<CommandEntry> registry;
  return registry;
}

} // namespace tlxsim::tool
