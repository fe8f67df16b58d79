// Triton shim types and encodings: accessors, parsing and printing.
#include "ir/TypeStorage.h"
#include "ir/TypeSyntax.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"

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

TensorDescType TensorDescType::get(RankedTensorType blockType, bool shortForm) {
  return Base::get(blockType.getContext(), blockType, shortForm);
}
bool TensorDescType::isShortForm() const { return getImpl()->shortForm; }
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
ArrayAttr EncodingAttr::getParamOrder() const { return storage(*this)->order; }
EncodingAttr::Form EncodingAttr::getForm() const { return static_cast<Form>(storage(*this)->form); }
int EncodingAttr::getNumBraced() const { return storage(*this)->numBraced; }
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
std::optional<std::vector<std::vector<int64_t>>> EncodingAttr::getBases(StringRef key, size_t rank) const {
  auto array = dyn_cast_or_null<ArrayAttr>(getParams().get(key));
  if (!array)
    return std::nullopt;
  std::vector<std::vector<int64_t>> out;
  for (Attribute basis : array) {
    auto vec = dyn_cast<ArrayAttr>(basis);
    if (!vec || vec.size() != rank)
      return std::nullopt;
    std::vector<int64_t> b;
    for (Attribute x : vec) {
      auto i = dyn_cast<IntegerAttr>(x);
      if (!i)
        return std::nullopt;
      b.push_back(i.getInt());
    }
    out.push_back(std::move(b));
  }
  return out;
}
static constexpr StringLiteral kPaddingKey = "paddingIntervals";
SmallVector<std::pair<int64_t, int64_t>> EncodingAttr::getPaddingIntervals() const {
  SmallVector<std::pair<int64_t, int64_t>> out;
  if (auto dense = dyn_cast_or_null<DenseI64ArrayAttr>(getParams().get(kPaddingKey)))
    for (size_t i = 0; i + 1 < dense.asArrayRef().size(); i += 2)
      out.push_back({dense[i], dense[i + 1]});
  return out;
}
EncodingAttr EncodingAttr::get(MLIRContext *ctx, StringRef dialect, StringRef mnemonic, ArrayRef<NamedAttribute> params,
                               Form form, int numBraced) {
  SmallVector<Attribute> order;
  for (const NamedAttribute &param : params)
    if (param.getName() != kPaddingKey)
      order.push_back(param.getName());
  if (numBraced < 0)
    numBraced = static_cast<int>(order.size());
  DictionaryAttr dict = DictionaryAttr::get(ctx, params);
  ArrayAttr orderAttr = ArrayAttr::get(ctx, order);
  int f = static_cast<int>(form);
  if (dialect == "tt")
    return cast<EncodingAttr>(TTEncodingAttr::get(ctx, mnemonic, dict, orderAttr, f, numBraced));
  if (dialect == "ttng")
    return cast<EncodingAttr>(TTNGEncodingAttr::get(ctx, mnemonic, dict, orderAttr, f, numBraced));
  if (dialect == "amdg")
    return cast<EncodingAttr>(AMDGEncodingAttr::get(ctx, mnemonic, dict, orderAttr, f, numBraced));
  return cast<EncodingAttr>(TTGEncodingAttr::get(ctx, mnemonic, dict, orderAttr, f, numBraced));
}

// ---- parsing ---------------------------------------------------------------------------

static Type unsupportedType(AsmParser &parser, llvm::SMLoc loc, StringRef dialect, StringRef mnemonic) {
  parser.emitError(loc) << "unsupported Triton type '!" << dialect << "." << mnemonic
                        << "' (tlx-sim reads the TTGIR of Triton " << kTritonVersion << ")";
  return {};
}

/// `<SHAPE x T, #enc, #space[, mutable][, ALLOCSHAPE]>`
static Type parseMemDescBody(AsmParser &parser) {
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

/// `<T[, addrspace]>`
static Type parsePtrBody(AsmParser &parser) {
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

/// `<tensor<128x64xf16, #enc>>` (Triton 3.6) or `<128x64xf16, #enc>` (Triton main).
static Type parseTensorDescBody(AsmParser &parser) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  Type block;
  OptionalParseResult typed = parser.parseOptionalType(block);
  if (typed.has_value()) {
    if (failed(*typed) || parser.parseGreater())
      return {};
    auto ranked = dyn_cast<RankedTensorType>(block);
    if (!ranked) {
      parser.emitError(loc) << "expected a ranked tensor type inside !tt.tensordesc";
      return {};
    }
    return TensorDescType::get(ranked);
  }
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute encoding;
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(encoding))
    return {};
  if (parser.parseGreater())
    return {};
  return TensorDescType::get(RankedTensorType::get(shape, elementType, encoding), /*shortForm=*/true);
}

Type parseStrippedTritonType(StringRef kind, AsmParser &parser) {
  if (kind == "memdesc")
    return parseMemDescBody(parser);
  if (kind == "tensordesc")
    return parseTensorDescBody(parser);
  if (kind == "ptr")
    return parsePtrBody(parser);
  // No kind declared: a memory descriptor, the only stripped type seen in Triton 3.6 output.
  return parseMemDescBody(parser);
}

