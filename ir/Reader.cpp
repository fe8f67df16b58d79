#include "ir/Reader.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tlxsim::ir {

std::string resolveTTGIRPath(llvm::StringRef path, llvm::raw_ostream &diag) {
  if (!llvm::sys::fs::is_directory(path))
    return path.str();
  std::vector<std::string> found;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".ttgir")
      found.push_back(it->path());
  if (found.size() == 1)
    return found.front();
  diag << path << ": error: expected exactly one .ttgir file in this directory, found " << found.size() << "\n";
  return {};
}

OwningOpRef<ModuleOp> readTTGIR(llvm::StringRef path, MLIRContext &ctx, llvm::raw_ostream &diag) {
  std::string file = resolveTTGIRPath(path, diag);
  if (file.empty())
    return nullptr;
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(file, /*IsText=*/true);
  if (!buffer) {
    diag << file << ": error: cannot read file: " << buffer.getError().message() << "\n";
    return nullptr;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, diag);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&ctx));
  if (!module)
    return nullptr;
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace tlxsim::ir
