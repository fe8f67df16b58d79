// A verifier finding, printed as a compiler diagnostic at the Python line and as the
// `check --json` object of design.md.
#pragma once

#include "ir/Location.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace tlxsim::verifier {

/// Another access or agent involved in a finding.
struct Related {
  ir::SourceLoc location;
  std::string partition;
  int64_t iteration = -1; ///< innermost loop iteration, -1 if outside loops
  std::string op;
  std::string message;
};

/// The state of the barrier a finding is about.
struct BarrierState {
  std::string name;
  int64_t phase = 0, pending = 0, expected = 0, tx = 0;
};

struct Finding {
  std::string cls; ///< deadlock, arrive-count, tx-count, ... (design.md)
  std::string message;
  ir::SourceLoc location;
  std::vector<Related> related;
  std::optional<BarrierState> barrier;
  std::string schedule = "default";
  std::vector<std::pair<ir::SourceLoc, std::string>> notes; ///< barrier history and other context
};

/// Whether `f` is about the allocation `name` (a barrier or data buffer's Python name; the prover marks a second
/// allocation of one name with a `#N` suffix, which is ignored): its barrier, message, a note or a related access
/// names it as a whole word (`kv_tiles[2]`, `on q_tiles`; not `q_tiles2`). An empty name matches every finding.
bool mentions(const Finding &f, llvm::StringRef name);

/// `file:line:col: error: <class>: <message>` then `note:` lines.
void print(const Finding &finding, llvm::raw_ostream &os);
llvm::json::Object toJson(const Finding &finding);

} // namespace tlxsim::verifier
