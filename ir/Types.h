// Triton types and encodings as real MLIR types and attributes (shim dialects).
//
// The classes mirror Triton 3.6's TableGen definitions
// (include/triton/Dialect/{Triton,TritonGPU}/IR/*Types.td, *AttrDefs.td) closely enough
// to read and print TTGIR; they carry no Triton semantics beyond structured accessors.
#pragma once

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#include <optional>
#include <vector>

namespace tlxsim::ir {

namespace detail {
struct PtrTypeStorage;
struct TensorDescTypeStorage;
struct MemDescTypeStorage;
struct EncodingAttrStorage;
} // namespace detail

/// `!tt.ptr<T[, addrspace]>`: a global (addrspace 1) or shared pointer.
class PtrType : public mlir::Type::TypeBase<PtrType, mlir::Type, detail::PtrTypeStorage> {
public:
  using Base::Base;
  static constexpr llvm::StringLiteral name = "tt.ptr";
  static PtrType get(mlir::Type pointee, int addressSpace);
  mlir::Type getPointeeType() const;
  int getAddressSpace() const;
};

/// `!tt.tensordesc<tensor<BxT, #enc>>`: a TMA tensor descriptor; the block type is the
/// box one TMA op moves (bytes = product(block shape) * element bytes).
class TensorDescType : public mlir::Type::TypeBase<TensorDescType, mlir::Type, detail::TensorDescTypeStorage> {
public:
  using Base::Base;
  static constexpr llvm::StringLiteral name = "tt.tensordesc";
  static TensorDescType get(mlir::RankedTensorType blockType, bool shortForm = false);
  mlir::RankedTensorType getBlockType() const;
  /// Whether it was written `!tt.tensordesc<128x64xf16, #enc>` (Triton main) rather
  /// than `!tt.tensordesc<tensor<128x64xf16, #enc>>` (Triton 3.6); printed back the same way.
  bool isShortForm() const;
  /// Bytes of one box: product of the block shape times the element size.
  int64_t getBlockBytes() const;
};

/// `!ttg.memdesc<SHAPE x T, #encoding, #memory_space[, mutable][, ALLOCSHAPE]>`:
/// a view of shared memory (`#ttg.shared_memory`) or tensor memory (`#ttng.tensor_memory`).
class MemDescType : public mlir::Type::TypeBase<MemDescType, mlir::Type, detail::MemDescTypeStorage> {
public:
  using Base::Base;
  static constexpr llvm::StringLiteral name = "ttg.memdesc";
  static MemDescType get(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                         mlir::Attribute encoding, mlir::Attribute memorySpace, bool isMutable,
                         llvm::ArrayRef<int64_t> allocShape);
  llvm::ArrayRef<int64_t> getShape() const;
  mlir::Type getElementType() const;
  mlir::Attribute getEncoding() const;
  mlir::Attribute getMemorySpace() const;
  bool isMutable() const;
  /// The shape of the underlying allocation (equal to getShape() when not printed).
  llvm::ArrayRef<int64_t> getAllocShape() const;
  bool isSharedMemory() const;
  bool isTensorMemory() const;
  int64_t getNumElements() const;
  /// Bytes of this view: elements times element bits / 8 (rounded up).
  int64_t getSizeInBytes() const;
};

/// `!ttg.async.token`: orders async copies and their waits.
class AsyncTokenType : public mlir::Type::TypeBase<AsyncTokenType, mlir::Type, mlir::TypeStorage> {
public:
  using Base::Base;
  static constexpr llvm::StringLiteral name = "ttg.async.token";
};

/// A Triton layout/encoding attribute (`#ttg.blocked<{...}>`, `#ttg.nvmma_shared<{...}>`,
/// `#ttng.tensor_memory_encoding<blockM = 128, ...>`, `#ttg.shared_memory`, ...), kept as
/// its mnemonic plus its parameters, printed back exactly as written (parameter order
/// included). Each Triton dialect registers its own concrete class (TTGEncodingAttr, ...)
/// over one storage; EncodingAttr matches any of them.
class EncodingAttr : public mlir::Attribute {
public:
  /// How the parameters are written.
  enum Form {
    Bare = 0,    ///< `#ttg.shared_memory`
    Angle = 1,   ///< `#ttng.tensor_memory_encoding<blockM = 128, ...>` (also `<>`)
    Braced = 2,  ///< `#ttg.blocked<{...}>`, optionally `<{...}, alignment = 16>`
    Padded = 3,  ///< `#ttg.padded_shared<[32:+4, 64:+8] {order = [1, 0], shape = [64, 64]}>`
    Keyword = 4, ///< an EnumAttr `#ttng.redOp<min>` (3.9): one parameter `value`, a string
  };
  using Attribute::Attribute;
  static bool classof(mlir::Attribute attr);
  llvm::StringRef getDialectNamespace() const;
  llvm::StringRef getMnemonic() const;
  mlir::DictionaryAttr getParams() const;
  /// Parameter names in the order they were written.
  mlir::ArrayAttr getParamOrder() const;
  Form getForm() const;
  /// Parameters written inside the braces of a Braced form (the rest follow them).
  int getNumBraced() const;
  /// Whether the parameters were printed as `<{...}>` (true) or as `<k = v, ...>`.
  bool isBraced() const { return getForm() == Braced || getForm() == Padded; }
  /// False for parameterless encodings such as `#ttg.shared_memory`.
  bool hasParams() const { return getForm() != Bare; }
  /// Integer parameter `key`, if present.
  std::optional<int64_t> getInt(llvm::StringRef key) const;
  /// Integer-array parameter `key` (`[1, 2]` or `array<i32: ...>`), empty if absent.
  llvm::SmallVector<int64_t> getIntArray(llvm::StringRef key) const;
  /// A `#ttg.linear` basis list `key` (`register`, `lane`, `warp`, `block`: `[[0, 1], [2, 0]]`), each basis of
  /// `rank` integers; nullopt when the parameter is absent or a basis is not `rank` integers.
  std::optional<std::vector<std::vector<int64_t>>> getBases(llvm::StringRef key, size_t rank) const;
  /// `#ttg.padded_shared` intervals and paddings (`[32:+4, 64:+8]` -> {32, 4}, {64, 8}).
  llvm::SmallVector<std::pair<int64_t, int64_t>> getPaddingIntervals() const;
  /// Builds the encoding in the dialect named `dialect` (which must be loaded). `params`
  /// keeps the written order; `numBraced` is the count of them inside braces (Braced form).
  static EncodingAttr get(mlir::MLIRContext *ctx, llvm::StringRef dialect, llvm::StringRef mnemonic,
                          llvm::ArrayRef<mlir::NamedAttribute> params, Form form, int numBraced = -1);
};

#define TLXSIM_ENCODING_ATTR(CLASS, NAME)                                                                              \
  class CLASS : public mlir::Attribute::AttrBase<CLASS, mlir::Attribute, detail::EncodingAttrStorage> {              \
  public:                                                                                                              \
    using Base::Base;                                                                                                  \
    static constexpr llvm::StringLiteral name = NAME;                                                                  \
  };
TLXSIM_ENCODING_ATTR(TTEncodingAttr, "tt.encoding")
TLXSIM_ENCODING_ATTR(TTGEncodingAttr, "ttg.encoding")
TLXSIM_ENCODING_ATTR(TTNGEncodingAttr, "ttng.encoding")
TLXSIM_ENCODING_ATTR(AMDGEncodingAttr, "amdg.encoding")
#undef TLXSIM_ENCODING_ATTR

} // namespace tlxsim::ir

MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::PtrType)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::TensorDescType)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::MemDescType)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::AsyncTokenType)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::TTEncodingAttr)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::TTGEncodingAttr)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::TTNGEncodingAttr)
MLIR_DECLARE_EXPLICIT_TYPE_ID(tlxsim::ir::AMDGEncodingAttr)
