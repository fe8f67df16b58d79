// Unit models of the simulator on small hand-written kernels: the tensor core (a dense
// m64nNk16 wgmma costs N/2 cycles; back-to-back wgmmas keep it busy), the TMA engine (copies in
// flight overlap; the SM's fill bandwidth bounds many), cp.async groups (retired in order,
// `async_wait {num}` leaves num pending), the register scoreboard of global loads, and
// scf.while.
#include "sim/NamedBarrier.h"
#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "sim/Engine.h"
#include "sim/Lowering.h"
#include "sim/units/Clock.h"
#include "sim/units/SharingPipe.h"
#include "sim/units/TensorPipe.h"
#include "sim/units/TmaEngine.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <regex>

#ifndef TLXSIM_SOURCE_DIR
#define TLXSIM_SOURCE_DIR "."
#endif

using namespace tlxsim;

namespace {

struct Recorder : sim::Listener {
  std::vector<sim::AsyncEvent> async;
  std::vector<sim::InstrEvent> instrs;
  std::vector<sim::BarrierEvent> waits; ///< WaitBlock / WaitResume
  std::map<int32_t, sim::AgentWork> work;
  int retired = 0;
  void onAsync(const sim::AsyncEvent &e) override { async.push_back(e); }
  void onInstr(const sim::InstrEvent &e) override { instrs.push_back(e); }
  void onAsyncRetired(int32_t, int64_t, sim::Cycle) override { ++retired; }
  void onBarrier(const sim::BarrierEvent &e) override {
    if (e.action == sim::BarrierAction::WaitBlock || e.action == sim::BarrierAction::WaitResume)
      waits.push_back(e);
  }
  void onAgentWork(int32_t agent, const sim::AgentWork &w) override { work[agent] = w; }
};

/// Simulates `text` (placeholders already substituted) on the H200 model with one CTA.
struct Sim {
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  std::optional<sim::Program> program;
  std::optional<sim::GpuModel> model;
  Recorder rec;
  sim::SimResult result;

  Sim(const std::string &text, std::vector<std::string> args, std::vector<std::string> descs = {},
      const char *modelName = "h200", std::vector<std::string> sets = {}) {
    std::string diag;
    llvm::raw_string_ostream os(diag);
    auto module = ir::readTTGIRText(text, "unit.ttgir", *ctx, os);
    REQUIRE_MESSAGE(module, diag);
    auto lowered = sim::lowerModule(*module);
    REQUIRE(lowered);
    program = std::move(*lowered);
    auto loaded = sim::GpuModel::load(modelName, TLXSIM_SOURCE_DIR "/models");
    REQUIRE(loaded);
    model = std::move(*loaded);
    for (const std::string &assignment : sets) // --set KNOB=VALUE
      REQUIRE_FALSE(llvm::errorToBool(model->set(assignment)));
    sim::Launch launch;
    REQUIRE_FALSE(llvm::errorToBool(launch.setGrid("1")));
    for (const std::string &a : args)
      REQUIRE_FALSE(llvm::errorToBool(launch.setArg(a)));
    for (const std::string &d : descs)
      REQUIRE_FALSE(llvm::errorToBool(launch.setDesc(d)));
    auto engine = sim::Engine::create(*program, *model, launch, {});
    REQUIRE(engine);
    (*engine)->addListener(&rec);
    auto r = (*engine)->run();
    REQUIRE(r);
    result = *r;
    CHECK_FALSE(result.stalled);
  }
  std::vector<sim::AsyncEvent> of(sim::AsyncEvent::Unit unit) const {
    std::vector<sim::AsyncEvent> out;
    for (const auto &e : rec.async)
      if (e.unit == unit)
        out.push_back(e);
    return out;
  }
};

std::string substitute(std::string text, const std::vector<std::pair<std::string, std::string>> &pairs) {
  for (const auto &[key, value] : pairs)
    text = std::regex_replace(text, std::regex(key), value);
  return text;
}

const char *kWgmma = R"(#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, NN, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
#loc1 = loc("u.py":1:0)
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @mma(%n: i32 loc("n"(#loc1))) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %true = arith.constant true
    %cst = arith.constant dense<0.000000e+00> : tensor<64xNNxf32, #mma>
    %a = ttg.local_alloc : () -> !ttg.memdesc<64x16xf16, #shared, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<16xNNxf16, #shared, #smem, mutable>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %cst) -> (tensor<64xNNxf32, #mma>) : i32 {
      %d = ttng.warp_group_dot %a, %b, %acc, %true {inputPrecision = 0 : i32, isAsync = true} : !ttg.memdesc<64x16xf16, #shared, #smem, mutable> * !ttg.memdesc<16xNNxf16, #shared, #smem, mutable> -> tensor<64xNNxf32, #mma>
      YIELD
    }
    %f = ttng.warp_group_dot_wait %r {pendings = 0 : i32} : tensor<64xNNxf32, #mma>
    tt.return
  }
}
)";

