/* A stand-in libcuda.so.1 for tests/python/test_runner_params_fake_driver.py: the driver entry points
 * `tlx-sim run` fetches with cuGetProcAddress_v2, over host memory. Its "kernels" compute C = A @ B on the
 * CPU for the two launch kinds of the captures: gemm_kernel (pointers a, b, c, then M, N, K, stride_am,
 * stride_bk, stride_cm) and ws_gemm_kernel (CUtensorMaps at parameters 0, 5 and 10, M, N, K at 15..17; the
 * stand-in cuTensorMapEncodeTiled stores the base address, dims and row stride in the map); tma_scale_kernel
 * computes Y = alpha * X. Every call of interest is appended to the file named by FAKE_CUDA_LOG;
 * FAKE_CUDA_PROTON (see fake_proton) writes a Proton profile buffer;
 * FAKE_CUDA_WRONG=1 makes the kernels add 1 to C (to alpha for tma_scale_kernel).
 * Events are 1.25 ms apart, always. fake_cuda_set_launch_hook installs a function called with the kernel's name
 * at every launch (the stand-in libcupti.so, fake_libcupti.c, makes its activity records from it). */
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char function_name[256];
static int function_handle;
static void (*launch_hook)(const char *name);

void fake_cuda_set_launch_hook(void (*hook)(const char *name)) { launch_hook = hook; }

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void logf_(const char *fmt, ...) {
  const char *path = getenv("FAKE_CUDA_LOG");
  if (!path)
    return;
  FILE *f = fopen(path, "a");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fclose(f);
}

static float half_to_float(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}
static uint16_t float_to_half(float f) { /* round to nearest even, normal range only (enough here) */
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  x &= 0x7fffffff;
  if (x < 0x38800000)
    return (uint16_t)(sign | (uint16_t)nearbyintf(f < 0 ? -f * 16777216.0f : f * 16777216.0f));
  if (x >= 0x477ff000)
    return (uint16_t)(sign | 0x7c00);
  x += 0xc8000fff + ((x >> 13) & 1);
  return (uint16_t)(sign | (x >> 13));
}

static void gemm(const uint16_t *a, const uint16_t *b, uint16_t *c, int M, int N, int K, long sa, long sb,
                 long sc) {
  float wrong = getenv("FAKE_CUDA_WRONG") ? 1.0f : 0.0f;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0;
      for (int k = 0; k < K; ++k)
        acc += half_to_float(a[i * sa + k]) * half_to_float(b[k * sb + j]);
      c[i * sc + j] = float_to_half(acc + wrong);
    }
}

