// All dynamic checkers, attached to one simulation as listeners.
#pragma once

#include "sim/Engine.h"
#include "verifier/ClusterBarrierChecker.h"
#include "verifier/ClusterDeliveryChecker.h"
#include "verifier/DeadlockChecker.h"
#include "verifier/NamedBarrierChecker.h"
#include "verifier/PhaseChecker.h"
#include "verifier/ProtocolChecker.h"
#include "verifier/RaceChecker.h"
#include "verifier/TxCountChecker.h"

#include <algorithm>

namespace tlxsim::verifier {

class Verifier {
public:
  explicit Verifier(const sim::Program &program)
      : deadlocks_(program), tx_(program), protocol_(program), phases_(program, races_),
        races_(program, std::max<int64_t>(2, program.clusterSize())), named_(program), cluster_(program),
        delivery_(program, races_, std::max<int64_t>(2, program.clusterSize())) {}
  void attach(sim::Engine &engine) {
    engine.addListener(&protocol_);
    engine.addListener(&phases_);
    engine.addListener(&delivery_); // before races_: reads agent clocks before the race checker advances them
    engine.addListener(&races_);
    engine.addListener(&named_);
    engine.addListener(&cluster_);
    engine.addListener(&tx_);
    engine.addListener(&deadlocks_);
  }
  /// Findings in report order: protocol errors (causes) first, then races, tx-count, and deadlocks (symptoms).
  std::vector<Finding> findings() const {
    std::vector<Finding> all = protocol_.findings();
    all.insert(all.end(), phases_.findings().begin(), phases_.findings().end());
    all.insert(all.end(), named_.findings().begin(), named_.findings().end());
    all.insert(all.end(), cluster_.findings().begin(), cluster_.findings().end());
    all.insert(all.end(), delivery_.findings().begin(), delivery_.findings().end());
    all.insert(all.end(), races_.findings().begin(), races_.findings().end());
    all.insert(all.end(), tx_.findings().begin(), tx_.findings().end());
    all.insert(all.end(), deadlocks_.findings().begin(), deadlocks_.findings().end());
    mergeArriveCounts(all);
    return all;
  }

private:
  /// One arrive-count finding per location: the protocol checker's over-arrival and the phase checker's lap are
  /// often the same arrive seen in two CTAs (a producer lapping a consumer whose first wait passed on a fresh
  /// barrier); the first keeps its message and takes the other's notes (which name the wait to fix), the other goes.
  static void mergeArriveCounts(std::vector<Finding> &all) {
    std::vector<Finding> out;
    for (Finding &f : all) {
      auto same = std::find_if(out.begin(), out.end(), [&](const Finding &o) {
        return f.cls == "arrive-count" && o.cls == f.cls && o.location == f.location;
      });
      if (same == out.end()) {
        out.push_back(std::move(f));
        continue;
      }
      for (auto &note : f.notes)
        if (std::find(same->notes.begin(), same->notes.end(), note) == same->notes.end())
          same->notes.push_back(std::move(note));
    }
    all = std::move(out);
  }

  DeadlockChecker deadlocks_;
  TxCountChecker tx_;
  ProtocolChecker protocol_;
  PhaseChecker phases_;
  RaceChecker races_;
  NamedBarrierChecker named_;
  ClusterBarrierChecker cluster_;
  ClusterDeliveryChecker delivery_;
};

} // namespace tlxsim::verifier