Type parseTritonType(StringRef dialect, DialectAsmParser &parser) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  if (parser.parseKeyword(&mnemonic))
    return {};
  if (dialect == "tt" && mnemonic == "ptr")
    return parsePtrBody(parser);
  if (dialect == "tt" && mnemonic == "tensordesc")
    return parseTensorDescBody(parser);
  if (dialect == "ttg" && mnemonic == "memdesc")
    return parseMemDescBody(parser);
  if (dialect == "ttg" && mnemonic == "async.token")
    return AsyncTokenType::get(parser.getContext());
  return unsupportedType(parser, loc, dialect, mnemonic);
}

void printTritonType(Type type, DialectAsmPrinter &printer) {
  if (auto ptr = dyn_cast<PtrType>(type)) {
    printer << "ptr<" << ptr.getPointeeType();
    if (ptr.getAddressSpace() != 1)
      printer << ", " << ptr.getAddressSpace();
    printer << ">";
  } else if (auto desc = dyn_cast<TensorDescType>(type)) {
    RankedTensorType block = desc.getBlockType();
    if (desc.isShortForm()) {
      printer << "tensordesc<";
      for (int64_t d : block.getShape())
        printer << d << "x";
      printer << block.getElementType();
      if (block.getEncoding())
        printer << ", " << block.getEncoding();
      printer << ">";
    } else {
      printer << "tensordesc<" << block << ">";
    }
  } else if (auto memdesc = dyn_cast<MemDescType>(type)) {
    printer << "memdesc<";
    for (int64_t d : memdesc.getShape())
      printer << d << "x";
    printer << memdesc.getElementType() << ", " << memdesc.getEncoding() << ", " << memdesc.getMemorySpace();
    if (memdesc.isMutable())
      printer << ", mutable";
    if (memdesc.getAllocShape() != memdesc.getShape()) {
      printer << ", ";
      llvm::interleave(memdesc.getAllocShape(), printer.getStream(), "x");
    }
    printer << ">";
  } else if (isa<AsyncTokenType>(type)) {
    printer << "async.token";
  }
}

/// The encodings of Triton 3.6 (TritonGPUAttrDefs.td, TritonNvidiaGPUAttrDefs.td), plus
/// the few that TLX (facebookexperimental/triton main) adds.
static bool isKnownEncoding(StringRef dialect, StringRef mnemonic) {
  static const llvm::StringSet<> ttg = {"blocked",       "slice",         "dot_op",          "nvidia_mma",
                                        "amd_mfma",      "amd_wmma",      "linear",          "swizzled_shared",
                                        "nvmma_shared",  "amd_rotating_shared", "padded_shared", "shared_linear",
                                        "shared_memory", "cta_encoding",  "cga_encoding",    "partitioned_shared"};
  // redOp, blockRepOrder (3.9): EnumAttrs printed `<keyword>`.
  static const llvm::StringSet<> ttng = {"tensor_memory_encoding", "tensor_memory_scales_encoding", "tensor_memory",
                                         "shared_cluster_memory", "redOp", "blockRepOrder"};
  // cache_policy (3.9): `#tt.cache_policy<cache_modifier = ca, eviction_policy = evict_first>`.
  static const llvm::StringSet<> tt = {"cache_policy"};
  if (dialect == "ttg")
    return ttg.contains(mnemonic);
  if (dialect == "ttng")
    return ttng.contains(mnemonic);
  if (dialect == "tt")
    return tt.contains(mnemonic);
  return false;
}

/// `key = value` pairs, comma separated, until (not including) `}` or `>`.
static ParseResult parseParamList(DialectAsmParser &parser, StringRef dialect, StringRef mnemonic,
                                  SmallVectorImpl<NamedAttribute> &params) {
  do {
    llvm::SMLoc loc = parser.getCurrentLocation();
    std::string key;
    Attribute value;
    if (failed(parser.parseOptionalKeywordOrString(&key)))
      return parser.emitError(loc) << "unsupported parameter syntax in '#" << dialect << "." << mnemonic
                                   << "' (tlx-sim reads the TTGIR of Triton " << kTritonVersion << ")";
    if (parser.parseEqual())
      return failure();
    // #tt.cache_policy's EnumParameters (`cache_modifier = ca`) are bare keywords: kept as strings, printed bare.
    StringRef keyword;
    if (mnemonic == "cache_policy" && succeeded(parser.parseOptionalKeyword(&keyword)))
      value = StringAttr::get(parser.getContext(), keyword);
    else if (parser.parseAttribute(value))
      return failure();
    params.push_back(NamedAttribute(StringAttr::get(parser.getContext(), key), value));
  } while (succeeded(parser.parseOptionalComma()));
  return success();
}

