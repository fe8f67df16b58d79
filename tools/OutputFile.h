// Writing a whole output file (`--trace-out`, `--sarif`, `--write-baseline`, `report -o`, `trace -o`) so that a
// failed write (disk full, /dev/full, a vanished directory) is an error with the file's name, never LLVM's
// fatal "IO failure on output stream" at exit nor an exit code that reads as "findings".
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace tlxsim::tool {

/// Opens `path` (`-`: standard output), lets `write` fill it, closes it and checks every write.
/// `what` names the output in the message ("SARIF", "the trace"). Errors: "cannot write WHAT PATH:
/// REASON" when the file cannot be created or any write fails.
llvm::Error writeOutputFile(llvm::StringRef path, llvm::StringRef what,
                            llvm::function_ref<void(llvm::raw_ostream &)> write);

/// Flushes standard output and reports a failed write of it (e.g. `--json > /dev/full`) on stderr;
/// returns whether standard output was written completely. Clears the stream's error so that its
/// destructor does not abort.
bool flushStandardOutput();

} // namespace tlxsim::tool
