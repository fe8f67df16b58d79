// What `tlx-sim run --proton` writes from a decoded Proton profile buffer (runner/ProtonBuffer.h):
// a Chrome / Perfetto trace in Proton's own format (one process per CTA, one thread per warp and
// overlap line, scope names from the capture's scope table) and the per-partition summary of
// tlx_sim/record.py `proton_summary` (traces/README.md "proton").
#pragma once

#include "runner/Capture.h"
#include "runner/ProtonBuffer.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <string>
#include <vector>

namespace tlxsim::runner::proton {

/// The scope table `python -m tlx_sim.capture --proton` writes as <kernel>.proton.json
/// (tlx_sim/proton_capture.py: libtriton's proton.get_scope_id_names / get_scope_id_parents).
struct ScopeTable {
  std::string mode;                     ///< Proton's instrumentation mode string
  std::map<unsigned, std::string> names; ///< scope id -> name
  std::map<unsigned, int> parents;       ///< scope id -> parent id (-1: none)
  /// The name of `id`, or Proton's fallback "scope_<id>" (TraceWriter.cpp) when the table lacks it.
  std::string name(unsigned id) const;
  /// Proton's time shift for this mode: 7 cycles when the mode lists the time_shift optimization
  /// (CircularLayoutParser.cpp getTimeShiftCost, CUDA), else 0.
  uint64_t timeShiftCycles() const;
};

/// Parses a scope table. Errors name `where` and the bad member (ids 0..255, each once; a name may repeat:
/// Proton gives the same scope name in two warp-specialize partitions two ids).
llvm::Expected<ScopeTable> parseScopeTable(llvm::StringRef text, llvm::StringRef where);
/// Reads and parses <dir>/<kernel>.proton.json.
llvm::Expected<ScopeTable> readScopeTable(llvm::StringRef path);

/// Which warps of a CTA form which tlx-sim partition, as record.py maps Proton's warps: warps
/// 0 .. defaultWarps-1 are "default"; the other warps with events, in increasing id, fill the
/// worker partitions partition0, partition1, ... with workerWarps[i] warps each.
struct PartitionMap {
  unsigned defaultWarps = 4;
  std::vector<unsigned> workerWarps; ///< ttg.warp_specialize partitions' num_warps, in order
};

/// The partition map of a kernel from its TTGIR: `"ttg.num-warps" = N` and the `num_warps(K)` of
/// the partition regions (partition0, partition1, ...) of its first ttg.warp_specialize. Errors
/// when the module has no ttg.num-warps.
llvm::Expected<PartitionMap> partitionsFromTtgir(llvm::StringRef ttgir);

/// Proton's Chrome trace (TraceWriter.cpp StreamChromeTraceWriter) of the first `maxCtas` CTAs
/// (0: all): "X" events with pid "<kernel> Core<sm> CTA<id>" (as in the traces triton 3.6 wrote, traces/h200/proton),
/// tid "warp <w> (line <l>)" (overlapping scopes of a warp on separate lines), ts and dur in
/// cycles / 1000 (so 1 cycle shows as 1 ns), each CTA's first start at ts 0.
llvm::json::Value chromeTrace(const DecodedProfile &profile, const ScopeTable &scopes, llvm::StringRef kernel,
                              size_t maxCtas);

/// Per-partition scope shares over every CTA: {"ctas", "lifetime_us_mean", "partitions": {part:
/// {"warps_per_cta", "wait_frac", "observed_frac", "scopes": {name: fraction}}}}. A CTA's lifetime runs from its
/// first scope start to its last scope end (cycles / 1000, record.py's "us"). Per warp each scope's summed
/// duration over the warp's own life, from the CTA's first start to the warp's last scope end (the simulator's
/// partition lifetime ends at the partition's exit too, sim/SummaryView.cpp; record.py's `proton_summary`
/// divides by the CTA's lifetime, which counts a producer busy after it exits), averaged over the partition's
/// warps; wait_frac sums the scopes named wait_* or *_wait. CTAs without events are left out, as they have no
/// process in Proton's trace. A warp whose circular segment overflowed (WarpTrace::droppedEntries) kept only its
/// newest entries; its window starts at its first kept start, so that a wait share is not diluted by the part of
/// the lifetime whose entries were dropped. "observed_frac": the mean share of the CTA's lifetime that a
/// partition's warps' windows cover (1 when nothing overflowed and every warp ends with the CTA).
llvm::json::Value partitionSummary(const DecodedProfile &profile, const ScopeTable &scopes, const PartitionMap &parts);

/// The CTAs' %globaltimer spans, ns: {"init_to_prefinal_ns_mean", "cycles_per_ns"} where
/// cycles_per_ns is the mean scope lifetime in cycles over the mean init-to-prefinal time (an SM
/// clock estimate in GHz, lower bound: the lifetime excludes the code before the first scope). Only CTAs whose
/// warps kept every entry count (an overflowed segment shortens the lifetime the entries show); {"ctas": 0} if none.
llvm::json::Value globalTimerSummary(const DecodedProfile &profile);

/// What a capture needs for `--proton`: a profile scratch in its metadata, its scope table
/// <kernel>.proton.json and its TTGIR's partitions.
struct ProtonCapture {
  ScopeTable scopes;
  PartitionMap partitions;
  ProfileLayout layout; ///< scratch size, CTAs of the launch, total warps, time shift of the mode
};

/// Checks and reads what `--proton` needs from `capture` (also in a dry run). Errors: no
/// profile_scratch_size (not compiled with `tlx_sim.capture --proton`), a missing or bad scope table,
/// a TTGIR without ttg.num-warps.
llvm::Expected<ProtonCapture> readProtonCapture(const Capture &capture);

/// What `--proton OUT.json` wrote.
struct ProtonOutputs {
  std::string tracePath;     ///< the Chrome trace (OUT.json)
  std::string summaryPath;   ///< OUT.summary.json: {"proton": {"summary", "timeline"}, "globaltimer", "warnings", ...}
  std::vector<std::string> warnings; ///< decode problems and scope ids without a name
  llvm::json::Value summary = nullptr; ///< partitionSummary
};

/// Decodes `buffer` (downloaded profile scratch of one launch of `capture`) and writes the Chrome
/// trace of the first `traceCtas` CTAs with events (0: all) to `outPath` and the summary beside it
/// (`.summary.json` replacing `.json`). Errors: undecodable buffer (ProtonBuffer.h), unwritable files.
llvm::Expected<ProtonOutputs> writeProtonOutputs(const Capture &capture, const ProtonCapture &proton,
                                                 llvm::ArrayRef<uint8_t> buffer, llvm::StringRef outPath,
                                                 size_t traceCtas);

} // namespace tlxsim::runner::proton
