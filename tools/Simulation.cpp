#include "tools/Simulation.h"

#include "tools/CommandLine.h"

#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "runner/ProtonBuffer.h"
#include "sim/Binary.h"
#include "sim/Lowering.h"
#include "verifier/Verifier.h"
#include "verifier/proof/Prover.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace tlxsim::tool {
namespace {

/// `explicitPath` if given, else the file next to `input` with extension `ext`, if it exists ("" when `input` is "").
std::string companionFile(StringRef input, StringRef explicitPath, StringRef ext) {
  if (!explicitPath.empty())
    return explicitPath.str();
  if (input.empty())
    return "";
  SmallString<256> sibling(input);
  sys::path::replace_extension(sibling, ext);
  return sibling != input && sys::fs::exists(sibling) ? std::string(sibling) : std::string();
}

/// What the simulation takes from Triton's metadata JSON.
struct MetadataFacts {
  int64_t sharedBytes = -1;          ///< `shared` (bytes); -1 if absent
  uint64_t protonSegmentEntries = 0; ///< Proton's entries per warp segment (SimOptions); 0 if not instrumented
};

/// Reads `shared` and, for a Proton-instrumented kernel, the entries of each warp's circular segment: the CTA's
/// `profile_scratch_size` less its header (kHeaderBytes and a 4-byte count per warp, runner/ProtonBuffer.h) rounded up
/// to `profile_scratch_align`, split over `num_warps` segments of 8-byte entries (triton 3.6.0 / fbtriton 3.7.4: 128
/// to 1024 entries on the captures of traces/h200/proton-captures). A size that does not split evenly keeps 0.
Expected<MetadataFacts> readMetadata(StringRef input, StringRef explicitPath) {
  MetadataFacts facts;
  std::string path = companionFile(input, explicitPath, ".json");
  if (path.empty())
    return facts;
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return createStringError("%s: cannot read metadata: %s", path.c_str(), buffer.getError().message().c_str());
  auto json = json::parse((*buffer)->getBuffer());
  if (!json)
    return createStringError("%s: invalid JSON: %s", path.c_str(), toString(json.takeError()).c_str());
  const json::Object *root = json->getAsObject();
  if (!root)
    return facts;
  facts.sharedBytes = root->getInteger("shared").value_or(-1);
  int64_t scratch = root->getInteger("profile_scratch_size").value_or(0);
  int64_t warps = root->getInteger("num_warps").value_or(0);
  int64_t align = root->getInteger("profile_scratch_align").value_or(1);
  if (scratch > 0 && warps > 0 && align > 0) {
    namespace proton = runner::proton;
    int64_t header = (static_cast<int64_t>(proton::kHeaderBytes) + 4 * warps + align - 1) / align * align;
    int64_t segment = static_cast<int64_t>(proton::kEntryBytes) * warps;
    if (scratch > header && (scratch - header) % segment == 0)
      facts.protonSegmentEntries = static_cast<uint64_t>((scratch - header) / segment);
  }
  return facts;
}

/// Whether some wgmma dot of `program` is several wgmma.mma_async instructions (Instr::aux > 1): only then does a
/// serialized wgmma pipeline (sim/Binary.h cubinWgmmaIssue) differ from the IR's own waits.
bool hasMultiInstructionDot(const sim::Program &program) {
  for (const sim::Block &block : program.blocks)
    for (const sim::Instr &instr : block.instrs)
      if (instr.op == sim::Op::WgmmaIssue && instr.aux > 1)
        return true;
  return false;
}

} // namespace

std::string spillWarning(int32_t stackBytes) {
  if (stackBytes < kSpillFrameBytes)
    return "";
  return formatv("binary spills registers: {0} bytes of stack per thread; local-memory traffic is not modeled, "
                 "measured kernels that spill ran 1.5-7x slower than predicted",
                 stackBytes)
      .str();
}

void WarningCollector::onUnknownOp(const std::string &name, int32_t loc) {
  if (!seen.insert({name, program.locs[loc].str()}).second)
    return;
  warnings.push_back(program.locs[loc].str() + ": warning: op '" + name +
                     "' has no simulator semantics; it was treated as free and its results as unknown");
}

Expected<std::vector<verifier::Finding>> findingsOfStall(const PreparedSimulation &prepared) {
  auto engine = sim::Engine::create(*prepared.program, *prepared.model, prepared.launch, prepared.options);
  if (!engine)
    return engine.takeError();
  verifier::Verifier checks(*prepared.program);
  checks.attach(**engine);
  auto result = (*engine)->run();
  if (!result)
    return result.takeError();
  return checks.findings();
}

