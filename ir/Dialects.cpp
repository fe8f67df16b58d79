// Shim dialects for Triton's dialects.
#include "ir/Dialects.h"
#include "ir/OpSyntax.h"
#include "ir/TypeSyntax.h"
#include "ir/TypeStorage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;

namespace tlxsim::ir {
namespace {

ParseResult parseTableOp(OpAsmParser &parser, OperationState &state) {
  return parseWithSpec(*lookupOpSpec(state.name.getStringRef()), parser, state);
}

ParseResult parseUnknownOp(OpAsmParser &parser, OperationState &state) {
  // MLIR prefixes this message with "custom op '<name>' ".
  return parser.emitError(parser.getNameLoc())
         << "is not supported in custom syntax (tlx-sim reads the TTGIR of Triton " << kTritonVersion
         << "; ops it does not know are accepted in MLIR generic form)";
}

/// Parse hook for ops of a shim dialect: custom parser, table entry, or a clear error.
/// (ParseOpHook is a function_ref: every hook is a plain function.)
std::optional<Dialect::ParseOpHook> shimParseHook(StringRef opName) {
  const OpSpec *spec = lookupOpSpec(opName);
  if (spec && spec->format)
    return Dialect::ParseOpHook(parseTableOp);
  if (spec && spec->custom)
    return Dialect::ParseOpHook(spec->custom);
  return Dialect::ParseOpHook(parseUnknownOp);
}

} // namespace

#define TLXSIM_SHIM_DIALECT(CLASS, NS)                                                                                 \
  class CLASS : public Dialect {                                                                                       \
  public:                                                                                                              \
    explicit CLASS(MLIRContext *ctx);                                                                                  \
    static constexpr StringLiteral getDialectNamespace() { return NS; }                                                \
    Type parseType(DialectAsmParser &parser) const override { return parseTritonType(NS, parser); }                    \
    void printType(Type type, DialectAsmPrinter &printer) const override { printTritonType(type, printer); }           \
    Attribute parseAttribute(DialectAsmParser &parser, Type) const override { return parseEncodingAttr(NS, parser); } \
    void printAttribute(Attribute attr, DialectAsmPrinter &printer) const override {                                   \
      printEncodingAttr(attr, printer);                                                                                \
    }                                                                                                                  \
    std::optional<ParseOpHook> getParseOperationHook(StringRef opName) const override {                                \
      return shimParseHook(opName);                                                                                    \
    }                                                                                                                  \
  };

TLXSIM_SHIM_DIALECT(TTDialect, "tt")
TLXSIM_SHIM_DIALECT(TTGDialect, "ttg")
TLXSIM_SHIM_DIALECT(TTNGDialect, "ttng")
TLXSIM_SHIM_DIALECT(AMDGDialect, "amdg")
TLXSIM_SHIM_DIALECT(NVWSDialect, "nvws")
TLXSIM_SHIM_DIALECT(TLXDialect, "tlx")
TLXSIM_SHIM_DIALECT(ProtonDialect, "proton")
TLXSIM_SHIM_DIALECT(NVGPUDialect, "nvgpu")
TLXSIM_SHIM_DIALECT(NVGDialect, "nvg")
TLXSIM_SHIM_DIALECT(GluonDialect, "gluon")
TLXSIM_SHIM_DIALECT(TTIDialect, "tti")
#undef TLXSIM_SHIM_DIALECT

} // namespace tlxsim::ir

MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::TTDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::TTGDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::TTNGDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::AMDGDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::NVWSDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::TLXDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::ProtonDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::NVGPUDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::NVGDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::GluonDialect)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::TTIDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::TTDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::TTGDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::TTNGDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::AMDGDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::NVWSDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::TLXDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::ProtonDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::NVGPUDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::NVGDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::GluonDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::TTIDialect)

namespace tlxsim::ir {

#define TLXSIM_SHIM_CTOR(CLASS, ...)                                                                                   \
  CLASS::CLASS(MLIRContext *ctx) : Dialect(getDialectNamespace(), ctx, TypeID::get<CLASS>()) {                         \
    allowUnknownOperations();                                                                                          \
    __VA_ARGS__                                                                                                        \
  }
TLXSIM_SHIM_CTOR(TTDialect, addTypes<PtrType, TensorDescType>(); addAttributes<TTEncodingAttr>();)
TLXSIM_SHIM_CTOR(TTGDialect, addTypes<MemDescType, AsyncTokenType>(); addAttributes<TTGEncodingAttr>();)
TLXSIM_SHIM_CTOR(TTNGDialect, addAttributes<TTNGEncodingAttr>();)
TLXSIM_SHIM_CTOR(AMDGDialect, addAttributes<AMDGEncodingAttr>();)
TLXSIM_SHIM_CTOR(NVWSDialect)
TLXSIM_SHIM_CTOR(TLXDialect)
TLXSIM_SHIM_CTOR(ProtonDialect)
TLXSIM_SHIM_CTOR(NVGPUDialect)
TLXSIM_SHIM_CTOR(NVGDialect)
TLXSIM_SHIM_CTOR(GluonDialect)
TLXSIM_SHIM_CTOR(TTIDialect)
#undef TLXSIM_SHIM_CTOR

void registerDialects(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, scf::SCFDialect, cf::ControlFlowDialect, math::MathDialect, ub::UBDialect,
                  gpu::GPUDialect, LLVM::LLVMDialect, ROCDL::ROCDLDialect>();
  registry.insert<TTDialect, TTGDialect, TTNGDialect, AMDGDialect, NVWSDialect, TLXDialect, ProtonDialect,
                  NVGPUDialect, NVGDialect, GluonDialect, TTIDialect>();
}

std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  registerDialects(registry);
  auto ctx = std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  // Ops of dialects tlx-sim does not know are kept in generic form (and reported by the
  // simulator), never rejected; Triton's own dialects still parse their syntax themselves.
  ctx->allowUnregisteredDialects();
  return ctx;
}

} // namespace tlxsim::ir
