/* A stand-in libamdhip64.so for tests/python/test_runner_params_fake_driver.py: the HIP entry points `tlx-sim
 * run` takes with dlsym, over host memory, with plain C types (hipError_t is an int, handles are pointers; the
 * enum arguments are not interpreted). Its kernel gemm_kernel computes C = A @ B on the CPU (pointers a, b, c,
 * then M, N, K, stride_am, stride_bk, stride_cm). Launches are appended to the file named by FAKE_HIP_LOG;
 * events are 1.25 ms apart. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char function_name[256];
static int handle;

static float half_to_float(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}
static uint16_t float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  x &= 0x7fffffff;
  if (x < 0x38800000)
    return (uint16_t)(sign | (uint16_t)nearbyintf(f < 0 ? -f * 16777216.0f : f * 16777216.0f));
  x += 0xc8000fff + ((x >> 13) & 1);
  return (uint16_t)(sign | (x >> 13));
}

int hipInit(unsigned flags) { return 0; }
int hipGetDeviceCount(int *n) { *n = 1; return 0; }
int hipSetDevice(int d) { return 0; }
int hipDeviceGetName(char *name, int len, int d) { snprintf(name, len, "Fake MI300X"); return 0; }
int hipDeviceGetAttribute(int *v, int attr, int d) { *v = 304; return 0; }
int hipDriverGetVersion(int *v) { *v = 50230; return 0; }
int hipModuleLoadData(void **m, const void *image) {
  if (memcmp(image, "\177ELF", 4) != 0)
    return 200; /* hipErrorInvalidImage */
  *m = &handle;
  return 0;
}
int hipModuleGetFunction(void **f, void *m, const char *name) {
  snprintf(function_name, sizeof function_name, "%s", name);
  *f = &handle;
  return 0;
}
int hipFuncGetAttribute(int *v, int attr, void *f) { *v = attr == 0 ? 1024 : 128; return 0; }
int hipMalloc(void **p, size_t n) { *p = malloc(n); return *p ? 0 : 2; }
int hipFree(void *p) { free(p); return 0; }
int hipMemcpyHtoD(void *dst, void *src, size_t n) { memcpy(dst, src, n); return 0; }
int hipMemcpyDtoH(void *dst, void *src, size_t n) { memcpy(dst, src, n); return 0; }
int hipMemsetD32Async(void *dst, int v, size_t n, void *s) {
  for (size_t i = 0; i < n; ++i)
    ((int32_t *)dst)[i] = v;
  return 0;
}
int hipMemsetD16(void *dst, unsigned short v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    ((uint16_t *)dst)[i] = v;
  return 0;
}
int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void *stream, void **params, void **extra) {
  static int launches;
  const char *path = getenv("FAKE_HIP_LOG");
  if (path && launches++ < 2) {
    FILE *log = fopen(path, "a");
    fprintf(log, "launch %s grid=%u,%u,%u block=%u,%u,%u shared=%u\n", function_name, gx, gy, gz, bx, by, bz, shared);
    fclose(log);
  }
  if (strcmp(function_name, "gemm_kernel") != 0)
    return 500; /* hipErrorNotFound */
  uint16_t *a = *(uint16_t **)params[0], *b = *(uint16_t **)params[1], *c = *(uint16_t **)params[2];
  int M = *(int *)params[3], N = *(int *)params[4], K = *(int *)params[5];
  int sa = *(int *)params[6], sb = *(int *)params[7], sc = *(int *)params[8];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0;
      for (int k = 0; k < K; ++k)
        acc += half_to_float(a[i * sa + k]) * half_to_float(b[k * sb + j]);
      c[i * sc + j] = float_to_half(acc);
    }
  return 0;
}
int hipDeviceSynchronize(void) { return 0; }
int hipStreamQuery(void *stream) { return 0; }
int hipEventCreate(void **e) { *e = malloc(8); return 0; }
int hipEventRecord(void *e, void *s) { return 0; }
int hipEventElapsedTime(float *ms, void *a, void *b) { *ms = 1.25f; return 0; }
int hipEventDestroy(void *e) { free(e); return 0; }
const char *hipGetErrorString(int e) { return "fake hip error"; }
