#include "sim/SharedScratch.h"

#include "ir/Partitions.h"

#include "sim/CvtSwizzle.h"
#include "sim/RegisterLayout.h"
#include "sim/WarpOwners.h"

#include "ir/Types.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace tlxsim::sim {

int64_t scratchElementBits(Type type) {
  if (isa<ir::PtrType>(type))
    return 64;
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth();
  return 64;
}

namespace {

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

/// WarpSpecializeOp's getSharedMemorySize of one capture (lib/Dialect/TritonGPU/IR/Ops.cpp).
int64_t captureBytes(Type type) {
  if (type.isIntOrFloat())
    return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  if (auto memdesc = dyn_cast<ir::MemDescType>(type)) {
    auto space = dyn_cast_or_null<ir::EncodingAttr>(memdesc.getMemorySpace());
    if (space && space.getMnemonic() == "shared_memory")
      return 8 + 4 * static_cast<int64_t>(memdesc.getShape().size());
  }
  return 8; // pointers, tensor descriptors, tensor-memory descriptors
}

/// The warps of `ws`'s partitions (its `partitionNumWarps`).
int64_t partitionWarps(Operation *ws) {
  int64_t total = 0;
  if (auto numWarps = ws->getAttrOfType<DenseI32ArrayAttr>("partitionNumWarps"))
    for (int32_t w : numWarps.asArrayRef())
      total += w;
  return total;
}

llvm::Expected<ScratchSize> reduceScratch(Operation *op) {
  ScratchSize s;
  auto axisAttr = op->getAttrOfType<IntegerAttr>("axis");
  auto tensor = op->getNumOperands() > 0 ? dyn_cast<RankedTensorType>(op->getOperand(0).getType()) : nullptr;
  if (!axisAttr || !tensor)
    return s; // a reduction of scalars: no exchange between warps
  auto warps = warpsAlongAxis(tensor.getEncoding(), tensor.getShape(), axisAttr.getInt());
  if (!warps) {
    s.estimate = "unknown layout; assumed within one warp";
    return s;
  }
  if (*warps <= 1)
    return s; // ReduceOpHelper::isWarpSynchronous
  llvm::SmallVector<int64_t> shape(tensor.getShape());
  shape[axisAttr.getInt()] = *warps;
  int64_t bytesPerElement = 0;
  for (Value operand : op->getOperands())
    if (auto t = dyn_cast<RankedTensorType>(operand.getType()))
      bytesPerElement += llvm::divideCeil(t.getElementTypeBitWidth(), 8);
  s.bytes = product(shape) * bytesPerElement;
  return s;
}

/// What the module's `ttg.target` lets a layout conversion use: NVIDIA's tiles by compute capability, AMD's
/// ld/st (nullopt: AMD's padded scratch, `amdgpu.use_padded_scratch_shmem`, or no target).
std::optional<CvtTarget> cvtTarget(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto target = module ? module->getAttrOfType<StringAttr>("ttg.target") : StringAttr();
  if (!target)
    return std::nullopt;
  StringRef value = target.getValue();
  if (value.starts_with("hip:"))
    return op->hasAttr("amdgpu.use_padded_scratch_shmem") ? std::nullopt : std::optional<CvtTarget>(CvtTarget{});
  int32_t capability = 0;
  if (!value.consume_front("cuda:") || value.getAsInteger(10, capability))
    return std::nullopt;
  return CvtTarget{true, capability};
}

llvm::Expected<ScratchSize> convertScratch(Operation *op) {
  ScratchSize s;
  auto src = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto dst = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!src || !dst || src.getEncoding() == dst.getEncoding())
    return s;
  auto from = warpOwners(src.getEncoding(), src.getShape());
  auto to = warpOwners(dst.getEncoding(), dst.getShape());
  int64_t bytes = product(src.getShape()) * scratchElementBits(src.getElementType()) / 8;
  if (!from || !to || from->size() != to->size()) {
    s.bytes = bytes;
    s.estimate = "layout not evaluated; assumed to cross warps";
    return s;
  }
  // Without an exchange between warps (every destination warp already holds its elements) Triton converts in
  // registers or with warp shuffles (cvtNeedsSharedMemory false).
  bool crossesWarps = false;
  for (size_t i = 0; i < from->size() && !crossesWarps; ++i)
    crossesWarps = ((*to)[i] & ~(*from)[i]) != 0;
  if (!crossesWarps)
    return s;
  // Triton's getBitwidth: pointers 64 bits, at least 8
  int32_t bitwidth = static_cast<int32_t>(std::max<int64_t>(8, scratchElementBits(src.getElementType())));
  auto target = cvtTarget(op);
  auto srcLayout = toRegisterLayout(src.getEncoding(), src.getShape());
  auto dstLayout = toRegisterLayout(dst.getEncoding(), dst.getShape());
  if (target && srcLayout && dstLayout)
    if (auto elements = swizzledCvtScratchElements(*srcLayout, *dstLayout, bitwidth, *target)) {
      s.bytes = *elements * bitwidth / 8;
      return s;
    }
  s.bytes = bytes;
  s.estimate = "elements x element bytes (a layout Triton's optimal swizzling is not computed for)";
  return s;
}

} // namespace

int64_t partitionWarpsOf(Operation *func) {
  int64_t warps = 0;
  func->walk([&](Operation *inner) {
    if (inner->getName().getStringRef() == "ttg.warp_specialize")
      warps = std::max(warps, partitionWarps(inner));
  });
  return llvm::divideCeil(warps, 4) * 4;
}

llvm::Expected<ScratchSize> scratchSize(Operation *op, Operation *func) {
  ScratchSize s;
  if (op == func) {
    // Allocation.cpp getScratchValueSize(FunctionOpInterface): an i8 per warp of the widest warp_specialize
    s.bytes = partitionWarpsOf(func);
    s.alignment = 4;
    return s;
  }
  StringRef name = op->getName().getStringRef();
  if (name == "ttg.warp_specialize") {
    Operation *captures = ir::partitionCaptures(op);
    for (Type type : captures->getOperandTypes())
      s.bytes += captureBytes(type);
    s.alignment = 8;
    return s;
  }
  if (name == "tt.reduce")
    return reduceScratch(op);
  if (name == "ttg.convert_layout")
    return convertScratch(op);
  if (name == "ttng.tensormap_create") {
    s.bytes = 128; // kTMASize
    return s;
  }
  if (name == "tt.atomic_rmw" || name == "tt.atomic_cas") {
    Value result = op->getResult(0);
    if (result.use_empty())
      return s;
    auto pointer = dyn_cast<ir::PtrType>(op->getOperand(0).getType());
    int64_t bits = pointer ? scratchElementBits(pointer.getPointeeType()) : 32;
    if (!isa<RankedTensorType>(result.getType())) {
      s.bytes = std::max<int64_t>(8, bits) / 8; // a scalar result is broadcast through one element
      return s;
    }
    s.estimate = "tensor atomic: broadcast dims not evaluated; assumed none";
    return s;
  }
  if (name == "tt.scan" || name == "tt.gather" || name == "tt.histogram" || name == "tt.call") {
    s.estimate = "scratch of " + name.str() + " not modeled; assumed none";
    return s;
  }
  return s;
}

} // namespace tlxsim::sim
