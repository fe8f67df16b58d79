// Cluster launch control (Blackwell CLC): the grid's not-yet-launched clusters handed to try_cancel requests by the
// engine's CTA dispatcher (PTX ISA 9.7.13.x clusterlaunchcontrol.try_cancel / query_cancel).
#include "sim/EngineState.h"

#include <algorithm>

namespace tlxsim::sim {

using namespace engine;

/// Cancels the next not-yet-launched cluster of the simulated grid, in launch order, as the hardware's dispatcher
/// answers clusterlaunchcontrol.try_cancel (PTX ISA "clusterlaunchcontrol.try_cancel": the request succeeds by
/// cancelling a cluster that has not started and returning its first CTA's id, and fails once none is left).
/// Its CTAs never start: their id slots stay empty (`ctas` is indexed by CTA id). A cluster whose CTAs have
/// started only in part (they start one SM slot at a time) is not cancelable: the next whole cluster is canceled
/// and skipped when the dispatcher reaches it. With --max-ctas, clusters past the simulated ones are cancelable
/// up to `cancelableCtas` (SimOptions::maxCtas). Returns the cluster's first linear CTA id, or -1.
int64_t Engine::Impl::cancelNextCluster() {
  int64_t size = program.clusterSize();
  int64_t cluster = (nextCta + size - 1) / size;
  while (canceledClusters.count(cluster))
    ++cluster;
  if ((cluster + 1) * size > cancelableCtas)
    return -1;
  ++result.clcCanceled;
  canceledClusters.insert(cluster);
  skipCanceledClusters();
  return cluster * size;
}

/// Advances the dispatcher past the canceled clusters it has reached (their id slots stay empty).
void Engine::Impl::skipCanceledClusters() {
  int64_t size = program.clusterSize();
  while (nextCta % size == 0 && nextCta < totalCtas && canceledClusters.erase(nextCta / size)) {
    for (int64_t i = 0; i < size; ++i)
      ctas.push_back(nullptr);
    nextCta += size;
  }
}

/// The %ctaid of linear CTA `id` (the dispatch order of Engine.cpp's startCta: cluster by cluster, ranks
/// x-major inside a cluster) along `dim`.
static int64_t ctaidOf(const Program &program, const std::array<int64_t, 3> &grid, int64_t id, int dim) {
  const auto &d = program.clusterDims;
  int64_t size = program.clusterSize(), cluster = id / size, rank = id % size;
  int64_t ncx = grid[0] / d[0], ncy = grid[1] / d[1];
  int64_t clusterId[3] = {cluster % ncx, cluster / ncx % ncy, cluster / (ncx * ncy)};
  int64_t inCluster[3] = {rank % d[0], rank / d[0] % d[1], rank / (int64_t(d[0]) * d[1])};
  return clusterId[dim] * d[dim] + inCluster[dim];
}

/// ClcTryCancel, ClcQuery, ClcLoad, ClcIsCanceled, ClcProgramId.
Step Engine::Impl::execClc(Agent &a, const Instr &in, Cycle now) {
  (void)now;
  Cta &cta = *a.cta;
  auto responseKey = [&](int32_t slot, const char *what, std::pair<int32_t, int64_t> &key) {
    const Value &v = a.frame[slot];
    if (v.kind != Value::Mem || v.rank >= 0)
      return fail(in, std::string(what) + " is not a view of the CTA's own shared memory"), false;
    key = {v.alloc, v.i};
    return true;
  };
  switch (in.op) {
  case Op::ClcTryCancel: {
    // Asynchronous: the response (16 bytes) is written to shared memory through the async proxy and its 16 tx
    // bytes complete on the mbarrier; `.multicast::cluster::all` delivers both to the same offsets in every CTA
    // of the cluster. fbtriton issues the multicast form from the cluster's first CTA only (`@pred_issue`).
    busy(a, in, costs.mbarOp);
    if (in.sub == 1 && cta.id % program.clusterSize() != 0)
      return next(a);
    std::pair<int32_t, int64_t> key;
    BarrierKey bar{};
    if (!responseKey(in.args[1], "the CLC response", key) || !barrierOf(a, in.args[0], in, bar))
      return Step::Error;
    double clcLatency = 0;
    if (!optionalKnob(costs.clcResponse, "clc_response_cycles", in, clcLatency))
      return Step::Error;
    int64_t first = cancelNextCluster();
    ++result.clcRequests;
    Cycle done = a.time + cycles(clcLatency);
    int64_t ranks = in.sub == 1 ? program.clusterSize() : 1;
    for (int64_t r = 0; r < ranks; ++r) {
      Cta *dst = in.sub == 1 ? peerCta(cta, r, in) : &cta;
      if (!dst)
        return Step::Error;
      int64_t op = issueAsync(a);
      BarrierKey k = bar;
      k.cta = dst->id;
      if (dst != &cta) {
        ClusterDeliveryEvent ce{a.time, a.info.id, op, k, 16, in.loc, in.op};
        emit<EvClusterDelivery>([&](Listener &l) { l.onClusterDelivery(ce); });
      }
      dst->clcResponses[key] = first;
      access(a, op, in.args[1], 1, /*write=*/true, /*asyncProxy=*/true, in, dst->id);
      signalAt(done, PendingSignal{op, a.info.id, dst, k, 16, in.loc});
    }
    return next(a);
  }
  case Op::ClcQuery:
  case Op::ClcLoad: {
    // A generic-proxy read of the response (ld.shared + query_cancel); it is valid once the try_cancel's
    // complete-tx was observed on its mbarrier (the race checks report a read before that wait).
    std::pair<int32_t, int64_t> key;
    if (!responseKey(in.args[0], "the CLC response", key))
      return Step::Error;
    access(a, -1, in.args[0], 1, /*write=*/false, /*asyncProxy=*/false, in);
    auto it = cta.clcResponses.find(key);
    int64_t first = it == cta.clcResponses.end() ? -1 : it->second;
    if (in.op == Op::ClcLoad) {
      a.frame[in.result] = Value::integer(first);
    } else {
      for (int32_t d = 0; d < in.numResults && d < 3; ++d)
        a.frame[in.result + d] = Value::integer(first < 0 ? -1 : ctaidOf(program, ctaGrid, first, d));
    }
    busyCycles(a, in, scalarCycles);
    return next(a);
  }
  case Op::ClcIsCanceled:
  case Op::ClcProgramId: {
    int64_t first = 0;
    if (!intOf(a, in.args[0], in, first))
      return Step::Error;
    if (in.op == Op::ClcIsCanceled) {
      a.frame[in.result] = Value::integer(first >= 0 ? 1 : 0);
    } else {
      int dim = static_cast<int>(std::clamp<int64_t>(in.imm, 0, 2));
      int64_t id = first < 0 ? -1 : ctaidOf(program, ctaGrid, first, dim);
      // as tt.get_program_id counts: %clusterid when ttg.num-ctas > 1 (Triton's llGetPid), else %ctaid
      if (id >= 0 && program.numCtas > 1)
        id /= program.clusterDims[dim];
      a.frame[in.result] = Value::integer(id);
    }
    busyCycles(a, in, scalarCycles);
    return next(a);
  }
  default:
    break;
  }
  return err(in, "internal: execClc reached with another op family's op");
}

} // namespace tlxsim::sim
