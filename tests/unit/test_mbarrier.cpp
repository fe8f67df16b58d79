// mbarrier semantics (PTX ISA 9.1 §9.7.13.15).
#include "sim/MBarrier.h"

#include <doctest/doctest.h>

using tlxsim::sim::BarrierStatus;
using tlxsim::sim::MBarrier;

TEST_CASE("a fresh barrier is in phase 0: parity 1 passes, parity 0 blocks") {
  MBarrier bar;
  REQUIRE(bar.init(1) == BarrierStatus::Ok);
  CHECK(bar.phase() == 0);
  CHECK(bar.testWaitParity(1));
  CHECK_FALSE(bar.testWaitParity(0));
  CHECK(bar.pending() == 1);
  CHECK(bar.expected() == 1);
}

TEST_CASE("the phase completes when all arrivals are in, and parity flips each phase") {
  MBarrier bar;
  bar.init(2);
  bool completed = false;
  CHECK(bar.arrive(1, completed) == BarrierStatus::Ok);
  CHECK_FALSE(completed);
  CHECK(bar.pending() == 1);
  CHECK_FALSE(bar.testWaitParity(0));
  CHECK(bar.arrive(1, completed) == BarrierStatus::Ok);
  CHECK(completed);
  CHECK(bar.phase() == 1);
  CHECK(bar.pending() == 2); // reloaded from expected
  CHECK(bar.testWaitParity(0));
  CHECK_FALSE(bar.testWaitParity(1));
  bar.arrive(2, completed);
  CHECK(completed);
  CHECK(bar.phase() == 2);
  CHECK(bar.testWaitParity(1));
  CHECK_FALSE(bar.testWaitParity(0));
}

TEST_CASE("arrive.expect_tx: the phase waits for the bytes, not only the arrival") {
  MBarrier bar;
  bar.init(1);
  bool completed = true;
  CHECK(bar.arriveExpectTx(32768, completed) == BarrierStatus::Ok);
  CHECK_FALSE(completed);
  CHECK(bar.pending() == 0);
  CHECK(bar.tx() == 32768);
  CHECK(bar.completeTx(16384, completed) == BarrierStatus::Ok);
  CHECK_FALSE(completed);
  CHECK(bar.tx() == 16384);
  CHECK(bar.completeTx(16384, completed) == BarrierStatus::Ok);
  CHECK(completed);
  CHECK(bar.phase() == 1);
  CHECK(bar.tx() == 0);
}

TEST_CASE("tx underflow: complete-tx before expect-tx is legal; the phase waits for the arrival") {
  MBarrier bar;
  bar.init(1);
  bool completed = true;
  CHECK(bar.completeTx(4096, completed) == BarrierStatus::Ok);
  CHECK_FALSE(completed); // pending arrival
  CHECK(bar.tx() == -4096);
  CHECK(bar.arriveExpectTx(4096, completed) == BarrierStatus::Ok);
  CHECK(completed); // expect brings tx back to 0 before the arrival
  CHECK(bar.phase() == 1);
}

TEST_CASE("expect-bytes larger than delivered leaves the phase incomplete") {
  MBarrier bar;
  bar.init(1);
  bool completed = false;
  bar.arriveExpectTx(34816, completed);
  bar.completeTx(16384, completed);
  bar.completeTx(16384, completed);
  CHECK_FALSE(completed);
  CHECK(bar.tx() == 2048);
  CHECK(bar.pending() == 0);
  CHECK_FALSE(bar.testWaitParity(0));
}

TEST_CASE("over-arrival is reported") {
  MBarrier bar;
  bar.init(1);
  bool completed = false;
  CHECK(bar.arrive(2, completed) == BarrierStatus::OverArrival);
  MBarrier other;
  other.init(2);
  CHECK(other.arrive(1, completed) == BarrierStatus::Ok);
  CHECK(other.arrive(2, completed) == BarrierStatus::OverArrival);
}

TEST_CASE("tx-count range is +-(2^20 - 1)") {
  MBarrier bar;
  bar.init(1);
  CHECK(bar.expectTx(MBarrier::kMaxCount) == BarrierStatus::Ok);
  CHECK(bar.expectTx(1) == BarrierStatus::TxOutOfRange);
  MBarrier low;
  low.init(1);
  bool completed = false;
  CHECK(low.completeTx(MBarrier::kMaxCount + 1, completed) == BarrierStatus::TxOutOfRange);
}

TEST_CASE("lifecycle: use before init, re-init without inval, count range") {
  MBarrier bar;
  bool completed = false;
  CHECK(bar.arrive(1, completed) == BarrierStatus::NotInitialized);
  CHECK(bar.inval() == BarrierStatus::NotInitialized);
  CHECK(bar.init(0) == BarrierStatus::CountOutOfRange);
  CHECK(bar.init(MBarrier::kMaxCount + 1) == BarrierStatus::CountOutOfRange);
  CHECK(bar.init(1) == BarrierStatus::Ok);
  CHECK(bar.init(1) == BarrierStatus::Reinitialized);
  CHECK(bar.inval() == BarrierStatus::Ok);
  CHECK(bar.arrive(1, completed) == BarrierStatus::Invalidated);
  CHECK(bar.inval() == BarrierStatus::Invalidated);
  CHECK(bar.init(1) == BarrierStatus::Ok);
  CHECK(bar.arrive(1, completed) == BarrierStatus::Ok);
}
