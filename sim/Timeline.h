// The timeline view: what one SM did, cycle by cycle, recorded from the event stream.
// One track per partition of each CTA that ran on the SM and one per hardware-unit lane
// (tensor core, TMA load, TMA store); slices for issuing, barrier operations, barrier
// waits and asynchronous work; a flow from every arrival of a barrier phase to each wait
// that observed that phase. Also per-barrier wait-time histograms and per-site wait totals
// over all SMs. The Chrome/Perfetto trace writer (TraceView) and the report's SVG timeline
// (TimelineSvg) both render this one model.
#pragma once

#include "sim/Events.h"

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace tlxsim::sim {

/// One row of the timeline.
struct TimelineTrack {
  enum Kind : uint8_t { Partition, Unit } kind = Partition;
  std::string name;      ///< partition ("default", "partition0") or unit lane ("tensor core", "TMA load 2")
  int64_t cta = -1;      ///< Partition: the linear CTA id
  int32_t slot = -1;     ///< Partition: the CTA's residency slot on the SM (0 .. CTAs per SM - 1)
  int32_t order = 0;     ///< Partition: order of the partition within its CTA; Unit: 0 tensor core, 1 TMA load, 2 TMA store
  int32_t lane = 0;      ///< Unit: lane of concurrent operations (TMA copies overlap)
  int32_t numWarps = 0;  ///< Partition: warps of the partition
};

/// A span on one track, in SM cycles [start, end).
struct TimelineSlice {
  enum Kind : uint8_t {
    Issue,       ///< the partition issues instructions (consecutive instructions merged)
    BarrierOp,   ///< an mbarrier arrive / expect / init / inval or a wait that passed at once (inside an Issue slice)
    BarrierWait, ///< the partition is blocked in an mbarrier wait
    AsyncWait,   ///< the partition waits for its wgmma groups or TMA stores to retire
    Mma,         ///< tensor-core work (wgmma, tcgen05 MMA)
    TmaLoad,     ///< a TMA copy global -> shared, issue to completion
    TmaStore     ///< a TMA copy shared -> global, issue to completion
  } kind;
  int32_t track;
  Cycle start, end;
  std::string label;   ///< "issue", "arrive empty[1]", "wait ready[0]", "wgmma wait", "MMA", "TMA load"
  int32_t loc = -1;    ///< Program::locs index of the op (-1: none, e.g. merged issue spans)
  int32_t depth = 0;   ///< 1: nested inside an Issue slice
  int64_t bytes = 0, flops = 0;
};

/// The report's CSS class of a slice kind (the timeline legend: issue, barop, barwait, asyncwait, mma, tmaload,
/// tmastore), shared by the SVG timeline and the steady-state charts.
const char *sliceCssClass(TimelineSlice::Kind kind);

/// An arrival (slice `from`: arrive, expect, TMA completion or async MMA arrive) of the
/// phase that the wait `to` observed.
struct TimelineFlow {
  int32_t from, to;
  std::string barrier; ///< "ready[2]"
};

/// Blocked-wait durations of one barrier array over all SMs: bucket 0 counts waits of 0
/// cycles (passed at once), bucket b >= 1 waits of [2^(b-1), 2^b) cycles.
struct WaitHistogram {
  std::string barrier; ///< the allocation's Python name ("ready")
  std::vector<uint64_t> buckets;
  uint64_t waits = 0;
  Cycle total = 0, max = 0;
};

/// Wait time at one wait op (source location) of one partition, over all SMs.
struct WaitSite {
  int32_t loc = -1;
  std::string partition, what; ///< what: the barrier array, "wgmma" or "TMA store"
  Cycle total = 0;
  uint64_t count = 0;
};

class Timeline : public Listener {
public:
  /// Records the timeline of SM `sm` (0-based) of `program`'s simulation.
  explicit Timeline(const Program &program, int32_t sm = 0);

  void onAgentStart(const AgentInfo &info, Cycle t) override;
  void onAgentEnd(int32_t agent, Cycle t) override;
  void onInstr(const InstrEvent &e) override;
  void onBarrier(const BarrierEvent &e) override;
  void onAsync(const AsyncEvent &e) override;
  /// Waits that never end (a deadlock) become slices up to the stall, labelled "(never released)".
  void onStall(Cycle t, const std::vector<BlockedAgent> &blocked) override;
  void onFinish(Cycle t) override;

  int32_t sm() const { return sm_; }
  /// The kernel's last cycle (after onFinish).
  Cycle endCycle() const { return end_; }
  const Program &program() const { return program_; }
  /// Tracks in display order: partitions by CTA start then partition order, then units
  /// (tensor core, TMA load lanes, TMA store lanes).
  std::vector<int32_t> trackOrder() const;
  const std::vector<TimelineTrack> &tracks() const { return tracks_; }
  /// Slices sorted by (track, start, depth): parents before the slices nested in them.
  std::vector<TimelineSlice> sortedSlices() const;
  /// Flows with slice indices into sortedSlices().
  std::vector<TimelineFlow> sortedFlows() const;
  /// Per barrier array, by name.
  std::vector<WaitHistogram> waitHistograms() const;
  /// Wait sites by total wait time, largest first.
  std::vector<WaitSite> waitSites() const;

private:
  struct AgentState {
    int32_t track = -1; ///< -1: not on the recorded SM
    std::string partition;
    int32_t openIssue = -1; ///< slice being extended by contiguous instructions
    Cycle lastStart = 0, lastEnd = 0;
    Op lastOp = Op::Unknown;
    Cycle blockedSince = 0;
  };
  struct BarrierFlows {
    std::vector<int32_t> phase;     ///< arrival slices of the current phase
    std::vector<int32_t> completed; ///< arrival slices of the last completed phase
  };

  AgentState &agent(int32_t id);
  int32_t unitTrack(int32_t order, const std::string &base, Cycle start, Cycle end);
  int32_t addSlice(TimelineSlice slice);
  void addWait(int32_t agentId, int32_t loc, const std::string &what, Cycle span);

  const Program &program_;
  int32_t sm_;
  Cycle end_ = 0;
  std::vector<TimelineTrack> tracks_;
  std::vector<TimelineSlice> slices_;
  std::vector<std::pair<int32_t, int32_t>> flows_; ///< (from, to) slice indices (unsorted)
  std::vector<std::string> flowBarrier_;
  std::vector<AgentState> agents_;
  std::map<std::pair<int64_t, std::string>, int32_t> partitionTracks_;
  std::map<int64_t, int32_t> ctaSlot_, ctaLive_;
  std::vector<bool> slotBusy_;
  std::map<std::pair<int32_t, int32_t>, Cycle> laneEnd_; ///< (unit order, lane) -> end of its last slice
  std::map<std::pair<int32_t, int32_t>, int32_t> laneTrack_;
  std::unordered_map<int64_t, int32_t> asyncSlice_; ///< async op id -> its unit slice
  std::unordered_map<BarrierKey, BarrierFlows, BarrierKeyHash> barrierFlows_;
  std::map<std::string, WaitHistogram> histograms_;
  std::map<std::pair<int32_t, std::string>, WaitSite> sites_; ///< by (loc, partition)
};

} // namespace tlxsim::sim
