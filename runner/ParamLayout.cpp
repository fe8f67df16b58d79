#include "runner/ParamLayout.h"

#include "runner/HostData.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"

#include <cstring>

namespace tlxsim::runner {

namespace {

struct CType {
  const char *name;
  uint32_t size;
};

/// ty_to_cpp of triton/backends/nvidia/driver.py (and amd), with FLOAT_STORAGE_TYPE for floats.
std::optional<CType> scalarCType(llvm::StringRef type) {
  return llvm::StringSwitch<std::optional<CType>>(type)
      .Cases({"i1", "i8"}, CType{"int8_t", 1})
      .Case("i16", CType{"int16_t", 2})
      .Case("i32", CType{"int32_t", 4})
      .Case("i64", CType{"int64_t", 8})
      .Cases({"u1", "u8"}, CType{"uint8_t", 1})
      .Case("u16", CType{"uint16_t", 2})
      .Case("u32", CType{"uint32_t", 4})
      .Case("u64", CType{"uint64_t", 8})
      .Cases({"fp16", "bf16"}, CType{"uint16_t", 2})
      .Cases({"fp32", "f32"}, CType{"uint32_t", 4})
      .Case("fp64", CType{"uint64_t", 8})
      .Default(std::nullopt);
}

bool isFloatType(llvm::StringRef type) {
  return type == "fp16" || type == "bf16" || type == "fp32" || type == "f32" || type == "fp64";
}

llvm::Error fail(const Capture &c, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), (c.dir + "/launch.json: " + what).str());
}

/// The rank of "tensordesc<fp16[128, 64],...>" (commas inside the block shape, plus one).
std::optional<size_t> descRank(llvm::StringRef type) {
  size_t open = type.find('['), close = type.find(']');
  if (open == llvm::StringRef::npos || close == llvm::StringRef::npos || close < open)
    return std::nullopt;
  return type.slice(open, close).count(',') + 1;
}

Param scalar(std::string name, llvm::StringRef type, uint64_t bits) {
  Param p;
  auto ct = scalarCType(type);
  p.name = std::move(name);
  p.tritonType = type.str();
  p.cType = ct->name;
  p.size = p.align = ct->size;
  p.bits = ct->size == 8 ? bits : bits & ((uint64_t(1) << (8 * ct->size)) - 1);
  return p;
}

Param pointer(std::string name, llvm::StringRef type, std::string tensor, bool cuda, ParamKind kind) {
  Param p;
  p.name = std::move(name);
  p.tritonType = type.str();
  p.cType = cuda ? "CUdeviceptr" : "hipDeviceptr_t";
  p.kind = kind;
  p.size = p.align = 8;
  p.tensor = std::move(tensor);
  return p;
}

} // namespace

uint64_t packFloat(llvm::StringRef type, double value) {
  if (type == "fp16")
    return doubleToHalfBits(value);
  if (type == "bf16") { // pack_bf16: the float's upper 16 bits (truncation, as Triton does)
    float f = static_cast<float>(value);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u >> 16;
  }
  if (type == "fp64") {
    uint64_t u;
    std::memcpy(&u, &value, 8);
    return u;
  }
  float f = static_cast<float>(value);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

int tmaDtypeDeviceToHost(int deviceType) {
  switch (deviceType) {
  case 8:
    return 10;
  case 9:
    return 8;
  case 10:
    return 9;
  default:
    return deviceType;
  }
}

TensorMapArgs tensorMapArgs(const TensorSpec &tensor, const TensorDescMeta &meta) {
  TensorMapArgs a;
  std::vector<int64_t> shape = tensor.shape;
  if (meta.fp4Padded)
    shape.back() *= 2;
  size_t rank = shape.size();
  a.rank = rank;
  a.dataType = tmaDtypeDeviceToHost(meta.elemType);
  a.globalDim.resize(rank);
  a.globalStrides.resize(rank);
  a.boxDim.resize(rank);
  a.elementStrides.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    a.globalDim[rank - i - 1] = shape[i];
    a.boxDim[rank - i - 1] = i < meta.blockSize.size() ? meta.blockSize[i] : 0;
  }
  for (size_t i = 0; i + 1 < rank; ++i)
    a.globalStrides[rank - i - 2] = uint64_t(meta.elemSize) * tensor.strides[i];
  a.globalStrides[rank - 1] = a.globalDim[rank - 1] * (rank == 1 ? meta.elemSize : a.globalStrides[rank - 2]);
  a.swizzle = meta.swizzle;
  a.oobFill = tensor.padding == "nan" ? 1 : 0;
  return a;
}

