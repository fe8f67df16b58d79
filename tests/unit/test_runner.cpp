// tools/runner: capture reading, Triton 3.6 parameter packing, tensor-map arguments, the cubin's
// parameter table, host data encodings, references and checks, timing statistics and records.
// The GPU itself is replaced by a fake device (host memory, a CPU "kernel"), so the whole
// `tlx-sim run` flow is exercised without a GPU. (tests/python/test_runner_params.py compares
// the packing with Triton's own launcher for every capture.)
#include "runner/Capture.h"
#include "runner/ClockSampler.h"
#include "runner/CubinParams.h"
#include "runner/Cupti.h"
#include "runner/HostData.h"
#include "runner/JsonOrder.h"
#include "runner/ParamLayout.h"
#include "runner/Record.h"
#include "runner/Reference.h"
#include "runner/RunReport.h"
#include "runner/Runner.h"
#include "runner/Timing.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>

#ifndef TLXSIM_SOURCE_DIR
#define TLXSIM_SOURCE_DIR "."
#endif

using namespace tlxsim::runner;

namespace {

template <typename T> T unwrap(llvm::Expected<T> value) {
  if (!value)
    FAIL(llvm::toString(value.takeError()));
  return std::move(*value);
}

const char *kDescLaunch = R"({
  "kernel": "k", "module": "kernels/x/k.py", "config": "c1", "target": "cuda:90",
  "grid": [4, 2],
  "args": {"M": 64, "alpha": 0.5, "h": 1.0, "b": 1.0, "big": 4294967296, "one": 1},
  "descs": {
    "a_desc": {"shape": [64, 32], "strides": [32, 1], "block": [64, 32], "dtype": "fp16"},
    "x_desc": {"shape": [16, 8], "strides": [8, 1], "block": [4, 8], "dtype": "fp32", "padding": "nan"}
  },
  "shape": {"Z": 1, "M": 64},
  "signature": {"a_desc": "tensordesc<fp16[64, 32]>", "M": "i32", "BLOCK": "constexpr", "alpha": "fp32",
                "h": "fp16", "b": "bf16", "x_desc": "tensordesc<fp32[4, 8]>", "big": "i64", "one": "constexpr"}
})";

const char *kDescMeta = R"({
  "name": "k", "target": {"backend": "cuda", "arch": 90, "warp_size": 32}, "num_warps": 8, "num_ctas": 1,
  "shared": 1024, "global_scratch_size": 0, "global_scratch_align": 1, "profile_scratch_size": 0,
  "profile_scratch_align": 1, "launch_cooperative_grid": false, "launch_pdl": false, "maxnreg": null,
  "tensordesc_meta": [{"swizzle": 3, "elem_size": 2, "elem_type": 6, "block_size": [64, 32], "fp4_padded": false},
                      null]
})";

Capture descCapture() { return unwrap(parseCapture(kDescLaunch, kDescMeta, "mem")); }

const Param &param(const ParamLayout &l, llvm::StringRef name) {
  for (const Param &p : l.params)
    if (p.name == name)
      return p;
  FAIL("no parameter " << name.str());
  return l.params.front();
}

} // namespace

TEST_CASE("SM clock samples: nvidia-smi's csv lines, their mean") {
  // `nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits -lms 50` prints one clock per line; a line
  // that is not a positive number (a warning, "[N/A]", a truncated last line) is skipped
  auto samples = tlxsim::runner::parseClockSamples("1980\n1755\r\n[N/A]\n 1530 \n0\n15");
  CHECK(samples == std::vector<int>{1980, 1755, 1530});
  CHECK(*tlxsim::runner::meanClockMHz({1500, 1600}) == doctest::Approx(1550));
  CHECK_FALSE(tlxsim::runner::meanClockMHz({}).has_value());
  CHECK(tlxsim::runner::parseClockSamples("").empty());
}

TEST_CASE("the clock sampler: no nvidia-smi gives no samples; one that ignores SIGTERM is still stopped") {
  llvm::SmallString<128> dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("tlxsim-smi", dir));
  std::string oldPath = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", dir.c_str(), 1); // nothing there
  CHECK(tlxsim::runner::ClockSampler(10).stop().empty());
  // a stand-in nvidia-smi that prints 1500 every 20 ms and ignores SIGTERM (one stuck in the driver)
  llvm::SmallString<128> smi(dir);
  llvm::sys::path::append(smi, "nvidia-smi");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(smi, ec);
    REQUIRE_FALSE(ec);
    os << "#!/bin/sh\ntrap '' TERM\nwhile :; do echo 1500; sleep 0.02; done\n";
  }
  llvm::sys::fs::setPermissions(smi, llvm::sys::fs::all_read | llvm::sys::fs::all_exe | llvm::sys::fs::owner_write);
  setenv("PATH", (std::string(dir) + ":" + oldPath).c_str(), 1); // coreutils' timeout still found
  std::vector<int> samples;
  {
    tlxsim::runner::ClockSampler sampler(20, 30); // waits for the first sample
    samples = sampler.stop();                    // returns although the child ignores SIGTERM
  }
  setenv("PATH", oldPath.c_str(), 1);
  REQUIRE_FALSE(samples.empty());
  CHECK(std::all_of(samples.begin(), samples.end(), [](int mhz) { return mhz == 1500; }));
  llvm::sys::fs::remove_directories(dir);
}

