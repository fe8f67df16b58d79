#include "runner/Capture.h"

#include "runner/JsonOrder.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/FileSystem.h"

namespace tlxsim::runner {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

int64_t TensorSpec::extentElements() const {
  int64_t extent = 1;
  for (size_t i = 0; i < shape.size(); ++i)
    extent += (shape[i] - 1) * strides[i];
  return extent;
}

std::optional<int64_t> Capture::shapeValue(llvm::StringRef key) const {
  for (const auto &[name, value] : shape)
    if (name == key)
      return value;
  return std::nullopt;
}

std::vector<std::string> shapeMismatches(const Capture &c) {
  std::vector<std::string> out;
  for (const auto &[key, value] : c.shape) {
    auto arg = c.args.find(key);
    if (arg != c.args.end() && !arg->second.isFloat && arg->second.i != value)
      out.push_back("shape." + key + " = " + std::to_string(value) + " but args." + key + " = " +
                    std::to_string(arg->second.i));
  }
  return out;
}

int dtypeBytes(llvm::StringRef dtype) {
  if (dtype == "fp64" || dtype == "i64" || dtype == "u64")
    return 8;
  if (dtype == "fp32" || dtype == "f32" || dtype == "i32" || dtype == "u32" || dtype == "tf32")
    return 4;
  if (dtype == "fp16" || dtype == "bf16" || dtype == "i16" || dtype == "u16")
    return 2;
  if (dtype.starts_with("fp8") || dtype == "i8" || dtype == "u8" || dtype == "i1" || dtype == "u1")
    return 1;
  return 0;
}

namespace {

llvm::Error fail(llvm::StringRef where, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), (where + ": " + what).str());
}

llvm::Expected<std::vector<int64_t>> intList(const Object &obj, llvm::StringRef key, llvm::StringRef where,
                                             bool required = true) {
  const Array *array = obj.getArray(key);
  if (!array) {
    if (!required && !obj.get(key))
      return std::vector<int64_t>{};
    return fail(where, "\"" + key + "\" must be a list of integers");
  }
  std::vector<int64_t> out;
  for (const Value &v : *array) {
    auto i = v.getAsInteger();
    if (!i)
      return fail(where, "\"" + key + "\" must be a list of integers");
    out.push_back(*i);
  }
  return out;
}

llvm::Expected<TensorSpec> readTensor(const Object &obj, llvm::StringRef name, bool isDescriptor,
                                      llvm::StringRef where) {
  std::string at = (where + ": " + (isDescriptor ? "descs." : "ptrs.") + name).str();
  TensorSpec t;
  t.name = name.str();
  t.isDescriptor = isDescriptor;
  auto dtype = obj.getString("dtype");
  if (!dtype || dtypeBytes(*dtype) == 0)
    return fail(at, "missing or unknown \"dtype\"");
  t.dtype = dtype->str();
  auto shape = intList(obj, "shape", at);
  if (!shape)
    return shape.takeError();
  t.shape = *shape;
  if (t.shape.empty())
    return fail(at, "empty \"shape\"");
  for (int64_t d : t.shape)
    if (d <= 0)
      return fail(at, "\"shape\" entries must be positive");
  auto strides = intList(obj, "strides", at, /*required=*/false);
  if (!strides)
    return strides.takeError();
  if (strides->empty()) {
    strides->assign(t.shape.size(), 1);
    for (size_t i = t.shape.size() - 1; i > 0; --i)
      (*strides)[i - 1] = (*strides)[i] * t.shape[i];
  }
  if (strides->size() != t.shape.size())
    return fail(at, "\"strides\" and \"shape\" differ in rank");
  t.strides = *strides;
  if (isDescriptor) {
    auto block = intList(obj, "block", at);
    if (!block)
      return block.takeError();
    if (block->size() != t.shape.size())
      return fail(at, "\"block\" and \"shape\" differ in rank");
    t.block = *block;
    if (auto padding = obj.getString("padding"))
      t.padding = padding->str();
  }
  return t;
}

