// The ghost state of the encoding (Encoder.h): its initial value (nothing waited, balanced) and a fresh,
// arbitrary one for the k-induction window.
#include "verifier/proof/Encoder.h"

namespace tlxsim::verifier::proof {

Ghost Encoder::initGhost() {
  Ghost g;
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int w : groups[gi].genericWriters)
      g.dirty.insert_or_assign({w, static_cast<int>(gi)}, c.bool_val(false));
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int r : groups[gi].wgmmaReaders) {
      g.inflight.insert_or_assign({r, static_cast<int>(gi)}, std::vector<z3::expr>(groups[gi].slots, c.bool_val(false)));
      g.age.insert_or_assign({r, static_cast<int>(gi)}, std::vector<z3::expr>(groups[gi].slots, c.int_val(0)));
    }
  initNamed(g, false, "");
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int r : groups[gi].storeReaders) {
      if (groups[gi].wgmmaReaders.count(r))
        throw Unsupported{"partition " + parts[r].name + " reads " + groups[gi].name +
                          " with both wgmma and TMA stores, whose in-flight depths the prover keeps apart"};
      g.inflight.insert_or_assign({r, static_cast<int>(gi)}, std::vector<z3::expr>(groups[gi].slots, c.bool_val(false)));
      g.age.insert_or_assign({r, static_cast<int>(gi)}, std::vector<z3::expr>(groups[gi].slots, c.int_val(0)));
    }
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Group &buf = groups[gi];
    if (buf.data && buf.fill.size() == 1 && groups[*buf.fill.begin()].slots == buf.slots)
      for (int r : buf.readers)
        if (groups[*buf.fill.begin()].waiters.count(r)) {
          g.held.insert_or_assign({r, static_cast<int>(gi)}, std::vector<z3::expr>(buf.slots, c.bool_val(false)));
          if (!buf.releases.empty())
            g.released.insert_or_assign({r, static_cast<int>(gi)}, std::vector<z3::expr>(buf.slots, c.bool_val(false)));
        }
  }
  // Partitions that wait on some barrier inside their loops: only they can know, at a wait after their loops, that
  // the phases before it completed (the happens-before that makes a first wait after laps name one phase,
  // verifier/PhaseChecker.h); a partition that waits on nothing while the arrivals happen cannot.
  std::set<int> pacedWaiters;
  for (const Group &grp : groups)
    pacedWaiters.insert(grp.loopWaiters.begin(), grp.loopWaiters.end());
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    g.tx.push_back(std::vector<z3::expr>(groups[gi].slots, c.int_val(0)));
    for (int w : groups[gi].waiters) {
      auto key = phaseKey(static_cast<int>(gi), w); // replicas in turn share one (Part::phaseWaiter)
      if (g.B.count(key))
        continue;
      g.B[key] = std::vector<z3::expr>(groups[gi].slots, c.int_val(0));
      g.D[key] = std::vector<z3::expr>(groups[gi].slots, c.bool_val(false));
      g.has[key] = std::vector<z3::expr>(groups[gi].slots, c.bool_val(false));
      g.last[key] = std::vector<z3::expr>(groups[gi].slots, c.int_val(0));
      // Laps before a first wait (Ghost::avail): kept for waits after the waiter's loops only, where one wait
      // follows many phases (a counter barrier); a wait in a loop alternates with the phases (wait-parity), and
      // the extra term per slot and step made the induction queries 2.8x costlier (TLX ping-pong attention).
      if (groups[gi].asyncSignals && groups[gi].afterWaiters.count(w) && !groups[gi].loopWaiters.count(w) &&
          pacedWaiters.count(w))
        g.avail[key] = std::vector<z3::expr>(groups[gi].slots, c.int_val(0));
    }
  }
  return g;
}

Ghost Encoder::freshGhost(const std::string &tag) {
  Ghost g = initGhost();
  for (auto &v : g.tx)
    for (auto &e : v)
      e = fresh(tag + "tx");
  for (auto &[k, v] : g.B)
    for (auto &e : v)
      e = fresh(tag + "B");
  for (auto &[k, v] : g.D)
    for (auto &e : v)
      e = fresh(tag + "D", true);
  for (auto &[k, v] : g.has)
    for (auto &e : v)
      e = fresh(tag + "has", true);
  for (auto &[k, v] : g.held)
    for (auto &e : v)
      e = fresh(tag + "held", true);
  for (auto &[k, v] : g.released)
    for (auto &e : v)
      e = fresh(tag + "released", true);
  for (auto &[k, v] : g.avail)
    for (auto &e : v)
      e = fresh(tag + "avail");
  for (auto &[k, e] : g.dirty)
    e = fresh(tag + "dirty", true);
  initNamed(g, true, tag);
  for (auto &[k, v] : g.inflight)
    if (!groups[k.second].storeReaders.count(k.first)) // TMA stores: followed within a step (Encoder::apply)
      for (auto &e : v)
        e = fresh(tag + "inflight", true);
  for (auto &[k, v] : g.age)
    for (auto &e : v) {
      e = fresh(tag + "age");
      paramConstraints.push_back(e >= 0 && e <= c.int_val(ageCap));
    }
  for (auto &[k, v] : g.last)
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = fresh(tag + "last");
      paramConstraints.push_back(v[i] == 0 || v[i] == 1);
    }
  return g;
}

} // namespace tlxsim::verifier::proof
