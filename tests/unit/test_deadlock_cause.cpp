// Root cause first (verifier/DeadlockCause.h): the rank of a blocked mbarrier wait from the barrier's state at the
// stall, and which partitions issue copies.
#include "verifier/DeadlockCause.h"
#include "verifier/Finding.h"

#include <doctest/doctest.h>

using namespace tlxsim;
using verifier::BarrierState;
using verifier::rankWait;

TEST_CASE("deadlock cause: tx bytes outstanding after all arrivals rank first") {
  BarrierState ready{"ready[0]", 0, 0, 1, 2048};
  auto c = rankWait(ready, 0, true, false, false);
  CHECK(c.rank == 3);
  CHECK(c.reason.find("expects 2048 tx bytes") != std::string::npos);
  // Arrivals still pending: the bytes are not (yet) the problem.
  CHECK(rankWait(BarrierState{"ready[0]", 0, 1, 1, 2048}, 0, true, false, false).rank == 0);
}

TEST_CASE("deadlock cause: a phase with some but not all arrivals") {
  auto c = rankWait(BarrierState{"empty[0]", 0, 1, 2, 0}, 0, true, false, true);
  CHECK(c.rank == 2);
  CHECK(c.reason.find("got 1 of its 2 arrivals") != std::string::npos);
  // None arrived this phase (1 of 1 pending): a waiting consumer's ordinary state.
  CHECK(rankWait(BarrierState{"ready[0]", 1, 1, 1, 0}, 1, true, true, false).rank == 0);
}

TEST_CASE("deadlock cause: a producer waiting parity 0 on a fresh barrier") {
  BarrierState empty{"empty[0]", 0, 1, 1, 0};
  CHECK(rankWait(empty, 0, false, false, true).rank == 1);
  CHECK(rankWait(empty, 1, false, false, true).rank == 0);  // parity 1 passes on a fresh barrier: not this wait
  CHECK(rankWait(empty, 0, false, false, false).rank == 0); // a consumer waiting for its first data: a symptom
  CHECK(rankWait(empty, 0, true, false, true).rank == 0);   // someone arrived: not a fresh barrier
  // The producer passed an earlier wait on it (parity 1, its first lap): a later parity-0 wait is the second lap,
  // blocked because the consumer never released the slot (kernels/bugs/conditional_producer.py): a symptom.
  CHECK(rankWait(empty, 0, false, true, true).rank == 0);
  CHECK(rankWait(BarrierState{"empty[0]", 2, 1, 1, 0}, 0, false, false, true).rank == 0); // completed phases before
}

TEST_CASE("deadlock cause: a tensor-memory writer waiting parity 0 on a fresh release barrier") {
  // A Blackwell MMA partition's first wait for the accumulator's release (tmem_empty) with parity 0: the cause,
  // ranked below a copying producer's fresh parity-0 wait (both wait at the start of a deadlocked kernel).
  BarrierState tmemEmpty{"tmem_empty[0]", 0, 2, 2, 0};
  auto c = rankWait(tmemEmpty, 0, false, false, false, -1, false, /*writer=*/true);
  CHECK(c.rank == 0.5);
  CHECK(c.reason.find("writes tensor memory") != std::string::npos);
  CHECK(rankWait(tmemEmpty, 0, false, false, true).rank > c.rank);
  CHECK(rankWait(tmemEmpty, 1, false, false, false, -1, false, true).rank == 0); // parity 1 passes at once
  CHECK(rankWait(tmemEmpty, 0, false, true, false, -1, false, true).rank == 0);  // a later lap: a symptom
  CHECK(rankWait(tmemEmpty, 0, true, false, false, -1, false, true).rank == 0);  // someone arrived
  CHECK(rankWait(tmemEmpty, 0, false, false, false).rank == 0);                  // not a writer: a symptom
}

TEST_CASE("deadlock cause: a first wait one phase ahead, the phase before it never observed") {
  BarrierState full{"v_fulls[0]", 1, 1, 1, 0}; // phase 0 completed (its data landed), phase 1 in progress
  auto c = rankWait(full, 1, true, false, false, -1, false, false, /*unobserved=*/true);
  CHECK(c.rank == 3);
  CHECK(c.reason.find("first wait on v_fulls[0] is for parity 1") != std::string::npos);
  // Another partition observed phase 0 (turn-taking waiters): this one's first wait for phase 1 is its turn.
  CHECK(rankWait(full, 1, true, false, false, -1, false, false, false).rank == 0);
  CHECK(rankWait(full, 0, true, false, false, -1, false, false, true).rank == 0); // parity 0: it means phase 0
}

