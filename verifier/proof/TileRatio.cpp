// n:1 alignment of tile loops (Protocol.h alignTileRatios, Encoder.h resolveTilePhases / ownTile / phaseKey): a
// partition whose tile loop steps n times another's, starting a whole number of the smaller steps above it, takes
// every n-th of that partition's tiles. TLX's ping-pong GEMM (hopper-persistent-gemm-ws-pingpong): the producer
// runs `for tile in range(pid, num_tiles, NUM_SMS)` and loads for both consumers; consumer c runs
// `range(pid + c * NUM_SMS, num_tiles, 2 * NUM_SMS)`.
//
// The lock-step encoding runs such a loop as `range(start - r * S, ub, S)` (S the smaller step, r its phase): a
// tile of that range is the partition's own when it lies a multiple of n * S above its real start; the others run
// the K loop's iterations doing nothing (as the iterations below a peeled first one, Part::alignedLb) and keep the
// loop-carried values. The own tiles are exactly those of `range(start, ub, n * S)`, in order, so every partition
// still runs its program as written (scf.for semantics), and one lock-step tile is one tile of the reference
// partition, the partition that takes it working on it in the same steps.
#include "verifier/proof/Encoder.h"

#include <algorithm>
#include <map>
#include <set>

namespace tlxsim::verifier::proof {

namespace {
/// The ratio of two tile steps up to which the alignment is tried: each lock-step tile of the reference costs as
/// much as any other, so n only sizes the idle tiles of a replica (n - 1 of n).
constexpr int64_t kMaxTileRatio = 8;
} // namespace

void alignTileRatios(std::vector<Part> &parts) {
  std::optional<int64_t> smallest;
  int ref = -1;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Part &p = parts[i];
    if (p.depth != 2)
      continue;
    auto st = p.v1->clc ? std::nullopt : constantOf(p.v1->step);
    if (!st || *st <= 0)
      return; // a CLC or symbolic tile step: the loop-alignment lemma judges the loops as they are
    if (!smallest || *st < *smallest) {
      smallest = st;
      ref = static_cast<int>(i);
    }
  }
  if (!smallest)
    return;
  for (Part &p : parts) {
    if (p.depth != 2)
      continue;
    int64_t st = *constantOf(p.v1->step);
    if (st == *smallest)
      continue;
    if (st % *smallest != 0 || st / *smallest > kMaxTileRatio)
      return; // not a whole ratio: loopMismatch names the steps
  }
  std::map<int64_t, int> firstReplica; // ratio -> its first partition (the replicas' shared phase waiter)
  for (size_t i = 0; i < parts.size(); ++i) {
    Part &p = parts[i];
    if (p.depth != 2 || *constantOf(p.v1->step) == *smallest)
      continue;
    p.tileRatio = *constantOf(p.v1->step) / *smallest;
    p.tileStep = *smallest;
    p.tileRef = ref;
    p.phaseWaiter = firstReplica.emplace(p.tileRatio, static_cast<int>(i)).first->second;
  }
}

std::optional<z3::expr> Encoder::tileLoopStart(size_t i) {
  const Part &p = parts[i];
  Env env = baseEnv(static_cast<int>(i));
  execOps(opsBefore(*p.block, p.l1), env, c.bool_val(true), nullptr, static_cast<int>(i));
  Val lb = get(env, p.v1->lb);
  return lb.k == Val::Int ? std::optional<z3::expr>(*lb.e) : std::nullopt;
}

void Encoder::resolveTilePhases() {
  std::optional<z3::expr> refLb;
  bool resolved = true;
  for (size_t i = 0; i < parts.size() && resolved; ++i) {
    Part &p = parts[i];
    if (!p.tileRatio)
      continue;
    if (!refLb)
      refLb = tileLoopStart(static_cast<size_t>(p.tileRef));
    std::optional<z3::expr> lb = tileLoopStart(i);
    // The start offset must be a numeral in the launch's terms (both loops start from the same program id).
    int64_t diff = 0;
    if (!refLb || !lb || !(*lb - *refLb).simplify().is_numeral_i64(diff) || diff % p.tileStep != 0 ||
        diff < 0 || diff / p.tileStep >= p.tileRatio)
      resolved = false;
    else
      p.tilePhase = diff / p.tileStep;
  }
  if (resolved) {
    // Replicas share their phase accounting only when they take distinct tiles (distinct phases): two that take
    // the same tiles both wait on every phase of a barrier they share, each its own waiter.
    std::set<std::pair<int64_t, int64_t>> taken; // (ratio, phase)
    std::set<int64_t> shared;                     // ratios two replicas of the same phase have
    for (const Part &p : parts)
      if (p.tileRatio && !taken.insert({p.tileRatio, p.tilePhase}).second)
        shared.insert(p.tileRatio);
    for (Part &p : parts)
      if (shared.count(p.tileRatio))
        p.phaseWaiter = -1;
    return;
  }
  for (Part &p : parts) { // no alignment: the loop-alignment lemma fails as before, loopMismatch says why
    p.tileRatio = p.tileStep = p.tilePhase = 0;
    p.tileRef = p.phaseWaiter = -1;
  }
}

z3::expr Encoder::virtualTileStart(const Part &p, const z3::expr &lb) {
  return p.tileRatio ? lb - c.int_val(p.tilePhase * p.tileStep) : lb;
}

z3::expr Encoder::ownTile(const Part &p, const z3::expr &t, const z3::expr &lb) {
  if (!p.tileRatio)
    return c.bool_val(true);
  return z3::mod(t - lb, c.int_val(p.tileRatio * p.tileStep)) == 0;
}

int Encoder::phaseOwner(int part) const {
  int w = parts[part].phaseWaiter;
  return w >= 0 ? w : part;
}

std::pair<int, int> Encoder::phaseKey(int group, int part) const { return {group, phaseOwner(part)}; }

} // namespace tlxsim::verifier::proof