/// kWgmma: `n` m64nNk16 wgmmas in flight, one wait after the loop.
std::string wgmmaLoop(int n) {
  return substitute(kWgmma, {{"YIELD", "scf.yield %d : tensor<64xNNxf32, #mma>"}, {"NN", std::to_string(n)}});
}

/// kWgmma with warp_group_dot_wait {pendings = `pend`} after each wgmma (one warp group).
std::string wgmmaWaitLoop(const char *pend, const char *n) {
  return substitute(kWgmma, {{"YIELD", "%w = ttng.warp_group_dot_wait %d {pendings = PEND : i32} : tensor<64xNNxf32, "
                                       "#mma>\n      scf.yield %w : tensor<64xNNxf32, #mma>"},
                             {"PEND", pend},
                             {"NN", n}});
}

} // namespace

TEST_CASE("tensor core: a dense m64nNk16 wgmma costs N/2 cycles; back-to-back wgmmas keep it busy") {
  for (int n : {64, 128, 256}) {
    CAPTURE(n);
    std::string text = wgmmaLoop(n);
    Sim one(text, {"n=1"}), eight(text, {"n=8"});
    auto mmas = eight.of(sim::AsyncEvent::TensorCore);
    REQUIRE(mmas.size() == 8);
    for (size_t i = 0; i < mmas.size(); ++i) {
      CHECK(mmas[i].end - mmas[i].start == static_cast<sim::Cycle>(n / 2)); // 2*64*N*16 / 4096 FLOP/clk
      if (i > 0)
        CHECK(mmas[i].start == mmas[i - 1].end); // issue (8 clk) is shorter than N/2: no gap
    }
    // Seven more wgmmas add exactly their tensor-core time.
    CHECK(eight.result.cycles - one.result.cycles == static_cast<sim::Cycle>(7 * n / 2));
  }
}

TEST_CASE("wgmma queue: an instruction waits at issue until the one depth places ahead of it has completed") {
  using sim::engine::TensorPipe;
  // Warp group A issues a 128x128x64 fp16 dot: 8 m64n128k16 instructions of 64 cycles each, the pipe running them
  // from 1000, the first issued at 1000 and each next 20 cycles later. With depth 8 none of A's waits.
  TensorPipe pipe;
  CHECK(pipe.issueWgmmas(1000, 20, 1000, 64, 8, 8) == 1000 + 7 * 20);
  // Warp group B then issues its 8 from 1200, queued behind A's on the pipe (from 1512): its j-th instruction waits
  // for A's j-th to complete (1000 + (j + 1) x 64), so the last issues at A's last completion, 1512.
  CHECK(pipe.issueWgmmas(1200, 20, 1512, 64, 8, 8) == 1512);
  // Depth 2 on a fresh pipe: the third instruction waits for the first to complete (1064), the fourth for the
  // second (1128).
  TensorPipe shallow;
  CHECK(shallow.issueWgmmas(1000, 20, 1000, 64, 4, 2) == 1000 + 2 * 64);
  // A model without the knob (NaN) or depth 0: never held, and nothing is tracked.
  TensorPipe unbounded;
  CHECK(unbounded.issueWgmmas(1000, 20, 1000, 64, 8, std::nan("")) == 1000 + 7 * 20);
  CHECK(unbounded.issueWgmmas(1000, 20, 1000, 64, 8, 0) == 1000 + 7 * 20);
  CHECK(unbounded.wgmmaDone.empty());
}


