// Shared-memory races and missing proxy fences, by happens-before over the event stream.
//
// Threads: every agent, and every asynchronous operation (TMA copy, wgmma group, TMA
// store), which inherits its issuer's clock at issue. Synchronization, as the PTX ISA
// defines it (9.1: mbarrier 9.7.13.15, wgmma 9.7.15.7, bulk groups 9.7.9.27.2):
//   - arrive / arrive.expect_tx release the agent's clock into the barrier's current phase;
//     a TMA copy's complete-tx releases the copy's clock;
//   - a wait that passes acquires the clock of the completed phase it observed;
//   - wgmma.wait_group / bulk wait_group acquire the retired operations' clocks;
//   - warp_specialize forks workers with the parent's clock and joins them at its end;
//   - named barriers (bar.arrive / bar.sync, 9.7.13.1: memory accesses before the barrier are performed relative
//     to all its participants): every arrival releases into the rendezvous, the bar.sync participants acquire
//     it when it completes.
// Checks on every access to a shared-memory region (allocation + element range):
//   race-raw: a read not ordered after the last write (e.g. a wgmma reading a stage whose
//     TMA fill was never observed complete); race-war: a write not ordered after earlier
//   reads (a stage refilled while a wgmma may still read it); race-waw: two unordered writes;
//   TMEM lane ownership (tcgen05.ld / st, PTX ISA 9.1 9.7.16.2.3 and 9.7.16.8.3): a warp may access only the
//     lanes 32 * (warp id % 4) .. + 31; an access outside them is race-raw (load) / race-waw (store): the lanes
//     belong to other warps, which write or read them unordered with it. (Warps of one partition that exchange
//     TMEM data are ordered by the bar.sync Triton's membar pass inserts between tcgen05.st and tcgen05.ld, so
//     they are not checked against each other.) TMEM regions are 32-bit column ranges of the allocation (Triton's
//     TMEM layouts: a buffer's columns, a `ttng.tmem_subslice`'s first column, fp16 packed two per column or
//     unpacked one per column by colStride); views of one allocation under other shapes and types (TLX storage
//     aliasing, `memdesc_reinterpret`) overlap only where their columns do.
//   AMD LDS reads (`local_load`, ds_read) are asynchronous operations that lgkmcnt retires (sim ops/Amd.cpp): the
//     issuing agent acquires one at the first use of its value, at a fenced barrier (s_waitcnt lgkmcnt(0) first)
//     or at an s_waitcnt lgkmcnt that covers it, not at a bare s_barrier (CDNA3 ISA 4.4); so another wave's write
//     ordered only by a bare s_barrier after the read is race-war. The issuer's own later accesses are ordered after
//     it (a wave's LDS instructions execute in order; Triton's membar pass orders the waves of one agent).
//   missing-fence: an async-proxy access (TMA store source, wgmma operand) of data written
//     through the generic proxy (local_store) with no fence.proxy.async on the causality path
//     from the write to the access: a fence the write happens before and that happens before
//     the access, by the writer or by the reader (PTX ISA 9.1 9.7.15.7.1, 9.7.13.4); and the other direction for
//     the CLC response: clusterlaunchcontrol.try_cancel overwriting, through the async proxy, a response that a
//     query (ld.shared, generic proxy) read before it with no fence.proxy.async after the read on the causality
//     path to the write (PTX ISA 9.1 memory consistency model, "Proxies": accesses of one location through different proxies need a
//     cross-proxy fence; the example of its clusterlaunchcontrol.try_cancel section fences after the read, as CUTLASS's
//     PersistentTileSchedulerSm100 and TLX's clc_consumer do). Not for TMA loads over a stage local_load read:
//     CUTLASS's and Triton's pipelines release such a stage through the mbarrier alone, taken as correct.
// Only the first `maxCtas` CTAs are checked: CTAs do not share shared memory, and the
// others run the same protocol on other tiles.
#pragma once

#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"
#include "verifier/VectorClock.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <set>
#include <unordered_map>

namespace tlxsim::verifier {

class RaceChecker : public CheckerBase {
public:
  RaceChecker(const sim::Program &program, int64_t maxCtas = 2);