TEST_CASE("ordered keys of a JSON member follow the file, skipping nested values and escaped strings") {
  auto keys = unwrap(orderedMemberKeys(R"({"a": {"z": 1}, "s": {"q\"}": [1, {"x": "}"}], "b": "{", "a": 2}})", "s"));
  CHECK(keys == std::vector<std::string>{"q\"}", "b", "a"});
  auto missing = orderedMemberKeys(R"({"a": 1})", "s");
  CHECK_FALSE(missing);
  llvm::consumeError(missing.takeError());
}

TEST_CASE("Triton 3.6 parameter packing: constexprs removed, descriptors expanded, scalars in C storage") {
  Capture c = descCapture();
  ParamLayout l = unwrap(buildParamLayout(c, 0x210));
  std::vector<std::string> names;
  for (const Param &p : l.params)
    names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"a_desc", "a_desc.shape[0]", "a_desc.shape[1]", "a_desc.strides[0]",
                                          "a_desc.strides[1]", "M", "alpha", "h", "b", "x_desc.base",
                                          "x_desc.shape[0]", "x_desc.shape[1]", "x_desc.strides[0]",
                                          "x_desc.strides[1]", "x_desc.padding_nan", "x_desc.shape[0]",
                                          "x_desc.shape[1]", "x_desc.strides[0]", "x_desc.strides[1]", "big",
                                          "global_scratch", "profile_scratch"});
  // A CUtensorMap is 64-byte aligned in constant bank 0: 0x210 + 48 = 0x240.
  CHECK(l.params[0].offset == 48);
  CHECK(l.params[0].size == 128);
  CHECK(param(l, "a_desc.shape[0]").offset == 176);
  CHECK(param(l, "a_desc.shape[0]").cType == "int32_t");
  CHECK(param(l, "a_desc.strides[0]").cType == "int64_t");
  CHECK(param(l, "a_desc.strides[0]").offset == 184);
  CHECK(param(l, "alpha").bits == 0x3f000000u); // pack_fp32(0.5)
  CHECK(param(l, "h").bits == 0x3c00u);         // pack_fp16(1.0)
  CHECK(param(l, "b").bits == 0x3f80u);         // pack_bf16(1.0)
  CHECK(param(l, "big").bits == (uint64_t(1) << 32));
  CHECK(param(l, "x_desc.base").kind == ParamKind::Pointer);
  CHECK(param(l, "x_desc.base").tensor == "x_desc");
  CHECK(param(l, "x_desc.padding_nan").bits == 1);
  CHECK(param(l, "x_desc.padding_nan").size == 1);
  CHECK(param(l, "global_scratch").tensor.empty());
  CHECK(l.size == l.params.back().offset + 8);
  // At base 0 the first CUtensorMap starts at 0.
  CHECK(unwrap(buildParamLayout(c, 0)).params[0].offset == 0);
}

TEST_CASE("tensor map arguments follow driver.c fillTMADescriptor") {
  TensorSpec t;
  t.shape = {8192, 64};
  t.strides = {64, 1};
  t.padding = "nan";
  TensorDescMeta m{3, 2, 8, {128, 64}, false};
  TensorMapArgs a = tensorMapArgs(t, m);
  CHECK(a.dataType == 10); // TMA_DTYPE_DEVICE_TO_HOST[8]
  CHECK(a.rank == 2);
  CHECK(a.globalDim == std::vector<uint64_t>{64, 8192});
  CHECK(a.globalStrides == std::vector<uint64_t>{128, 128 * 8192}); // bytes; the last is driver.c's extra entry
  CHECK(a.boxDim == std::vector<uint32_t>{64, 128});
  CHECK(a.elementStrides == std::vector<uint32_t>{1, 1});
  CHECK(a.swizzle == 3);
  CHECK(a.l2Promotion == 2);
  CHECK(a.oobFill == 1);
  m.fp4Padded = true;
  CHECK(tensorMapArgs(t, m).globalDim == std::vector<uint64_t>{128, 8192});
  CHECK(tmaDtypeDeviceToHost(9) == 8);
  CHECK(tmaDtypeDeviceToHost(6) == 6);
}

TEST_CASE("bad launches are errors naming the problem") {
  std::string launch = kDescLaunch;
  launch.replace(launch.find("\"M\": 64, "), 9, "");
  auto c = unwrap(parseCapture(launch, kDescMeta, "mem"));
  auto l = buildParamLayout(c, 0);
  REQUIRE_FALSE(l);
  CHECK(llvm::toString(l.takeError()).find("scalar argument M (i32) has no value") != std::string::npos);
  auto bad = parseCapture("{\"grid\": [0]}", kDescMeta, "mem");
  REQUIRE_FALSE(bad);
  CHECK(llvm::toString(bad.takeError()).find("grid") != std::string::npos);
}

TEST_CASE("the cubin parameter table matches cuobjdump -elf for the captured WS GEMM") {
  auto buffer = llvm::MemoryBuffer::getFile(TLXSIM_SOURCE_DIR "/tests/inputs/hopper/ws_gemm/s3/ws_gemm_kernel.cubin");
  REQUIRE(buffer);
  CubinParams t = unwrap(readCubinParams((*buffer)->getBuffer(), "ws_gemm_kernel"));
  CHECK(t.cbankOffset == 0x210);
  CHECK(t.cbankSize == 616);
  REQUIRE(t.params.size() == 20);
  CHECK(t.params[10].offset == 0x1b0); // cuobjdump: Ordinal 0xa Offset 0x1b0 Size 0x80
  CHECK(t.params[10].size == 128);
  CHECK(t.params[19].offset == 0x260);
  CHECK(t.params[19].size == 8);
  auto wrong = readCubinParams((*buffer)->getBuffer(), "other_kernel");
  CHECK_FALSE(wrong);
  llvm::consumeError(wrong.takeError());
  auto notElf = readCubinParams("not an elf", "k");
  CHECK_FALSE(notElf);
  llvm::consumeError(notElf.takeError());
}

