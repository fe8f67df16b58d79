// Speed benchmark of `predict`: reads and lowers a captured kernel, then simulates its full
// launch on one core, (1) with only the summary view (the simulator alone) and (2) with the
// verifier's checkers attached as `tlx-sim predict` runs it. Prints the median wall and CPU
// time of each over --runs runs (CPU time is what an unloaded core's wall time would be) and
// the process's peak resident memory (getrusage ru_maxrss).
//
// usage: tlxsim_bench KERNEL.ttgir LAUNCH.json [--runs N]
//   e.g. build/tests/tlxsim_bench tests/inputs/hopper/ws_gemm/s3/ws_gemm_kernel.ttgir \
//            tests/inputs/hopper/ws_gemm/s3/launch.json
// The occupancy inputs come from the files next to the kernel (Triton's metadata .json for
// `shared`, the .cubin for registers and static shared memory), as `predict` reads them.
#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "sim/Binary.h"
#include "sim/Engine.h"
#include "sim/Lowering.h"
#include "sim/SummaryView.h"
#include "verifier/Verifier.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef TLXSIM_SOURCE_DIR
#define TLXSIM_SOURCE_DIR "."
#endif

using namespace tlxsim;

namespace {
double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}
/// CPU seconds of this process (user + system): the wall time an unloaded core would take.
double cpuSeconds() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int fail(const std::string &what) {
  llvm::errs() << "tlxsim_bench: " << what << "\n";
  return 2;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return fail("usage: tlxsim_bench KERNEL.ttgir LAUNCH.json [--runs N]");
  std::string ttgir = argv[1], launchPath = argv[2];
  int runs = 3;
  for (int i = 3; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--runs"))
      runs = std::max(1, std::atoi(argv[i + 1]));

  auto start = std::chrono::steady_clock::now();
  auto ctx = ir::makeContext();
  auto module = ir::readTTGIR(ttgir, *ctx, llvm::errs());
  if (!module)
    return 2;
  auto program = sim::lowerModule(*module);
  if (!program)
    return fail(llvm::toString(program.takeError()));
  double readSeconds = seconds(start);

  auto model = sim::GpuModel::load(sim::GpuModel::defaultForTarget(program->target), TLXSIM_SOURCE_DIR "/models");
  if (!model)
    return fail(llvm::toString(model.takeError()));
  sim::Launch launch;
  if (auto err = launch.loadJson(launchPath))
    return fail(llvm::toString(std::move(err)));
  sim::SimOptions options;
  llvm::SmallString<256> companion(ttgir);
  llvm::sys::path::replace_extension(companion, ".json");
  if (auto buffer = llvm::MemoryBuffer::getFile(companion))
    if (auto json = llvm::json::parse((*buffer)->getBuffer()))
      if (auto shared = json->getAsObject()->getInteger("shared"))
        options.sharedBytesPerCta = *shared;
  llvm::sys::path::replace_extension(companion, ".cubin");
  if (llvm::sys::fs::exists(companion)) {
    auto resources = sim::readCubinResources(companion, program->kernelName);
    if (!resources)
      return fail(llvm::toString(resources.takeError()));
    options.registersPerThread = resources->registersPerThread;
    options.staticSharedBytesPerCta = resources->staticSharedBytes;
  }

  std::vector<double> alone, withChecks, aloneCpu, withChecksCpu;
  sim::SimResult last;
  for (int withVerifier = 0; withVerifier < 2; ++withVerifier)
    for (int run = 0; run < runs; ++run) {
      auto engine = sim::Engine::create(*program, *model, launch, options);
      if (!engine)
        return fail(llvm::toString(engine.takeError()));
      sim::SummaryView summary(*program, *model);
      verifier::Verifier checks(*program);
      (*engine)->addListener(&summary);
      if (withVerifier)
        checks.attach(**engine);
      auto begin = std::chrono::steady_clock::now();
      double cpuBegin = cpuSeconds();
      auto result = (*engine)->run();
      double elapsed = seconds(begin), cpu = cpuSeconds() - cpuBegin;
      (withVerifier ? withChecksCpu : aloneCpu).push_back(cpu);
      if (!result)
        return fail(llvm::toString(result.takeError()));
      last = *result;
      (withVerifier ? withChecks : alone).push_back(elapsed);
    }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  llvm::outs() << "kernel " << program->kernelName << ": " << last.ctasSimulated << " CTAs, " << last.cycles
               << " cycles predicted\n";
  llvm::outs() << llvm::format("read + lower:              %.3f s\n", readSeconds);
  llvm::outs() << llvm::format("simulate (summary only):   %.3f s wall, %.3f s CPU (median of %d)\n", median(alone),
                               median(aloneCpu), runs);
  llvm::outs() << llvm::format("simulate + verifier:       %.3f s wall, %.3f s CPU (median of %d)\n", median(withChecks),
                               median(withChecksCpu), runs);
  llvm::outs() << llvm::format("peak resident memory:      %.1f MB\n", usage.ru_maxrss / 1024.0);
  return 0;
}