llvm::Expected<KernelMetadata> readMetadata(const Object &obj, llvm::StringRef where) {
  KernelMetadata m;
  auto name = obj.getString("name");
  if (!name)
    return fail(where, "missing \"name\"");
  m.name = name->str();
  const Object *target = obj.getObject("target");
  if (!target)
    return fail(where, "missing \"target\"");
  if (auto backend = target->getString("backend"))
    m.backend = backend->str();
  if (auto arch = target->getInteger("arch"))
    m.arch = std::to_string(*arch);
  else if (auto archText = target->getString("arch"))
    m.arch = archText->str();
  if (m.backend != "cuda" && m.backend != "hip")
    return fail(where, "target.backend must be \"cuda\" or \"hip\"");
  auto integer = [&](llvm::StringRef key, auto &out, bool required) -> llvm::Error {
    if (auto v = obj.getInteger(key)) {
      out = *v;
      return llvm::Error::success();
    }
    if (required || (obj.get(key) && !obj.get(key)->getAsNull()))
      return fail(where, "\"" + key + "\" must be an integer");
    return llvm::Error::success();
  };
  if (auto err = integer("num_warps", m.numWarps, true))
    return err;
  if (auto err = integer("shared", m.shared, true))
    return err;
  if (auto err = integer("num_ctas", m.numCtas, false))
    return err;
  if (auto err = integer("warp_size", m.warpSize, false))
    return err;
  if (auto err = integer("global_scratch_size", m.globalScratchSize, false))
    return err;
  if (auto err = integer("global_scratch_align", m.globalScratchAlign, false))
    return err;
  if (auto err = integer("profile_scratch_size", m.profileScratchSize, false))
    return err;
  if (auto err = integer("profile_scratch_align", m.profileScratchAlign, false))
    return err;
  m.launchCooperativeGrid = obj.getBoolean("launch_cooperative_grid").value_or(false);
  m.launchPdl = obj.getBoolean("launch_pdl").value_or(false);
  if (auto v = obj.getInteger("maxnreg"))
    m.maxnreg = static_cast<int>(*v);
  if (m.numWarps <= 0 || m.numCtas <= 0 || m.warpSize <= 0 || m.shared < 0)
    return fail(where, "num_warps, num_ctas and warp_size must be positive and shared non-negative");
  if (const Array *metas = obj.getArray("tensordesc_meta")) {
    for (const Value &v : *metas) {
      if (v.getAsNull()) {
        m.tensordescMeta.push_back(std::nullopt);
        continue;
      }
      const Object *e = v.getAsObject();
      if (!e)
        return fail(where, "tensordesc_meta entries must be objects or null");
      TensorDescMeta d;
      auto sw = e->getInteger("swizzle"), es = e->getInteger("elem_size"), et = e->getInteger("elem_type");
      auto bs = intList(*e, "block_size", where);
      if (!sw || !es || !et || !bs)
        return bs ? fail(where, "tensordesc_meta entry lacks swizzle/elem_size/elem_type") : bs.takeError();
      d.swizzle = *sw;
      d.elemSize = *es;
      d.elemType = *et;
      d.blockSize = *bs;
      d.fp4Padded = e->getBoolean("fp4_padded").value_or(false);
      m.tensordescMeta.push_back(d);
    }
  }
  return m;
}