TEST_CASE("every captured cubin's parameter table equals the runner's packing") {
  std::error_code ec;
  int checked = 0;
  for (llvm::sys::fs::recursive_directory_iterator it(TLXSIM_SOURCE_DIR "/tests/inputs", ec), end; it != end && !ec;
       it.increment(ec)) {
    if (llvm::sys::path::filename(it->path()) != "launch.json")
      continue;
    Capture c = unwrap(readCapture(it->path()));
    if (!c.isCuda())
      continue;
    auto layout = layoutForCapture(c);
    CHECK_MESSAGE(bool(layout), c.dir << ": " << (layout ? "" : llvm::toString(layout.takeError())));
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("fp16, bf16 and fp8 encodings round to nearest even") {
  CHECK(doubleToHalfBits(1.0) == 0x3c00);
  CHECK(doubleToHalfBits(-2.0) == 0xc000);
  CHECK(doubleToHalfBits(65504.0) == 0x7bff);
  CHECK(doubleToHalfBits(65520.0) == 0x7c00); // rounds to inf
  CHECK(doubleToHalfBits(0.1) == 0x2e66);
  CHECK(doubleToHalfBits(2049.0) == 0x6800);  // tie -> even (2048)
  CHECK(doubleToHalfBits(2051.0) == 0x6802);  // tie -> even (2052)
  CHECK(doubleToHalfBits(6e-8) == 0x0001);    // smallest subnormal 5.96e-8
  CHECK(doubleToHalfBits(1e-8) == 0x0000);
  CHECK(halfBitsToDouble(0x3555) == doctest::Approx(0.333251953125));
  CHECK(std::isnan(halfBitsToDouble(0x7e00)));
  uint8_t buf[4];
  storeElement(buf, "fp8e4nv", 0, 1.0);
  CHECK(buf[0] == 0x38);
  storeElement(buf, "fp8e4nv", 0, 1000.0); // saturates to 448
  CHECK(buf[0] == 0x7e);
  storeElement(buf, "fp8e5", 0, -1.0);
  CHECK(buf[0] == 0xbc);
  storeElement(buf, "bf16", 0, 1.0);
  CHECK(loadElement(buf, "bf16", 0) == 1.0);
  CHECK(buf[0] == 0x80);
  CHECK(buf[1] == 0x3f);
}

TEST_CASE("the fast float-to-half conversion equals the exact one") {
  int64_t mismatches = 0;
  for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += 4093) {
    uint32_t b = uint32_t(bits);
    float f;
    std::memcpy(&f, &b, 4);
    uint16_t fast = floatToHalfBits(f), exact = doubleToHalfBits(double(f));
    if (fast != exact && !(std::isnan(f) && (fast & 0x7e00) == 0x7e00))
      ++mismatches;
  }
  CHECK(mismatches == 0);
  CHECK(floatToHalfBits(2049.0f) == 0x6800);
  CHECK(floatToHalfBits(65520.0f) == 0x7c00);
  CHECK(floatToHalfBits(-6e-8f) == 0x8001);
}

TEST_CASE("the seeded fill is standard normal and independent of the thread count") {
  const int64_t n = 200000;
  std::vector<uint8_t> one(n * 2), four(n * 2), other(n * 2);
  for (auto [buf, seed, threads] : {std::tuple{&one, 7, 1u}, {&four, 7, 4u}, {&other, 8, 4u}}) {
    llvm::Error err = fillRandom(buf->data(), n, "fp16", seed, 1, threads);
    REQUIRE_FALSE(bool(err));
  }
  CHECK(one == four);
  CHECK(one != other);
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = loadElement(one.data(), "fp16", i);
    sum += v;
    sq += v * v;
  }
  CHECK(std::fabs(sum / n) < 0.01);
  CHECK(sq / n == doctest::Approx(1.0).epsilon(0.02));
  llvm::Error err = fillRandom(one.data(), 1, "fp4", 0, 0, 1);
  CHECK(bool(err));
  llvm::consumeError(std::move(err));
}

TEST_CASE("timing statistics: median of an even count, do_bench iteration counts") {
  Summary s = summarize({4, 1, 3, 2});
  CHECK(s.median == 2.5);
  CHECK(s.min == 1);
  CHECK(s.max == 4);
  CHECK(s.mean == 2.5);
  CHECK(s.cv == doctest::Approx(std::sqrt(1.25) / 2.5));
  CHECK(iterationsFor(500, 1.6) == 312);
  CHECK(iterationsFor(100, 500) == 1);
}

TEST_CASE("record.py statistics: sample CV, medians of consecutive groups (the remainder left out)") {
  CHECK(sampleCv({1, 2, 3}) == doctest::Approx(1.0 / 2.0)); // stdev 1, mean 2
  CHECK(sampleCv({5}) == 0);
  CHECK(groupMedians({60, 61, 62, 63, 64, 65, 99}, 2) == std::vector<double>{61, 64});
  CHECK(groupMedians({7, 9}, 3) == std::vector<double>{7, 9});
  CHECK(groupMedians({}, 3).empty());
}

