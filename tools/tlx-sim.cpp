// tlx-sim: verify and predict warp-specialized Triton kernels from their TTGIR.
//
//   tlx-sim check   FILE.ttgir [launch options] [--json]
//   tlx-sim predict FILE.ttgir [--model h200] [--set KNOB=VALUE] [launch options] [--json]
//   tlx-sim ir      FILE.ttgir            (prints the module as read, MLIR generic form)
//
// Exit codes (design.md): 0 clean, 1 findings, 2 bad input or usage, 3 internal error.
#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "ir/Stats.h"
#include "sim/Binary.h"
#include "sim/Engine.h"
#include "sim/Lowering.h"
#include "sim/SummaryView.h"
#include "verifier/Verifier.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

using namespace llvm;
using namespace tlxsim;

namespace {

enum ExitCode { kClean = 0, kFindings = 1, kBadInput = 2, kInternal = 3 };

cl::SubCommand checkCmd("check", "Find deadlocks and barrier-protocol errors by simulating a launch");
cl::SubCommand predictCmd("predict", "Predict the kernel's time on a modeled GPU");
cl::SubCommand irCmd("ir", "Print the module as tlx-sim reads it (MLIR generic form)");

cl::OptionCategory launchCat("Launch options");
cl::OptionCategory outputCat("Output options");
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<FILE.ttgir | Triton cache dir>"), cl::Required,
                               cl::sub(checkCmd), cl::sub(predictCmd), cl::sub(irCmd));
cl::opt<std::string> gridOpt("grid", cl::desc("Grid size X[,Y[,Z]]"), cl::value_desc("X,Y,Z"), cl::cat(launchCat),
                             cl::sub(checkCmd), cl::sub(predictCmd));
cl::list<std::string> argOpts("arg", cl::desc("Scalar kernel argument by its Python name (repeatable)"),
                              cl::value_desc("NAME=VALUE"), cl::cat(launchCat), cl::sub(checkCmd), cl::sub(predictCmd));
cl::list<std::string> descOpts("desc", cl::desc("Global shape of a tensor-descriptor argument (repeatable)"),
                               cl::value_desc("NAME=D0xD1"), cl::cat(launchCat), cl::sub(checkCmd),
                               cl::sub(predictCmd));
cl::opt<std::string> launchOpt("launch", cl::desc("Launch spec JSON with keys grid, args, descs"),
                               cl::value_desc("FILE.json"), cl::cat(launchCat), cl::sub(checkCmd),
                               cl::sub(predictCmd));
cl::opt<std::string> metadataOpt("metadata",
                                 cl::desc("Triton metadata JSON (default: <FILE>.json next to the input, if present)"),
                                 cl::value_desc("FILE.json"), cl::cat(launchCat), cl::sub(checkCmd),
                                 cl::sub(predictCmd));
cl::opt<std::string> binaryOpt("binary",
                               cl::desc("Captured cubin for register-limited occupancy (default: <FILE>.cubin next to "
                                        "the input, if present)"),
                               cl::value_desc("FILE.cubin"), cl::cat(launchCat), cl::sub(checkCmd),
                               cl::sub(predictCmd));
cl::opt<int64_t> maxCtasOpt("max-ctas", cl::desc("Simulate only the first N CTAs of the grid"), cl::init(-1),
                            cl::cat(launchCat), cl::sub(checkCmd), cl::sub(predictCmd));
cl::opt<std::string> modelOpt("model", cl::desc("GPU model name (models/<name>.json) or path; default from ttg.target"),
                              cl::cat(launchCat), cl::sub(checkCmd), cl::sub(predictCmd));
cl::list<std::string> setOpts("set", cl::desc("Override a model parameter (repeatable)"), cl::value_desc("KNOB=VALUE"),
                              cl::cat(launchCat), cl::sub(checkCmd), cl::sub(predictCmd));
cl::opt<bool> jsonOpt("json", cl::desc("Print one JSON object (schema_version 1)"), cl::cat(outputCat),
                      cl::sub(checkCmd), cl::sub(predictCmd), cl::sub(irCmd));
cl::opt<bool> splitOpt("split-input-file", cl::desc("The file holds several modules separated by '// -----' lines"),
                       cl::cat(outputCat), cl::sub(irCmd));
cl::opt<bool> statsOpt("stats", cl::desc("Print op counts and the ops the reader does not know, not the module"),
                       cl::cat(outputCat), cl::sub(irCmd));

