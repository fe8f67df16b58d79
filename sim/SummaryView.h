// The `predict` view: kernel time, throughput, the bound, per-partition busy/wait
// breakdown (naming the barriers waited on) and unit utilization, from the event stream.
#pragma once

#include "sim/Engine.h"
#include "sim/Events.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <deque>
#include <map>
#include <set>

namespace tlxsim::sim {

class SummaryView : public Listener {
public:
  SummaryView(const Program &program, const GpuModel &model);

  void onAgentStart(const AgentInfo &info, Cycle t) override;
  void onAgentEnd(int32_t agent, Cycle t) override;
  void onAgentWork(int32_t agent, const AgentWork &work) override;
  void onAsync(const AsyncEvent &e) override;
  void onBarrier(const BarrierEvent &e) override;
  void onFinish(Cycle t) override;

  /// The `predict --json` object of design.md (schema_version 1), for a finished run.
  llvm::json::Object toJson(const SimResult &result) const;
  /// The llvm-mca-style text summary.
  void print(const SimResult &result, llvm::raw_ostream &os) const;

private:
  struct PartitionStats {
    std::string name;
    int32_t numWarps = 0;
    double lifetime = 0, busy = 0, wait = 0;
    /// The part of `busy` its warps were held at wgmma issue by a full tensor-pipe queue (AgentWork).
    double tensorQueueBlocked = 0;
    /// The part of `busy` its warps were held behind their own MUFU instructions (AgentWork::mufuHeld).
    double mufuHeld = 0;
    /// Cycles its agents waited at the warp_specialize join for the other partitions to end (AgentWork::joinWait):
    /// the part of the lifetime that is neither busy nor an mbarrier / operand wait.
    double join = 0;
    /// Cycles its warps spent inside each Proton scope (index: Program::protonScopes; AgentWork::protonScope, or the
    /// kept entries' scopes, summed over its agents): what Proton's decoder reports as the partition's wait time
    /// when every scope marks a wait (--proton-waits, pl.enter_scope around waits); `proton_scopes` and their sum
    /// `proton_scope_frac` in the JSON, compared with Proton by `xcheck --proton`.
    std::vector<double> protonScope;
    /// Proton's window of its agents, summed: each agent's start to its last proton.record (its lifetime where it
    /// records none). The denominator of `proton_scopes` and `proton_scope_frac`, as Proton's decoder divides a
    /// warp's scope time by its window, not by its life: a producer that waits at the partitions' join after its
    /// last record, or a consumer's epilogue after its last one, is outside both. An agent whose records overflowed
    /// its warps' circular segments (AgentWork::protonSegment) counts only the kept entries: its scopes and its
    /// window (first kept start to last end) come from them, as on hardware.
    double protonWindow = 0;
    /// Cycles waited, by what was waited on (SummaryView::waitNames_: a barrier array, "wgmma", "tma store", ...);
    /// `waited` marks the entries a wait touched (a zero-cycle wait still names its barrier).
    std::vector<double> waitSpan;
    std::vector<uint8_t> waited;
  };
  struct Derived {
    double timeUs, tflops, bytesPerS;
    std::string bound;
    /// Why: the critical unit's utilization and the partition whose warps it holds, or the waits (boundEvidence).
    std::string boundEvidence;
    std::vector<std::pair<std::string, double>> units;
    double exposedTmaUs, exposedMmaUs, exposedTmaFrac, exposedMmaFrac, issueFrac;
    /// waitBound's "TMA latency": the share of its life the partition named waits on TMA-filled phases (0 else).
    double txWaitShare = 0;
    /// waitBound's account of the wait ("partition P waits x % of its life on B, ..."), without the "no unit 60 %
    /// busy" it opens boundEvidence with: the TMA-starved tensor core's evidence reuses it.
    std::string waitEvidence;
  };
  /// Exposed (non-overlapped) load and MMA time of one SM: the union of its global->shared
  /// transfers (TMA loads, cp.async) and the union of its tensor-core work, merged online
  /// (both arrive in start order per SM) and intersected as they are finalized.
  struct Overlap {
    struct Span {
      Cycle start = 0, end = 0;
    };
    Span curLoad, curMma;
    bool haveLoad = false, haveMma = false;
    std::deque<Span> loads, mmas; ///< finalized, not yet intersected
    double loadTotal = 0, mmaTotal = 0, both = 0;
    void add(bool load, Cycle start, Cycle end);
    void drain(bool final);
  };
  Derived derive(const SimResult &result) const;
  /// The bound of a run whose units are below 60 %: the partition with the largest share of its life in mbarrier
  /// waits and the barrier it waits on most. "TMA latency" when async copies complete that barrier's phases (the
  /// loads in flight do not cover their latency), "synchronization" when other partitions' arrives do, "latency"
  /// below 30 % of partition time in mbarrier waits. Fills d.bound and d.boundEvidence; `r` gives the shared
  /// memory in use for the "TMA latency" advice (sharedHeadroom).
  void waitBound(Derived &d, const SimResult &r) const;
  /// ", where shared memory allows: U of C KB per SM in use" (U: each CTA's footprint as occupancy counts it,
  /// sim/Occupancy.h sharedFootprintPerCta, x CTAs per SM, C:
  /// the model's smem_per_sm_bytes), so that "more stages" advice says whether a stage more can fit; empty when
  /// the run did not record its shared memory.
  std::string sharedHeadroom(const SimResult &r) const;
  /// "; its rate KNOB is not measured on MODEL (marked U ...)" when the rate parameter of the critical unit `unit`
  /// (a name of Derived::units) has a source marked U (unverified; README.md, hw-params.md), so that a bound set by a
  /// placeholder number says so; empty otherwise.
  std::string unmeasuredRate(const std::string &unit) const;
  /// Whether wait id `id` is a wait on an mbarrier (not on a wgmma group, a TMA store, operands, the tensor core or
  /// cp.async).
  bool isBarrierWait(size_t id) const;
  /// The id of wait name `name` in waitNames_ (added if new).
  int32_t waitId(const std::string &name);
  void addWait(PartitionStats &s, int32_t id, double span);
  /// The waits of `s` by name, in name order.
  std::map<std::string, double> waitsOf(const PartitionStats &s) const;

