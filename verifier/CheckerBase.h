// What every checker needs from the event stream: which partition and CTA an agent is,
// and the Python location of an op. Compact per agent (an index and a CTA id).
#pragma once

#include "sim/Events.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tlxsim::verifier {

/// The phase a wait that passed or resumed (WaitPass / WaitResume) observed: the newest completed phase of the
/// waited parity (the event carries the barrier's phase after it; -1: a fresh barrier's "phase before 0").
inline int64_t observedPhase(const sim::BarrierEvent &wait) {
  int64_t completed = wait.phase - 1;
  return (completed & 1) == (wait.amount & 1) ? completed : completed - 1;
}

class CheckerBase : public sim::Listener {
public:
  void onAgentStart(const sim::AgentInfo &info, sim::Cycle t) override;
  void onAgentEnd(int32_t agent, sim::Cycle t) override;

protected:
  explicit CheckerBase(const sim::Program &program) : program_(program) {}
  /// The partition name of `agent` ("default", "partition0", ...).
  const std::string &partition(int32_t agent) const { return partitionNames_[agentPartition_[agent]]; }
  /// The index of `agent`'s partition name, in order of first appearance (equal names, equal indices).
  int32_t partitionIndex(int32_t agent) const { return agentPartition_[agent]; }
  /// The CTA `agent` belongs to.
  int64_t cta(int32_t agent) const { return agentCta_[agent]; }
  /// Whether every agent of CTA `cta` that started has ended (the CTA exited; a checker that overrides
  /// onAgentEnd calls CheckerBase::onAgentEnd first).
  bool ctaExited(int64_t cta) const { return exitedCtas_.count(cta) > 0; }
  /// The Python location of Program::locs[index]; unknown for -1.
  ir::SourceLoc loc(int32_t index) const;
  /// The note on a wait (`pass`, a WaitPass) that passed at once on the fresh barrier `name` for parity 1: PTX ISA
  /// mbarrier.try_wait.parity names the phase before its init, so it observed no phase (a consumer's `phase ^ 1`
  /// on a full barrier: its parity one phase off). Read by the lap (PhaseChecker) and the over-arrival
  /// (ProtocolChecker) that such a wait causes.
  std::string freshPassNote(const sim::BarrierEvent &pass, const std::string &name) const;

  const sim::Program &program_;

private:
  std::vector<int32_t> agentPartition_;
  std::vector<int64_t> agentCta_;
  std::vector<std::string> partitionNames_;
  std::map<int64_t, int32_t> liveAgents_; ///< per CTA: agents started and not ended
  std::set<int64_t> exitedCtas_;
};

} // namespace tlxsim::verifier
