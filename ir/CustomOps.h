// Hand-written parsers for Triton ops whose syntax the declarative table cannot express (internal).
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

} // namespace tlxsim::ir
