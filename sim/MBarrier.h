// Exact mbarrier state machine (PTX ISA 9.1 §9.7.13.15).
//
// State: current phase (its parity is phase & 1), pending arrivals, expected arrivals and
// tx-count. A phase completes when pending == 0 and tx-count == 0; then the phase
// advances and pending is reloaded from expected (§9.7.13.15.6). `expect-tx` adds to the
// tx-count, `complete-tx` subtracts (§9.7.13.15.5); `arrive.expect_tx` does the expect
// before the arrive (§9.7.13.15.13). tx-count may go negative within ±(2^20 - 1)
// (§9.7.13.15.2).
#pragma once

#include <cstdint>

namespace tlxsim::sim {

/// What an mbarrier operation did; every value but Ok is a protocol error the verifier reports.
enum class BarrierStatus : uint8_t {
  Ok,
  NotInitialized,  ///< operation on a barrier that was never initialized
  Invalidated,     ///< operation on a barrier after mbarrier.inval (§9.7.13.15.3: undefined)
  Reinitialized,   ///< init of a live barrier without inval (§9.7.13.15.3)
  OverArrival,     ///< arrive with pending == 0 (or more arrivals than pending)
  TxOutOfRange,    ///< |tx-count| > 2^20 - 1
  CountOutOfRange, ///< init count outside 1 .. 2^20 - 1, or an arrive count below 1
};

/// One mbarrier. All operations are O(1) and report whether the phase completed.
class MBarrier {
public:
  static constexpr int64_t kMaxCount = (1 << 20) - 1; ///< §9.7.13.15.2 valid ranges

  /// `mbarrier.init [bar], count`: phase 0, pending = expected = count, tx = 0.
  BarrierStatus init(int64_t count);
  /// `mbarrier.inval`: the barrier becomes uninitialized.
  BarrierStatus inval();
  /// `mbarrier.arrive` with `count` arrivals; `completed` is set if the phase flipped.
  BarrierStatus arrive(int64_t count, bool &completed);
  /// `mbarrier.expect_tx bytes` without an arrival.
  BarrierStatus expectTx(int64_t bytes);
  /// `mbarrier.arrive.expect_tx`: expect-tx then one arrival.
  BarrierStatus arriveExpectTx(int64_t bytes, bool &completed);
  /// complete-tx of `bytes` (TMA data landed); `completed` is set if the phase flipped.
  BarrierStatus completeTx(int64_t bytes, bool &completed);
  /// `try_wait.parity p`: true iff the phase with parity p has completed, i.e. the current
  /// phase's parity differs from p (valid for a waiter at most one phase behind; a fresh
  /// barrier passes parity 1).
  bool testWaitParity(int64_t parity) const { return (phase_ & 1) != (parity & 1); }

  bool initialized() const { return initialized_; }
  /// The status of an operation on this barrier while it is not live.
  BarrierStatus deadStatus() const { return invalidated_ ? BarrierStatus::Invalidated : BarrierStatus::NotInitialized; }
  int64_t phase() const { return phase_; }       ///< completed phases since init
  int64_t parity() const { return phase_ & 1; }  ///< parity of the current (incomplete) phase
  int64_t pending() const { return pending_; }
  int64_t expected() const { return expected_; }
  int64_t tx() const { return tx_; }

private:
  bool tryComplete();

  bool initialized_ = false, invalidated_ = false;
  int64_t phase_ = 0, pending_ = 0, expected_ = 0, tx_ = 0;
};

} // namespace tlxsim::sim