CUresult cuInit(unsigned int flags) { return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = 0; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return CUDA_SUCCESS; }
CUresult cuDeviceGetName(char *name, int len, CUdevice d) { snprintf(name, len, "Fake H200"); return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = 1980000; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
  default: *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { *c = (CUcontext)&function_handle; return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
/* FAKE_CUDA_HANG: the launched kernel never finishes (a deadlock), so the stream never goes idle. */
CUresult cuStreamQuery(CUstream s) { return getenv("FAKE_CUDA_HANG") ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
CUresult cuModuleLoadData(CUmodule *m, const void *image) {
  if (memcmp(image, "\177ELF", 4) != 0)
    return CUDA_ERROR_INVALID_IMAGE;
  *m = (CUmodule)&function_handle;
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  snprintf(function_name, sizeof function_name, "%s", name);
  *f = (CUfunction)&function_handle;
  logf_("function %s", name);
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) {
  *v = a == CU_FUNC_ATTRIBUTE_NUM_REGS ? 168 : a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : 0;
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  logf_("func_attribute %d %d", (int)a, v);
  return CUDA_SUCCESS;
}
CUresult cuFuncSetCacheConfig(CUfunction f, CUfunc_cache c) { logf_("cache_config %d", (int)c); return CUDA_SUCCESS; }
CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes) {
  void *mem = malloc(bytes);
  if (!mem)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *p = (CUdeviceptr)(uintptr_t)mem;
  return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr p) { free((void *)(uintptr_t)p); return CUDA_SUCCESS; }
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) { memcpy((void *)(uintptr_t)dst, src, n); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) { memcpy(dst, (void *)(uintptr_t)src, n); return CUDA_SUCCESS; }
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s) {
  for (size_t i = 0; i < n; ++i)
    ((uint32_t *)(uintptr_t)dst)[i] = v;
  return CUDA_SUCCESS;
}
CUresult cuMemsetD16(CUdeviceptr dst, unsigned short v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    ((uint16_t *)(uintptr_t)dst)[i] = v;
  return CUDA_SUCCESS;
}
CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *address,
                                const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                                const cuuint32_t *elementStrides, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill) {
  memset(map, 0, sizeof *map);
  map->opaque[0] = (cuuint64_t)(uintptr_t)address;
  map->opaque[1] = dims[0];
  map->opaque[2] = dims[1];
  map->opaque[3] = strides[0];
  logf_("encode type=%d rank=%u dims=%llu,%llu stride=%llu box=%u,%u swizzle=%d l2=%d fill=%d", (int)type, rank,
        (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)strides[0], box[0], box[1],
        (int)sw, (int)l2, (int)fill);
  return CUDA_SUCCESS;
}
/* FAKE_CUDA_PROTON="P,SCRATCH,WARPS": parameter P is Proton's profile scratch of SCRATCH bytes per CTA and
 * WARPS warps (runner/ProtonBuffer.h layout). Each CTA records, in cycles: warps 0-3 scope 0 [100,300) and
 * scope 1 [300,350), warp 4 scope 2 [50,250); CTA 0's warp 0 also scope 7 (not in the table) [100,120). */
