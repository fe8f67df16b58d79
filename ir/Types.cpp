// Triton shim types and encodings: accessors, parsing and printing.
#include "ir/TypeStorage.h"
#include "ir/TypeSyntax.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;

MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::PtrType)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::TensorDescType)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::MemDescType)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::AsyncTokenType)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::TTEncodingAttr)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::TTGEncodingAttr)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::TTNGEncodingAttr)
MLIR_DEFINE_EXPLICIT_TYPE_ID(tlxsim::ir::AMDGEncodingAttr)

namespace tlxsim::ir {

// ---- PtrType / TensorDescType ----------------------------------------------------------

PtrType PtrType::get(Type pointee, int addressSpace) { return Base::get(pointee.getContext(), pointee, addressSpace); }
Type PtrType::getPointeeType() const { return getImpl()->pointee; }
int PtrType::getAddressSpace() const { return getImpl()->addressSpace; }

TensorDescType TensorDescType::get(RankedTensorType blockType) {
  return Base::get(blockType.getContext(), blockType);
}
RankedTensorType TensorDescType::getBlockType() const { return getImpl()->blockType; }
int64_t TensorDescType::getBlockBytes() const {
  RankedTensorType block = getBlockType();
  return block.getNumElements() * ((block.getElementTypeBitWidth() + 7) / 8);
}

// ---- MemDescType -----------------------------------------------------------------------

MemDescType MemDescType::get(MLIRContext *ctx, ArrayRef<int64_t> shape, Type elementType, Attribute encoding,
                             Attribute memorySpace, bool isMutable, ArrayRef<int64_t> allocShape) {
  return Base::get(ctx, shape, elementType, encoding, memorySpace, isMutable, allocShape);
}
ArrayRef<int64_t> MemDescType::getShape() const { return getImpl()->shape; }
Type MemDescType::getElementType() const { return getImpl()->elementType; }
Attribute MemDescType::getEncoding() const { return getImpl()->encoding; }
Attribute MemDescType::getMemorySpace() const { return getImpl()->memorySpace; }
bool MemDescType::isMutable() const { return getImpl()->isMutable; }
ArrayRef<int64_t> MemDescType::getAllocShape() const {
  return getImpl()->allocShape.empty() ? getShape() : getImpl()->allocShape;
}
static bool isMemorySpace(Attribute space, StringRef mnemonic) {
  auto enc = dyn_cast_or_null<EncodingAttr>(space);
  return enc && enc.getMnemonic() == mnemonic;
}
bool MemDescType::isSharedMemory() const { return isMemorySpace(getMemorySpace(), "shared_memory"); }
bool MemDescType::isTensorMemory() const { return isMemorySpace(getMemorySpace(), "tensor_memory"); }
int64_t MemDescType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}
int64_t MemDescType::getSizeInBytes() const {
  unsigned bits = getElementType().isIntOrFloat() ? getElementType().getIntOrFloatBitWidth() : 8;
  return (getNumElements() * bits + 7) / 8;
}

// ---- EncodingAttr ----------------------------------------------------------------------