TEST_CASE("CUPTI kernel records: the exact name, in correlation order, incomplete records left out") {
  std::vector<KernelActivity> records{{"k", 5000, 7500, 3},       {"k_decoy", 0, 999000, 2},
                                      {"k", 1000, 3000, 1},       {"k", 9000, 0, 4}, // incomplete: no end
                                      {"other", 100, 200, 0},     {"k", 20000, 21250, 5}};
  CHECK(kernelDurationsUs(records, "k") == std::vector<double>{2.0, 2.5, 1.25});
  CHECK(kernelDurationsUs(records, "missing").empty());
}

TEST_CASE("CUPTI search order: TLXSIM_CUPTI alone, else the loader's names, then CUDA_HOME and /usr/local/cuda") {
  CHECK(cuptiCandidates(std::string("/x/libcupti.so.12"), std::string("/opt/cuda")) ==
        std::vector<std::string>{"/x/libcupti.so.12"});
  CHECK(cuptiCandidates(std::nullopt, std::string("/opt/cuda")) ==
        std::vector<std::string>{"libcupti.so", "libcupti.so.13", "libcupti.so.12",
                                 "/opt/cuda/extras/CUPTI/lib64/libcupti.so", "/opt/cuda/lib64/libcupti.so",
                                 "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
                                 "/usr/local/cuda/lib64/libcupti.so"});
  CHECK(cuptiCandidates(std::string(""), std::nullopt).size() == 5);
}

TEST_CASE("references are recognised from the captures of the kernel-module convention") {
  Capture gemm = unwrap(readCapture(TLXSIM_SOURCE_DIR "/tests/inputs/hopper/triton_gemm/s3"));
  ReferenceSpec g = unwrap(findReference(gemm, "auto"));
  CHECK(g.kind == ReferenceKind::Gemm);
  CHECK(g.operands == std::vector<std::string>{"a_ptr", "b_ptr", "c_ptr"});
  CHECK(g.flops == 2.0 * 8192 * 8192 * 8192);
  Capture attn = unwrap(readCapture(TLXSIM_SOURCE_DIR "/tests/inputs/hopper/attention_fwd/bn64_s2"));
  ReferenceSpec a = unwrap(findReference(attn, "auto"));
  CHECK(a.kind == ReferenceKind::Attention);
  CHECK(a.operands == std::vector<std::string>{"q_desc", "k_desc", "v_desc", "o_desc"});
  CHECK(a.heads == 128);
  CHECK(a.headDim == 64);
  CHECK(unwrap(findReference(descCapture(), "auto")).kind == ReferenceKind::None);
  auto forced = findReference(attn, "gemm");
  CHECK_FALSE(forced);
  llvm::consumeError(forced.takeError());
}

