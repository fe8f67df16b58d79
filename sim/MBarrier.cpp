#include "sim/MBarrier.h"

#include <cstdlib>

namespace tlxsim::sim {

BarrierStatus MBarrier::init(int64_t count) {
  if (count < 1 || count > kMaxCount)
    return BarrierStatus::CountOutOfRange;
  BarrierStatus status = initialized_ ? BarrierStatus::Reinitialized : BarrierStatus::Ok;
  initialized_ = true;
  invalidated_ = false;
  phase_ = 0;
  pending_ = expected_ = count;
  tx_ = 0;
  return status;
}

BarrierStatus MBarrier::inval() {
  if (!initialized_)
    return deadStatus();
  initialized_ = false;
  invalidated_ = true;
  return BarrierStatus::Ok;
}

bool MBarrier::tryComplete() {
  if (pending_ != 0 || tx_ != 0)
    return false;
  ++phase_;
  pending_ = expected_;
  return true;
}

BarrierStatus MBarrier::arrive(int64_t count, bool &completed) {
  completed = false;
  if (!initialized_)
    return deadStatus();
  if (count < 1)
    return BarrierStatus::CountOutOfRange; // an arrive-on counts at least one arrival
  if (count > pending_) {
    pending_ = 0; // saturate so the simulation can go on; the caller reports the error
    completed = tryComplete();
    return BarrierStatus::OverArrival;
  }
  pending_ -= count;
  completed = tryComplete();
  return BarrierStatus::Ok;
}

BarrierStatus MBarrier::expectTx(int64_t bytes) {
  if (!initialized_)
    return deadStatus();
  tx_ += bytes;
  return std::llabs(tx_) > kMaxCount ? BarrierStatus::TxOutOfRange : BarrierStatus::Ok;
}

BarrierStatus MBarrier::arriveExpectTx(int64_t bytes, bool &completed) {
  completed = false;
  BarrierStatus status = expectTx(bytes);
  if (status == BarrierStatus::NotInitialized || status == BarrierStatus::Invalidated)
    return status;
  BarrierStatus arrived = arrive(1, completed);
  return status != BarrierStatus::Ok ? status : arrived;
}

BarrierStatus MBarrier::completeTx(int64_t bytes, bool &completed) {
  completed = false;
  if (!initialized_)
    return deadStatus();
  tx_ -= bytes;
  if (std::llabs(tx_) > kMaxCount)
    return BarrierStatus::TxOutOfRange;
  completed = tryComplete();
  return BarrierStatus::Ok;
}

} // namespace tlxsim::sim
