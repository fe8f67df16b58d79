// Hand-written parsers for tt.func and ttg.warp_specialize.
#include "ir/CustomOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;

namespace tlxsim::ir {

ParseResult parseFuncOp(OpAsmParser &parser, OperationState &state) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> args, ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(args, results);
  };
  MLIRContext *ctx = parser.getContext();
  return function_interface_impl::parseFunctionOp(parser, state, /*allowVariadic=*/false,
                                                  StringAttr::get(ctx, "function_type"), buildFuncType,
                                                  StringAttr::get(ctx, "arg_attrs"), StringAttr::get(ctx, "res_attrs"));
}

ParseResult parseWarpSpecializeOp(OpAsmParser &parser, OperationState &state) {
  SmallVector<OpAsmParser::UnresolvedOperand> captures;
  llvm::SMLoc capturesLoc = parser.getCurrentLocation();
  if (parser.parseOperandList(captures, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDictWithKeyword(state.attributes))
    return failure();

  Region *defaultRegion = state.addRegion();
  if (parser.parseKeyword("default") || parser.parseRegion(*defaultRegion))
    return failure();

  OperationState partitions(state.location, "ttg.warp_specialize.partitions");
  SmallVector<int32_t> numWarps;
  while (true) {
    llvm::SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (failed(parser.parseOptionalKeyword(&keyword)))
      break;
    unsigned index;
    if (!keyword.consume_front("partition") || keyword.getAsInteger(10, index) || index != numWarps.size())
      return parser.emitError(loc) << "expected 'partition" << numWarps.size() << "'";
    SmallVector<OpAsmParser::Argument> args;
    int32_t warps;
    if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren, /*allowType=*/true, /*allowAttrs=*/true) ||
        parser.parseKeyword("num_warps") || parser.parseLParen() || parser.parseInteger(warps) ||
        parser.parseRParen())
      return failure();
    if (warps <= 0)
      return parser.emitError(loc) << "num_warps must be positive, got " << warps;
    if (parser.parseRegion(*partitions.addRegion(), args))
      return failure();
    numWarps.push_back(warps);
  }

  FunctionType type;
  if (parser.parseColonType(type) ||
      parser.resolveOperands(captures, type.getInputs(), capturesLoc, state.operands))
    return failure();
  state.addTypes(type.getResults());
  state.addAttribute("partitionNumWarps", parser.getBuilder().getDenseI32ArrayAttr(numWarps));

  Region *holder = state.addRegion();
  auto *block = new Block();
  holder->push_back(block);
  block->push_back(Operation::create(partitions));
  return success();
}

} // namespace tlxsim::ir