/// A user-facing error: `tlx-sim: error: ...`, exit 2.
int badInput(const Twine &message) {
  errs() << "tlx-sim: error: " << message << "\n";
  return kBadInput;
}

/// `explicitPath` if given, else the file next to `input` with extension `ext`, if it exists.
std::string companionFile(StringRef input, StringRef explicitPath, StringRef ext) {
  if (!explicitPath.empty())
    return explicitPath.str();
  SmallString<256> sibling(input);
  sys::path::replace_extension(sibling, ext);
  return sibling != input && sys::fs::exists(sibling) ? std::string(sibling) : std::string();
}

/// Reads `shared` (bytes) from Triton's metadata JSON; -1 if absent.
Expected<int64_t> sharedBytesFromMetadata(StringRef input) {
  std::string path = companionFile(input, metadataOpt, ".json");
  if (path.empty())
    return -1;
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return createStringError("%s: cannot read metadata: %s", path.c_str(), buffer.getError().message().c_str());
  auto json = json::parse((*buffer)->getBuffer());
  if (!json)
    return createStringError("%s: invalid JSON: %s", path.c_str(), toString(json.takeError()).c_str());
  if (const json::Object *root = json->getAsObject())
    if (auto shared = root->getInteger("shared"))
      return *shared;
  return -1;
}

/// Collects unknown-op warnings for the output.
struct WarningCollector : sim::Listener {
  const sim::Program &program;
  std::vector<std::string> warnings;
  explicit WarningCollector(const sim::Program &p) : program(p) {}
  std::set<std::pair<std::string, std::string>> seen;
  void onUnknownOp(const std::string &name, int32_t loc) override {
    if (!seen.insert({name, program.locs[loc].str()}).second)
      return;
    warnings.push_back(program.locs[loc].str() + ": warning: op '" + name +
                       "' has no simulator semantics; it was treated as free and its results as unknown");
  }
};

int run(bool predict) {
  auto ctx = ir::makeContext();
  auto module = ir::readTTGIR(inputFile, *ctx, errs());
  if (!module)
    return kBadInput;
  auto program = sim::lowerModule(*module);
  if (!program) {
    int code = kBadInput;
    llvm::handleAllErrors(
        program.takeError(),
        [&](const sim::UnsupportedError &err) {
          errs() << "tlx-sim: unsupported: " << inputFile << ": " << err.message() << "\n";
          code = kInternal;
        },
        [&](const llvm::ErrorInfoBase &err) { errs() << "tlx-sim: error: " << inputFile << ": " << err.message() << "\n"; });
    return code;
  }

  std::string modelName = modelOpt;
  if (modelName.empty())
    modelName = sim::GpuModel::defaultForTarget(program->target);
  if (modelName.empty())
    return badInput(inputFile + ": no GPU model for target '" + program->target + "'; pass --model");
  auto model = sim::GpuModel::load(modelName, sim::GpuModel::defaultModelsDir());
  if (!model)
    return badInput(toString(model.takeError()));
  if (!model->target().empty() && !program->target.empty() && model->target() != program->target)
    return badInput("model '" + model->name() + "' is for " + model->target() + ", the kernel targets " +
                    program->target);
  for (const std::string &assignment : setOpts)
    if (auto err = model->set(assignment))
      return badInput(toString(std::move(err)));

  sim::Launch launch;
  if (!launchOpt.empty())
    if (auto err = launch.loadJson(launchOpt))
      return badInput(toString(std::move(err)));
  if (!gridOpt.empty())
    if (auto err = launch.setGrid(gridOpt))
      return badInput(toString(std::move(err)));
  for (const std::string &arg : argOpts)
    if (auto err = launch.setArg(arg))
      return badInput(toString(std::move(err)));
  for (const std::string &desc : descOpts)
    if (auto err = launch.setDesc(desc))
      return badInput(toString(std::move(err)));

  sim::SimOptions options;
  options.maxCtas = maxCtasOpt;
  std::string ttgirPath = ir::resolveTTGIRPath(inputFile, nulls()); // companions of a cache dir's .ttgir
  auto shared = sharedBytesFromMetadata(ttgirPath);
  if (!shared)
    return badInput(toString(shared.takeError()));
  options.sharedBytesPerCta = *shared;
  if (std::string cubin = companionFile(ttgirPath, binaryOpt, ".cubin"); !cubin.empty()) {
    auto resources = sim::readCubinResources(cubin, program->kernelName);
    if (!resources)
      return badInput(toString(resources.takeError()));
    options.registersPerThread = resources->registersPerThread;
  }

  auto engine = sim::Engine::create(*program, *model, launch, options);
  if (!engine)
    return badInput(inputFile + ": " + toString(engine.takeError()));
  verifier::Verifier checks(*program);
  sim::SummaryView summary(*program, *model);
  WarningCollector warnings(*program);
  checks.attach(**engine);
  (*engine)->addListener(&warnings);
  if (predict)
    (*engine)->addListener(&summary);
  auto result = (*engine)->run();
  if (!result) {
    for (const auto &w : warnings.warnings) // they often explain the failure
      errs() << w << "\n";
    return badInput(toString(result.takeError()));
  }

  const std::vector<verifier::Finding> findings = checks.findings();
  json::Array findingsJson, warningsJson;
  for (const auto &f : findings)
    findingsJson.push_back(verifier::toJson(f));
  for (const auto &w : warnings.warnings)
    warningsJson.push_back(w);

  if (jsonOpt) {
    json::Object out;
    if (predict && findings.empty())
      out = summary.toJson(*result);
    else
      out = json::Object{{"schema_version", 1}, {"kernel", program->kernelName}};
    out["command"] = predict ? "predict" : "check";
    out["findings"] = std::move(findingsJson);
    if (!predict)
      out["proofs"] = json::Array{};
    out["warnings"] = std::move(warningsJson);
    out["ctas_simulated"] = result->ctasSimulated;
    outs() << formatv("{0:2}", json::Value(std::move(out))) << "\n";
  } else {
    for (const auto &w : warnings.warnings)
      errs() << w << "\n";
    for (const auto &f : findings)
      verifier::print(f, outs());
    if (predict && findings.empty())
      summary.print(*result, outs());
    else if (!predict && findings.empty())
      outs() << "tlx-sim check: no findings (" << result->ctasSimulated << " CTAs simulated on " << model->name()
             << ", " << result->cycles << " cycles)\n";
    else
      outs() << "tlx-sim " << (predict ? "predict" : "check") << ": " << findings.size() << " finding"
             << (findings.size() == 1 ? "" : "s") << (predict ? "; no time predicted" : "") << "\n";
  }
  return findings.empty() ? kClean : kFindings;
}