TEST_CASE("wgmma drain: a wait that empties the tensor pipe retires its group wgmma_drain_cycles later") {
  auto cyclesOf = [](const char *pend, const char *drain, const char *n = "64") {
    std::string text = wgmmaWaitLoop(pend, n);
    Sim s(text, {"n=4"}, {}, "h200", {std::string("wgmma_drain_cycles=") + drain});
    return s.result.cycles;
  };
  // wait_group 0 after each group: every group drains the pipe (and the last wait finds nothing to retire).
  CHECK(cyclesOf("0", "50") - cyclesOf("0", "0") == 4 * 50);
  // wait_group 1 at N = 256: each next group is issued (42 clk) while the one ahead of it still runs (128 clk of
  // work), so the pipe stays full; only the last group, retired by the final wait_group 0, drains it.
  CHECK(cyclesOf("1", "50", "256") - cyclesOf("1", "0", "256") == 50);
  // At N = 64 the wait for the group before (32 clk of work + 40 of latency) outlasts the next group's work: the pipe
  // runs empty behind it, so groups drain, but never more than one drain per group.
  sim::Cycle extra = cyclesOf("1", "50") - cyclesOf("1", "0");
  CHECK(extra > 50);
  CHECK(extra <= 4 * 50);
}

TEST_CASE("tensor pipe: drainedAt tells whether work was queued behind a given end") {
  sim::engine::TensorPipe pipe;
  double busy = 0;
  pipe.run(0, 32, busy);   // [0, 32)
  pipe.run(10, 32, busy);  // queued behind: [32, 64)
  CHECK_FALSE(pipe.drainedAt(32));
  CHECK(pipe.drainedAt(64)); // the last work so far
  pipe.run(100, 32, busy); // the pipe ran empty from 64 to 100
  CHECK(pipe.drainedAt(64));
  CHECK_FALSE(pipe.drainedAt(32));
}

TEST_CASE("SFUs: requests in flight share them, and a later one pushes back the ends already projected") {
  sim::engine::SharingPipe sfu(16); // 16 results per clock per SM
  auto [a, endA] = sfu.add(0, 8192, 16, /*owner=*/1);
  CHECK(endA == 512); // alone: the whole rate
  auto [b, endB] = sfu.add(0, 8192, 16, /*owner=*/2);
  CHECK(endB == 1024); // two at once: half each, both done at 1024
  CHECK(sfu.end(a) == 1024); // a's projection moved back
  // a third from 256 on: a and b have 6144 left each, c 4096; at 16 / 3 apiece c is done 768 cycles later, then a
  // and b share the rest (2048 each at 8 per clock): 20480 results in all, 1280 cycles, as a FIFO would take
  auto [c, endC] = sfu.add(256, 4096, 16, /*owner=*/3);
  CHECK(endC == 1024);
  CHECK(sfu.end(c) == 1024);
  CHECK(sfu.end(a) == 1280);
  CHECK(sfu.end(b) == 1280);
}

TEST_CASE("SFUs: one owner's requests run in order, and a chain that never waits keeps one job in flight") {
  sim::engine::SharingPipe sfu(16);
  auto [a, endA] = sfu.add(0, 8192, 16, /*owner=*/1);
  auto [b, endB] = sfu.add(64, 8192, 16, /*owner=*/1); // the same warp group's next exp2: after the first
  CHECK(endA == 512);
  CHECK(sfu.end(a) == 512); // not shared with its own successor
  CHECK(endB == 1024);
  sim::Cycle last = 0;
  for (int i = 0; i < 5000; ++i) // 5000 requests of 512 cycles, issued 64 apart: one stream, ends in order
    last = sfu.add(128 + 64 * static_cast<sim::Cycle>(i), 8192, 16, /*owner=*/1).second;
  CHECK(last == 1024 + 5000 * 512);
}

TEST_CASE("SFUs: a request below its cap leaves the rest of the rate to the others") {
  sim::engine::SharingPipe sfu(16);
  auto [a, endA] = sfu.add(0, 1024, 4, /*owner=*/1); // one warp of four SMSPs: at most a quarter of the SM's SFUs
  CHECK(endA == 256);
  auto [b, endB] = sfu.add(0, 1536, 16, /*owner=*/2);
  CHECK(sfu.end(a) == 256); // its share of 8 is above its cap: unchanged
  CHECK(endB == 128);       // 12 per clock while a runs: 1536 in 128 cycles
  CHECK(sfu.end(b) == endB);
}