static void put_entry(uint8_t *at, int start, unsigned scope, uint64_t cycle) {
  uint32_t w0 = (start ? 0u : 0x80000000u) | (scope << 23) | (uint32_t)((cycle >> 32) & 0x7FF), w1 = (uint32_t)cycle;
  memcpy(at, &w0, 4);
  memcpy(at + 4, &w1, 4);
}
static void fake_proton(const CUlaunchConfig *c, void **params) {
  const char *spec = getenv("FAKE_CUDA_PROTON");
  unsigned p, scratch, warps;
  if (!spec || sscanf(spec, "%u,%u,%u", &p, &scratch, &warps) != 3)
    return;
  uint8_t *buf = (uint8_t *)(uintptr_t)*(CUdeviceptr *)params[p];
  unsigned ctas = c->gridDimX * c->gridDimY * c->gridDimZ;
  uint32_t bufBytes = (scratch - 40 - 4 * warps) / (warps * 8) * warps * 8, seg = bufBytes / warps;
  for (unsigned cta = 0; cta < ctas; ++cta) {
    uint8_t *base = buf + (size_t)cta * scratch;
    uint32_t words[4] = {0xdeadbeefu, cta, 7 + cta, bufBytes};
    uint64_t times[3] = {1000000, 1000300, 1000400};
    memcpy(base, words, 16);
    memcpy(base + 16, times, 24);
    for (unsigned w = 0; w < warps; ++w) {
      uint8_t *s = base + 40 + 4 * warps + (size_t)w * seg;
      uint32_t n = 0;
      if (w < 4) {
        put_entry(s + 8 * n++, 1, 0, 100), put_entry(s + 8 * n++, 0, 0, 300);
        put_entry(s + 8 * n++, 1, 1, 300), put_entry(s + 8 * n++, 0, 1, 350);
        if (cta == 0 && w == 0)
          put_entry(s + 8 * n++, 1, 7, 100), put_entry(s + 8 * n++, 0, 7, 120);
      } else if (w == 4) {
        put_entry(s + 8 * n++, 1, 2, 50), put_entry(s + 8 * n++, 0, 2, 250);
      }
      n *= 2; /* words */
      memcpy(base + 40 + 4 * w, &n, 4);
    }
  }
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
  static int launches;
  if (launches++ < 2) /* the first and the checked launch */
    logf_("launch %s grid=%u,%u,%u block=%u,%u,%u shared=%u attrs=%u", function_name, c->gridDimX, c->gridDimY,
          c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ, c->sharedMemBytes, c->numAttrs);
  if (strcmp(function_name, "gemm_kernel") == 0) {
    CUdeviceptr a = *(CUdeviceptr *)params[0], b = *(CUdeviceptr *)params[1], cc = *(CUdeviceptr *)params[2];
    int M = *(int *)params[3], N = *(int *)params[4], K = *(int *)params[5];
    gemm((uint16_t *)(uintptr_t)a, (uint16_t *)(uintptr_t)b, (uint16_t *)(uintptr_t)cc, M, N, K,
         *(int *)params[6], *(int *)params[7], *(int *)params[8]);
  } else if (strcmp(function_name, "ws_gemm_kernel") == 0) {
    const CUtensorMap *am = params[0], *bm = params[5], *cm = params[10];
    int M = *(int *)params[15], N = *(int *)params[16], K = *(int *)params[17];
    gemm((uint16_t *)(uintptr_t)am->opaque[0], (uint16_t *)(uintptr_t)bm->opaque[0],
         (uint16_t *)(uintptr_t)cm->opaque[0], M, N, K, (long)am->opaque[3] / 2, (long)bm->opaque[3] / 2,
         (long)cm->opaque[3] / 2);
  } else if (strcmp(function_name, "tma_scale_kernel") == 0) {
    /* Y = alpha * X: CUtensorMaps at parameters 0 and 5 (each followed by 2 shape and 2 stride values), alpha
     * (fp32) at 12. */
    const CUtensorMap *xm = params[0], *ym = params[5];
    float alpha = *(float *)params[12] + (getenv("FAKE_CUDA_WRONG") ? 1.0f : 0.0f);
    const uint16_t *x = (const uint16_t *)(uintptr_t)xm->opaque[0];
    uint16_t *y = (uint16_t *)(uintptr_t)ym->opaque[0];
    for (cuuint64_t r = 0; r < xm->opaque[2]; ++r)
      for (cuuint64_t col = 0; col < xm->opaque[1]; ++col)
        y[r * ym->opaque[3] / 2 + col] = float_to_half(alpha * half_to_float(x[r * xm->opaque[3] / 2 + col]));
  } else {
    return CUDA_ERROR_NOT_FOUND;
  }
  fake_proton(c, params);
  if (launch_hook)
    launch_hook(function_name);
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *e, unsigned int flags) { *e = (CUevent)malloc(8); return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) { return CUDA_SUCCESS; }
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) { *ms = 1.25f; return CUDA_SUCCESS; }
CUresult cuEventDestroy(CUevent e) { free(e); return CUDA_SUCCESS; }
CUresult cuGetErrorString(CUresult r, const char **s) { *s = "fake error"; return CUDA_SUCCESS; }

struct Entry { const char *name; void *fn; };
#define E(name) {#name, (void *)name}
static const struct Entry entries[] = {
  E(cuInit), E(cuDriverGetVersion), E(cuDeviceGet), E(cuDeviceGetCount), E(cuDeviceGetName),
  E(cuDeviceGetAttribute), E(cuDevicePrimaryCtxRetain), E(cuCtxSetCurrent), E(cuCtxSynchronize), E(cuStreamQuery),
  E(cuModuleLoadData), E(cuModuleGetFunction), E(cuFuncGetAttribute), E(cuFuncSetAttribute),
  E(cuFuncSetCacheConfig), E(cuMemAlloc), E(cuMemFree), E(cuMemcpyHtoD), E(cuMemcpyDtoH), E(cuMemsetD32Async),
  E(cuMemsetD16), E(cuLaunchKernelEx), E(cuTensorMapEncodeTiled), E(cuEventCreate), E(cuEventRecord),
  E(cuEventElapsedTime), E(cuEventDestroy), E(cuGetErrorString)};

/* #name above is the base name: cuda.h's version macros apply to identifiers, not to string literals. */
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags,
                          CUdriverProcAddressQueryResult *status) {
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; ++i)
    if (strcmp(entries[i].name, symbol) == 0) {
      *pfn = entries[i].fn;
      if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *pfn = NULL;
  if (status)
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