std::map<std::string, int64_t> namedLaunchValues(const sim::Launch &launch) {
  std::map<std::string, int64_t> out;
  for (auto &entry : launch.args)
    out[entry.getKey().str()] = entry.getValue();
  if (launch.haveGrid || !launchFilePath().empty()) {
    out["num_programs_x"] = launch.grid[0];
    out["num_programs_y"] = launch.grid[1];
    out["num_programs_z"] = launch.grid[2];
  }
  return out;
}

std::vector<std::string> preconditionWarnings(const sim::Launch &launch) {
  std::vector<std::string> out;
  std::map<std::string, int64_t> values = namedLaunchValues(launch);
  for (const std::string &text : launch.preconditions) {
    verifier::proof::Assumption a;
    if (!verifier::proof::parseAssumption(text, a).empty())
      continue; // the prover's parse reports it (check); predict runs without it
    auto it = values.find(a.name);
    if (it == values.end())
      continue; // program ids and arguments the launch leaves free
    if (!verifier::proof::assumptionHolds(a, it->second, a.value))
      out.push_back("tlx-sim: warning: this launch has " + a.name + "=" + std::to_string(it->second) +
                    ", outside the kernel's launch precondition " + text +
                    " (launch.json \"preconditions\": what its host code guarantees); what this run finds there is "
                    "outside what the kernel promises");
  }
  return out;
}

SimulationRequest requestFromOptions() {
  SimulationRequest r;
  r.input = inputFile;
  r.launchFile = launchFilePath();
  r.grid = gridOpt;
  r.args.assign(argOpts.begin(), argOpts.end());
  r.descs.assign(descOpts.begin(), descOpts.end());
  r.metadata = metadataOpt;
  r.binary = binaryOpt;
  r.irOnly = irOnlyOpt;
  // -1 is the option's "whole grid" default; given explicitly, it and any other value below 1 are refused
  // (sim::Engine::create): 0 stands for them
  r.maxCtas = maxCtasOpt.getNumOccurrences() && maxCtasOpt < 1 ? 0 : maxCtasOpt.getValue();
  r.model = modelOpt;
  r.sets.assign(setOpts.begin(), setOpts.end());
  return r;
}

int prepareSimulation(PreparedSimulation &out) { return prepareSimulation(requestFromOptions(), out); }

llvm::Error takeFault(llvm::Error error, const sim::Program &program, std::optional<FaultFinding> &fault) {
  return llvm::handleErrors(std::move(error), [&](const sim::KernelFault &f) {
    FaultFinding out;
    out.finding.cls = f.cls;
    out.finding.message = f.message + " (the simulation stops here)";
    if (f.loc >= 0)
      out.finding.location = program.locs[f.loc];
    out.ctasSimulated = f.ctasSimulated;
    fault = std::move(out);
  });
}