llvm::Expected<ParamLayout> buildParamLayout(const Capture &c, uint32_t base) {
  const bool cuda = c.isCuda();
  const auto &metas = c.metadata.tensordescMeta;
  ParamLayout layout;
  layout.base = base;
  auto &out = layout.params;
  size_t descIndex = 0;
  for (const auto &[name, type] : c.signature) {
    llvm::StringRef ty(type);
    if (ty == "constexpr")
      continue;
    if (ty.starts_with("(") || ty.starts_with("["))
      return fail(c, "argument " + name + ": tuple arguments are not supported by the runner");
    if (ty.starts_with("tensordesc")) {
      auto rank = descRank(ty);
      if (!rank)
        return fail(c, "argument " + name + ": cannot read the rank of " + type);
      auto t = c.tensors.find(name);
      if (t == c.tensors.end() || !t->second.isDescriptor)
        return fail(c, "tensor descriptor argument " + name + " has no entry in \"descs\"");
      const TensorSpec &tensor = t->second;
      if (tensor.shape.size() != *rank)
        return fail(c, "descs." + name + ": rank " + llvm::Twine(tensor.shape.size()) + " but the signature says " +
                           llvm::Twine(*rank));
      if (tensor.strides.back() != 1)
        return fail(c, "descs." + name + ": the last stride must be 1 (Triton requires it)");
      std::optional<TensorDescMeta> meta;
      if (!metas.empty()) {
        if (descIndex >= metas.size())
          return fail(c, "more tensor descriptors than tensordesc_meta entries in the metadata");
        meta = metas[descIndex];
      }
      ++descIndex;
      std::vector<int64_t> shape = tensor.shape;
      if (meta) {
        if (!cuda)
          return fail(c, "argument " + name + ": hip tensor descriptors (TDM) are not supported by the runner");
        if (meta->blockSize.size() != *rank)
          return fail(c, "tensordesc_meta of " + name + ": block_size rank differs from the descriptor's");
        Param p;
        p.name = name;
        p.tritonType = "nvTmaDesc";
        p.cType = "CUtensorMap";
        p.kind = ParamKind::TensorMap;
        p.size = 128;
        p.align = 64;
        p.tensor = name;
        p.tensorMap = tensorMapArgs(tensor, *meta);
        out.push_back(std::move(p));
        if (meta->fp4Padded)
          shape.back() *= 2;
      } else {
        out.push_back(pointer(name + ".base", "*" + tensor.dtype, name, cuda, ParamKind::Pointer));
        for (size_t i = 0; i < *rank; ++i)
          out.push_back(scalar(name + ".shape[" + std::to_string(i) + "]", "i64", shape[i]));
        for (size_t i = 0; i < *rank; ++i)
          out.push_back(scalar(name + ".strides[" + std::to_string(i) + "]", "i64", tensor.strides[i]));
        out.push_back(scalar(name + ".padding_nan", "i1", tensor.padding == "nan"));
      }
      for (size_t i = 0; i < *rank; ++i)
        out.push_back(scalar(name + ".shape[" + std::to_string(i) + "]", "i32", shape[i]));
      for (size_t i = 0; i < *rank; ++i)
        out.push_back(scalar(name + ".strides[" + std::to_string(i) + "]", "i64", tensor.strides[i]));
      continue;
    }
    if (ty.starts_with("*")) {
      auto t = c.tensors.find(name);
      if (t == c.tensors.end())
        return fail(c, "pointer argument " + name + " has no entry in \"ptrs\" (its shape and dtype)");
      out.push_back(pointer(name, ty, name, cuda, ParamKind::Pointer));
      continue;
    }
    if (!scalarCType(ty))
      return fail(c, "argument " + name + ": unsupported type " + type);
    auto v = c.args.find(name);
    if (v == c.args.end())
      return fail(c, "scalar argument " + name + " (" + type + ") has no value in \"args\"");
    uint64_t bits = isFloatType(ty) ? packFloat(ty, v->second.isFloat ? v->second.f : double(v->second.i))
                                    : uint64_t(v->second.i);
    out.push_back(scalar(name, ty, bits));
  }
  if (!metas.empty() && descIndex != metas.size())
    return fail(c, "tensordesc_meta has " + llvm::Twine(metas.size()) + " entries but the signature " +
                       llvm::Twine(descIndex) + " tensor descriptors");
  out.push_back(pointer("global_scratch", "*i8", c.metadata.globalScratchSize > 0 && cuda ? "global_scratch" : "",
                        cuda, ParamKind::Scratch));
  out.push_back(pointer("profile_scratch", "*i8", c.metadata.profileScratchSize > 0 ? "profile_scratch" : "", cuda,
                        ParamKind::Scratch));

  uint32_t cursor = 0;
  for (Param &p : out) {
    uint32_t absolute = base + cursor;
    absolute = (absolute + p.align - 1) / p.align * p.align;
    p.offset = absolute - base;
    cursor = p.offset + p.size;
  }
  layout.size = cursor;
  return layout;
}

llvm::json::Value layoutToJson(const ParamLayout &layout) {
  llvm::json::Array params;
  for (const Param &p : layout.params) {
    llvm::json::Object o{{"name", p.name},     {"type", p.tritonType}, {"ctype", p.cType},
                         {"offset", p.offset}, {"size", p.size},       {"align", p.align}};
    switch (p.kind) {
    case ParamKind::Scalar:
      o["kind"] = "scalar";
      o["bits"] = static_cast<int64_t>(p.bits);
      break;
    case ParamKind::Pointer:
    case ParamKind::Scratch:
      o["kind"] = p.kind == ParamKind::Pointer ? "pointer" : "scratch";
      o["tensor"] = p.tensor.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(p.tensor);
      break;
    case ParamKind::TensorMap: {
      o["kind"] = "tensormap";
      o["tensor"] = p.tensor;
      const TensorMapArgs &a = *p.tensorMap;
      auto list = [](const auto &v) {
        llvm::json::Array arr;
        for (auto x : v)
          arr.push_back(static_cast<int64_t>(x));
        return arr;
      };
      o["tensormap"] = llvm::json::Object{{"dataType", a.dataType},
                                          {"rank", a.rank},
                                          {"globalDim", list(a.globalDim)},
                                          {"globalStrides", list(a.globalStrides)},
                                          {"boxDim", list(a.boxDim)},
                                          {"elementStrides", list(a.elementStrides)},
                                          {"interleave", a.interleave},
                                          {"swizzle", a.swizzle},
                                          {"l2Promotion", a.l2Promotion},
                                          {"oobFill", a.oobFill}};
      break;
    }
    }
    params.push_back(std::move(o));
  }
  return llvm::json::Object{{"base", layout.base}, {"size", layout.size}, {"params", std::move(params)}};
}

} // namespace tlxsim::runner
