// Host-side tensor data: element encodings (fp16, bf16, fp8, ints) and the seeded random fill
// of a launch's input tensors.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tlxsim::runner {

/// IEEE binary16 bits of `value`, rounded to nearest even (as CPython's PyFloat_Pack2, which
/// Triton's pack_fp16 calls); overflow gives +-inf, NaN gives 0x7e00 with the sign.
uint16_t doubleToHalfBits(double value);
/// The same for a float, by bit manipulation (the fast path of the input fill); equal to
/// doubleToHalfBits(double(value)) for every float.
uint16_t floatToHalfBits(float value);
/// The value of IEEE binary16 bits.
double halfBitsToDouble(uint16_t bits);

/// Element `index` of a host buffer of Triton dtype `dtype`, as a double (fp16, bf16, fp32,
/// fp64, fp8e4nv, fp8e5, signed/unsigned ints). Unknown dtypes read as NaN.
double loadElement(const uint8_t *data, llvm::StringRef dtype, int64_t index);
/// Stores `value` as element `index` (rounding to nearest even; fp8 saturates).
void storeElement(uint8_t *data, llvm::StringRef dtype, int64_t index, double value);

/// Fills `count` elements of `dtype` at `data` with standard-normal values (Box-Muller; integers:
/// uniform in [-4, 4]) from a counter-based generator keyed by (seed, stream, element index), so
/// the data does not depend on `threads`. Errors on a dtype it cannot encode.
llvm::Error fillRandom(uint8_t *data, int64_t count, llvm::StringRef dtype, uint64_t seed, uint64_t stream,
                       unsigned threads);

/// SplitMix64 (Steele, Lea, Flood 2014): the mixing function of the generator above.
uint64_t splitmix64(uint64_t x);

} // namespace tlxsim::runner
