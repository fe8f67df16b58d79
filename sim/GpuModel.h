// A GPU model: named numeric parameters loaded from models/<name>.json, each with its unit
// and source. The simulator reads every cost and limit from here; none is hard-coded.
#pragma once

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tlxsim::sim {

class GpuModel {
public:
  struct Param {
    double value = 0;
    std::string unit, source;
  };

  /// Loads a model by name (`h200` -> `<modelsDir>/h200.json`) or by path (ends in `.json`).
  /// Fails with a message naming the file on a missing file, bad JSON or a parameter
  /// without `value`, `unit` and `source`.
  static llvm::Expected<GpuModel> load(llvm::StringRef nameOrPath, llvm::StringRef modelsDir);

  /// Directory of the bundled models: $TLXSIM_MODELS if set, else the source tree's models/.
  static std::string defaultModelsDir();

  /// The model name conventionally used for a `ttg.target` ("cuda:90" -> "h200"); empty if none.
  static std::string defaultForTarget(llvm::StringRef target);

  /// `--set KNOB=VALUE`: overrides one parameter (which must exist).
  llvm::Error set(llvm::StringRef assignment);

  /// Parameter `key`; a missing key is a model-file error reported by `require()`.
  double get(llvm::StringRef key) const;
  /// Checks that all of `keys` exist; the error lists the missing ones and the file.
  llvm::Error require(llvm::ArrayRef<llvm::StringRef> keys) const;

  const std::string &name() const { return name_; }
  const std::string &target() const { return target_; }
  const std::string &path() const { return path_; }
  const llvm::StringMap<Param> &params() const { return params_; }

private:
  std::string name_, target_, path_;
  llvm::StringMap<Param> params_;
};

} // namespace tlxsim::sim
