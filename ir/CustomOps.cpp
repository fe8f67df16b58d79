// Hand-written parsers for tt.func, ttg.warp_specialize, ttg.barrier and proton.record.
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

ParseResult parseBarrierOp(OpAsmParser &parser, OperationState &state) {
  static const std::pair<StringRef, int32_t> kSpaces[] = {{"none", 0},         {"local", 1},        {"global_read", 2},
                                                          {"global_write", 4}, {"tensor_read", 8}, {"tensor_write", 16},
                                                          {"all", 31}};
  int32_t mask = 0;
  do {
    llvm::SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    auto it = llvm::find_if(kSpaces, [&](const auto &space) { return space.first == keyword; });
    if (it == std::end(kSpaces))
      return parser.emitError(loc) << "unknown address space '" << keyword
                                   << "' for ttg.barrier (expected none, local, global_read, global_write, "
                                      "tensor_read, tensor_write or all)";
    mask |= it->second;
  } while (succeeded(parser.parseOptionalVerticalBar()));
  state.addAttribute("addrSpace", parser.getBuilder().getI32IntegerAttr(mask));
  return parser.parseOptionalAttrDict(state.attributes);
}

ParseResult parseProtonRecordOp(OpAsmParser &parser, OperationState &state) {
  if (succeeded(parser.parseOptionalKeyword("start")))
    state.addAttribute("isStart", parser.getBuilder().getUnitAttr());
  else if (parser.parseKeyword("end", "(expected 'start' or 'end')"))
    return failure();
  std::string name;
  if (parser.parseString(&name))
    return failure();
  state.addAttribute("name", parser.getBuilder().getStringAttr(name));
  return parser.parseOptionalAttrDict(state.attributes);
}

} // namespace tlxsim::ir
