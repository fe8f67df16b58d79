// Storage classes of the Triton shim types and attributes (internal to ir/).
#pragma once

#include "ir/Types.h"

#include "mlir/IR/AttributeSupport.h"
#include "mlir/IR/TypeSupport.h"

namespace tlxsim::ir::detail {

struct PtrTypeStorage : mlir::TypeStorage {
  using KeyTy = std::pair<mlir::Type, int>;
  explicit PtrTypeStorage(const KeyTy &key) : pointee(key.first), addressSpace(key.second) {}
  bool operator==(const KeyTy &key) const { return key == KeyTy(pointee, addressSpace); }
  static llvm::hash_code hashKey(const KeyTy &key) { return llvm::hash_combine(key.first, key.second); }
  static PtrTypeStorage *construct(mlir::TypeStorageAllocator &alloc, const KeyTy &key) {
    return new (alloc.allocate<PtrTypeStorage>()) PtrTypeStorage(key);
  }
  mlir::Type pointee;
  int addressSpace;
};

struct TensorDescTypeStorage : mlir::TypeStorage {
  /// The block type and whether it was written in the short form `<128x64xf16, #enc>`
  /// (Triton main) rather than `<tensor<128x64xf16, #enc>>` (Triton 3.6).
  using KeyTy = std::pair<mlir::RankedTensorType, bool>;
  explicit TensorDescTypeStorage(const KeyTy &key) : blockType(key.first), shortForm(key.second) {}
  bool operator==(const KeyTy &key) const { return key == KeyTy(blockType, shortForm); }
  static llvm::hash_code hashKey(const KeyTy &key) { return llvm::hash_combine(key.first, key.second); }
  static TensorDescTypeStorage *construct(mlir::TypeStorageAllocator &alloc, const KeyTy &key) {
    return new (alloc.allocate<TensorDescTypeStorage>()) TensorDescTypeStorage(key);
  }
  mlir::RankedTensorType blockType;
  bool shortForm;
};

struct MemDescTypeStorage : mlir::TypeStorage {
  using KeyTy = std::tuple<llvm::ArrayRef<int64_t>, mlir::Type, mlir::Attribute, mlir::Attribute, bool,
                           llvm::ArrayRef<int64_t>>;
  explicit MemDescTypeStorage(const KeyTy &key)
      : shape(std::get<0>(key)), elementType(std::get<1>(key)), encoding(std::get<2>(key)),
        memorySpace(std::get<3>(key)), isMutable(std::get<4>(key)), allocShape(std::get<5>(key)) {}
  bool operator==(const KeyTy &key) const {
    return key == KeyTy(shape, elementType, encoding, memorySpace, isMutable, allocShape);
  }
  static llvm::hash_code hashKey(const KeyTy &key) {
    return llvm::hash_combine(llvm::hash_combine_range(std::get<0>(key)), std::get<1>(key), std::get<2>(key),
                              std::get<3>(key), std::get<4>(key), llvm::hash_combine_range(std::get<5>(key)));
  }
  static MemDescTypeStorage *construct(mlir::TypeStorageAllocator &alloc, const KeyTy &key) {
    KeyTy copy(alloc.copyInto(std::get<0>(key)), std::get<1>(key), std::get<2>(key), std::get<3>(key),
               std::get<4>(key), alloc.copyInto(std::get<5>(key)));
    return new (alloc.allocate<MemDescTypeStorage>()) MemDescTypeStorage(copy);
  }
  llvm::ArrayRef<int64_t> shape;
  mlir::Type elementType;
  mlir::Attribute encoding, memorySpace;
  bool isMutable;
  llvm::ArrayRef<int64_t> allocShape;
};

struct EncodingAttrStorage : mlir::AttributeStorage {
  /// mnemonic, parameters (for lookup), parameter names in written order, form (how the
  /// parameters were written, see EncodingAttr::Form) and the number of parameters
  /// written inside braces (the rest follow the closing brace, as in `#ttg.shared_linear`).
  using KeyTy = std::tuple<llvm::StringRef, mlir::DictionaryAttr, mlir::ArrayAttr, int, int>;
  explicit EncodingAttrStorage(const KeyTy &key)
      : mnemonic(std::get<0>(key)), params(std::get<1>(key)), order(std::get<2>(key)), form(std::get<3>(key)),
        numBraced(std::get<4>(key)) {}
  bool operator==(const KeyTy &key) const { return key == KeyTy(mnemonic, params, order, form, numBraced); }
  static llvm::hash_code hashKey(const KeyTy &key) {
    return llvm::hash_combine(std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key),
                              std::get<4>(key));
  }
  static EncodingAttrStorage *construct(mlir::AttributeStorageAllocator &alloc, const KeyTy &key) {
    KeyTy copy(alloc.copyInto(std::get<0>(key)), std::get<1>(key), std::get<2>(key), std::get<3>(key),
               std::get<4>(key));
    return new (alloc.allocate<EncodingAttrStorage>()) EncodingAttrStorage(copy);
  }
  llvm::StringRef mnemonic;
  mlir::DictionaryAttr params;
  mlir::ArrayAttr order;
  int form;
  int numBraced;
};

} // namespace tlxsim::ir::detail