  void onAgentStart(const sim::AgentInfo &info, sim::Cycle t) override;
  void onAgentEnd(int32_t agent, sim::Cycle t) override;
  void onJoin(int32_t agent, sim::Cycle t) override;
  void onBarrier(const sim::BarrierEvent &e) override;
  void onAsyncIssue(int32_t agent, int64_t op, int64_t after, sim::Cycle t) override;
  void onAsyncRetired(int32_t agent, int64_t op, sim::Cycle t) override;
  void onAccess(const sim::AccessEvent &e) override;
  /// fence.proxy.async: orders the generic writes (and reads) that happen before it (by any agent) before the
  /// async-proxy accesses (writes) that happen after it. The PTX memory model asks for a proxy fence on the causality path from the
  /// write to the async read, on the writer's side or on the reader's (after the wait that acquired the write).
  void onProxyFence(int32_t agent, sim::Cycle t) override;
  /// Remembers each agent's last execution barrier (s_barrier, bar.sync 0, ttg.barrier local): named in a note
  /// when a race-raw read of the agent's own async copy follows it (the barrier does not drain the copy).
  void onInstr(const sim::InstrEvent &e) override;
  /// race-raw: a wgmma accumulator read before the wgmma wait that retires its group.
  void onPendingUse(const sim::PendingUseEvent &e) override;
  /// barrier.cluster: arrive releases the agent's clock into the cluster's generation, a wait that returns
  /// acquires the completed generation (PTX ISA 9.1 9.7.13.2: .release / .acquire by default).
  void onClusterBarrier(const sim::ClusterBarrierEvent &e) override;
  /// Named barriers (PTX ISA 9.1 9.7.13.1): bar.arrive and bar.sync release the agent's clock into the
  /// rendezvous in progress on their id; when it completes, every bar.sync participant of it acquires the clocks of
  /// all its arrivals (bar.arrive does not wait, so it acquires nothing). FlashMLA's hand-off: the producer's
  /// stores, then bar.arrive; the consumer's bar.sync, then its reads.
  void onNamedBarrier(const sim::NamedBarrierEvent &e) override;

  /// The happens-before clock of `agent` now (empty for an untracked CTA): for checkers that ask whether an agent
  /// has synchronized with another (verifier/ClusterDeliveryChecker).
  const VectorClock &agentClock(int32_t agent) const {
    static const VectorClock none;
    auto it = clocks_.find(agent);
    return it == clocks_.end() ? none : it->second;
  }

  /// Whether `agent` (its clock now) is ordered after the completion of the last completed phase of `barrier` with
  /// parity `parity`: every release into that phase (arrivals, the complete-tx of TMA copies, tcgen05 commits)
  /// happens-before it (verifier/PhaseChecker: a waiter that knows phase k - 1 completed means phase k).
  bool knowsPhase(int32_t agent, const sim::BarrierKey &barrier, int parity) const {
    auto it = barriers_.find(barrier);
    return it != barriers_.end() && it->second.completed[parity & 1].leq(agentClock(agent));
  }
  /// Whether the clocks of CTA `cta` are kept (the first `maxCtas` CTAs).
  bool tracks(int64_t cta) const { return tracked(cta); }

  const std::vector<Finding> &findings() const { return findings_; }

private:
  /// One access as remembered in the shadow state.
  struct Epoch {
    ThreadId thread;
    int64_t clock;
    int32_t agent, loc;
    int64_t iteration;
    sim::Op op;
    bool asyncProxy;
    int64_t issuerClock; ///< the issuing agent's clock at the access (at issue for an async op)
    bool write = false;
    const sim::Instr *instr = nullptr; ///< the instruction (AccessEvent::instr)
    /// A generic-proxy read: the proxy fences after it, as (fencing agent, its clock at the fence); an async-proxy
    /// write ordered after one of them does not overwrite it through another proxy unfenced.
    std::vector<std::pair<int32_t, int64_t>> fences = {};
  };
  /// Shadow state of one shared-memory view.
  struct Shadow {
    int64_t offset, size;
    std::optional<Epoch> write;
    std::vector<Epoch> reads;
    /// Proxy fences after the last (generic) write, as (fencing agent, its clock at the fence): the write happens
    /// before each; an async-proxy access ordered after one of them sees the write.
    std::vector<std::pair<int32_t, int64_t>> fences;
  };
  struct BarrierClocks {
    VectorClock pending;      ///< released into the current phase
    VectorClock completed[2]; ///< of the last completed phase of each parity
  };
  bool tracked(int64_t cta) const { return cta < maxCtas_; }
  VectorClock &clockOf(ThreadId thread) { return clocks_[thread]; }
  static ThreadId asyncThread(int64_t op) { return -(op + 1); }
  std::string describe(const Epoch &e) const;
  bool amd() const; ///< a hip: target (names AMD direct-to-LDS copies and s_barrier in messages)
  std::string regionName(int32_t alloc, const Shadow &region) const;
  void report(const char *cls, const sim::AccessEvent &now, const Epoch &nowEpoch, const Epoch &before,
              const Shadow &region, const std::string &verb, const std::string &tail, const VectorClock &clock);