TEST_CASE("wgmma issue cost grows with the instruction's N") {
  sim::engine::Costs costs{};
  costs.wgmmaIssue = 16;
  costs.wgmmaIssuePerN = std::nan("");
  CHECK(sim::engine::wgmmaIssueCycles(costs, 256) == 16); // no per-N knob: the constant
  costs.wgmmaIssuePerN = 0.125;
  CHECK(sim::engine::wgmmaIssueCycles(costs, 64) == 24);
  CHECK(sim::engine::wgmmaIssueCycles(costs, 256) == 48);
  CHECK(sim::engine::wgmmaIssueCycles(costs, 0) == 16); // N unknown
}

namespace {
const char *kTma = R"(#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#loc1 = loc("u.py":1:0)
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @tma(%d: !tt.tensordesc<tensor<64x128xf16, #shared>> loc("d"(#loc1)), %d_0: i32 loc("d"(#loc1)), %d_1: i32 loc("d"(#loc1)), %d_2: i64 loc("d"(#loc1)), %d_3: i64 loc("d"(#loc1))) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %cn = arith.constant COUNT : i32
    %true = arith.constant true
    %buf = ttg.local_alloc : () -> !ttg.memdesc<8x64x128xf16, #shared, #smem, mutable>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.barrier_expect %bar, BYTES, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    scf.for %i = %c0 to %cn step %c1 : i32 {
      %s = ttg.memdesc_index %buf[%i] : !ttg.memdesc<8x64x128xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
      %x = arith.muli %i, %c64 : i32
      ttng.async_tma_copy_global_to_local %d[%x, %c0] %s, %bar, %true : !tt.tensordesc<tensor<64x128xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    }
    ttng.wait_barrier %bar, %c0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    tt.return
  }
}
)";
} // namespace

TEST_CASE("TMA: a lone copy is latency + streaming (or the HBM miss); copies in flight queue on the SM's TMA path") {
  // Without the loaded-latency queue's random wait (tested below), so that each copy's latency is the constant.
  auto run = [](int count) {
    return std::make_unique<Sim>(
        substitute(kTma, {{"COUNT", std::to_string(count)}, {"BYTES", std::to_string(count * 16384)}}),
        std::vector<std::string>{}, std::vector<std::string>{"d=8192x128"}, "h200",
        std::vector<std::string>{"tma_queue_wait_cycles=0"});
  };
  auto one = run(1), eight = run(8);
  const sim::GpuModel &m = *one->model;
  auto copies = eight->of(sim::AsyncEvent::TmaLoad);
  REQUIRE(copies.size() == 8);
  REQUIRE(one->of(sim::AsyncEvent::TmaLoad).size() == 1);
  sim::AsyncEvent single = one->of(sim::AsyncEvent::TmaLoad)[0];
  // A lone 16 KB copy (an L2 miss): the fixed latency plus the later of its own streaming and the HBM miss (the
  // extra latency after HBM has moved the bytes at its rate at the maximum clock).
  double latency = m.get("tma_latency_cycles");
  double streamed = latency + 16384 / m.get("tma_request_bytes_per_clk");
  double hbmPerClk = m.get("hbm_bytes_per_s") / (m.get("clock_max_mhz") * 1e6);
  double missed = latency + m.get("hbm_extra_latency_cycles") + std::ceil(16384 / hbmPerClk);
  double lone = std::max(streamed, missed);
  CHECK(!single.l2Hit);
  CHECK(static_cast<double>(single.end - single.start) >= lone);
  CHECK(static_cast<double>(single.end - single.start) <= lone + 2);
  // Eight copies overlap: far less than eight lone copies, never faster than the SM's TMA path moves their bytes.
  sim::Cycle last = 0;
  for (const auto &c : copies)
    last = std::max(last, c.end);
  double bandwidthBound = 8 * 16384 / m.get("tma_bytes_per_clk_sm");
  CHECK(static_cast<double>(last - copies[0].start) >= bandwidthBound);
  CHECK(static_cast<double>(last - copies[0].start) <= bandwidthBound + latency + m.get("hbm_extra_latency_cycles") + 16);
  CHECK(eight->result.cycles < 4 * one->result.cycles);
  // The waiter wakes only after the last copy's bytes land.
  CHECK(eight->result.cycles >= last);
}

