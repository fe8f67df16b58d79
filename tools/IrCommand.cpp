// `tlx-sim ir`: print the module as tlx-sim reads it (MLIR generic form), or its op statistics.
#include "tools/CommandLine.h"

#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "ir/Stats.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace tlxsim::tool {
namespace {

cl::opt<bool> splitOpt("split-input-file", cl::desc("The file holds several modules separated by '// -----' lines"),
                       cl::cat(outputCategory()), cl::sub(irCommand()));
cl::opt<bool> statsOpt("stats", cl::desc("Print op counts and the ops the reader does not know, not the module"),
                       cl::cat(outputCategory()), cl::sub(irCommand()));

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

int runIr() {
  auto ctx = ir::makeContext();
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
  if (splitOpt) {
    modules = ir::readTTGIRSplit(inputFile, *ctx, errs());
  } else if (auto module = ir::readTTGIR(inputFile, *ctx, errs())) {
    modules.push_back(std::move(module));
  }
  if (modules.empty())
    return kBadInput;
  // An empty file parses as an empty module: not a TTGIR module (predict and check say "no tt.func kernel").
  if (std::all_of(modules.begin(), modules.end(), [](auto &m) { return m->getBody()->empty(); })) {
    errs() << inputFile << ": error: the file holds no operations (an empty module), not TritonGPU IR\n";
    return kBadInput;
  }
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

RegisterCommand registerIr(irCommand(), runIr);

} // namespace
} // namespace tlxsim::tool