TEST_CASE("a declared scale reference: the tma_scale captures name it; Y = factor * X on every element") {
  Capture tma = unwrap(readCapture(TLXSIM_SOURCE_DIR "/tests/inputs/hopper/tma_scale/b128x128"));
  ReferenceSpec declared = unwrap(findReference(tma, "auto"));
  CHECK(declared.kind == ReferenceKind::Scale);
  CHECK(declared.operands == std::vector<std::string>{"x_desc", "y_desc"});
  CHECK(declared.factor == 2.0); // launch.json args.alpha
  CHECK(declared.flops == 8192.0 * 8192.0);
  CHECK(std::string(referenceKindName(declared.kind)) == "scale");

  auto launchWith = [](const std::string &reference) {
    return R"({"kernel": "scale", "target": "cuda:90", "grid": [1, 1, 1], "args": {"alpha": -1.5, "n": 3},
      "descs": {"x": {"shape": [4, 8], "strides": [8, 1], "block": [4, 8], "dtype": "fp16"},
                "y": {"shape": [4, 8], "strides": [8, 1], "block": [4, 8], "dtype": "fp16"},
                "z": {"shape": [8, 4], "strides": [4, 1], "block": [8, 4], "dtype": "fp16"}},
      "signature": {"x": "tensordesc<fp16[4, 8]>", "y": "tensordesc<fp16[4, 8]>", "z": "tensordesc<fp16[8, 4]>",
                    "alpha": "fp32", "n": "i32"},
      "reference": )" + reference + "}";
  };
  const char *meta = R"({"name": "scale", "target": {"backend": "cuda", "arch": 90}, "num_warps": 4, "shared": 0})";
  Capture c = unwrap(parseCapture(launchWith(R"({"kind": "scale", "operands": ["x", "y"], "factor": "alpha"})"),
                                  meta, "mem"));
  ReferenceSpec spec = unwrap(findReference(c, "auto"));
  REQUIRE(spec.kind == ReferenceKind::Scale);
  CHECK(spec.factor == -1.5);
  HostTensors t;
  t["x"].resize(32 * 2);
  t["y"].resize(32 * 2);
  REQUIRE_FALSE(bool(fillRandom(t["x"].data(), 32, "fp16", 1, 1, 1)));
  for (int64_t i = 0; i < 32; ++i)
    storeElement(t["y"].data(), "fp16", i, -1.5 * loadElement(t["x"].data(), "fp16", i));
  CheckResult good = checkReference(spec, c, t, 0, 3);
  CHECK(good.ok);
  CHECK(good.samples == 32);
  CHECK(good.maxRelErr < 1e-3);
  storeElement(t["y"].data(), "fp16", 13, -1.5 * loadElement(t["x"].data(), "fp16", 13) + 1.0); // row 1, col 5
  CheckResult bad = checkReference(spec, c, t, 0, 3);
  CHECK_FALSE(bad.ok);
  CHECK(bad.message.rfind("y[1, 5]: ", 0) == 0);
  // A number factor; then malformed declarations are errors naming the problem.
  CHECK(unwrap(findReference(unwrap(parseCapture(launchWith(R"({"kind": "scale", "operands": ["x", "y"],
                                                                  "factor": 4})"), meta, "mem")), "auto")).factor == 4);
  for (auto [reference, message] : std::vector<std::pair<const char *, const char *>>{
           {R"({"kind": "scale", "operands": ["x", "y"], "factor": "beta"})", "factor beta is not a scalar argument"},
           {R"({"kind": "scale", "operands": ["x", "z"], "factor": "alpha"})", "X and Y differ in shape"},
           {R"({"kind": "scale", "operands": ["x"], "factor": "alpha"})", "must name two tensors"},
           {R"({"kind": "scale", "operands": ["x", "w"], "factor": 2})", "operand w is not a tensor"},
           {R"({"kind": "sum"})", "needs \"kind\": \"gemm\", \"attention\" or \"scale\""}}) {
    auto err = findReference(unwrap(parseCapture(launchWith(reference), meta, "mem")), "auto");
    REQUIRE_FALSE(err);
    std::string text = llvm::toString(err.takeError());
    CHECK_MESSAGE(text.find(message) != std::string::npos, text);
  }
}

TEST_CASE("the attention check: equal keys make the softmax uniform, so O is each head's mean of V") {
  const char *launch = R"({"kernel": "attn", "target": "cuda:90", "grid": [1, 2, 1], "args": {"N_CTX": 8},
    "shape": {"Z": 1, "H": 2, "N_CTX": 8},
    "descs": {"q": {"shape": [16, 4], "strides": [4, 1], "block": [8, 4], "dtype": "fp16"},
              "k": {"shape": [16, 4], "strides": [4, 1], "block": [8, 4], "dtype": "fp16"},
              "v": {"shape": [16, 4], "strides": [4, 1], "block": [8, 4], "dtype": "fp16"},
              "o": {"shape": [16, 4], "strides": [4, 1], "block": [8, 4], "dtype": "fp16"}},
    "signature": {"q": "tensordesc<fp16[8, 4]>", "k": "tensordesc<fp16[8, 4]>", "v": "tensordesc<fp16[8, 4]>",
                  "o": "tensordesc<fp16[8, 4]>", "N_CTX": "i32"}})";
  const char *meta = R"({"name": "attn", "target": {"backend": "cuda", "arch": 90}, "num_warps": 4, "shared": 0})";
  Capture c = unwrap(parseCapture(launch, meta, "mem"));
  ReferenceSpec spec = unwrap(findReference(c, "auto"));
  REQUIRE(spec.kind == ReferenceKind::Attention);
  HostTensors t;
  for (const char *name : {"q", "k", "v", "o"})
    t[name].resize(16 * 4 * 2);
  REQUIRE_FALSE(bool(fillRandom(t["q"].data(), 64, "fp16", 1, 1, 1)));
  REQUIRE_FALSE(bool(fillRandom(t["v"].data(), 64, "fp16", 1, 2, 1)));
  for (int64_t row = 0; row < 16; ++row)
    for (int64_t d = 0; d < 4; ++d)
      storeElement(t["k"].data(), "fp16", row * 4 + d, 0.25 * double(d + 1) * (row < 8 ? 1 : -1));
  auto fillO = [&](int headOffset) { // O row r of head h = mean of V rows of head (h + headOffset) % 2
    for (int64_t row = 0; row < 16; ++row)
      for (int64_t d = 0; d < 4; ++d) {
        int64_t head = (row / 8 + headOffset) % 2;
        double mean = 0;
        for (int64_t j = 0; j < 8; ++j)
          mean += loadElement(t["v"].data(), "fp16", (head * 8 + j) * 4 + d) / 8;
        storeElement(t["o"].data(), "fp16", row * 4 + d, mean);
      }
  };
  fillO(0);
  CheckResult good = checkReference(spec, c, t, 3, 2);
  CHECK(good.ok);
  CHECK(good.samples == 2 * 4); // one row per 128-row band of each of the 2 heads, 4 elements each
  CHECK(good.maxRelErr < 1e-3);
  fillO(1); // each head's output taken from the other head
  CHECK_FALSE(checkReference(spec, c, t, 3, 2).ok);
}

namespace {

/// A device over host memory whose "kernel" is a CPU GEMM over the pointer-GEMM signature
/// (a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm), optionally wrong everywhere
/// (10 % too large plus 0.5) or writing nothing.
class FakeDevice final : public Device {
public:
  enum class Mode { Correct, Wrong, WritesNothing } mode = Mode::Correct;
  DeviceInfo deviceInfo{"Fake GPU", "1.0", "gfx942", 4, 1000};
  std::map<uint64_t, std::vector<uint8_t>> memory;
  uint64_t next = 0x10000;
  int launches = 0;
  LaunchGeometry last;

  std::vector<uint8_t> &at(uint64_t address) { return memory.at(address); }
  const DeviceInfo &info() const override { return deviceInfo; }
  llvm::Error loadKernel(llvm::StringRef, llvm::StringRef, uint32_t) override { return llvm::Error::success(); }
  llvm::Expected<std::pair<int, int>> kernelRegistersAndMaxThreads() override { return std::make_pair(96, 1024); }
  llvm::Expected<uint64_t> allocate(size_t bytes) override {
    next += 0x10000 + bytes;
    memory[next].resize(bytes);
    return next;
  }
  void release(uint64_t address) override { memory.erase(address); }
  llvm::Error upload(uint64_t dst, const void *src, size_t bytes) override {
    std::memcpy(at(dst).data(), src, bytes);
    return llvm::Error::success();
  }
  llvm::Error download(void *dst, uint64_t src, size_t bytes) override {
    std::memcpy(dst, at(src).data(), bytes);
    return llvm::Error::success();
  }
  llvm::Error fill32(uint64_t dst, uint32_t value, size_t count) override {
    for (size_t i = 0; i < count; ++i)
      std::memcpy(at(dst).data() + 4 * i, &value, 4);
    return llvm::Error::success();
  }
  llvm::Error fill16(uint64_t dst, uint16_t value, size_t count) override {
    for (size_t i = 0; i < count; ++i)
      std::memcpy(at(dst).data() + 2 * i, &value, 2);
    return llvm::Error::success();
  }
  llvm::Expected<std::array<uint8_t, 128>> encodeTensorMap(const TensorMapArgs &, uint64_t) override {
    return llvm::createStringError("no tensor maps");
  }
  llvm::Error launch(const LaunchGeometry &g, void **params) override {
    ++launches;
    last = g;
    auto ptr = [&](int i) { return *static_cast<uint64_t *>(params[i]); };
    auto i32 = [&](int i) { return *static_cast<int32_t *>(params[i]); };
    auto &a = at(ptr(0)), &b = at(ptr(1)), &c = at(ptr(2));
    int M = i32(3), N = i32(4), K = i32(5), sa = i32(6), sb = i32(7), sc = i32(8);
    if (mode == Mode::WritesNothing)
      return llvm::Error::success();
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double acc = 0;
        for (int k = 0; k < K; ++k)
          acc += loadElement(a.data(), "fp16", i * sa + k) * loadElement(b.data(), "fp16", k * sb + j);
        storeElement(c.data(), "fp16", i * sc + j, mode == Mode::Wrong ? acc * 1.1 + 0.5 : acc);
      }
    return llvm::Error::success();
  }
  llvm::Error synchronize() override { return llvm::Error::success(); }
  llvm::Error createEvents(size_t) override { return llvm::Error::success(); }
  llvm::Error recordEvent(size_t) override { return llvm::Error::success(); }
  std::vector<float> eventTimes; ///< per timed launch, in order (ms); 0.25 ms each when empty
  size_t nextEventTime = 0;
  llvm::Expected<float> elapsedMs(size_t start, size_t) override {
    if (start == 0 && eventTimes.empty())
      return 2.5f;
    if (start == 0 && nextEventTime == 0)
      return 2.5f; // the estimate
    return nextEventTime < eventTimes.size() ? eventTimes[nextEventTime++] : 0.25f;
  }
};

const char *kGemmLaunch = R"({
  "kernel": "gemm_kernel", "module": "kernels/amd/gemm.py", "config": "s2", "target": "hip:gfx942",
  "grid": [1, 1, 1],
  "args": {"M": 64, "N": 64, "K": 32, "stride_am": 32, "stride_ak": 1, "stride_bk": 64, "stride_bn": 1,
           "stride_cm": 64, "stride_cn": 1},
  "descs": {},
  "shape": {"M": 64, "N": 64, "K": 32},
  "signature": {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
                "stride_cm": "i32", "stride_cn": "constexpr", "BM": "constexpr"},
  "ptrs": {"a_ptr": {"shape": [64, 32], "dtype": "fp16"}, "b_ptr": {"shape": [32, 64], "dtype": "fp16"},
           "c_ptr": {"shape": [64, 64], "dtype": "fp16"}}
})";
const char *kGemmMeta = R"({"name": "gemm_kernel", "target": {"backend": "hip", "arch": "gfx942", "warp_size": 64},
  "num_warps": 4, "num_ctas": 1, "shared": 32768, "warp_size": 64, "profile_scratch_size": 0,
  "profile_scratch_align": 1, "launch_cooperative_grid": false, "tensordesc_meta": []})";