TEST_CASE("deadlock cause: a wait whose parity skips a phase it never observed") {
  // k_fulls[0] in phase 2 (parity 0), no arrival yet; the consumer observed phase 0, phase 1 completed unobserved,
  // and it waits for parity 0, i.e. for phase 2 (TLX hopper_fa_ws_pipelined with the wait's phase variable
  // swapped, 2026-12-04 trial): it leads, ahead of a producer's partly released slot (rank 2)
  BarrierState full{"k_fulls[0]", 2, 1, 1, 0};
  auto c = rankWait(full, 0, true, true, false, 0, true);
  CHECK(c.rank == 3);
  CHECK(c.reason.find("never observed it: the parity skips a phase") != std::string::npos);
  CHECK(rankWait(full, 0, true, true, false, 1, true).rank == 0);  // it observed phase 1: waiting for 2 is in order
  CHECK(rankWait(full, 0, true, false, false, -1, true).rank == 0); // its first wait: no history
  // A waiter whose waits observe phases far apart by design (a counter barrier, one wait per persistent tile: the
  // phases between complete unobserved) is no stride-1 waiter: a deadlock caused elsewhere does not blame it
  BarrierState counter{"acc_empties[0]", 6, 1, 1, 0};
  CHECK(rankWait(counter, 0, true, true, false, 3, false).rank == 0);
  CHECK(rankWait(counter, 0, true, true, false, 3, true).rank == 3);
  // tx bytes missing after all arrivals is tested first
  CHECK(rankWait(BarrierState{"full[0]", 2, 0, 1, 2048}, 0, true, true, false, 0, true).reason.find("tx bytes") !=
        std::string::npos);
}

TEST_CASE("deadlock cause: producers are the partitions whose code issues copies") {
  sim::Program p;
  p.blocks.resize(4);
  sim::Instr loop;
  loop.op = sim::Op::For;
  loop.block = 1;
  p.blocks[0].instrs.push_back(loop);            // block 0: a loop over block 1
  sim::Instr tma;
  tma.op = sim::Op::TmaLoad;
  p.blocks[1].instrs.push_back(tma);             // block 1: a TMA load
  sim::Instr wait;
  wait.op = sim::Op::WaitBarrier;
  p.blocks[2].instrs.push_back(wait);            // block 2: only waits
  sim::Instr ws;
  ws.op = sim::Op::WarpSpecialize;
  ws.imm = 0;
  p.blocks[3].instrs.push_back(ws);              // block 3: warp_specialize, default region 2, worker 1
  p.warpSpecializes.push_back(sim::WarpSpecialize{2, {{1, 1, "partition0"}}});
  CHECK(verifier::issuesCopies(p, 0));
  CHECK_FALSE(verifier::issuesCopies(p, 2));
  CHECK_FALSE(verifier::issuesCopies(p, 3)); // the worker's TMA loads are not the default partition's
  CHECK_FALSE(verifier::issuesCopies(p, 7)); // out of range: no code
}

TEST_CASE("finding mentions: an allocation named as a whole word in the finding, its notes or related accesses") {
  verifier::Finding race;
  race.cls = "race-war";
  race.message = "the TMA load of partition 'partition3' (iteration 1) overwrites kv_tiles[2] while the tcgen05 MMA "
                 "may still be reading it (CTA 0)";
  CHECK(verifier::mentions(race, "kv_tiles"));
  CHECK(verifier::mentions(race, "kv_tiles#3")); // the prover's second allocation of one name
  CHECK_FALSE(verifier::mentions(race, "q_tiles")); // another buffer: not this finding's
  CHECK_FALSE(verifier::mentions(race, "tiles"));   // a part of a word
  CHECK_FALSE(verifier::mentions(race, "kv_tile"));
  race.notes.push_back({ir::SourceLoc{}, "partition 'default' synchronized through q_tiles' release"});
  CHECK(verifier::mentions(race, "q_tiles"));
  verifier::Finding deadlock;
  deadlock.barrier = BarrierState{"bars_empty_b[0]", 0, 2, 2, 0};
  CHECK(verifier::mentions(deadlock, "bars_empty_b"));
  CHECK_FALSE(verifier::mentions(deadlock, "bars_empty"));
  deadlock.related.push_back({ir::SourceLoc{}, "partition0", -1, "wait", "waits on full_a[4]"});
  CHECK(verifier::mentions(deadlock, "full_a"));
  CHECK(verifier::mentions(deadlock, "")); // nothing to match
}
