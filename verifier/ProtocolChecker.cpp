#include "verifier/ProtocolChecker.h"


namespace tlxsim::verifier {

using namespace tlxsim::sim;

void ProtocolChecker::onBarrier(const BarrierEvent &e) {
  if (e.status == BarrierStatus::Ok && e.action == BarrierAction::Init)
    freshPass_[e.barrier] = FreshPass{};
  if (e.status == BarrierStatus::Ok && e.action == BarrierAction::WaitPass && e.phase == 0 && (e.amount & 1))
    if (FreshPass &fresh = freshPass_[e.barrier]; !fresh.seen)
      fresh = FreshPass{true, e};
  if (e.status == BarrierStatus::Ok || e.status == BarrierStatus::TxOutOfRange) // the hot path; tx is TxCountChecker's
    return;
  const char *cls = nullptr;
  std::string what;
  std::string name = program_.barrierName(e.barrier.alloc, e.barrier.index);
  switch (e.status) {
  case BarrierStatus::OverArrival: {
    // arrive.expect_tx is one arrival; `amount` is then the tx byte count.
    int64_t arrivals = e.action == BarrierAction::ExpectArrive ? 1 : e.amount;
    cls = "arrive-count";
    what = "over-arrival on " + name + ": " + std::to_string(arrivals) +
           " arrival(s) when the phase had fewer pending (expected " + std::to_string(e.expected) + " per phase)";
    break;
  }
  case BarrierStatus::CountOutOfRange:
    cls = "arrive-count";
    what = e.action == BarrierAction::Init
               ? "mbarrier init count " + std::to_string(e.amount) + " of " + name + " is outside 1 .. 2^20 - 1"
               : "arrive with count " + std::to_string(e.amount) + " on " + name + " (must be at least 1)";
    break;
  case BarrierStatus::NotInitialized:
    cls = "barrier-lifecycle";
    what = name + " is used before it is initialized";
    break;
  case BarrierStatus::Invalidated:
    cls = "barrier-lifecycle";
    what = e.asyncOp >= 0 ? "the arrive of the asynchronous operation issued here lands on " + name +
                                " after the barrier was invalidated: nothing orders its completion before the inval"
                          : name + " is used after mbarrier.inval (PTX ISA 9.1 9.7.13.15.3)";
    break;
  case BarrierStatus::Reinitialized:
    cls = "barrier-lifecycle";
    what = name + " is initialized again while live, without mbarrier.inval (PTX ISA 9.1 9.7.13.15.3)";
    break;
  default:
    return;
  }
  if (!reported_.insert({e.loc, static_cast<int>(e.status)}).second)
    return;
  Finding f;
  f.cls = cls;
  f.location = loc(e.loc);
  f.message = what + " (partition '" + partition(e.agent) + "', CTA " + std::to_string(e.barrier.cta) + ")";
  f.barrier = BarrierState{name, e.phase, e.pending, e.expected, e.tx};
  if (e.status == BarrierStatus::OverArrival && e.action == BarrierAction::ExpectArrive)
    if (FreshPass *fresh = freshPass_.find(e.barrier); fresh && fresh->seen && fresh->wait.agent != e.agent)
      f.notes.emplace_back(loc(fresh->wait.loc), freshPassNote(fresh->wait, name));
  findings_.push_back(std::move(f));
}

} // namespace tlxsim::verifier