TEST_CASE("TMA loaded latency: the unloaded latency plus a queue's exponential wait, longer with the bytes in flight") {
  using sim::engine::loadedLatency;
  using sim::engine::tmaCopyKey;
  sim::engine::Costs costs{};
  costs.tmaLatency = 379;
  costs.tmaQueueWait = 300;
  costs.tmaQueueBytesPerClkNow = std::nan(""); // no in-flight term
  sim::engine::InFlightBytes inFlight;
  // M/M/1: the wait is exponential around its mean, so the draws' mean is the mean and e^-1 of them exceed it;
  // the copies of 200 CTAs' producers and of one CTA's per-warp agents.
  std::vector<double> draws;
  for (int64_t cta = 0; cta < 200; ++cta)
    for (uint64_t n = 0; n < 100; ++n)
      draws.push_back(loadedLatency(costs, inFlight, 0, 0, tmaCopyKey(cta, 4, -1, n)));
  for (int32_t warp = 0; warp < 4; ++warp)
    for (uint64_t n = 0; n < 1000; ++n)
      draws.push_back(loadedLatency(costs, inFlight, 0, 0, tmaCopyKey(0, 4, warp, n)));
  double sum = 0, low = 1e9, high = 0;
  int above = 0;
  for (double l : draws) {
    sum += l;
    low = std::min(low, l);
    high = std::max(high, l);
    above += l > 379 + 300;
  }
  double n = static_cast<double>(draws.size());
  CHECK(sum / n == doctest::Approx(379 + 300).epsilon(0.02));
  CHECK(low >= 379);
  CHECK(high <= 379 + 10 * 300); // capped at ten means
  CHECK(high > 379 + 4 * 300);   // but the tail is there (P(wait > 4 means) = e^-4 = 1.8 %)
  CHECK(above / n == doctest::Approx(std::exp(-1.0)).epsilon(0.05));
  // A copy's delay is its key's: the same copy waits the same, whenever it is issued; different copies differ.
  CHECK(loadedLatency(costs, inFlight, 7, 0, tmaCopyKey(3, 4, -1, 9)) ==
        loadedLatency(costs, inFlight, 900, 0, tmaCopyKey(3, 4, -1, 9)));
  CHECK(loadedLatency(costs, inFlight, 0, 0, tmaCopyKey(3, 4, -1, 9)) !=
        loadedLatency(costs, inFlight, 0, 0, tmaCopyKey(4, 4, -1, 9)));
  CHECK(tmaCopyKey(3, 4, -1, 9) != tmaCopyKey(3, 0, -1, 9));
  // Without a queue wait the latency is the constant, whatever is in flight.
  costs.tmaQueueWait = 0;
  CHECK(loadedLatency(costs, inFlight, 5, 0, 1) == 379);

  // The in-flight term: bytes issued before this cycle and not yet landed, over the queue's rate.
  sim::engine::InFlightBytes device;
  device.add(100, 1100, 32768);
  device.add(100, 600, 16384);
  CHECK(device.before(100) == 0); // issued in the same cycle: a wave's identical CTAs see the same queue
  CHECK(device.before(101) == 49152);
  CHECK(device.before(600) == 32768); // the second copy landed
  device.add(700, 900, 8192);
  CHECK(device.before(700) == 32768);
  CHECK(device.before(1100) == 0);
  // A closed queue: the latency is the longer of the constant and the drain of the bytes ahead (less the copy's
  // own streaming, which the transfer adds), not their sum (tools/bench/tma_latency_dist_run1.txt).
  costs.tmaQueueBytesPerClkNow = 1024;
  costs.tmaRequestBytesPerClk = 128;
  device.add(2000, 3000, 65536); // 64 clk of drain: below the constant
  CHECK(loadedLatency(costs, device, 2001, 16384, 1) == 379);
  device.add(2000, 3000, 1048576 - 65536); // 1 MiB ahead: 1024 clk of drain, of which 128 are the copy's own
  CHECK(loadedLatency(costs, device, 2001, 16384, 1) == 1024 - 128);
  costs.tmaQueueWait = 100; // and the exponential wait on top
  double mean = 0;
  for (uint64_t i = 0; i < 20000; ++i)
    mean += loadedLatency(costs, device, 2001, 16384, tmaCopyKey(1, 0, -1, i)) / 20000;
  CHECK(mean == doctest::Approx(1024 - 128 + 100).epsilon(0.02));
}

