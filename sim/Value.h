// The runtime value of one slot in an agent's frame.
#pragma once

#include <cstdint>

namespace tlxsim::sim {

/// Scalars are exact (sign-extended into 64 bits); a shared/tensor-memory view is an
/// allocation plus an element offset; tensors carry no data.
struct Value {
  enum Kind : uint8_t { Undef, Int, Mem, Desc, Tensor, Unknown } kind = Undef;
  int32_t alloc = -1; ///< Mem: allocation index; Desc: kernel-argument index; Unknown: the op it came from (Program::unknownOps index, -1 if none);
                      ///< Int: -1, or a pointer into the global buffer of kernel argument `alloc` (Program::args index)
                      ///< at byte offset `i` (a pointer argument, and scalar `tt.addptr` on it);
                      ///< Tensor: a hash of the scalars and constants it was computed from (identifies the addresses
                      ///< a pointer tensor holds, for the L2 model, without carrying data)
  int64_t i = 0;      ///< Int: the value; Mem: element offset into the allocation; Tensor: the cycle it becomes ready
  /// Tensor: a wgmma accumulator whose group no wgmma wait has retired yet: the async op that writes it and
  /// the wgmma's location (Program::locs); -1 otherwise. Only the race checks read it (PendingUseEvent).
  int64_t pendingOp = -1;
  int32_t pendingLoc = -1;
  /// Mem: the cluster rank of the CTA whose shared memory the view names (a distributed-shared-memory view made by
  /// `ttng.map_to_remote_buffer`); -1 for the executing CTA's own memory.
  int32_t rank = -1;
  /// Tensor: still being produced by the SFUs (a MUFU op, or register math on such a value) at cycle `i`.
  /// Elementwise register math takes it without a stall: the compiler interleaves each element's dependent
  /// instructions with the remaining MUFU instructions, so the warp issues while the SFUs work
  /// (Engine execRegister); any other consumer waits for `i`, or for its SFU job's latest end (`sfuJob`).
  bool streamed = false;
  /// Tensor, streamed: the SFU job (units/SharingPipe.h, the SM's `sfu`) whose end `i` was projected from; requests
  /// issued later can push that end back (Engine::readyAt reads the latest). -1: none.
  int32_t sfuJob = -1;
  /// Int / Unknown: the cycle the scalar's register is written (a scalar op's result is ready its dependent-issue
  /// latency after the op issues; Engine::awaitScalars); 0 for values ready from the start.
  int64_t readyAt = 0;

  static Value integer(int64_t v) { return {Int, -1, v}; }
  static Value mem(int32_t alloc, int64_t offset) { return {Mem, alloc, offset}; }
  static Value tensor() { return {Tensor, -1, 0}; }
  /// A tensor with provenance hash `hash`, readable from cycle `ready` on (a register scoreboard).
  static Value tensor(int32_t hash, int64_t ready) { return {Tensor, hash, ready}; }
  /// An unknown scalar, derived from the op without semantics `origin` (or -1).
  static Value unknown(int32_t origin) { return {Unknown, origin, 0}; }
  /// The unknown-op origin of a value computed from `a` (and `b`); -1 if none has one.
  static int32_t originOf(const Value &a) { return a.kind == Unknown ? a.alloc : -1; }
  static int32_t originOf(const Value &a, const Value &b) {
    return originOf(a) >= 0 ? originOf(a) : originOf(b);
  }
};

} // namespace tlxsim::sim
