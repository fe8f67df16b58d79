// Clusters and distributed shared memory (PTX ISA 9.1 5.1.1): peers, 2-CTA pairs, cluster barriers, mapa views,
// remote stores.
#include "sim/EngineState.h"
#include "sim/units/Lsu.h"

namespace tlxsim::sim {

using namespace engine;

/// The running CTA of cluster rank `rank` in the cluster of `cta`; fails naming why when the rank lies outside
/// the cluster or that CTA does not run (not launched, or already exited).
Cta *Engine::Impl::peerCta(const Cta &cta, int64_t rank, const Instr &in) {
  if (rank < 0 || rank >= program.clusterSize()) {
    fail(in, "cluster CTA rank " + std::to_string(rank) + " lies outside " + program.clusterText());
    return nullptr;
  }
  int64_t id = cta.id / program.clusterSize() * program.clusterSize() + rank;
  if (id < static_cast<int64_t>(ctas.size()) && ctas[id])
    return ctas[id].get();
  fail(in, "CTA " + std::to_string(id) + " (rank " + std::to_string(rank) + " of the cluster of CTA " +
               std::to_string(cta.id) + ") is not running: " +
               (id >= totalCtas ? "the simulated grid (--grid, --max-ctas) must hold whole clusters of " +
                                      std::to_string(program.clusterSize()) + " CTAs"
                : id >= nextCta
                    ? std::string("it has not started yet (the simulator starts a cluster's CTAs as SMs free up); "
                                  "access a peer's shared memory only after a cluster barrier, which ensures every "
                                  "CTA of the cluster has started (CUDA C++ Programming Guide, Distributed Shared "
                                  "Memory)")
                    : std::string("it has exited, and the shared memory of an exited CTA of the "
                                  "cluster must not be accessed (PTX ISA 9.1 5.1.1)")));
  return nullptr;
}

/// The linear id of the CTA whose shared memory the view `v` of an agent of `cta` names.
int64_t Engine::Impl::viewCtaId(const Cta &cta, const Value &v) const {
  return v.rank < 0 ? cta.id : cta.id / program.clusterSize() * program.clusterSize() + v.rank;
}

/// The CTAs of the 2-CTA pair (cta_group::2) `cta` belongs to, leader (even rank) first: the two CTAs of the
/// cluster whose %cluster_ctarank differs in the last bit only (PTX ISA 9.3 9.7.17.5.1 "CTA Pair"; in a 2-D cluster of
/// even cx, x-neighbours). Empty after a failure.
std::vector<Cta *> Engine::Impl::ctaPair(const Cta &cta, const Instr &in) {
  if (program.clusterSize() < 2) {
    const auto &d = program.clusterDims;
    fail(in, "a 2-CTA (two_ctas / cta_group::2) operation needs clusters of at least 2 CTAs (" +
                 (d[0] == program.numCtas ? "ttg.num-ctas = " + std::to_string(program.numCtas)
                                          : "cluster shape " + std::to_string(d[0]) + "x" + std::to_string(d[1]) +
                                                "x" + std::to_string(d[2])) +
                 ")");
    return {};
  }
  int64_t leader = cta.id % program.clusterSize() & ~int64_t(1);
  Cta *first = peerCta(cta, leader, in);
  Cta *second = first ? peerCta(cta, leader + 1, in) : nullptr;
  return second ? std::vector<Cta *>{first, second} : std::vector<Cta *>{};
}

/// Whether the CTA of cluster rank `rank` in the cluster of `cta` was launched and has exited.
bool Engine::Impl::peerExited(const Cta &cta, int64_t rank) const {
  if (rank < 0 || rank >= program.clusterSize())
    return false;
  int64_t id = cta.id / program.clusterSize() * program.clusterSize() + rank;
  return id < nextCta && (id >= static_cast<int64_t>(ctas.size()) || !ctas[id]);
}

/// The id of an exited CTA of its cluster that `in` would access (a DSMEM view operand, a remote-store rank, a
/// multicast destination, the other CTA of a 2-CTA pair), or -1.
int64_t Engine::Impl::exitedPeerOf(Agent &a, const Instr &in) const {
  const Cta &cta = *a.cta;
  int64_t base = cta.id / program.clusterSize() * program.clusterSize();
  auto intArg = [&](size_t i) { return i < in.args.size() && in.args[i] >= 0 && a.frame[in.args[i]].kind == Value::Int
                                           ? a.frame[in.args[i]].i : int64_t(-1); };
  for (int32_t slot : in.args)
    if (slot >= 0 && a.frame[slot].kind == Value::Mem && peerExited(cta, a.frame[slot].rank))
      return base + a.frame[slot].rank;
  if (in.op == Op::RemoteStore && peerExited(cta, intArg(2)))
    return base + intArg(2);
  if (in.op == Op::TmaLoad && in.args.size() > static_cast<size_t>(in.imm2) + 4)
    for (int32_t r = 0, mask = static_cast<int32_t>(intArg(in.imm2 + 4)); mask > 0 && r < program.clusterSize();
         ++r)
      if (mask >> r & 1 && peerExited(cta, r))
        return base + r;
  // a 2-CTA MMA or commit reaches the pair only from the pair's even CTA (the odd CTA's op issues nothing)
  bool even = cta.id % program.clusterSize() % 2 == 0;
  bool pair = (in.op == Op::Tc05Mma && in.sub & 2 && even) || (in.op == Op::Tc05Commit && in.sub == 1 && even) ||
              (in.op == Op::TmaLoad && in.sub == 1);
  int64_t leader = cta.id % program.clusterSize() & ~int64_t(1);
  for (int64_t r : {leader, leader + 1})
    if (pair && peerExited(cta, r))
      return base + r;
  return -1;
}

/// Completes the cluster barrier of cluster `index` if every non-exited agent of its CTAs arrived.
void Engine::Impl::clusterProgress(int64_t index, Cycle t) {
  auto it = clusters.find(index);
  if (it == clusters.end())
    return;
  std::vector<int32_t> live;
  int64_t first = index * program.clusterSize(), last = first + program.clusterSize();
  bool allStarted = std::min<int64_t>(last, totalCtas) <= nextCta;
  for (int64_t c = first; c < last && c < static_cast<int64_t>(ctas.size()); ++c)
    if (ctas[c])
      for (int32_t id : ctas[c]->agentIds)
        if (agents[id] && agents[id]->state != Agent::Done)
          live.push_back(id);
  bool completed = false;
  std::vector<int32_t> wakeList = it->second.tryComplete(live, allStarted, completed);
  if (!completed)
    return;
  ClusterBarrierEvent e{ClusterBarrierEvent::Complete, t, index, -1, -1, it->second.generation()};
  emit<EvClusterBarrier>([&](Listener &l) { l.onClusterBarrier(e); });
  for (int32_t id : wakeList) {
    wake(id, t);
    ClusterBarrierEvent r{ClusterBarrierEvent::WaitPass, agents[id]->time, index, id, agents[id]->waitLoc,
                          it->second.generation()};
    emit<EvClusterBarrier>([&](Listener &l) { l.onClusterBarrier(r); });
  }
}

/// ClusterArrive, ClusterWait, ClusterCtaRank, MapRemote, RemoteStore.
Step Engine::Impl::execCluster(Agent &a, const Instr &in, Cycle now) {
  Cta &cta = *a.cta;
  int64_t x = 0;
  switch (in.op) {
  case Op::ClusterArrive:
  case Op::ClusterWait: {
    busy(a, in, costs.mbarOp);
    int64_t index = cta.id / program.clusterSize();
    ClusterBarrier &bar = clusters[index];
    if (in.op == Op::ClusterArrive) {
      bool ok = bar.arrive(a.info.id);
      ClusterBarrierEvent e{ok ? ClusterBarrierEvent::Arrive : ClusterBarrierEvent::DoubleArrive, a.time, index,
                            a.info.id, in.loc, bar.generation()};
      emit<EvClusterBarrier>([&](Listener &l) { l.onClusterBarrier(e); });
      clusterProgress(index, a.time);
      return next(a);
    }
    bool arrived = bar.hasArrived(a.info.id);
    if (arrived && bar.waitPasses(a.info.id)) {
      ClusterBarrierEvent e{ClusterBarrierEvent::WaitPass, a.time, index, a.info.id, in.loc, bar.generation()};
      emit<EvClusterBarrier>([&](Listener &l) { l.onClusterBarrier(e); });
      return next(a);
    }
    ClusterBarrierEvent e{arrived ? ClusterBarrierEvent::WaitBlock : ClusterBarrierEvent::WaitWithoutArrive, a.time,
                          index, a.info.id, in.loc, bar.generation()};
    emit<EvClusterBarrier>([&](Listener &l) { l.onClusterBarrier(e); });
    bar.block(a.info.id);
    a.state = Agent::Blocked;
    a.waitKind = BlockedAgent::Cluster;
    a.waitLoc = in.loc;
    return Step::Suspend;
  }
  case Op::ClusterCtaRank:
    a.frame[in.result] = Value::integer(cta.id % program.clusterSize());
    busyCycles(a, in, scalarCycles);
    return next(a);
  case Op::MapRemote: {
    Value view = a.frame[in.args[0]];
    if (view.kind != Value::Mem)
      return err(in, "map_to_remote_buffer of a value that is not a shared-memory view");
    if (!intOf(a, in.args[1], in, x))
      return Step::Error;
    if (x < 0 || x >= program.clusterSize())
      return err(in, "cluster CTA rank " + std::to_string(x) + " lies outside " + program.clusterText());
    view.rank = static_cast<int32_t>(x);
    a.frame[in.result] = view;
    busyCycles(a, in, scalarCycles);
    return next(a);
  }
  case Op::RemoteStore: {
    // A store into a peer CTA's shared memory: generic (st.shared::cluster), or asynchronous (st.async /
    // cp.async.bulk.shared::cluster) completing its bytes on the barrier at the same offset in the peer
    // (PTX ISA 9.1 9.7.9.12, 9.7.9.25.4.1). The SM-to-SM transfer is costed as a TMA request.
    if (!intOf(a, in.args[2], in, x))
      return Step::Error;
    Cta *peer = peerCta(cta, x, in);
    if (!peer)
      return Step::Error;
    if (a.frame[in.args[1]].kind != Value::Mem)
      return err(in, "the destination of a remote store is not a shared-memory view");
    checkPendingUses(a, in);
    if (in.sub != 2)
      awaitOperands(a, in, 0);
    if (in.sub == 0) {
      busy(a, in, lsuIssueCost(costs, program.threadsPerWarp, a.info.numWarps, in.imm));
      access(a, -1, in.args[1], in.viewElems[0], /*write=*/true, /*asyncProxy=*/false, in, peer->id);
      return next(a);
    }
    BarrierKey key{};
    if (in.args[3] < 0)
      return err(in, "an asynchronous remote store needs a barrier");
    if (!barrierOf(a, in.args[3], in, key))
      return Step::Error;
    key.cta = peer->id;
    busy(a, in, costs.tmaIssue);
    Cycle done = a.time + cycles(costs.tmaLatency) + cycles(static_cast<double>(in.imm) / costs.tmaRequestBytesPerClk);
    int64_t op = issueAsync(a);
    ClusterDeliveryEvent ce{a.time, a.info.id, op, key, in.imm, in.loc, in.op};
    emit<EvClusterDelivery>([&](Listener &l) { l.onClusterDelivery(ce); });
    if (in.sub == 2)
      access(a, op, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/true, in);
    access(a, op, in.args[1], in.viewElems[0], /*write=*/true, /*asyncProxy=*/true, in, peer->id);
    signalAt(done, PendingSignal{op, a.info.id, peer, key, in.imm, in.loc});
    return next(a);
  }
  default:
    break;
  }
  return err(in, "internal: execCluster reached with another op family's op");
}

} // namespace tlxsim::sim
