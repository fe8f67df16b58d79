// What a TTGIR type or op name means to the simulator's cost model: element counts and bytes, scalar widths,
// binary-op kinds, register-only ops, hints, AMD direct-to-LDS instruction counts, TMEM warp tiles. MLIR-aware:
// included by the lowering files only.
#pragma once

#include "sim/Program.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace tlxsim::sim::lowering {

/// Elements one CTA holds of a tensor or memdesc (its part under a CGA layout, ir/Cga.h elementsPerCta); 1 for a
/// scalar.
int64_t numElements(mlir::Type type);
/// The width of an integer type; 64 for index and other types.
uint8_t scalarBits(mlir::Type type);
/// The BinaryKind of an integer `arith` op name, if it is one.
std::optional<int16_t> binaryKind(llvm::StringRef name);
/// Ops whose only effect is register work proportional to their result's elements.
bool isRegisterTensorOp(llvm::StringRef name);
/// Scheduling hints and compiler annotations: no instruction executes for them.
bool isHint(llvm::StringRef name);
/// Bytes of one element of a tensor or memdesc (pointers are 8 bytes).
int64_t elementBytes(mlir::Type type);
/// Vector-memory instructions each thread issues for an AMD direct-to-LDS copy whose addresses are the tensor
/// `addresses` (see TypeInfo.cpp); 0 for other layouts (unknown: counted as one).
int64_t directToLdsInstructions(mlir::Type addresses);
/// The TMEM tile of each warp for a tcgen05.ld / st of a rank-2 tensor of type `registers` (see TypeInfo.cpp);
/// empty if the layout is not `#ttg.linear` / `#ttg.blocked` or the tile does not fit.
std::vector<TmemWarpTile> tmemWarpTiles(mlir::Type registers, int64_t blockM);
/// Bytes a value of `type` holds: all elements of a tensor or memdesc, one scalar otherwise.
int64_t bytesOf(mlir::Type type);
/// Math the SFU runs (exp2, log2, rsqrt, sin, cos, divf, ...).
bool isSfuOp(llvm::StringRef name);

} // namespace tlxsim::sim::lowering