namespace {
const char *kCpAsync = R"(#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
#loc1 = loc("u.py":1:0)
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @cp(%p: !tt.ptr<f16> loc("p"(#loc1)), %q: !tt.ptr<f16> loc("q"(#loc1))) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
    %ptrs = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
    %c4096 = arith.constant dense<4096> : tensor<64x64xi32, #blocked>
    %other = tt.addptr %ptrs, %c4096 : tensor<64x64x!tt.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %s0 = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %s1 = ttg.memdesc_index %buf[%c1] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %s2 = ttg.memdesc_index %buf[%c2] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %t0 = ttg.async_copy_global_to_local %ptrs, %s0 : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    %g0 = ttg.async_commit_group tokens %t0
    %t1 = ttg.async_copy_global_to_local %ptrs, %s1 : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    %g1 = ttg.async_commit_group tokens %t1
    %t2 = ttg.async_copy_global_to_local %other, %s2 : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    %g2 = ttg.async_commit_group tokens %t2
    %w1 = ttg.async_wait %g0, %g1, %g2 {num = 1 : i32}
    %v = ttg.local_load %s1 : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    %w0 = ttg.async_wait {num = 0 : i32}
    tt.return
  }
}
)";
} // namespace

TEST_CASE("cp.async: groups retire in order; async_wait {num} leaves num groups pending") {
  Sim sim(kCpAsync, {});
  auto copies = sim.of(sim::AsyncEvent::LsuLoad);
  REQUIRE(copies.size() == 3);
  std::vector<sim::InstrEvent> waits;
  sim::Cycle localLoad = 0, localLoadEnd = 0;
  for (const auto &e : sim.rec.instrs) {
    if (e.instr->op == sim::Op::AsyncWait)
      waits.push_back(e);
    if (e.instr->op == sim::Op::LocalLoad)
      localLoad = e.start, localLoadEnd = e.end;
  }
  REQUIRE(waits.size() == 2);
  // {num = 1}: the first two groups are complete; the third (another address, an L2 miss
  // issued last) is still in flight.
  CHECK(waits[0].end == std::max(copies[0].end, copies[1].end));
  CHECK(waits[0].end < copies[2].end);
  CHECK(localLoad >= copies[1].end);
  // {num = 0}: all three.
  CHECK(waits[1].end == std::max(localLoadEnd, copies[2].end));
  CHECK(sim.rec.retired == 3);
  // Three 8 KB copies by one warp group: the first misses L2 (HBM latency), the next two hit
  // (same addresses); all share the LSU pipe.
  CHECK_FALSE(copies[0].l2Hit);
  CHECK(copies[1].l2Hit);
  CHECK_FALSE(copies[2].l2Hit);
  CHECK(copies[1].end - copies[1].start <
        copies[0].end - copies[0].start);
}

namespace {
const char *kLoad = R"(#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#loc1 = loc("u.py":1:0)
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @ld(%p: !tt.ptr<f16> loc("p"(#loc1)), %q: !tt.ptr<f16> loc("q"(#loc1))) {
    %ptrs = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
    %x = tt.load %ptrs : tensor<64x64x!tt.ptr<f16>, #blocked>
    %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
    %y = arith.addf %x, %one : tensor<64x64xf16, #blocked>
    %out = tt.splat %q : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
    tt.store %out, %y : tensor<64x64x!tt.ptr<f16>, #blocked>
    tt.return
  }
}
)";
} // namespace

TEST_CASE("global load: the first use of the result waits for the memory round trip (scoreboard)") {
  Sim sim(kLoad, {});
  auto loads = sim.of(sim::AsyncEvent::LsuLoad);
  auto stores = sim.of(sim::AsyncEvent::LsuStore);
  REQUIRE(loads.size() == 1);
  REQUIRE(stores.size() == 1);
  CHECK(loads[0].bytes == 64 * 64 * 2);
  const sim::GpuModel &m = *sim.model;
  // A miss: L2 latency + HBM latency at least.
  CHECK(static_cast<double>(loads[0].end - loads[0].start) >=
        m.get("global_load_latency_cycles") + m.get("hbm_extra_latency_cycles"));
  bool waited = false;
  for (const auto &e : sim.rec.instrs)
    if (e.operandWait && e.instr->op == sim::Op::TensorOp) {
      waited = true;
      CHECK(e.end == loads[0].end); // the addf starts when the data is back
    }
  CHECK(waited);
  CHECK(stores[0].start >= loads[0].end);
}