llvm::Expected<std::string> readText(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail(path, "cannot read: " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

} // namespace

llvm::Expected<Capture> parseCapture(llvm::StringRef launchText, llvm::StringRef metadataText,
                                     llvm::StringRef where) {
  std::string launchWhere = (where + "/launch.json").str();
  auto launch = llvm::json::parse(launchText);
  if (!launch)
    return fail(launchWhere, llvm::toString(launch.takeError()));
  const Object *l = launch->getAsObject();
  if (!l)
    return fail(launchWhere, "not a JSON object");
  Capture c;
  c.dir = where.str();
  c.launchJson = *l;
  c.kernel = l->getString("kernel").value_or("").str();
  c.module = l->getString("module").value_or("").str();
  c.config = l->getString("config").value_or("").str();
  c.target = l->getString("target").value_or("").str();

  auto grid = intList(*l, "grid", launchWhere);
  if (!grid)
    return grid.takeError();
  if (grid->empty() || grid->size() > 3)
    return fail(launchWhere, "\"grid\" must have 1 to 3 entries");
  for (size_t i = 0; i < grid->size(); ++i) {
    if ((*grid)[i] <= 0 || (*grid)[i] > INT32_MAX)
      return fail(launchWhere, "\"grid\" entries must be positive 32-bit integers");
    c.grid[i] = (*grid)[i];
  }

  if (!l->getObject("signature"))
    return fail(launchWhere, "missing \"signature\" (the kernel's parameter types; re-capture with tlx_sim.capture)");
  auto order = orderedMemberKeys(launchText, "signature");
  if (!order)
    return fail(launchWhere, llvm::toString(order.takeError()));
  const Object *sig = l->getObject("signature");
  for (const std::string &name : *order) {
    auto type = sig->getString(name);
    if (!type)
      return fail(launchWhere, "signature." + name + " must be a type string");
    c.signature.emplace_back(name, type->str());
  }

  if (const Object *args = l->getObject("args")) {
    for (const auto &[key, value] : *args) {
      ScalarValue s;
      if (auto i = value.getAsInteger()) {
        s.i = *i;
      } else if (auto f = value.getAsNumber()) {
        s.isFloat = true;
        s.f = *f;
      } else if (auto b = value.getAsBoolean()) {
        s.i = *b;
      } else {
        return fail(launchWhere, "args." + key.str() + " must be a number");
      }
      c.args[key.str()] = s;
    }
  }
  for (auto [key, isDesc] : {std::pair<const char *, bool>{"descs", true}, {"ptrs", false}}) {
    const Object *group = l->getObject(key);
    if (!group)
      continue;
    for (const auto &[name, value] : *group) {
      const Object *t = value.getAsObject();
      if (!t)
        return fail(launchWhere, llvm::Twine(key) + "." + name.str() + " must be an object");
      auto spec = readTensor(*t, name.str(), isDesc, launchWhere);
      if (!spec)
        return spec.takeError();
      c.tensors[name.str()] = std::move(*spec);
    }
  }
  if (auto order = orderedMemberKeys(launchText, "shape")) {
    const Object *shape = l->getObject("shape");
    for (const std::string &key : *order)
      if (auto v = shape->getInteger(key))
        c.shape.emplace_back(key, *v);
  } else {
    llvm::consumeError(order.takeError());
  }

  std::string metaWhere = (where + "/" + c.kernel + ".json").str();
  auto meta = llvm::json::parse(metadataText);
  if (!meta)
    return fail(metaWhere, llvm::toString(meta.takeError()));
  if (!meta->getAsObject())
    return fail(metaWhere, "not a JSON object");
  auto metadata = readMetadata(*meta->getAsObject(), metaWhere);
  if (!metadata)
    return metadata.takeError();
  c.metadata = std::move(*metadata);
  if (c.kernel.empty())
    c.kernel = c.metadata.name;
  return c;
}

llvm::Expected<Capture> readCapture(llvm::StringRef path) {
  if (!llvm::sys::fs::exists(path))
    return fail(path, "no such capture folder or launch.json");
  llvm::SmallString<256> dir(path);
  if (!llvm::sys::fs::is_directory(dir))
    llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  llvm::SmallString<256> launchPath(dir);
  llvm::sys::path::append(launchPath, "launch.json");
  auto launchText = readText(launchPath);
  if (!launchText)
    return launchText.takeError();
  auto launch = llvm::json::parse(*launchText);
  if (!launch)
    return fail(launchPath, llvm::toString(launch.takeError()));
  std::string kernel;
  if (const Object *l = launch->getAsObject())
    kernel = l->getString("kernel").value_or("").str();
  if (kernel.empty())
    return fail(launchPath, "missing \"kernel\"");
  llvm::SmallString<256> metaPath(dir);
  llvm::sys::path::append(metaPath, kernel + ".json");
  auto metaText = readText(metaPath);
  if (!metaText)
    return metaText.takeError();
  auto capture = parseCapture(*launchText, *metaText, dir);
  if (!capture)
    return capture.takeError();
  llvm::SmallString<256> binary(dir);
  llvm::sys::path::append(binary, kernel + (capture->isCuda() ? ".cubin" : ".hsaco"));
  if (!llvm::sys::fs::exists(binary))
    return fail(dir, "no binary " + llvm::sys::path::filename(binary) + " in the capture");
  capture->binaryPath = binary.str().str();
  return capture;
}

} // namespace tlxsim::runner
