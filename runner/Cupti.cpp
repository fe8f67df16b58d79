#include "runner/Cupti.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstdlib>

namespace tlxsim::runner {

std::vector<double> kernelDurationsUs(std::vector<KernelActivity> records, llvm::StringRef kernel) {
  std::stable_sort(records.begin(), records.end(),
                   [](const KernelActivity &a, const KernelActivity &b) { return a.correlationId < b.correlationId; });
  std::vector<double> out;
  for (const KernelActivity &r : records)
    if (r.name == kernel && r.startNs != 0 && r.endNs >= r.startNs)
      out.push_back(double(r.endNs - r.startNs) / 1000.0);
  return out;
}

std::vector<std::string> cuptiCandidates(std::optional<std::string> tlxsimCupti, std::optional<std::string> cudaHome) {
  if (tlxsimCupti && !tlxsimCupti->empty())
    return {*tlxsimCupti};
  std::vector<std::string> out{"libcupti.so", "libcupti.so.13", "libcupti.so.12"};
  std::vector<std::string> homes;
  if (cudaHome && !cudaHome->empty())
    homes.push_back(*cudaHome);
  if (homes.empty() || homes.front() != "/usr/local/cuda")
    homes.push_back("/usr/local/cuda");
  for (const std::string &home : homes)
    for (const char *sub : {"/extras/CUPTI/lib64/libcupti.so", "/lib64/libcupti.so"})
      out.push_back(home + sub);
  return out;
}

} // namespace tlxsim::runner

#ifdef TLXSIM_RUNNER_HAVE_CUPTI
#include <cupti_activity.h>
#include <dlfcn.h>

#include <cstddef>
#include <mutex>

namespace tlxsim::runner {
namespace {

// The kernel record's fields read here are the prefix that every CUpti_ActivityKernelN since
// CUpti_ActivityKernel4 (CUDA 9) shares; later versions only append fields. CUPTI writes the newest
// version it knows, so reading that prefix works whatever CUPTI version is loaded at run time (the
// offsets below are those of CUpti_ActivityKernel9 in CUDA 12.8's header and CUpti_ActivityKernel10 in
// CUDA 13.0's as well).
using KernelRecord = CUpti_ActivityKernel4;
static_assert(offsetof(KernelRecord, start) == 16 && offsetof(KernelRecord, end) == 24 &&
              offsetof(KernelRecord, correlationId) == 92 && offsetof(KernelRecord, name) == 104);

#define TLXSIM_CUPTI_FUNCTIONS(X)                                                                                 \
  X(cuptiActivityRegisterCallbacks) X(cuptiActivityEnable) X(cuptiActivityDisable) X(cuptiActivityFlushAll)       \
  X(cuptiActivityGetNextRecord) X(cuptiActivityGetNumDroppedRecords) X(cuptiGetResultString)

struct Api {
#define TLXSIM_DECLARE(name) decltype(&::name) name = nullptr;
  TLXSIM_CUPTI_FUNCTIONS(TLXSIM_DECLARE)
#undef TLXSIM_DECLARE
};

/// What the buffer callbacks (plain C functions, possibly on CUPTI's worker thread) share with the
/// timer: one per process, as CUPTI's callbacks are.
struct Collector {
  std::mutex mutex;
  Api api;
  bool collecting = false;
  std::vector<KernelActivity> records;
  size_t dropped = 0;
  std::string failure; ///< a record walk that ended in an error
};
Collector &collector() {
  static Collector c;
  return c;
}

constexpr size_t kBufferBytes = size_t(1) << 20; ///< per buffer handed to CUPTI
constexpr size_t kBufferAlign = 8;               ///< ACTIVITY_RECORD_ALIGNMENT of CUPTI's samples

void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size, size_t *maxNumRecords) {
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxNumRecords = 0; // as many as fit
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t *buffer, size_t, size_t validSize) {
  Collector &c = collector();
  std::lock_guard<std::mutex> lock(c.mutex);
  CUpti_Activity *record = nullptr;
  while (buffer && validSize) {
    CUptiResult status = c.api.cuptiActivityGetNextRecord(buffer, validSize, &record);
    if (status == CUPTI_ERROR_MAX_LIMIT_REACHED)
      break;
    if (status != CUPTI_SUCCESS) {
      c.failure = "cuptiActivityGetNextRecord failed (CUptiResult " + std::to_string(int(status)) + ")";
      break;
    }
    if (!c.collecting ||
        (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL))
      continue;
    const auto *k = reinterpret_cast<const KernelRecord *>(record);
    c.records.push_back({k->name ? k->name : "", k->start, k->end, k->correlationId});
  }
  size_t dropped = 0;
  if (c.api.cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS)
    c.dropped += dropped;
  std::free(buffer);
}

class CuptiTimer final : public KernelTimer {
public:
  std::string library;

