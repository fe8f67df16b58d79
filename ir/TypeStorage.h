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
  using KeyTy = mlir::RankedTensorType;
  explicit TensorDescTypeStorage(KeyTy key) : blockType(key) {}
  bool operator==(const KeyTy &key) const { return key == blockType; }
  static llvm::hash_code hashKey(const KeyTy &key) { return mlir::hash_value(key); }
  static TensorDescTypeStorage *construct(mlir::TypeStorageAllocator &alloc, const KeyTy &key) {
    return new (alloc.allocate<TensorDescTypeStorage>()) TensorDescTypeStorage(key);
  }
  mlir::RankedTensorType blockType;
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
  using KeyTy = std::tuple<llvm::StringRef, mlir::DictionaryAttr, bool, bool>;
  explicit EncodingAttrStorage(const KeyTy &key)
      : mnemonic(std::get<0>(key)), params(std::get<1>(key)), braced(std::get<2>(key)), hasParams(std::get<3>(key)) {}
  bool operator==(const KeyTy &key) const { return key == KeyTy(mnemonic, params, braced, hasParams); }
  static llvm::hash_code hashKey(const KeyTy &key) {
    return llvm::hash_combine(std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key));
  }
  static EncodingAttrStorage *construct(mlir::AttributeStorageAllocator &alloc, const KeyTy &key) {
    KeyTy copy(alloc.copyInto(std::get<0>(key)), std::get<1>(key), std::get<2>(key), std::get<3>(key));
    return new (alloc.allocate<EncodingAttrStorage>()) EncodingAttrStorage(copy);
  }
  llvm::StringRef mnemonic;
  mlir::DictionaryAttr params;
  bool braced, hasParams;
};

} // namespace tlxsim::ir::detail
