// libFuzzer target: the TTGIR reader and the lowering to the simulator's program must
// never crash, whatever the bytes. Build with clang-22 (see tests/fuzz/README.md).
#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "sim/Lowering.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context now and then keeps the uniqued types and attributes from growing.
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static int uses = 0;
  if (!ctx || ++uses % 2000 == 0)
    ctx = tlxsim::ir::makeContext();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto module = tlxsim::ir::readTTGIRText(text, "fuzz.ttgir", *ctx, llvm::nulls());
  if (module) {
    auto program = tlxsim::sim::lowerModule(*module);
    if (!program)
      llvm::consumeError(program.takeError());
  }
  return 0;
}