Capture gemmCapture() {
  Capture c = unwrap(parseCapture(kGemmLaunch, kGemmMeta, "mem"));
  c.binaryPath = TLXSIM_SOURCE_DIR "/tests/inputs/amd-gfx942/gemm/s2/gemm_kernel.hsaco";
  return c;
}

RunOptions fastOptions() {
  RunOptions o;
  o.iters = 3;
  o.rounds = 2;
  o.warmupMs = 1;
  o.flushL2 = false;
  o.threads = 2;
  return o;
}

} // namespace

TEST_CASE("run on a fake device: packing, NaN-poisoned checked launch, timing") {
  FakeDevice device;
  RunResult r = unwrap(runCapture(gemmCapture(), device, fastOptions()));
  CHECK(r.kernelFailure.empty());
  REQUIRE(r.check);
  CHECK(r.check->ok);
  CHECK(r.check->samples == 1); // one sample per 64 x 64 cell
  CHECK(r.check->nonFinite == 0);
  CHECK(r.reference.kind == ReferenceKind::Gemm);
  CHECK(device.last.block[0] == 256); // warp_size 64 * num_warps 4
  CHECK(device.last.sharedBytes == 32768);
  CHECK(r.itersPerRound == 3);
  CHECK(r.warmupIters == 2); // int(1 ms / 0.5 ms): the estimate is 2.5 ms over 5 launches
  CHECK(r.roundMedianUs == std::vector<double>{250, 250});
  CHECK(r.medianUs == 250);
  CHECK(device.launches == 2 + 5 + 2 * (2 + 3)); // first, checked, estimate, 2 rounds
  CHECK(r.bytes == (64 * 32 + 32 * 64 + 64 * 64) * 2);
}

