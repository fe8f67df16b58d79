// `tlx-sim run`: launch a captured cubin / hsaco on the GPU through the CUDA driver API or HIP,
// check it against a CPU reference, time it, and optionally record it. Only the options live
// here; the runner is the runner/ library (runner/README.md), its report runner/RunReport.h.
#include "tools/CommandLine.h"

#include "runner/ProtonTrace.h"
#include "runner/Record.h"
#include "runner/RunReport.h"
#include "runner/Runner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <ctime>

using namespace llvm;
using namespace tlxsim::runner;

namespace tlxsim::tool {
namespace {

cl::opt<int> itersOpt("iters",
                      cl::desc("Timed launches per round (default: as many as fit in --rep-ms, like do_bench)"),
                      cl::init(0), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<int> roundsOpt("rounds", cl::desc("Timing rounds; the median of the round medians is reported (default 3)"),
                       cl::init(3), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<double> warmupOpt("warmup-ms", cl::desc("Warm-up time per round in ms (default 25, as record.py)"), cl::init(25),
                          cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<double> repOpt("rep-ms", cl::desc("Timing budget per round in ms when --iters is not given (default 200, as record.py)"),
                       cl::init(200), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<std::string> timerOpt("timer",
                              cl::desc("Kernel timer: cupti (device durations from CUPTI's Activity API, as "
                                       "tlx_sim/record.py), events, or auto (cupti where libcupti loads; "
                                       "$TLXSIM_CUPTI names the library)"),
                              cl::init("auto"), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<int> timerItersOpt("timer-iters",
                           cl::desc("Launches timed by CUPTI after the event rounds, in --rounds groups (default 30)"),
                           cl::init(30), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<double> hangTimeoutOpt("hang-timeout",
                               cl::desc("Seconds to wait for launched work before reporting that the kernel hangs "
                                        "(a deadlock); exit 1 (default 60)"),
                               cl::init(60), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<int> retriesOpt("retries",
                        cl::desc("Re-time the event rounds up to this many times while their CV exceeds --max-cv "
                                 "(default 2, as record.py)"),
                        cl::init(2), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<double> maxCvOpt("max-cv", cl::desc("CV of the round medians above which --retries re-times (default 0.03)"),
                         cl::init(0.03), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<bool> noFlushOpt("no-flush", cl::desc("Do not zero a 256 MiB buffer (L2 flush) before each timed launch"),
                         cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<uint64_t> seedOpt("seed", cl::desc("Seed of the input data and of the check's sample positions"), cl::init(0),
                          cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<std::string> referenceOpt("reference", cl::desc("Correctness reference: auto, gemm, attention or none"),
                                  cl::init("auto"), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<bool> dryRunOpt("dry-run", cl::desc("Print the kernel parameter layout and the reference; launch nothing"),
                        cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<std::string> recordOpt("record", cl::desc("Add the measurement to a trace file (traces/README.md)"),
                               cl::value_desc("traces/<gpu>/<kernel>.json"), cl::cat(launchCategory()),
                               cl::sub(runCommand()));
cl::opt<std::string> splitOpt("split", cl::desc("Split of a new record: fit or heldout (default fit)"), cl::init("fit"),
                              cl::cat(launchCategory()), cl::sub(runCommand()));

cl::opt<std::string> protonOpt("proton",
                               cl::desc("Run the kernel once more after the check with its Proton profile buffer "
                                        "zeroed, decode it and write a Chrome trace to OUT.json and the "
                                        "per-partition summary to OUT.summary.json (the capture must come from "
                                        "`python -m tlx_sim.capture --proton`)"),
                               cl::value_desc("OUT.json"), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<unsigned> protonCtasOpt("proton-trace-ctas",
                                cl::desc("CTAs (with events, in buffer order) in the --proton Chrome trace; 0: all "
                                         "(the summary always covers every CTA; default 2, as record.py's excerpt)"),
                                cl::init(2), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<std::string> protonRawOutOpt("proton-raw-out",
                                     cl::desc("With --proton: also save the downloaded profile buffer's first "
                                              "--proton-raw-ctas CTAs (raw bytes, CTA after CTA) for --proton-raw-in"),
                                     cl::value_desc("FILE.bin"), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<unsigned> protonRawCtasOpt("proton-raw-ctas",
                                   cl::desc("CTAs saved by --proton-raw-out (default 128; 0: all)"), cl::init(128),
                                   cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<std::string> protonRawInOpt("proton-raw-in",
                                    cl::desc("With --proton: decode a buffer saved by --proton-raw-out instead of "
                                             "running (no GPU; its CTAs are its size over profile_scratch_size)"),
                                    cl::value_desc("FILE.bin"), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<bool> protonOnlyOpt("proton-only", cl::desc("With --proton: skip the timing (check and profile launch only)"),
                            cl::cat(launchCategory()), cl::sub(runCommand()));

std::string today() {
  std::time_t now = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

void printJson(json::Object out) { outs() << formatv("{0:2}", json::Value(std::move(out))) << "\n"; }

/// Prints the --proton outputs and warnings (stderr) of a run.
void reportProton(const proton::ProtonOutputs &out) {
  for (const std::string &w : out.warnings)
    errs() << "tlx-sim: warning: proton: " << w << "\n";
  errs() << "tlx-sim: proton: wrote " << out.tracePath << " and " << out.summaryPath << "\n";
}

/// Writes the first `ctas` CTAs (0: all) of a downloaded profile buffer to `path`.
Error saveRawProfile(StringRef path, ArrayRef<uint8_t> buffer, uint64_t scratchBytes, unsigned ctas) {
  size_t bytes = ctas ? std::min<size_t>(buffer.size(), size_t(ctas) * scratchBytes) : buffer.size();
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError("%s: cannot write: %s", path.str().c_str(), ec.message().c_str());
  os.write(reinterpret_cast<const char *>(buffer.data()), bytes);
  return Error::success();
}

/// --proton-raw-in: decode a saved profile buffer of `capture` with no device.
int decodeRawProfile(const Capture &capture, proton::ProtonCapture proton) {
  auto raw = MemoryBuffer::getFile(protonRawInOpt, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!raw)
    return badInput(formatv("{0}: cannot read: {1}", protonRawInOpt, raw.getError().message()).str());
  const size_t size = (*raw)->getBufferSize();
  if (size == 0 || size % proton.layout.scratchBytes)
    return badInput(formatv("{0}: {1} bytes is not a whole number of {2}-byte CTA slices (profile_scratch_size)",
                            protonRawInOpt, size, proton.layout.scratchBytes)
                        .str());
  proton.layout.numCtas = size / proton.layout.scratchBytes;
  ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>((*raw)->getBufferStart()), size);
  auto out = proton::writeProtonOutputs(capture, proton, bytes, protonOpt, protonCtasOpt);
  if (!out)
    return badInput(toString(out.takeError()));
  reportProton(*out);
  return kClean;
}

int runDry(const Capture &capture) {
  if (!protonOpt.empty()) {
    auto proton = proton::readProtonCapture(capture);
    if (!proton)
      return badInput(toString(proton.takeError()));
    errs() << formatv("tlx-sim: proton: {0} scopes, {1} CTAs x {2} bytes of profile scratch, {3} warps ({4} default)\n",
                      proton->scopes.names.size(), proton->layout.numCtas, proton->layout.scratchBytes,
                      proton->layout.numWarps, proton->partitions.defaultWarps);
  }
  std::optional<CubinParams> table;
  auto layout = layoutForCapture(capture, &table);
  if (!layout)
    return badInput(toString(layout.takeError()));
  auto reference = findReference(capture, referenceOpt);
  if (!reference)
    return badInput(toString(reference.takeError()));
  if (jsonOpt)
    printJson(dryRunJson(capture, *layout, table, *reference));
  else
    printDryRun(outs(), capture, *layout, *reference);
  return kClean;
}

RunOptions runOptions() {
  RunOptions options;
  options.iters = itersOpt;
  options.rounds = roundsOpt;
  options.warmupMs = warmupOpt;
  options.repMs = repOpt;
  options.flushL2 = !noFlushOpt;
  options.seed = seedOpt;
  options.reference = referenceOpt;
  options.retries = retriesOpt;
  options.maxCv = maxCvOpt;
  options.timerIters = timerItersOpt;
  options.requireTimer = timerOpt == "cupti";
  return options;
}

int runRun() {
  auto capture = readCapture(inputFile);
  if (!capture)
    return badInput(toString(capture.takeError()));
  if (referenceOpt != "auto" && referenceOpt != "none" && referenceOpt != "gemm" && referenceOpt != "attention")
    return badInput("--reference must be auto, gemm, attention or none");
  if (splitOpt != "fit" && splitOpt != "heldout")
    return badInput("--split must be fit or heldout");
  auto timerChoice = parseTimerChoice(timerOpt);
  if (!timerChoice)
    return badInput(toString(timerChoice.takeError()));
  if (timerItersOpt < 1 || retriesOpt < 0 || roundsOpt < 1)
    return badInput("--timer-iters and --rounds must be at least 1, --retries at least 0");
  if (protonOnlyOpt && protonOpt.empty())
    return badInput("--proton-only needs --proton OUT.json");
  if (protonOpt.empty() && (!protonRawInOpt.empty() || !protonRawOutOpt.empty()))
    return badInput("--proton-raw-in and --proton-raw-out need --proton OUT.json");
  if (!protonOpt.empty() && !recordOpt.empty())
    return badInput("--record with --proton would record the instrumented kernel's time; record a plain capture");
  if (auto bad = shapeMismatches(*capture); !bad.empty()) {
    // A record is filed and cross-checked under launch.json's "shape": a wrong one files this run under another
    // launch's shape (and its correctness reference). Refused with --record; a warning otherwise.
    std::string what = capture->dir + "/launch.json: \"shape\" disagrees with the launch's arguments: " +
                       llvm::join(bad, ", ");
    if (!recordOpt.empty())
      return badInput(what + " (the record would be filed under the wrong shape; fix \"shape\")");
    errs() << "tlx-sim: warning: " << what << "\n";
  }
  if (dryRunOpt)
    return runDry(*capture);
  std::optional<proton::ProtonCapture> protonCapture;
  if (!protonOpt.empty()) { // before the GPU: a capture that cannot be profiled fails here
    auto p = proton::readProtonCapture(*capture);
    if (!p)
      return badInput(toString(p.takeError()));
    protonCapture = std::move(*p);
    if (!protonRawInOpt.empty())
      return decodeRawProfile(*capture, *protonCapture);
  }

  auto device = openDeviceFor(*capture);
  if (!device)
    return badInput(toString(device.takeError()));
  if (!(hangTimeoutOpt > 0))
    return badInput("--hang-timeout must be a positive number of seconds");
  (*device)->hangTimeoutS = hangTimeoutOpt;
  std::string timerNote;
  auto timer = openTimerFor(*capture, *timerChoice, timerNote); // after the driver, as the only profiler
  if (!timer)
    return badInput(toString(timer.takeError()));
  RunOptions options = runOptions();
  options.timer = timer->get();
  std::vector<uint8_t> profileBuffer;
  if (protonCapture) {
    options.profileBuffer = &profileBuffer;
    options.skipTiming = protonOnlyOpt;
  }
  auto result = runCapture(*capture, **device, options);
  if (!result)
    return badInput(toString(result.takeError()));
  RunResult &r = *result;
  if (protonCapture && r.kernelFailure.empty() && !profileBuffer.empty()) {
    if (!protonRawOutOpt.empty())
      if (auto err = saveRawProfile(protonRawOutOpt, profileBuffer, protonCapture->layout.scratchBytes,
                                    protonRawCtasOpt))
        return badInput(toString(std::move(err)));
    auto out = proton::writeProtonOutputs(*capture, *protonCapture, profileBuffer, protonOpt, protonCtasOpt);
    if (!out)
      return badInput(toString(out.takeError()));
    reportProton(*out);
  }
  if (r.timerNote.empty())
    r.timerNote = timerNote;
  const bool failed = runFailed(r);

  RunReportOptions report;
  report.flushL2 = options.flushL2;
  report.timerIters = options.timerIters;
  report.timerLibrary = *timer ? (*timer)->description() : "";
  report.eventsRequested = *timerChoice == TimerChoice::Events;
  if (!recordOpt.empty() && !failed) {
    RecordOptions record{recordOpt, splitOpt, today()};
    if (auto err = writeRecord(*capture, r, record))
      return badInput(toString(std::move(err)));
    report.recordPath = recordOpt;
  }
  const DeviceInfo &info = (*device)->info();
  if (jsonOpt)
    printJson(runJson(*capture, info, r, report));
  else
    printRun(outs(), *capture, info, r, report);
  if (!r.kernelFailure.empty())
    errs() << "tlx-sim: error: the kernel failed: " << r.kernelFailure << "\n";
  else if (r.check && !r.check->ok)
    errs() << "tlx-sim: error: wrong result: " << r.check->message << "\n";
  if ((*device)->hung) { // the kernel still runs: leave without the driver calls of the device's teardown
    outs().flush();
    errs().flush();
    std::_Exit(kFindings);
  }
  return failed ? kFindings : kClean;
}

RegisterCommand registerRun(runCommand(), runRun);

} // namespace
} // namespace tlxsim::tool