  const Program &program_;
  const GpuModel &model_;
  PartitionStats &stats(int32_t agent) { return partitions_[agentPartition_[agent]]; }

  std::vector<int32_t> agentPartition_; ///< agent -> index into partitions_
  std::vector<Cycle> agentStart_;
  std::vector<PartitionStats> partitions_; ///< in order of first appearance
  std::vector<std::string> partitionNames_;
  std::vector<std::string> waitNames_;   ///< distinct names of what partitions wait on
  std::vector<int32_t> allocWait_;       ///< per allocation: the wait id of its name
  /// per wait id: whether TMA copies (or other async bytes) completed phases of that barrier array (a CompleteTx)
  std::vector<uint8_t> txFilled_;
  /// Per wait id of a barrier allocation: the arrivals each partition (index into partitions_) made on it
  /// (Arrive and ExpectArrive events; a tcgen05 commit's arrive counts for the partition that issued it).
  std::vector<std::map<int32_t, double>> arrivals_;
  /// The partition other than `waiter` that made the most arrivals on wait id `waitIdOf`; -1 if none.
  int32_t releaser(int32_t waitIdOf, size_t waiter) const;
  /// "; B is released by P (busy x %, waiting y % on C); C is released by ..." from partition `start`'s wait on
  /// `barrier` through the partitions that release each wait, to the first that waits less than half its life,
  /// waits on TMA-filled phases, or was already named: the partition a blocked producer only reflects.
  std::string releaseChain(size_t start, int32_t barrier) const;
  int32_t tensorCoreWait_, operandsWait_, wgmmaWait_, cpAsyncWait_, tmaStoreWait_;
  double tensorBusy_ = 0, flops_ = 0, tmaBytes_ = 0, lsuBytes_ = 0, hbmBytes_ = 0;
  std::vector<Overlap> overlap_; ///< per SM
};

} // namespace tlxsim::sim