namespace {
const char *kWhile = R"(#loc1 = loc("u.py":1:0)
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @w(%n: i32 loc("n"(#loc1))) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.while (%i = %c0, %s = %c0) : (i32, i32) -> (i32, i32) {
      %cond = arith.cmpi slt, %i, %n : i32
      scf.condition(%cond) %i, %s : i32, i32
    } do {
    ^bb0(%j: i32, %t: i32):
      %next = arith.addi %j, %c1 : i32
      %sum = arith.addi %t, %j : i32
      scf.yield %next, %sum : i32, i32
    }
    %big = arith.constant 1000000 : i32
    %ok = arith.cmpi eq, %r#1, %big : i32
    tt.return
  }
}
)";
} // namespace

TEST_CASE("scf.while runs the after region while the before region's condition holds") {
  Sim five(kWhile, {"n=5"}), zero(kWhile, {"n=0"});
  auto count = [](const Sim &s) {
    int adds = 0;
    for (const auto &e : s.rec.instrs)
      adds += e.instr->op == sim::Op::Binary;
    return adds;
  };
  CHECK(count(five) == 10); // two addi per iteration, 5 iterations
  CHECK(count(zero) == 0);
  CHECK(five.result.cycles > zero.result.cycles);
}

TEST_CASE("wgmma power: operand bytes per instruction shape, and the power weight of a cycle of it") {
  auto loaded = sim::GpuModel::load("h200", TLXSIM_SOURCE_DIR "/models");
  REQUIRE(loaded);
  REQUIRE_FALSE(llvm::errorToBool(loaded->set("wgmma_smem_power_fraction=0.25")));
  auto costs = sim::engine::readCosts(*loaded);
  REQUIRE(costs);
  for (int n : {64, 128, 256}) {
    CAPTURE(n);
    auto ctx = ir::makeContext();
    std::string diag;
    llvm::raw_string_ostream os(diag);
    auto module = ir::readTTGIRText(wgmmaLoop(n), "unit.ttgir", *ctx, os);
    REQUIRE_MESSAGE(module, diag);
    auto program = sim::lowerModule(*module);
    REQUIRE(program);
    const sim::Instr *wgmma = nullptr;
    for (const sim::Block &block : program->blocks)
      for (const sim::Instr &in : block.instrs)
        if (in.op == sim::Op::WgmmaIssue)
          wgmma = &in;
    REQUIRE(wgmma);
    // One m64nNk16: A 64 x 16 and B 16 x N fp16 from shared memory (PTX ISA 9.1 9.7.15.5.1).
    CHECK(wgmma->operandBytes == (64 * 16 + 16 * n) * 2);
    CHECK(wgmma->imm == 2 * 64 * n * 16);
    // Bytes per cycle at 4096 FLOP/clk: 128 (N = 64), 96 (N = 128, the reference: weight 1), 80 (N = 256).
    double bytesPerClk = (64 * 16 + 16 * n) * 2 / (2.0 * 64 * n * 16 / 4096);
    double weight = sim::engine::tensorPowerWeight(*costs, wgmma->operandBytes, static_cast<double>(wgmma->imm));
    CHECK(weight == doctest::Approx(0.75 + 0.25 * bytesPerClk / 96));
  }
  CHECK(sim::engine::tensorPowerWeight(*costs, 6144, 2.0 * 64 * 128 * 16) == doctest::Approx(1.0));
  CHECK(sim::engine::tensorPowerWeight(*costs, 0, 0) == 1.0); // no FLOPs: the unweighted cycle
  REQUIRE_FALSE(llvm::errorToBool(loaded->set("wgmma_smem_power_fraction=0")));
  auto unweighted = sim::engine::readCosts(*loaded);
  REQUIRE(unweighted);
  CHECK(sim::engine::tensorPowerWeight(*unweighted, 10240, 2.0 * 64 * 256 * 16) == 1.0);
  REQUIRE_FALSE(llvm::errorToBool(loaded->set("wgmma_smem_power_fraction=1.5")));
  CHECK_FALSE(sim::engine::readCosts(*loaded)); // a share above 1 is refused, naming the model
}

