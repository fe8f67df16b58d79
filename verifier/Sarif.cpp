#include "verifier/Sarif.h"

#include "verifier/Baseline.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace tlxsim::verifier {

namespace {

/// The finding classes of design.md with a one-line description each.
const std::map<std::string, std::string> &ruleTexts() {
  static const std::map<std::string, std::string> rules = {
      {"deadlock", "No partition can progress: a wait-for cycle or a wait nobody completes"},
      {"arrive-count", "mbarrier arrival count wrong: over-arrival, missing arrivals or lapping its waiters"},
      {"tx-count", "mbarrier tx-count: expected bytes differ from the bytes delivered in the phase"},
      {"parity-aliasing", "A waiter two or more phases behind: its parity names the wrong phase"},
      {"barrier-lifecycle", "mbarrier used before init, re-initialized without inval, or invalidated in use"},
      {"race-raw", "Read before the write that fills it is known complete"},
      {"race-war", "Write while an earlier (asynchronous) read may still be in flight"},
      {"race-waw", "Two unordered writes to the same region"},
      {"missing-fence", "Generic-proxy write read by the async proxy without fence.proxy.async"},
      {"named-barrier", "Hardware named barrier misuse: thread counts, arrive vs sync, id collisions"},
      {"cluster-barrier", "Cluster barrier misuse: threads of the cluster that never arrive"},
      {"proof:wait-parity", "Z3 counterexample: a wait targets a phase its producers do not complete"},
      {"proof:phase-balance", "Z3 counterexample: arrivals and waited phases do not balance for some launch"},
      {"proof:tx-balance", "Z3 counterexample: expected tx bytes differ from the TMA bytes for some launch"},
      {"proof:slot-range", "Z3 counterexample: a barrier index outside its array for some launch"},
      {"proof:stage-ownership", "Z3 counterexample: a writer and an in-flight reader hold the same stage"},
      {"proof:proxy-fence", "Z3 counterexample: a generic write reaches an async-proxy read with no fence"},
      {"proof:named-balance", "Z3 counterexample: a bar.sync whose phase some partition never arrives in"},
  };
  return rules;
}

llvm::json::Object physical(const ir::SourceLoc &loc) {
  llvm::json::Object region{{"startLine", static_cast<int64_t>(loc.line)}};
  if (loc.col > 0)
    region["startColumn"] = static_cast<int64_t>(loc.col);
  return llvm::json::Object{{"physicalLocation", llvm::json::Object{{"artifactLocation",
                                                                     llvm::json::Object{{"uri", loc.file}}},
                                                                    {"region", std::move(region)}}}};
}

} // namespace

llvm::json::Object toSarif(const std::vector<Finding> &findings) {
  llvm::json::Array rules;
  std::map<std::string, int64_t> ruleIndex;
  for (const auto &[id, text] : ruleTexts()) {
    ruleIndex[id] = static_cast<int64_t>(rules.size());
    rules.push_back(llvm::json::Object{{"id", id}, {"shortDescription", llvm::json::Object{{"text", text}}}});
  }
  llvm::json::Array results;
  for (const Finding &f : findings) {
    llvm::json::Object result{{"ruleId", f.cls},
                              {"level", "error"},
                              {"message", llvm::json::Object{{"text", f.message}}},
                              {"partialFingerprints", llvm::json::Object{{"tlxsim/v1", fingerprint(f)}}},
                              {"properties", llvm::json::Object{{"schedule", f.schedule}}}};
    if (auto it = ruleIndex.find(f.cls); it != ruleIndex.end())
      result["ruleIndex"] = it->second;
    llvm::json::Array locations;
    if (f.location.valid())
      locations.push_back(physical(f.location));
    result["locations"] = std::move(locations);
    llvm::json::Array related;
    int64_t id = 0;
    auto addRelated = [&](const ir::SourceLoc &loc, const std::string &text) {
      if (!loc.valid())
        return;
      llvm::json::Object r = physical(loc);
      r["id"] = id++;
      r["message"] = llvm::json::Object{{"text", text}};
      related.push_back(std::move(r));
    };
    for (const Related &r : f.related)
      addRelated(r.location, r.message);
    for (const auto &[loc, text] : f.notes)
      addRelated(loc, text);
    if (!related.empty())
      result["relatedLocations"] = std::move(related);
    results.push_back(std::move(result));
  }
  llvm::json::Object driver{{"name", "tlx-sim"},
                            {"informationUri", "https://github.com/tlx-sim/tlx-sim"},
                            {"rules", std::move(rules)}};
  return llvm::json::Object{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", llvm::json::Array{llvm::json::Object{{"tool", llvm::json::Object{{"driver", std::move(driver)}}},
                                                    {"results", std::move(results)}}}}};
}

} // namespace tlxsim::verifier
