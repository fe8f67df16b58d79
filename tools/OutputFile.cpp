#include "tools/OutputFile.h"

#include "llvm/Support/FileSystem.h"

namespace tlxsim::tool {

namespace {
llvm::Error streamError(llvm::raw_fd_ostream &os, llvm::StringRef path, llvm::StringRef what) {
  if (!os.has_error())
    return llvm::Error::success();
  std::error_code ec = os.error();
  os.clear_error();
  return llvm::createStringError(ec, "cannot write %s %s: %s", what.str().c_str(), path.str().c_str(),
                                 ec.message().c_str());
}
} // namespace

llvm::Error writeOutputFile(llvm::StringRef path, llvm::StringRef what,
                            llvm::function_ref<void(llvm::raw_ostream &)> write) {
  if (path == "-") {
    write(llvm::outs());
    llvm::outs().flush();
    return streamError(llvm::outs(), "(standard output)", what);
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(ec, "cannot write %s %s: %s", what.str().c_str(), path.str().c_str(),
                                   ec.message().c_str());
  write(os);
  os.close();
  return streamError(os, path, what);
}

bool flushStandardOutput() {
  llvm::outs().flush();
  if (llvm::Error err = streamError(llvm::outs(), "(standard output)", "the output")) {
    llvm::errs() << "tlx-sim: error: " << llvm::toString(std::move(err)) << "\n";
    return false;
  }
  return true;
}

} // namespace tlxsim::tool
