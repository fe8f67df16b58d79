#include "verifier/CheckerBase.h"

#include <algorithm>

namespace tlxsim::verifier {

void CheckerBase::onAgentStart(const sim::AgentInfo &info, sim::Cycle) {
  if (agentPartition_.size() <= static_cast<size_t>(info.id)) {
    agentPartition_.resize(info.id + 1);
    agentCta_.resize(info.id + 1);
  }
  auto it = std::find(partitionNames_.begin(), partitionNames_.end(), info.partition);
  if (it == partitionNames_.end())
    it = partitionNames_.insert(partitionNames_.end(), info.partition);
  agentPartition_[info.id] = static_cast<int32_t>(it - partitionNames_.begin());
  agentCta_[info.id] = info.cta;
  ++liveAgents_[info.cta];
  exitedCtas_.erase(info.cta);
}

void CheckerBase::onAgentEnd(int32_t agent, sim::Cycle) {
  int64_t c = cta(agent);
  if (--liveAgents_[c] <= 0)
    exitedCtas_.insert(c);
}

ir::SourceLoc CheckerBase::loc(int32_t index) const {
  return index >= 0 && index < static_cast<int32_t>(program_.locs.size()) ? program_.locs[index] : ir::SourceLoc{};
}

std::string CheckerBase::freshPassNote(const sim::BarrierEvent &pass, const std::string &name) const {
  return "partition '" + partition(pass.agent) + "' waited on " + name + " for parity " +
         std::to_string(pass.amount & 1) + " at cycle " + std::to_string(pass.cycle) +
         " and passed at once: on a fresh barrier parity 1 names the phase before its init, so that wait observed no "
         "phase (if it meant phase 0, its parity is one phase off)";
}

} // namespace tlxsim::verifier