static const detail::EncodingAttrStorage *storage(const EncodingAttr &attr) {
  return static_cast<const detail::EncodingAttrStorage *>(attr.getImpl());
}
bool EncodingAttr::classof(Attribute attr) {
  return isa<TTEncodingAttr, TTGEncodingAttr, TTNGEncodingAttr, AMDGEncodingAttr>(attr);
}
StringRef EncodingAttr::getDialectNamespace() const { return getDialect().getNamespace(); }
StringRef EncodingAttr::getMnemonic() const { return storage(*this)->mnemonic; }
DictionaryAttr EncodingAttr::getParams() const { return storage(*this)->params; }
bool EncodingAttr::isBraced() const { return storage(*this)->braced; }
bool EncodingAttr::hasParams() const { return storage(*this)->hasParams; }
std::optional<int64_t> EncodingAttr::getInt(StringRef key) const {
  if (auto value = dyn_cast_or_null<IntegerAttr>(getParams().get(key)))
    return value.getInt();
  return std::nullopt;
}
SmallVector<int64_t> EncodingAttr::getIntArray(StringRef key) const {
  SmallVector<int64_t> out;
  Attribute value = getParams().get(key);
  if (auto array = dyn_cast_or_null<ArrayAttr>(value)) {
    for (Attribute element : array)
      if (auto integer = dyn_cast<IntegerAttr>(element))
        out.push_back(integer.getInt());
  } else if (auto dense = dyn_cast_or_null<DenseI32ArrayAttr>(value)) {
    out.append(dense.asArrayRef().begin(), dense.asArrayRef().end());
  } else if (auto dense64 = dyn_cast_or_null<DenseI64ArrayAttr>(value)) {
    out.append(dense64.asArrayRef().begin(), dense64.asArrayRef().end());
  }
  return out;
}
EncodingAttr EncodingAttr::get(MLIRContext *ctx, StringRef dialect, StringRef mnemonic, DictionaryAttr params,
                               bool braced, bool hasParams) {
  if (dialect == "tt")
    return cast<EncodingAttr>(TTEncodingAttr::get(ctx, mnemonic, params, braced, hasParams));
  if (dialect == "ttng")
    return cast<EncodingAttr>(TTNGEncodingAttr::get(ctx, mnemonic, params, braced, hasParams));
  if (dialect == "amdg")
    return cast<EncodingAttr>(AMDGEncodingAttr::get(ctx, mnemonic, params, braced, hasParams));
  return cast<EncodingAttr>(TTGEncodingAttr::get(ctx, mnemonic, params, braced, hasParams));
}

// ---- parsing ---------------------------------------------------------------------------

static Type unsupportedType(DialectAsmParser &parser, StringRef dialect, StringRef mnemonic) {
  parser.emitError(parser.getNameLoc()) << "unsupported Triton type '!" << dialect << "." << mnemonic
                                        << "' (tlx-sim reads the TTGIR of Triton " << kTritonVersion << ")";
  return {};
}

static Type parseMemDesc(DialectAsmParser &parser) {
  SmallVector<int64_t> shape, allocShape;
  Type elementType;
  Attribute encoding, memorySpace;
  bool isMutable = false;
  if (parser.parseLess() || parser.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma() || parser.parseAttribute(encoding) ||
      parser.parseComma() || parser.parseAttribute(memorySpace))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("mutable"))) {
      isMutable = true;
      continue;
    }
    if (parser.parseDimensionList(allocShape, /*allowDynamic=*/false, /*withTrailingX=*/false))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return MemDescType::get(parser.getContext(), shape, elementType, encoding, memorySpace, isMutable, allocShape);
}

Type parseTritonType(StringRef dialect, DialectAsmParser &parser) {
  StringRef mnemonic;
  if (parser.parseKeyword(&mnemonic))
    return {};
  if (dialect == "tt" && mnemonic == "ptr") {
    Type pointee;
    int addressSpace = 1;
    if (parser.parseLess() || parser.parseType(pointee))
      return {};
    if (succeeded(parser.parseOptionalComma()) && parser.parseInteger(addressSpace))
      return {};
    if (parser.parseGreater())
      return {};
    return PtrType::get(pointee, addressSpace);
  }
  if (dialect == "tt" && mnemonic == "tensordesc") {
    Type block;
    if (parser.parseLess() || parser.parseType(block) || parser.parseGreater())
      return {};
    auto ranked = dyn_cast<RankedTensorType>(block);
    if (!ranked) {
      parser.emitError(parser.getNameLoc()) << "expected a ranked tensor type inside !tt.tensordesc";
      return {};
    }
    return TensorDescType::get(ranked);
  }
  if (dialect == "ttg" && mnemonic == "memdesc")
    return parseMemDesc(parser);
  if (dialect == "ttg" && mnemonic == "async.token")
    return AsyncTokenType::get(parser.getContext());
  return unsupportedType(parser, dialect, mnemonic);
}

