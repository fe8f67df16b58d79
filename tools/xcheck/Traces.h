// Reading the hardware traces of traces/<gpu>/<kernel>.json (format: traces/README.md).
#pragma once

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tlxsim::xcheck {

/// One measured launch of a trace file.
struct TraceRecord {
  std::string file;        ///< the trace file it came from
  std::string gpu;         ///< tlx-sim model name the record was measured on (the file's "gpu")
  std::string kernel;      ///< the file's "kernel" (module stem, e.g. "ws_gemm")
  std::string config;      ///< config name of the kernel module
  std::string shape;       ///< "M=8192,N=8192,K=8192", in the record's key order
  std::string split;       ///< "fit" or "heldout"
  double measuredUs = 0;   ///< measured kernel time, µs
  /// Mean SM clock over the timed launches (`sm_clock_mhz.mean`: nvidia-smi samples, record.py / `run --record`),
  /// MHz; absent in records without it.
  std::optional<double> measuredClockMhz;
  /// SM cycles of this launch counted by Nsight Compute (`ncu.cycles`: `sm__cycles_elapsed.max` of one launch,
  /// tools/ncu_cycles.py annotate); absent where not measured. A compute-bound kernel's cycles hardly depend on the
  /// clock, so with them the clock of the timed launches is measuredCycles / measuredUs; a memory-bound one counts
  /// more cycles at a higher clock (HBM latency and bandwidth are fixed in ns), and Nsight's single launch ran at the
  /// GPU's own clock, often above the timed launches': for those the derived clock is an estimate.
  std::optional<double> measuredCycles;
  std::string ttgir;       ///< the TTGIR that ran (inside the record's capture folder)
  llvm::json::Value launch = nullptr; ///< the launch spec (an object), as `--launch` reads it
  /// Proton instrumentation (where recorded): per tlx-sim partition name, the fraction of the
  /// CTA lifetime its warps spent in wait scopes (`proton.summary.partitions.*.wait_frac`).
  std::vector<std::pair<std::string, double>> protonWaitFrac;
  /// Per partition, the names of the scopes Proton recorded (`proton.summary.partitions.*.scopes`); empty where the
  /// summary lists none. A scope the model has and Proton did not record (a wait before the kept window of an
  /// overflowed circular segment: TLX fa_ws's once-per-CTA `wait_q_full`) is not compared.
  std::map<std::string, std::set<std::string>> protonScopes;
};

/// Reads every trace file under `paths` (a folder: its `*.json` files that hold `records`,
/// sorted by name; or a file). Errors name the file and the record index: unreadable or
/// invalid JSON, a record without config/shape/split/measured_us/launch/capture, a split
/// other than fit/heldout, a capture folder without exactly one .ttgir file.
llvm::Expected<std::vector<TraceRecord>> readTraces(const std::vector<std::string> &paths);

/// Reads the native Proton summaries `dir/*.summary.json` that `tlx-sim run --proton` wrote
/// (tools/h200-proton.sh; format: traces/README.md "proton-native"), sorted by name, as records
/// with `split` "proton", no measured time (`measuredUs` 0: instrumented runs are slowed) and
/// `protonWaitFrac` from `proton.summary.partitions.*.wait_frac` (all decoded CTAs). A summary's
/// "capture" folder (its TTGIR and launch.json) is resolved against the working directory, then
/// against each folder above the summary (the repository root). `gpu` is left empty: the model
/// follows the TTGIR's target. Errors name the file: unreadable or invalid JSON, no capture,
/// shape or partitions, a capture folder without exactly one .ttgir or without launch.json.
llvm::Expected<std::vector<TraceRecord>> readProtonSummaries(const std::string &dir);

} // namespace tlxsim::xcheck