TEST_CASE("AgentWork: an agent's totals by op equal the sums of its InstrEvent spans and mbarrier waits") {
  // The summary view reads only the totals (Listener::onAgentWork); a timeline reads every InstrEvent. Both must
  // see the same cycles: checked on one CTA of the WS GEMM (TMA producer, wgmma consumer, mbarrier ring).
  std::ifstream file(TLXSIM_SOURCE_DIR "/tests/inputs/hopper/ws_gemm/s3/ws_gemm_kernel.ttgir");
  std::stringstream text;
  text << file.rdbuf();
  REQUIRE_FALSE(text.str().empty());
  Sim sim(text.str(), {"M=512", "N=512", "K=1024"},
          {"a_desc=512x1024", "b_desc=1024x512", "c_desc=512x512"});
  std::map<int32_t, sim::AgentWork> fromEvents;
  for (const sim::InstrEvent &e : sim.rec.instrs) {
    sim::AgentWork &w = fromEvents[e.agent];
    size_t op = static_cast<size_t>(e.instr->op);
    if (e.operandWait) {
      w.operandWait[op] += e.end - e.start;
    } else {
      w.cycles[op] += e.end - e.start;
      ++w.spans[op];
    }
  }
  std::map<int32_t, sim::Cycle> blockedAt;
  for (const sim::BarrierEvent &e : sim.rec.waits) {
    if (e.action == sim::BarrierAction::WaitBlock)
      blockedAt[e.agent] = e.cycle;
    else
      fromEvents[e.agent].addBarrierWait(e.barrier.alloc, e.cycle - blockedAt[e.agent]);
  }
  REQUIRE(sim.rec.work.size() == 2); // one CTA: the default (wgmma) partition and the TMA producer
  sim::Cycle waited = 0;
  for (const auto &[agent, w] : sim.rec.work) {
    const sim::AgentWork &e = fromEvents[agent];
    CHECK(w.cycles == e.cycles);
    CHECK(w.spans == e.spans);
    CHECK(w.operandWait == e.operandWait);
    CHECK(w.barrierWait == e.barrierWait);
    CHECK(w.barrierResumes == e.barrierResumes);
    for (sim::Cycle c : w.barrierWait)
      waited += c;
  }
  CHECK(waited > 0); // the ring's waits are counted, not only instructions
}

namespace {
const char *kPassingWait = R"(#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @w() {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    %b = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %b, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.arrive_barrier %b, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.wait_barrier %b, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    tt.return
  }
}
)";
} // namespace

TEST_CASE("mbarrier: a wait whose phase already completed holds the warp for the try_wait round trip") {
  Sim sim(kPassingWait, {});
  const sim::GpuModel &m = *sim.model;
  int passing = 0;
  for (const auto &e : sim.rec.instrs)
    if (e.instr->op == sim::Op::WaitBarrier) {
      ++passing;
      CHECK(static_cast<double>(e.end - e.start) == m.get("mbarrier_try_wait_cycles"));
    }
  CHECK(passing == 1);
  CHECK(sim.rec.waits.empty()); // it never blocked
}

TEST_CASE("named barriers: a wave group that ends leaves the AMD workgroup barrier (retire)") {
  // S_BARRIER waits on only the surviving waves (AMD CDNA3 ISA, S_BARRIER): 8 waves x 64 lanes in two groups of 4.
  tlxsim::sim::NamedBarriers bars;
  auto first = bars.arrive(-5, 512, 256, /*agent=*/1, /*sync=*/true);
  CHECK_FALSE(first.completed);
  CHECK(first.expected == 512);
  auto gone = bars.retire(-5, 256); // the other group ends: the rendezvous in progress completes
  CHECK(gone.completed);
  CHECK(gone.expected == 256);
  REQUIRE(gone.released.size() == 1);
  CHECK(gone.released[0] == 1);
  auto next = bars.arrive(-5, 512, 256, 1, true); // later rendezvous count the survivors only
  CHECK(next.completed);
  CHECK(next.expected == 256);
  CHECK(bars.retire(-6, 64).expected == 0); // no rendezvous in progress: nothing to report
}