static void printDims(ArrayRef<int64_t> dims, DialectAsmPrinter &printer) {
  llvm::interleave(dims, printer.getStream(), "x");
}

void printTritonType(Type type, DialectAsmPrinter &printer) {
  if (auto ptr = dyn_cast<PtrType>(type)) {
    printer << "ptr<" << ptr.getPointeeType();
    if (ptr.getAddressSpace() != 1)
      printer << ", " << ptr.getAddressSpace();
    printer << ">";
  } else if (auto desc = dyn_cast<TensorDescType>(type)) {
    printer << "tensordesc<" << desc.getBlockType() << ">";
  } else if (auto memdesc = dyn_cast<MemDescType>(type)) {
    printer << "memdesc<";
    for (int64_t d : memdesc.getShape())
      printer << d << "x";
    printer << memdesc.getElementType() << ", " << memdesc.getEncoding() << ", " << memdesc.getMemorySpace();
    if (memdesc.isMutable())
      printer << ", mutable";
    if (memdesc.getAllocShape() != memdesc.getShape()) {
      printer << ", ";
      printDims(memdesc.getAllocShape(), printer);
    }
    printer << ">";
  } else if (isa<AsyncTokenType>(type)) {
    printer << "async.token";
  }
}

Attribute parseEncodingAttr(StringRef dialect, DialectAsmParser &parser) {
  StringRef mnemonic;
  if (parser.parseKeyword(&mnemonic))
    return {};
  MLIRContext *ctx = parser.getContext();
  if (failed(parser.parseOptionalLess()))
    return EncodingAttr::get(ctx, dialect, mnemonic, DictionaryAttr::get(ctx), false, false);
  if (succeeded(parser.parseOptionalGreater()))
    return EncodingAttr::get(ctx, dialect, mnemonic, DictionaryAttr::get(ctx), false, true);
  NamedAttrList params;
  bool braced = false;
  if (succeeded(parser.parseOptionalLBrace())) {
    braced = true;
    if (failed(parser.parseOptionalRBrace())) {
      do {
        StringRef key;
        Attribute value;
        if (parser.parseKeyword(&key) || parser.parseEqual() || parser.parseAttribute(value))
          return {};
        params.append(key, value);
      } while (succeeded(parser.parseOptionalComma()));
      if (parser.parseRBrace())
        return {};
    }
  } else {
    do {
      StringRef key;
      Attribute value;
      if (parser.parseKeyword(&key)) {
        parser.emitError(parser.getNameLoc())
            << "unsupported parameter syntax in '#" << dialect << "." << mnemonic << "' (tlx-sim reads the TTGIR of Triton "
            << kTritonVersion << ")";
        return {};
      }
      if (parser.parseEqual() || parser.parseAttribute(value))
        return {};
      params.append(key, value);
    } while (succeeded(parser.parseOptionalComma()));
  }
  if (parser.parseGreater())
    return {};
  // Keep the written parameter order: a DictionaryAttr sorts, so remember nothing else.
  return EncodingAttr::get(ctx, dialect, mnemonic, params.getDictionary(ctx), braced, true);
}

void printEncodingAttr(Attribute attr, DialectAsmPrinter &printer) {
  auto enc = cast<EncodingAttr>(attr);
  printer << enc.getMnemonic();
  if (!enc.hasParams())
    return;
  printer << "<";
  if (enc.isBraced())
    printer << "{";
  llvm::interleaveComma(enc.getParams(), printer.getStream(), [&](NamedAttribute param) {
    printer << param.getName().getValue() << " = " << param.getValue();
  });
  if (enc.isBraced())
    printer << "}";
  printer << ">";
}

} // namespace tlxsim::ir
