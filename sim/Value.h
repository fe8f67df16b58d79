// The runtime value of one slot in an agent's frame.
#pragma once

#include <cstdint>

namespace tlxsim::sim {

/// Scalars are exact (sign-extended into 64 bits); a shared/tensor-memory view is an
/// allocation plus an element offset; tensors carry no data.
struct Value {
  enum Kind : uint8_t { Undef, Int, Mem, Desc, Tensor, Unknown } kind = Undef;
  int32_t alloc = -1; ///< Mem: allocation index; Desc: kernel-argument index
  int64_t i = 0;      ///< Int: the value; Mem: element offset into the allocation

  static Value integer(int64_t v) { return {Int, -1, v}; }
  static Value mem(int32_t alloc, int64_t offset) { return {Mem, alloc, offset}; }
  static Value tensor() { return {Tensor, -1, 0}; }
};

} // namespace tlxsim::sim
