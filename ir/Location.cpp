#include "ir/Location.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace tlxsim::ir {

std::string SourceLoc::str() const {
  if (!valid())
    return "<unknown>";
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

/// Appends the file frames of `loc`, innermost first.
static void collectFrames(Location loc, std::vector<SourceLoc> &frames) {
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    frames.push_back({file.getFilename().str(), file.getLine(), file.getColumn()});
  } else if (auto name = dyn_cast<NameLoc>(loc)) {
    collectFrames(name.getChildLoc(), frames);
  } else if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    collectFrames(call.getCallee(), frames);
    collectFrames(call.getCaller(), frames);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations()) {
      size_t before = frames.size();
      collectFrames(inner, frames);
      if (frames.size() != before)
        break;
    }
  }
}

static bool isTritonLibrary(llvm::StringRef file) {
  return file.starts_with("triton/") || file.contains("/triton/language/") || file.contains("/triton/experimental/") ||
         file.contains("site-packages/triton/");
}

SourceLoc pythonLocation(Location loc) {
  std::vector<SourceLoc> frames;
  collectFrames(loc, frames);
  for (const SourceLoc &frame : frames)
    if (!isTritonLibrary(frame.file))
      return frame;
  return frames.empty() ? SourceLoc{} : frames.front();
}

std::optional<std::string> variableName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return variableName(call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto found = variableName(inner))
        return found;
  return std::nullopt;
}

std::optional<int64_t> argDivisibility(Operation *func, unsigned i) {
  if (auto attrs = func->getAttrOfType<ArrayAttr>("arg_attrs"))
    if (i < attrs.size())
      if (auto dict = dyn_cast<DictionaryAttr>(attrs[i]))
        if (auto d = dict.getAs<IntegerAttr>("tt.divisibility"))
          return d.getInt();
  return std::nullopt;
}

} // namespace tlxsim::ir
