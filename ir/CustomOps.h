// Hand-written parsers for Triton ops whose syntax the declarative table cannot express (internal):
// ODS `hasCustomAssemblyFormat` ops and formats beyond the table's language.
#pragma once

#include "mlir/IR/OpImplementation.h"

namespace tlxsim::ir {

/// `tt.func [visibility] @name(args) [-> results] [attributes {...}] { body }`.
mlir::ParseResult parseFuncOp(mlir::OpAsmParser &parser, mlir::OperationState &state);

/// `ttg.warp_specialize(captures) [attributes {...}] default {...} partitionN(args) num_warps(W) {...} ...
///  : (capture types) -> (result types)`. Built with Triton's nesting: region 0 is the default
/// partition, region 1 holds one `ttg.warp_specialize.partitions` op with one region per worker;
/// the worker warp counts go to the `partitionNumWarps` attribute.
mlir::ParseResult parseWarpSpecializeOp(mlir::OpAsmParser &parser, mlir::OperationState &state);

/// `ttg.barrier local|global_read|...` (Triton main / TLX; Triton 3.6.0 has `ttg.local_barrier`):
/// the address spaces go to the i32 bitmask attribute `addrSpace` (none = 0, local = 1,
/// global_read = 2, global_write = 4, tensor_read = 8, tensor_write = 16, all = 31).
mlir::ParseResult parseBarrierOp(mlir::OpAsmParser &parser, mlir::OperationState &state);

/// `proton.record (start|end) "name" [attr-dict]`: ODS `(`start` $isStart^):(`end`)? $name`,
/// an optional group with an else branch; `isStart` is a unit attribute, `name` a string.
mlir::ParseResult parseProtonRecordOp(mlir::OpAsmParser &parser, mlir::OperationState &state);

} // namespace tlxsim::ir
