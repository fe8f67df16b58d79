// Named barriers in the prover: `ttng.wait_barrier_named` (bar.sync) and `ttng.arrive_barrier_named` (bar.arrive)
// as pseudo-groups (Group::named), their arrivals in the ghost state, the named-balance property at the kernel's
// end and the lemmas that make it inductive.
//
// Semantics (PTX ISA 9.7.13.1, bar / barrier): a named barrier id of the CTA completes a phase once `b` threads
// have arrived (bar.arrive counts its threads and goes on, bar.sync counts them and waits for the phase); the
// barrier then resets for its next phase. The prover encodes the protocol where every phase takes one arrival of
// each partition that uses the id: the id's thread count equals the sum of those partitions' threads (TLX's
// ping-pong consumers: two warp groups of 128 threads, `named_barrier_wait(9, 256)` / `named_barrier_arrive(9,
// 256)`). Then a partition's n-th arrival belongs to phase n, and its bar.sync as its n-th arrival completes only
// when every partition of the id arrives at least n times: named-balance fails at the kernel's end when a
// partition's latest bar.sync waits for an arrival another partition never makes (a deadlock on hardware, for the
// launch of the counterexample). The arrivals' order within a phase (a partition that arrives twice before another
// arrives once completes a phase without it) depends on the interleaving, which the lock-step encoding does not
// fix: that is the simulation's (verifier/NamedBarrierChecker.cpp, DeadlockChecker.cpp). Ids whose count is not
// that sum, computed ids or counts, and named barriers outside the partitions are not encoded (Protocol::namedNote).
#include "verifier/proof/Driver.h"

#include "ir/Location.h"
#include "ir/Partitions.h"

#include <map>

using namespace mlir;