int prepareSimulation(const SimulationRequest &request, PreparedSimulation &out) {
  const std::string &inputFile = request.input;
  out.context = ir::makeContext();
  std::string diagnostics; // printed as they are; the first line is also --json's error message
  raw_string_ostream diagStream(diagnostics);
  out.module = ir::readTTGIR(inputFile, *out.context, diagStream);
  errs() << diagnostics;
  if (!out.module) {
    noteError(StringRef(diagnostics).split('\n').first.trim());
    return kBadInput;
  }
  auto program = sim::lowerModule(*out.module);
  if (!program) {
    int code = kBadInput;
    handleAllErrors(
        program.takeError(),
        [&](const sim::UnsupportedError &err) {
          errs() << "tlx-sim: unsupported: " << inputFile << ": " << err.message() << "\n";
          noteError("unsupported: " + inputFile + ": " + err.message());
          code = kInternal;
        },
        [&](const ErrorInfoBase &err) { badInput(inputFile + ": " + err.message()); });
    return code;
  }
  out.program.emplace(std::move(*program));
  const sim::Program &prog = *out.program;

  std::string modelName = request.model;
  if (modelName.empty())
    modelName = sim::GpuModel::defaultForTarget(prog.target);
  if (modelName.empty())
    return badInput(inputFile + ": no GPU model for target '" + prog.target + "'; pass --model");
  auto model = sim::GpuModel::load(modelName, sim::GpuModel::defaultModelsDir());
  if (!model)
    return badInput(toString(model.takeError()));
  if (!model->target().empty() && !prog.target.empty() && model->target() != prog.target)
    return badInput("model '" + model->name() + "' is for " + model->target() + ", the kernel targets " +
                    prog.target);
  for (const std::string &assignment : request.sets)
    if (auto err = model->set(assignment))
      return badInput(toString(std::move(err)));
  out.model.emplace(std::move(*model));

  if (!request.launchFile.empty())
    if (auto err = out.launch.loadJson(request.launchFile))
      return badInput(toString(std::move(err)));
  if (request.launch)
    if (auto err = out.launch.loadJsonObject(*request.launch, request.launchContext))
      return badInput(toString(std::move(err)));
  if (!request.grid.empty())
    if (auto err = out.launch.setGrid(request.grid))
      return badInput(toString(std::move(err)));
  for (const std::string &arg : request.args)
    if (auto err = out.launch.setArg(arg))
      return badInput(toString(std::move(err)));
  for (const std::string &desc : request.descs)
    if (auto err = out.launch.setDesc(desc))
      return badInput(toString(std::move(err)));

  out.options.maxCtas = request.maxCtas;
  if (request.maxInstructions)
    out.options.maxInstructions = request.maxInstructions;
  out.options.maxSeconds = request.maxSeconds;
  std::string ttgirPath = ir::resolveTTGIRPath(inputFile, nulls()); // companions of a cache dir's .ttgir
  if (request.irOnly)
    ttgirPath.clear(); // --ir-only: no companion files next to the input (explicit --metadata / --binary still count)
  auto metadata = readMetadata(ttgirPath, request.metadata);
  if (!metadata)
    return badInput(toString(metadata.takeError()));
  out.options.sharedBytesPerCta = metadata->sharedBytes;
  out.options.protonSegmentEntries = metadata->protonSegmentEntries;
  std::string binary = companionFile(ttgirPath, request.binary, ".cubin");
  if (binary.empty() && !ttgirPath.empty())
    binary = companionFile(ttgirPath, "", ".hsaco");
  if (std::string cubin = binary; !cubin.empty() && !StringRef(cubin).ends_with(".hsaco")) {
    auto resources = sim::readCubinResources(cubin, prog.kernelName);
    if (!resources)
      return badInput(toString(resources.takeError()));
    out.options.registersPerThread = resources->registersPerThread;
    out.options.staticSharedBytesPerCta = resources->staticSharedBytes;
    out.stackFrameBytes = resources->stackFrameBytes;
    out.wgmmaIssue = resources->wgmma;
    out.tmaIssue = resources->tma;
    if (request.binaryTiming && resources->tma.copies > 0 &&
        out.model->params().count("tma_issue_cycles_per_loop_instruction") > 0)
      out.options.tmaLoopInstructionsPerCopy = resources->tma.instructionsPerCopy();
    if (request.binaryTiming && resources->wgmma.allSerialized() && hasMultiInstructionDot(prog)) {
      out.options.wgmmaSerialized = true;
      out.warnings.push_back(cubin + ": warning: ptxas serialized the wgmma pipeline: each of the " +
                             std::to_string(resources->wgmma.instructions) +
                             " HGMMA instructions is waited on (WARPGROUP.DEPBAR) before the next issues, so no "
                             "two wgmmas overlap (ptxas's 'wgmma.mma_async instructions are serialized' performance "
                             "warning; usual causes: register pressure, code between the wgmmas of a pipeline "
                             "stage); the prediction runs the wgmmas serialized as well");
    }
  } else if (std::string hsaco = binary; !hsaco.empty()) { // an AMDGPU code object
    auto resources = sim::readHsacoResources(hsaco, prog.kernelName);
    if (!resources)
      return badInput(toString(resources.takeError()));
    out.options.registersPerThread = resources->registersPerThread;
    out.stackFrameBytes = resources->spilledBytes;
  }
  if (std::string w = spillWarning(out.stackFrameBytes); !w.empty())
    out.warnings.push_back(binary + ": warning: " + w);
  for (std::string &w : preconditionWarnings(out.launch))
    out.warnings.push_back(std::move(w));
  for (std::string &w : out.launch.unusedValueWarnings(prog))
    out.warnings.push_back(std::move(w));
  for (std::string &w : out.launch.divisibilityWarnings(prog))
    out.warnings.push_back(inputFile + ": warning: " + w);

  auto engine = sim::Engine::create(prog, *out.model, out.launch, out.options);
  if (!engine)
    return badInput(inputFile + ": " + toString(engine.takeError()));
  out.engine = std::move(*engine);
  return kClean;
}

} // namespace tlxsim::tool