  std::string description() const override { return "cupti (" + library + ")"; }

  llvm::Error check(CUptiResult result, const char *what) {
    if (result == CUPTI_SUCCESS)
      return llvm::Error::success();
    const char *text = nullptr;
    collector().api.cuptiGetResultString(result, &text);
    return llvm::createStringError("%s failed: %s (CUptiResult %d)", what, text ? text : "unknown error",
                                   int(result));
  }

  llvm::Error start() override {
    Collector &c = collector();
    {
      std::lock_guard<std::mutex> lock(c.mutex);
      c.records.clear();
      c.dropped = 0;
      c.failure.clear();
      c.collecting = true;
    }
    return check(c.api.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                 "cuptiActivityEnable(CONCURRENT_KERNEL)");
  }

  llvm::Expected<std::vector<double>> stop(llvm::StringRef kernel) override {
    Collector &c = collector();
    llvm::Error disabled = check(c.api.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                                 "cuptiActivityDisable(CONCURRENT_KERNEL)");
    // Forced: deliver every buffer, also partly filled ones (the device is synchronized, so every
    // record is complete).
    llvm::Error flushed = check(c.api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    std::lock_guard<std::mutex> lock(c.mutex);
    c.collecting = false;
    if (disabled || flushed)
      return llvm::joinErrors(std::move(disabled), std::move(flushed));
    if (!c.failure.empty())
      return llvm::createStringError("%s", c.failure.c_str());
    if (c.dropped)
      return llvm::createStringError("CUPTI dropped %zu activity records", c.dropped);
    return kernelDurationsUs(std::move(c.records), kernel);
  }
};

bool timerOpened = false;

} // namespace

llvm::Expected<std::unique_ptr<KernelTimer>> openCuptiTimer() {
  if (timerOpened)
    return llvm::createStringError("CUPTI is already in use by this process");
  auto env = [](const char *name) -> std::optional<std::string> {
    const char *v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  std::vector<std::string> failures;
  for (const std::string &candidate : cuptiCandidates(env("TLXSIM_CUPTI"), env("CUDA_HOME"))) {
    void *library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *why = dlerror();
      failures.push_back(candidate + ": " + (why ? why : "dlopen failed"));
      continue;
    }
    Api api;
    std::string missing;
#define TLXSIM_LOAD(name)                                                                                         \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));                                         \
  if (!api.name && missing.empty())                                                                                \
    missing = #name;
    TLXSIM_CUPTI_FUNCTIONS(TLXSIM_LOAD)
#undef TLXSIM_LOAD
    if (!missing.empty()) {
      failures.push_back(candidate + ": no " + missing);
      dlclose(library);
      continue;
    }
    collector().api = api;
    auto timer = std::make_unique<CuptiTimer>();
    timer->library = candidate;
    if (auto err = timer->check(api.cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted),
                                "cuptiActivityRegisterCallbacks")) {
      failures.push_back(candidate + ": " + llvm::toString(std::move(err)));
      continue; // CUPTI stays loaded: a library that ran code is not unloaded
    }
    timerOpened = true;
    return std::unique_ptr<KernelTimer>(std::move(timer));
  }
  return llvm::createStringError("no usable CUPTI library (%s)", llvm::join(failures, "; ").c_str());
}

} // namespace tlxsim::runner

#else // !TLXSIM_RUNNER_HAVE_CUPTI

namespace tlxsim::runner {
llvm::Expected<std::unique_ptr<KernelTimer>> openCuptiTimer() {
  return llvm::createStringError("this tlx-sim was built without the CUPTI headers (cupti_activity.h)");
}
} // namespace tlxsim::runner

#endif
