/* A stand-in libcupti.so for tests/python/test_runner_params_fake_driver.py: the Activity API entry points
 * `tlx-sim run` uses (runner/Cupti.cpp). While CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL is enabled, every
 * launch of the stand-in libcuda.so.1 (fake_libcuda.c, which calls the hook this library installs with
 * fake_cuda_set_launch_hook, found as real CUPTI finds the driver: dlopen("libcuda.so.1")) produces three
 * records with consecutive correlation ids: the launched kernel's, lasting exactly 60 + k us for the k-th launch
 * since the enable (k = 0, 1, ...); a decoy kernel "<name>_decoy" of 999 us; and a memset record. Flushing
 * delivers them in reverse order, at most three per buffer (so the runner must walk several buffers, skip the
 * decoy and the memset by name and kind, and order by correlation id). FAKE_CUPTI_DROP=1 reports one dropped
 * record per buffer. Calls of interest are appended to FAKE_CUDA_LOG. */
#include <cupti_activity.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CUpti_ActivityKernel4 Record;
#define SLOT ((sizeof(Record) + 7) / 8 * 8)
#define PER_BUFFER 3

static CUpti_BuffersCallbackRequestFunc request_buffer;
static CUpti_BuffersCallbackCompleteFunc complete_buffer;
static int enabled;
static uint32_t correlation = 100;
static int kernel_launches;
static Record pending[4096];
static int npending;

static void log_line(const char *fmt, int value) {
  const char *path = getenv("FAKE_CUDA_LOG");
  if (!path)
    return;
  FILE *f = fopen(path, "a");
  fprintf(f, fmt, value);
  fputc('\n', f);
  fclose(f);
}

static void add(CUpti_ActivityKind kind, const char *name, uint64_t start, uint64_t duration_ns) {
  if (npending >= (int)(sizeof pending / sizeof pending[0]))
    return;
  Record *r = &pending[npending++];
  memset(r, 0, sizeof *r);
  r->kind = kind;
  r->start = start;
  r->end = start + duration_ns;
  r->correlationId = ++correlation;
  r->name = name ? strdup(name) : NULL;
}

static void on_launch(const char *name) {
  if (!enabled)
    return;
  uint64_t start = 1000000000ull + (uint64_t)kernel_launches * 1000000ull;
  add(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, name, start, (60ull + (uint64_t)kernel_launches) * 1000ull);
  char decoy[300];
  snprintf(decoy, sizeof decoy, "%s_decoy", name);
  add(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, decoy, start + 500000ull, 999000ull);
  add(CUPTI_ACTIVITY_KIND_MEMSET, NULL, start - 100000ull, 50000ull);
  ++kernel_launches;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                           CUpti_BuffersCallbackCompleteFunc complete) {
  request_buffer = request;
  complete_buffer = complete;
  log_line("cupti register %d", request && complete);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  if (kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || !request_buffer)
    return CUPTI_ERROR_INVALID_PARAMETER;
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  void (*set_hook)(void (*)(const char *)) = cuda ? (void (*)(void (*)(const char *)))dlsym(cuda, "fake_cuda_set_launch_hook") : NULL;
  if (!set_hook)
    return CUPTI_ERROR_NOT_INITIALIZED;
  set_hook(on_launch);
  enabled = 1;
  kernel_launches = 0;
  log_line("cupti enable %d", (int)kind);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  enabled = 0;
  log_line("cupti disable %d", (int)kind);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  int buffers = 0;
  while (npending > 0) {
    uint8_t *buffer = NULL;
    size_t size = 0, max_records = 0;
    request_buffer(&buffer, &size, &max_records);
    if (!buffer || size < SLOT)
      return CUPTI_ERROR_INVALID_PARAMETER;
    size_t valid = 0;
    for (int i = 0; i < PER_BUFFER && npending > 0 && valid + SLOT <= size; ++i) {
      memcpy(buffer + valid, &pending[--npending], sizeof(Record)); /* newest first */
      valid += SLOT;
    }
    ++buffers;
    complete_buffer(NULL, 0, buffer, size, valid);
  }
  log_line("cupti flush buffers=%d", buffers);
  log_line("cupti flush flag=%d", (int)flag);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record) {
  uint8_t *next = *record ? (uint8_t *)*record + SLOT : buffer;
  if (next + SLOT > buffer + valid)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = (CUpti_Activity *)next;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t stream, size_t *dropped) {
  *dropped = getenv("FAKE_CUPTI_DROP") ? 1 : 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char **text) {
  *text = "fake cupti error";
  return CUPTI_SUCCESS;
}