Attribute parseEncodingAttr(StringRef dialect, DialectAsmParser &parser) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  if (parser.parseKeyword(&mnemonic))
    return {};
  MLIRContext *ctx = parser.getContext();
  if (!isKnownEncoding(dialect, mnemonic)) {
    parser.emitError(loc) << "unsupported Triton attribute '#" << dialect << "." << mnemonic
                          << "' (tlx-sim reads the TTGIR of Triton " << kTritonVersion << ")";
    return {};
  }
  if (failed(parser.parseOptionalLess()))
    return EncodingAttr::get(ctx, dialect, mnemonic, {}, EncodingAttr::Bare);
  if (succeeded(parser.parseOptionalGreater()))
    return EncodingAttr::get(ctx, dialect, mnemonic, {}, EncodingAttr::Angle);
  SmallVector<NamedAttribute> params;
  EncodingAttr::Form form = EncodingAttr::Angle;
  int numBraced = -1;
  static const llvm::StringSet<> keywordEnums = {"redOp", "blockRepOrder"};
  if (keywordEnums.contains(mnemonic)) {
    // `#ttng.redOp<min>`
    std::string keyword;
    if (parser.parseKeywordOrString(&keyword) || parser.parseGreater())
      return {};
    params.push_back(NamedAttribute(StringAttr::get(ctx, "value"), StringAttr::get(ctx, keyword)));
    return EncodingAttr::get(ctx, dialect, mnemonic, params, EncodingAttr::Keyword);
  }
  if (succeeded(parser.parseOptionalLSquare())) {
    // #ttg.padded_shared<[interval:+padding, ...] {params}>
    form = EncodingAttr::Padded;
    SmallVector<int64_t> intervals;
    do {
      int64_t interval, padding;
      if (parser.parseInteger(interval) || parser.parseColon() || parser.parsePlus() || parser.parseInteger(padding))
        return {};
      intervals.push_back(interval);
      intervals.push_back(padding);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRSquare())
      return {};
    params.push_back(NamedAttribute(StringAttr::get(ctx, "paddingIntervals"), DenseI64ArrayAttr::get(ctx, intervals)));
    if (parser.parseLBrace())
      return {};
    if (failed(parser.parseOptionalRBrace())) {
      if (failed(parseParamList(parser, dialect, mnemonic, params)) || parser.parseRBrace())
        return {};
    }
  } else if (succeeded(parser.parseOptionalLBrace())) {
    form = EncodingAttr::Braced;
    if (failed(parser.parseOptionalRBrace())) {
      if (failed(parseParamList(parser, dialect, mnemonic, params)) || parser.parseRBrace())
        return {};
    }
    numBraced = static_cast<int>(params.size());
    // `#ttg.shared_linear<{...}, alignment = 16>`: parameters after the braces.
    if (succeeded(parser.parseOptionalComma()) && failed(parseParamList(parser, dialect, mnemonic, params)))
      return {};
  } else if (failed(parseParamList(parser, dialect, mnemonic, params))) {
    return {};
  }
  if (parser.parseGreater())
    return {};
  return EncodingAttr::get(ctx, dialect, mnemonic, params, form, numBraced);
}

void printEncodingAttr(Attribute attr, DialectAsmPrinter &printer) {
  auto enc = cast<EncodingAttr>(attr);
  printer << enc.getMnemonic();
  if (enc.getForm() == EncodingAttr::Bare)
    return;
  DictionaryAttr params = enc.getParams();
  auto printParams = [&](ArrayRef<Attribute> keys) {
    llvm::interleaveComma(keys, printer.getStream(), [&](Attribute key) {
      StringRef name = cast<StringAttr>(key).getValue();
      printer << name << " = ";
      Attribute value = params.get(name);
      // Written `opIdx = 0`: the parser types a bare integer as i64; print it bare again.
      if (auto integer = dyn_cast<IntegerAttr>(value); integer && integer.getType().isInteger(64))
        printer << integer.getValue();
      else if (auto keyword = dyn_cast<StringAttr>(value)) // an EnumParameter keyword (no encoding has strings)
        printer << keyword.getValue();
      else
        printer << value;
    });
  };
  ArrayRef<Attribute> keys = enc.getParamOrder().getValue();
  printer << "<";
  switch (enc.getForm()) {
  case EncodingAttr::Bare:
    break;
  case EncodingAttr::Angle:
    printParams(keys);
    break;
  case EncodingAttr::Keyword:
    printer << cast<StringAttr>(params.get("value")).getValue();
    break;
  case EncodingAttr::Braced: {
    size_t braced = std::min<size_t>(enc.getNumBraced(), keys.size());
    printer << "{";
    printParams(keys.take_front(braced));
    printer << "}";
    if (braced < keys.size()) {
      printer << ", ";
      printParams(keys.drop_front(braced));
    }
    break;
  }
  case EncodingAttr::Padded: {
    printer << "[";
    auto intervals = enc.getPaddingIntervals();
    llvm::interleaveComma(intervals, printer.getStream(),
                          [&](std::pair<int64_t, int64_t> p) { printer << p.first << ":+" << p.second; });
    printer << "] {";
    printParams(keys);
    printer << "}";
    break;
  }
  }
  printer << ">";
}

} // namespace tlxsim::ir
