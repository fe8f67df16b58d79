#include "runner/HostData.h"

#include "runner/Capture.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

namespace tlxsim::runner {

namespace {

/// A binary floating-point format with `ebits` exponent and `mbits` mantissa bits.
struct MiniFloat {
  int ebits, mbits;
  bool ieeeSpecials; ///< all-ones exponent is inf/NaN (fp16, bf16, fp8e5); else only S.1111.111 is NaN (fp8e4nv)
};

constexpr MiniFloat kHalf{5, 10, true}, kBf16{8, 7, true}, kE5M2{5, 2, true}, kE4M3{4, 3, false};

uint32_t encode(double value, MiniFloat f) {
  const int bias = (1 << (f.ebits - 1)) - 1;
  const uint32_t sign = std::signbit(value) ? 1u << (f.ebits + f.mbits) : 0;
  const uint32_t expAllOnes = (1u << f.ebits) - 1;
  if (std::isnan(value))
    return sign | (expAllOnes << f.mbits) | ((1u << f.mbits) - 1);
  double a = std::fabs(value);
  // Largest finite: ieee -> exponent field expAllOnes-1 with a full mantissa; e4m3fn -> exponent
  // field 15 with mantissa 110.
  const int maxExpField = f.ieeeSpecials ? int(expAllOnes) - 1 : int(expAllOnes);
  const uint32_t maxMant = f.ieeeSpecials ? (1u << f.mbits) - 1 : (1u << f.mbits) - 2;
  const uint32_t maxFiniteBits = (uint32_t(maxExpField) << f.mbits) | maxMant;
  if (std::isinf(value))
    return f.ieeeSpecials ? sign | (expAllOnes << f.mbits) : sign | maxFiniteBits;
  const int minExp = 1 - bias; // smallest normal exponent
  if (a < std::ldexp(1.0, minExp)) {
    double m = std::nearbyint(std::ldexp(a, f.mbits - minExp)); // units of the smallest subnormal
    return sign | uint32_t(m); // m == 2^mbits encodes the smallest normal, as it should
  }
  int e;
  std::frexp(a, &e); // a = fr * 2^e, fr in [0.5, 1)
  int exponent = e - 1;
  double scaled = std::nearbyint(std::ldexp(a, f.mbits - exponent)); // in [2^mbits, 2^(mbits+1)]
  uint64_t bits = (uint64_t(exponent + bias) << f.mbits) + (uint64_t(scaled) - (1u << f.mbits));
  if (bits > maxFiniteBits)
    return f.ieeeSpecials ? sign | (expAllOnes << f.mbits) : sign | maxFiniteBits;
  return sign | uint32_t(bits);
}

double decode(uint32_t bits, MiniFloat f) {
  const int bias = (1 << (f.ebits - 1)) - 1;
  const uint32_t expAllOnes = (1u << f.ebits) - 1;
  bool negative = (bits >> (f.ebits + f.mbits)) & 1;
  uint32_t exponent = (bits >> f.mbits) & expAllOnes;
  uint32_t mant = bits & ((1u << f.mbits) - 1);
  double v;
  if (f.ieeeSpecials && exponent == expAllOnes)
    v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (!f.ieeeSpecials && exponent == expAllOnes && mant == (1u << f.mbits) - 1)
    v = std::numeric_limits<double>::quiet_NaN();
  else if (exponent == 0)
    v = std::ldexp(double(mant), 1 - bias - f.mbits);
  else
    v = std::ldexp(1.0 + double(mant) / (1u << f.mbits), int(exponent) - bias);
  return negative ? -v : v;
}

/// Uniform double in [0, 1) from 53 random bits.
double unit(uint64_t x) { return double(x >> 11) * (1.0 / 9007199254740992.0); }

} // namespace

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint16_t doubleToHalfBits(double value) { return static_cast<uint16_t>(encode(value, kHalf)); }

uint16_t floatToHalfBits(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  x &= 0x7fffffff;
  if (x >= 0x7f800000) // inf or NaN
    return sign | (x > 0x7f800000 ? 0x7e00 : 0x7c00);
  if (x >= 0x477ff000) // >= 65520: rounds to inf
    return sign | 0x7c00;
  if (x < 0x38800000) { // below 2^-14: a half subnormal; scaling by 2^24 is exact, then round to even
    float a;
    std::memcpy(&a, &x, 4);
    return sign | uint16_t(std::nearbyint(a * 16777216.0f));
  }
  // Rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest even.
  x += 0xc8000fff + ((x >> 13) & 1);
  return sign | uint16_t(x >> 13);
}
double halfBitsToDouble(uint16_t bits) {
  static const std::vector<double> table = [] { // all 65536 values, decoded once
    std::vector<double> t(65536);
    for (uint32_t b = 0; b < 65536; ++b)
      t[b] = decode(b, kHalf);
    return t;
  }();
  return table[bits];
}

double loadElement(const uint8_t *data, llvm::StringRef dtype, int64_t index) {
  int bytes = dtypeBytes(dtype);
  const uint8_t *p = data + index * bytes;
  auto read = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  if (dtype == "fp16")
    return decode(read(uint16_t{}), kHalf);
  if (dtype == "bf16")
    return decode(read(uint16_t{}), kBf16);
  if (dtype == "fp32" || dtype == "f32")
    return read(float{});
  if (dtype == "fp64")
    return read(double{});
  if (dtype == "fp8e4nv")
    return decode(*p, kE4M3);
  if (dtype == "fp8e5")
    return decode(*p, kE5M2);
  if (dtype == "i8")
    return read(int8_t{});
  if (dtype == "u8" || dtype == "i1" || dtype == "u1")
    return read(uint8_t{});
  if (dtype == "i16")
    return read(int16_t{});
  if (dtype == "u16")
    return read(uint16_t{});
  if (dtype == "i32")
    return read(int32_t{});
  if (dtype == "u32")
    return read(uint32_t{});
  if (dtype == "i64")
    return double(read(int64_t{}));
  if (dtype == "u64")
    return double(read(uint64_t{}));
  return std::numeric_limits<double>::quiet_NaN();
}

void storeElement(uint8_t *data, llvm::StringRef dtype, int64_t index, double value) {
  int bytes = dtypeBytes(dtype);
  uint8_t *p = data + index * bytes;
  auto write = [&](auto v) { std::memcpy(p, &v, sizeof v); };
  if (dtype == "fp16")
    write(uint16_t(encode(value, kHalf)));
  else if (dtype == "bf16")
    write(uint16_t(encode(value, kBf16)));
  else if (dtype == "fp32" || dtype == "f32")
    write(float(value));
  else if (dtype == "fp64")
    write(value);
  else if (dtype == "fp8e4nv")
    *p = uint8_t(encode(value, kE4M3));
  else if (dtype == "fp8e5")
    *p = uint8_t(encode(value, kE5M2));
  else if (bytes == 1)
    write(int8_t(value));
  else if (bytes == 2)
    write(int16_t(value));
  else if (bytes == 4)
    write(int32_t(value));
  else if (bytes == 8)
    write(int64_t(value));
}

llvm::Error fillRandom(uint8_t *data, int64_t count, llvm::StringRef dtype, uint64_t seed, uint64_t stream,
                       unsigned threads) {
  static const char *const kKnown[] = {"fp16", "bf16", "fp32", "f32", "fp64", "fp8e4nv", "fp8e5", "i8", "u8",
                                       "i16", "u16", "i32", "u32", "i64", "u64", "i1", "u1"};
  if (std::find(std::begin(kKnown), std::end(kKnown), dtype) == std::end(kKnown))
    return llvm::createStringError("cannot fill a tensor of dtype %s", dtype.str().c_str());
  const bool isFloat = dtype.starts_with("fp") || dtype == "bf16" || dtype == "f32";
  const bool isBool = dtype == "i1" || dtype == "u1";
  const bool isHalf = dtype == "fp16"; // the common case, without the per-element dtype dispatch
  const uint64_t key = splitmix64(seed ^ splitmix64(stream + 0x5151));
  // Elements 2j and 2j+1 are the two normals of one Box-Muller pair drawn from counter j.
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t pair = begin / 2; 2 * pair < end; ++pair) {
      uint64_t r1 = splitmix64(key + 2 * uint64_t(pair)), r2 = splitmix64(key + 2 * uint64_t(pair) + 1);
      double v[2];
      if (isFloat) {
        double radius = std::sqrt(-2.0 * std::log(1.0 - unit(r1))), angle = 6.283185307179586 * unit(r2);
        v[0] = radius * std::cos(angle);
        v[1] = radius * std::sin(angle);
      } else if (isBool) {
        v[0] = double(r1 & 1), v[1] = double(r2 & 1);
      } else {
        v[0] = double(int64_t(r1 % 9) - 4), v[1] = double(int64_t(r2 % 9) - 4);
      }
      for (int k = 0; k < 2; ++k) {
        int64_t i = 2 * pair + k;
        if (i < begin || i >= end)
          continue;
        if (isHalf) {
          uint16_t bits = floatToHalfBits(float(v[k]));
          std::memcpy(data + 2 * i, &bits, 2);
        } else {
          storeElement(data, dtype, i, v[k]);
        }
      }
    }
  };
  threads = std::max(1u, threads);
  if (threads == 1 || count < (1 << 16)) {
    work(0, count);
    return llvm::Error::success();
  }
  std::vector<std::thread> pool;
  int64_t chunk = ((count + threads - 1) / threads + 1) / 2 * 2; // even: a pair never spans two threads
  for (unsigned t = 0; t < threads; ++t) {
    int64_t begin = std::min<int64_t>(count, t * chunk), end = std::min<int64_t>(count, begin + chunk);
    pool.emplace_back(work, begin, end);
  }
  for (auto &th : pool)
    th.join();
  return llvm::Error::success();
}

} // namespace tlxsim::runner
