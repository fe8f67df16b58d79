// Speed benchmark of `predict` and `check` (tests/bench/README.md; a reported number, not a timed test).
//
// In process: reads and lowers a captured kernel, then simulates its full launch on one core (1) as `tlx-sim
// predict` does, with only the summary view attached, and (2) as `tlx-sim check` simulates it, with every checker
// of verifier/Verifier.h attached. For each it prints the median wall and CPU time over --runs runs (CPU time is
// what an unloaded core's wall time would be), the simulated CTAs and instructions per CPU second, and the ratio of
// the simulation's CPU time to the predicted hardware time (how much slower than the GPU the simulator runs).
// With --tlx-sim PATH it also runs the whole `PATH predict` and `PATH check` processes --runs times each (check
// includes the Z3 proofs) and prints their median wall and CPU time and peak resident memory: the issue-18 goal is
// <= 1 s for predict and <= 2 s for check, <= 1 GB, on the 8192^3 WS GEMM (4096 CTAs).
//
// usage: tlxsim_bench KERNEL.ttgir LAUNCH.json [--runs N] [--tlx-sim PATH]
//   e.g. build/tests/tlxsim_bench tests/inputs/hopper/ws_gemm/s3/ws_gemm_kernel.ttgir \
//            tests/inputs/hopper/ws_gemm/s3/launch.json --runs 5 --tlx-sim build/tools/tlx-sim
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
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef TLXSIM_SOURCE_DIR
#define TLXSIM_SOURCE_DIR "."
#endif

extern char **environ;

using namespace tlxsim;

namespace {
double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}
double toSeconds(const timeval &t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }
/// CPU seconds of this process (user + system): the wall time an unloaded core would take.
double cpuSeconds() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return toSeconds(usage.ru_utime) + toSeconds(usage.ru_stime);
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int fail(const std::string &what) {
  llvm::errs() << "tlxsim_bench: " << what << "\n";
  return 2;
}

/// One whole-process run of `argv`: wall and CPU seconds (user + system of the child) and its peak resident
/// memory in MB; stdout and stderr go to /dev/null. Returns the exit status (-1 if it could not run).
struct ProcessRun {
  double wall = 0, cpu = 0, peakMb = 0;
  int status = -1;
};
ProcessRun runProcess(const std::vector<std::string> &args) {
  std::vector<char *> argv;
  for (const std::string &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  ProcessRun run;
  auto begin = std::chrono::steady_clock::now();
  pid_t pid;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0) {
    int status = 0;
    struct rusage usage {};
    if (wait4(pid, &status, 0, &usage) == pid) {
      run.wall = seconds(begin);
      run.cpu = toSeconds(usage.ru_utime) + toSeconds(usage.ru_stime);
      run.peakMb = static_cast<double>(usage.ru_maxrss) / 1024.0;
      run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
  }
  posix_spawn_file_actions_destroy(&actions);
  return run;
}

/// Medians of in-process simulations of one configuration.
struct SimStats {
  std::vector<double> wall, cpu;
  sim::SimResult result;
};

void printSim(const char *what, const SimStats &s, int runs) {
  double cpu = median(s.cpu);
  double hardwareSeconds = static_cast<double>(s.result.cycles) / (s.result.clockMhz * 1e6);
  llvm::outs() << llvm::format("%-28s %.3f s wall, %.3f s CPU (median of %d); %.0f CTAs/s, %.3g instructions/s; "
                               "%.0fx the predicted hardware time\n",
                               what, median(s.wall), cpu, runs, static_cast<double>(s.result.ctasSimulated) / cpu,
                               static_cast<double>(s.result.instructions) / cpu, cpu / hardwareSeconds);
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return fail("usage: tlxsim_bench KERNEL.ttgir LAUNCH.json [--runs N] [--tlx-sim PATH]");
  std::string ttgir = argv[1], launchPath = argv[2], tlxSim;
  int runs = 3;
  for (int i = 3; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs"))
      runs = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--tlx-sim"))
      tlxSim = argv[i + 1];
  }

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

  SimStats predictStats, checkStats;
  for (int withVerifier = 0; withVerifier < 2; ++withVerifier)
    for (int run = 0; run < runs; ++run) {
      auto engine = sim::Engine::create(*program, *model, launch, options);
      if (!engine)
        return fail(llvm::toString(engine.takeError()));
      sim::SummaryView summary(*program, *model);
      verifier::Verifier checks(*program);
      if (withVerifier)
        checks.attach(**engine);
      else
        (*engine)->addListener(&summary);
      auto begin = std::chrono::steady_clock::now();
      double cpuBegin = cpuSeconds();
      auto result = (*engine)->run();
      double elapsed = seconds(begin), cpu = cpuSeconds() - cpuBegin;
      if (!result)
        return fail(llvm::toString(result.takeError()));
      SimStats &stats = withVerifier ? checkStats : predictStats;
      stats.wall.push_back(elapsed);
      stats.cpu.push_back(cpu);
      stats.result = *result;
    }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  const sim::SimResult &last = predictStats.result;
  llvm::outs() << "kernel " << program->kernelName << ": " << last.ctasSimulated << " CTAs, " << last.instructions
               << " instructions simulated, " << last.cycles << " cycles predicted ("
               << llvm::format("%.1f", static_cast<double>(last.cycles) / last.clockMhz) << " us)\n";
  llvm::outs() << llvm::format("%-28s %.3f s\n", "read + lower:", readSeconds);
  printSim("simulate as predict:", predictStats, runs);
  printSim("simulate as check:", checkStats, runs);
  llvm::outs() << llvm::format("%-28s %.1f MB\n", "peak resident memory:", usage.ru_maxrss / 1024.0);

  if (tlxSim.empty())
    return 0;
  for (const char *command : {"predict", "check"}) {
    std::vector<double> wall, cpu, peak;
    for (int run = 0; run < runs; ++run) {
      ProcessRun r = runProcess({tlxSim, command, ttgir, "--launch", launchPath});
      if (r.status != 0)
        return fail(tlxSim + " " + command + " exited " + std::to_string(r.status));
      wall.push_back(r.wall);
      cpu.push_back(r.cpu);
      peak.push_back(r.peakMb);
    }
    llvm::outs() << llvm::format("%-28s %.3f s wall, %.3f s CPU (median of %d), peak %.1f MB\n",
                                 (std::string("tlx-sim ") + command + ":").c_str(), median(wall), median(cpu), runs,
                                 *std::max_element(peak.begin(), peak.end()));
  }
  return 0;
}