void printStats(const ir::OpStats &stats) {
  if (jsonOpt) {
    json::Object counts;
    for (const auto &[name, count] : stats.counts)
      counts[name] = count;
    json::Array unknown;
    for (const std::string &name : stats.unknown)
      unknown.push_back(name);
    outs() << formatv("{0:2}", json::Value(json::Object{{"schema_version", 1},
                                                         {"command", "ir"},
                                                         {"total_ops", stats.total},
                                                         {"ops", std::move(counts)},
                                                         {"unknown_ops", std::move(unknown)}}))
           << "\n";
    return;
  }
  outs() << stats.total << " ops, " << stats.counts.size() << " distinct, " << stats.unknown.size() << " unknown\n";
  std::vector<std::pair<int64_t, std::string>> sorted;
  for (const auto &[name, count] : stats.counts)
    sorted.emplace_back(-count, name);
  std::sort(sorted.begin(), sorted.end());
  for (const auto &[count, name] : sorted)
    outs() << formatv("{0,8} {1}{2}\n", -count, name, stats.unknown.count(name) ? "  (unknown)" : "");
}

int printIr() {
  auto ctx = ir::makeContext();
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
  if (splitOpt) {
    modules = ir::readTTGIRSplit(inputFile, *ctx, errs());
  } else if (auto module = ir::readTTGIR(inputFile, *ctx, errs())) {
    modules.push_back(std::move(module));
  }
  if (modules.empty())
    return kBadInput;
  for (size_t i = 0; i < modules.size(); ++i) {
    if (i > 0)
      outs() << "// -----\n";
    if (statsOpt) {
      printStats(ir::collectOpStats(*modules[i]));
      continue;
    }
    modules[i]->print(outs(), mlir::OpPrintingFlags().printGenericOpForm().enableDebugInfo());
    outs() << "\n";
  }
  return kClean;
}

} // namespace

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions({&launchCat, &outputCat});
  if (!cl::ParseCommandLineOptions(argc, argv, "tlx-sim: verify and predict warp-specialized Triton kernels\n",
                                   &errs()))
    return kBadInput;
  if (checkCmd)
    return run(/*predict=*/false);
  if (predictCmd)
    return run(/*predict=*/true);
  if (irCmd)
    return printIr();
  errs() << "tlx-sim: error: expected a subcommand: check, predict or ir (see --help)\n";
  return kBadInput;
}