  int64_t maxCtas_;
  std::unordered_map<ThreadId, VectorClock> clocks_;
  /// Per agent: its latest async op that retired into its own clock (a synchronous tcgen05 MMA, the issuer waiting
  /// for it) and that op's clock. A later tcgen05.commit names that op (Tc05Commit signals the agent's last tcgen05
  /// op), so its arrive must still release the MMA's accesses (Gluon `tcgen05_mma` without mbarriers, then
  /// `tcgen05_commit(acc_ready)`: the epilogue's read read as race-raw, a new-user trial of 2026-12-05).
  std::unordered_map<int32_t, std::pair<int64_t, VectorClock>> retired_;
  /// The clock an async op's completion releases: its own, or the retired one kept in retired_.
  const VectorClock &asyncClock(int32_t agent, int64_t op);
  std::unordered_map<int64_t, int32_t> asyncOwner_; ///< async op -> issuing agent (tracked CTAs)
  std::map<int32_t, std::vector<int32_t>> finishedWorkers_; ///< parent agent -> workers that ended
  std::unordered_map<int32_t, int32_t> parentOf_;
  std::unordered_map<sim::BarrierKey, BarrierClocks, sim::BarrierKeyHash> barriers_;
  std::unordered_map<int64_t, BarrierClocks> clusters_; ///< cluster barrier clocks by cluster index
  /// A named barrier's rendezvous in progress: the arrivals' clocks and its bar.sync participants so far.
  struct NamedClocks {
    VectorClock pending;
    std::vector<int32_t> syncers;
  };
  std::map<std::pair<int64_t, int64_t>, NamedClocks> named_; ///< (cta, id) -> the rendezvous in progress
  std::map<std::pair<int64_t, int32_t>, std::vector<Shadow>> shadow_; ///< (cta, alloc) -> views
  /// (class, Python location of the access, of the other access): one finding per pair of source lines, also
  /// when inlined helpers give one line several IR locations
  std::set<std::tuple<std::string, std::string, std::string>> reported_;
  std::map<std::pair<int32_t, int64_t>, int32_t> releaseLoc_; ///< (agent, its clock at a release) -> op location
  std::vector<Finding> findings_;
  std::unordered_map<int32_t, std::pair<int32_t, int64_t>> lastCtaBarrier_; ///< agent -> (loc, its clock there)
  std::unordered_map<int32_t, std::pair<int32_t, int32_t>> warps_; ///< agent -> (first warp id, warps)
  std::unordered_map<int32_t, int32_t> warpGroup_; ///< per-warp agents -> the agent of their partition's warp 0
  std::unordered_map<int32_t, int32_t> waveGroup_; ///< wave-group agents (sim AgentInfo::waveGroupOf) -> the first
  /// Shared-memory buffers that share bytes with each buffer (sim Alloc::sharedOffset: Triton's allocator places
  /// buffers whose live ranges do not overlap at the same offsets), by Program::allocs index.
  std::vector<std::vector<int32_t>> aliases_;
  /// race-waw / race-raw / race-war between access `e` and the accesses of the other buffers that share its bytes:
  /// a buffer reused after another one's last use must not be touched while an async op (a TMA load nobody
  /// waited for, an MMA still reading) may still access the old one there (Allocation.cpp gives the bytes to the
  /// new buffer at the old one's last use in program order, not at the completion of its async accesses).
  void checkAliases(const sim::AccessEvent &e, const Epoch &now, llvm::function_ref<bool(const Epoch &)> ordered,
                    const VectorClock &clock);
  /// race-raw / race-waw: a warp's tcgen05.ld / st tile outside the lanes its warp id may access.
  void checkWarpTiles(const sim::AccessEvent &e);
  /// Whether two regions of allocation `alloc` overlap: element ranges in shared memory, 32-bit column ranges in
  /// tensor memory (a TMEM access spans all lanes of its columns).
  bool overlaps(int32_t alloc, int64_t offsetA, int64_t sizeA, int64_t offsetB, int64_t sizeB) const;
  /// Drops, from every clock, the entries of asynchronous operations that no shadow epoch names: an entry is read only
  /// against an epoch of its operation, and an operation makes its accesses when it is issued (Engine::access), so
  /// none can ask for it again. The operation's own clock stays (clocks_: its completion or a later commit releases
  /// it), pruned the same way. Keeps clocks proportional to the live accesses, not to the operations issued so far (a
  /// persistent kernel issues millions; tcgen05 MMAs, which no wait retires, used to stay live: a 16384^3 grouped
  /// GEMM's check at --max-ctas 2 grew to 23 GB).
  void collect();
  int64_t issuesSinceCollect_ = 0, collectThreshold_ = 4096;
};

} // namespace tlxsim::verifier