namespace tlxsim::verifier::proof {

namespace {

std::optional<int64_t> constantOperand(Operation &op, unsigned i) {
  return i < op.getNumOperands() ? constantOf(op.getOperand(i)) : std::nullopt;
}

/// One named-barrier op of the kernel: its partition, id, thread count and kind.
struct NamedUse {
  Operation *op;
  int part;
  int64_t id, count;
  bool sync;
};

} // namespace

bool isNamedBarrierOp(Operation &op) {
  llvm::StringRef n = op.getName().getStringRef();
  return n == "ttng.wait_barrier_named" || n == "ttng.arrive_barrier_named";
}

void addNamedBarriers(Protocol &p) {
  std::vector<NamedUse> uses;
  std::string why;
  p.func->walk([&](Operation *op) {
    if (!isNamedBarrierOp(*op) || !why.empty())
      return;
    std::string at = ir::pythonLocation(op->getLoc()).str() + ": ";
    auto id = constantOperand(*op, 0), count = constantOperand(*op, 1);
    if (!id || !count) {
      why = at + "a named barrier whose id or thread count is computed";
      return;
    }
    int part = -1;
    for (size_t i = 0; i < p.parts.size(); ++i)
      if (p.parts[i].block->getParent()->isAncestor(op->getParentRegion()))
        part = static_cast<int>(i);
    if (part < 0) {
      why = at + "a named barrier outside the partitions";
      return;
    }
    uses.push_back({op, part, *id, *count, op->getName().getStringRef() == "ttng.wait_barrier_named"});
  });
  std::map<int64_t, int> groupOfId;
  for (const NamedUse &u : uses) {
    if (!why.empty())
      break;
    auto [it, fresh] = groupOfId.try_emplace(u.id, static_cast<int>(p.groups.size()));
    if (fresh) {
      Group g;
      g.named = true;
      g.name = "named barrier " + std::to_string(u.id);
      g.loc = ir::pythonLocation(u.op->getLoc());
      g.count.assign(1, u.count);
      p.groups.push_back(std::move(g));
    }
    Group &g = p.groups[it->second];
    if (!g.loc.valid()) // the first op with a source line names the barrier (TLX's first arrive may have none)
      g.loc = ir::pythonLocation(u.op->getLoc());
    if (g.count[0] != u.count) {
      why = ir::pythonLocation(u.op->getLoc()).str() + ": " + g.name + " is used with " + std::to_string(g.count[0]) +
            " and " + std::to_string(u.count) + " threads";
      break;
    }
    g.namedThreads[u.part] = ir::partitionThreads(*u.op);
    g.users.insert(u.part);
    if (u.sync)
      g.syncers.try_emplace(u.part, u.op);
    p.namedOf[u.op] = it->second;
  }
  for (auto &[id, gi] : groupOfId) {
    if (!why.empty())
      break;
    const Group &g = p.groups[gi];
    int64_t sum = 0;
    std::string who;
    for (auto &[part, threads] : g.namedThreads) {
      sum += threads;
      who += (who.empty() ? "" : ", ") + p.parts[part].name + " " + std::to_string(threads);
    }
    if (sum != g.count[0])
      why = g.loc.str() + ": " + g.name + " counts " + std::to_string(g.count[0]) + " threads, its partitions have " +
            std::to_string(sum) + " (" + who + "), so a phase is not one arrival of each";
  }
  if (why.empty())
    return;
  // Not encoded: drop the pseudo-groups (they are the last groups) and say why.
  while (!p.groups.empty() && p.groups.back().named)
    p.groups.pop_back();
  p.namedOf.clear();
  p.namedNote = "named barriers (bar.sync / bar.arrive) are not encoded (" + why +
                "): the verdicts cover the mbarrier protocol only; named-barrier deadlocks and counts come from the "
                "simulation";
}

void Encoder::initNamed(Ghost &g, bool freshValues, const std::string &tag) {
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (auto &[part, threads] : groups[gi].namedThreads) {
      auto key = std::make_pair(static_cast<int>(gi), part);
      z3::expr n = freshValues ? fresh(tag + "narrived") : c.int_val(0);
      g.arrived.insert_or_assign(key, n);
      if (!groups[gi].syncers.count(part))
        continue;
      z3::expr s = freshValues ? fresh(tag + "nsynced") : c.int_val(0);
      g.synced.insert_or_assign(key, s);
      if (freshValues) // invariants of every reachable state: counts, and a sync among the arrivals
        paramConstraints.push_back(n >= 0 && s >= 0 && s <= n);
    }
}

void Encoder::applyNamed(Ghost &g, const Event &e) {
  auto key = std::make_pair(e.group, e.part);
  z3::expr &n = g.arrived.at(key);
  n = z3::ite(e.guard, n + 1, n);
  if (e.amount == 1)
    g.synced.at(key) = z3::ite(e.guard, n, g.synced.at(key));
}

void Encoder::checkNamedEnd(const Ghost &g, const z3::expr &when, std::vector<Violation> &viol) {
  for (auto &[key, s] : g.synced)
    for (auto &[other, n] : g.arrived)
      if (other.first == key.first && other.second != key.second)
        viol.push_back({NamedBalance, key.first, when && s > n, groups[key.first].syncers.at(key.second), key.second});
}

int Driver::learnNamedLemmas(std::vector<SampleValues> &samples, int lemmaId) {
  // The ghost counters of one named barrier whose difference is the same in every live state of every sample
  // (the ping-pong consumers: the one that arrives first stays one arrival ahead), each tied to its first partner.
  using Counter = std::pair<const std::map<std::pair<int, int>, z3::expr> Ghost::*, std::pair<int, int>>;
  std::vector<Counter> vars;
  if (states.empty() || !states[0].ghost)
    return lemmaId;
  for (auto &[key, e] : states[0].ghost->arrived)
    vars.push_back({&Ghost::arrived, key});
  for (auto &[key, e] : states[0].ghost->synced)
    vars.push_back({&Ghost::synced, key});
  auto value = [](const State &st, const Counter &v) { return ((*st.ghost).*v.first).at(v.second); };
  return learnConstantDifferences(
      samples, lemmaId, vars.size(),
      [&](size_t i, const State &st) -> std::optional<z3::expr> { return value(st, vars[i]); },
      [&](size_t i, size_t j) { return vars[j].second.first == vars[i].second.first; },
      [&](size_t i) { return vars[i].second.second; },
      [&](size_t i, size_t j) {
        return groups[vars[i].second.first].name + " counter of partition " + std::to_string(vars[i].second.second) +
               " - that of partition " + std::to_string(vars[j].second.second);
      });
}

} // namespace tlxsim::verifier::proof