namespace {

/// A KernelTimer reporting `durations` for the launches it was started for (or an error).
class FakeTimer final : public KernelTimer {
public:
  FakeDevice &device;
  std::vector<double> durations;
  bool fail = false;
  int startLaunches = -1, stopLaunches = -1;
  explicit FakeTimer(FakeDevice &d) : device(d) {}
  std::string description() const override { return "fake timer"; }
  llvm::Error start() override {
    startLaunches = device.launches;
    return llvm::Error::success();
  }
  llvm::Expected<std::vector<double>> stop(llvm::StringRef kernel) override {
    stopLaunches = device.launches;
    if (fail || kernel != "gemm_kernel")
      return llvm::createStringError("lost its records");
    return durations;
  }
};

} // namespace

TEST_CASE("run on a fake device: a kernel timer's durations in groups are the measurement, events the fallback") {
  FakeDevice device;
  FakeTimer timer(device);
  timer.durations = {10, 11, 12, 13, 14, 15};
  RunOptions o = fastOptions();
  o.timer = &timer;
  o.timerIters = 6;
  RunResult r = unwrap(runCapture(gemmCapture(), device, o));
  CHECK(r.timer == "cupti");
  CHECK(r.roundMedianUs == std::vector<double>{11, 14}); // 2 rounds: 2 groups of 3
  CHECK(r.medianUs == 12.5);
  CHECK(r.timeUs.min == 10);
  CHECK(r.eventsMedianUs == 250);
  CHECK(timer.stopLaunches - timer.startLaunches == 6); // only the timed launches, after the event rounds
  CHECK(device.launches == 2 + 5 + 2 * (2 + 3) + 6);

  FakeDevice d2; // a timer that saw fewer launches than were made: not a measurement
  FakeTimer short_(d2);
  short_.durations = {10, 11};
  o.timer = &short_;
  RunResult f = unwrap(runCapture(gemmCapture(), d2, o));
  CHECK(f.timer == "events");
  CHECK(f.medianUs == 250);
  CHECK(f.timerNote == "fake timer: fake timer reported 2 launches of gemm_kernel, not 6");
  FakeDevice d3;
  FakeTimer failing(d3);
  failing.fail = true;
  o.timer = &failing;
  o.requireTimer = true;
  auto err = runCapture(gemmCapture(), d3, o);
  REQUIRE_FALSE(err);
  CHECK(llvm::toString(err.takeError()) == "lost its records");
}

TEST_CASE("run on a fake device: rounds are re-timed while their CV exceeds max-cv, the steadiest kept") {
  FakeDevice device;
  // Attempt 1: round medians 250 and 500 us (sample CV 0.47); attempt 2: 437.5 and 437.5 us.
  device.eventTimes = {0.25f, 0.25f, 0.25f, 0.5f, 0.5f, 0.5f, 0.4375f, 0.4375f, 0.4375f, 0.4375f, 0.4375f, 0.4375f};
  RunOptions o = fastOptions();
  o.retries = 2;
  RunResult r = unwrap(runCapture(gemmCapture(), device, o));
  CHECK(r.attempts == 2);
  CHECK(r.roundMedianUs == std::vector<double>{437.5, 437.5});
  CHECK(r.medianUs == 437.5);
  CHECK(r.eventsCv == 0);
  FakeDevice once;
  once.eventTimes = device.eventTimes;
  o.retries = 0;
  RunResult single = unwrap(runCapture(gemmCapture(), once, o));
  CHECK(single.attempts == 1);
  CHECK(single.medianUs == 375);
  CHECK(single.eventsCv == doctest::Approx(std::sqrt(2 * 125.0 * 125.0) / 375));
}

TEST_CASE("run on a fake device: a wrong element and an unwritten output are check failures") {
  FakeDevice wrong;
  wrong.mode = FakeDevice::Mode::Wrong;
  RunOptions o = fastOptions();
  RunResult r = unwrap(runCapture(gemmCapture(), wrong, o));
  REQUIRE(r.check);
  CHECK_FALSE(r.check->ok);
  CHECK(r.check->maxRelErr > 0.05);
  CHECK(r.check->message.find("c_ptr[") == 0);
  FakeDevice nothing;
  nothing.mode = FakeDevice::Mode::WritesNothing;
  RunResult n = unwrap(runCapture(gemmCapture(), nothing, o));
  REQUIRE(n.check);
  CHECK_FALSE(n.check->ok);
  CHECK(n.check->nonFinite == 64 * 64);
}

TEST_CASE("records: a rerun replaces its record and keeps the split; other modules are refused") {
  Capture c = gemmCapture();
  FakeDevice device;
  RunResult r = unwrap(runCapture(c, device, fastOptions()));
  llvm::json::Object first = unwrap(mergeRecord(std::nullopt, makeRecord(c, r, "heldout", "captures/gemm/s2-x"), c, r,
                                                "mi300x", "2026-11-29"));
  CHECK(first.getString("kernel") == llvm::StringRef("gemm")); // kernels/amd/gemm.py
  CHECK(traceKernelName("kernels/triton/gemm.py") == "triton_gemm");
  CHECK(traceKernelName("kernels/hopper/ws_gemm.py") == "ws_gemm");
  CHECK(traceKernelName("triton/language/extra/tlx/tutorials/hopper_gemm_ws.py") == "tlx_hopper_gemm_ws");
  CHECK(traceKernelName("triton/language/extra/tlx/tutorials/gfx9_gemm/a16w16/v0.py") == "tlx_gfx9_gemm_a16w16_v0");
  CHECK(first.getString("gpu") == llvm::StringRef("mi300x"));
  llvm::json::Object second =
      unwrap(mergeRecord(first, makeRecord(c, r, "fit", "captures/gemm/s2-y"), c, r, "mi300x", "2026-11-30"));
  const llvm::json::Array *records = second.getArray("records");
  REQUIRE(records);
  REQUIRE(records->size() == 1);
  const llvm::json::Object *rec = (*records)[0].getAsObject();
  CHECK(rec->getString("split") == llvm::StringRef("heldout"));
  CHECK(rec->getString("capture") == llvm::StringRef("captures/gemm/s2-y"));
  CHECK(rec->getNumber("measured_us") == 250.0);
  CHECK(rec->getBoolean("correct") == true);
  llvm::json::Object other = first;
  other["module"] = "kernels/other.py";
  // a file under traces/mi300x/sub/ passes the folder name "sub": the file's own gpu stays
  CHECK(unwrap(mergeRecord(first, makeRecord(c, r, "fit", "z"), c, r, "sub", "2026-11-30")).getString("gpu") ==
        llvm::StringRef("mi300x"));
  auto refused = mergeRecord(other, makeRecord(c, r, "fit", "x"), c, r, "mi300x", "2026-11-30");
  CHECK_FALSE(refused);
  llvm::consumeError(refused.takeError());
}

TEST_CASE("the run report: JSON fields in us, the text lines, the finding rule and the --timer choice") {
  FakeDevice device;
  const Capture capture = gemmCapture();
  RunResult r = unwrap(runCapture(capture, device, fastOptions()));
  CHECK_FALSE(runFailed(r));
  RunReportOptions options;
  options.flushL2 = false;
  options.recordPath = "traces/fake/gemm.json";
  llvm::json::Object out = runJson(capture, r.device, r, options);
  CHECK(out.getString("command") == "run");
  const llvm::json::Object *timing = out.getObject("timing");
  REQUIRE(timing);
  CHECK(timing->getNumber("median_us") == 250);
  CHECK(timing->getString("timer") == "events");
  CHECK(timing->getInteger("iters_per_round") == 3);
  CHECK(timing->getBoolean("l2_flush") == false);
  CHECK(out.getString("record") == "traces/fake/gemm.json");
  CHECK(out.getObject("reference")->getBoolean("ok") == true);
  std::string text;
  llvm::raw_string_ostream os(text);
  printRun(os, capture, r.device, r, options);
  CHECK(llvm::StringRef(text).contains("time: median 250.0 us, events (round medians 250.0 250.0;"));
  CHECK(llvm::StringRef(text).contains("L2 not flushed"));
  CHECK(llvm::StringRef(text).contains("recorded in traces/fake/gemm.json\n"));
  r.check->ok = false;
  CHECK(runFailed(r));
  r.check->ok = true;
  r.kernelFailure = "illegal address";
  CHECK(runFailed(r));

  CHECK(unwrap(parseTimerChoice("cupti")) == TimerChoice::Cupti);
  CHECK(unwrap(parseTimerChoice("events")) == TimerChoice::Events);
  auto bad = parseTimerChoice("nvtx");
  REQUIRE_FALSE(bad);
  CHECK(llvm::toString(bad.takeError()) == "--timer must be auto, cupti or events");
  std::string note;
  CHECK(unwrap(openTimerFor(capture, TimerChoice::Events, note)) == nullptr);
  CHECK(note.empty());
}

TEST_CASE("a capture path that does not exist is an error naming it") {
  auto capture = readCapture("/nonexistent/capture");
  REQUIRE_FALSE(capture);
  CHECK(llvm::toString(capture.takeError()) == "/nonexistent/capture: no such capture folder or launch.json");
}

TEST_CASE("synchronize's poll: idle, still running past the hang timeout, a driver error") {
  using tlxsim::runner::pollStream;
  int calls = 0;
  CHECK(pollStream([&] { return ++calls < 3 ? 1 : 0; }, 10.0) == 0); // idle after two polls: no hang
  CHECK(calls == 3);
  auto start = std::chrono::steady_clock::now();
  CHECK(pollStream([] { return 1; }, 0.05) == 1); // a kernel that never finishes: reported after the timeout
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(waited >= 0.05);
  CHECK(pollStream([] { return 2; }, 10.0) == 2); // an error is returned at once
  std::string message = llvm::toString(tlxsim::runner::hangError(10));
  CHECK(message.find("has not finished after 10 s") != std::string::npos);
  CHECK(message.find("tlx-sim check") != std::string::npos);
}
