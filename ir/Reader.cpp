#include "ir/Reader.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tlxsim::ir {

/// Deepest bracket nesting the reader accepts. MLIR's parser recurses once per level and
/// has no limit of its own (found by fuzzing: tens of thousands of '(' overflow the
/// stack); real TTGIR nests a few dozen levels.
constexpr int kMaxNesting = 512;

/// The first position where brackets nest deeper than kMaxNesting (outside string
/// literals and comments), or null.
static const char *tooDeep(llvm::StringRef text) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') { // string literal with escapes
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNesting)
        return text.data() + i;
    } else if (c == ')' || c == ']' || c == '}' || (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      depth = depth > 0 ? depth - 1 : 0;
    }
  }
  return nullptr;
}

/// Adds to verifier error `d` a note with its op's position in the TTGIR buffer (buffer 1 of `sourceMgr`), found
/// among the parser's op definitions `parsed`: an op at the error's location whose name the message starts with
/// ("'scf.for' op ..."). Triton's ops carry Python locations, which many ops share (a loop's index ops, constants), so
/// the note says how many such ops there are when it is not one. Nothing when the error already points into the
/// TTGIR, or no op matches.
static void noteTTGIRPosition(Diagnostic &d, const AsmParserState &parsed, const llvm::SourceMgr &sourceMgr,
                              MLIRContext &ctx) {
  llvm::StringRef buffer = sourceMgr.getMemoryBuffer(1)->getBufferIdentifier();
  if (auto file = dyn_cast<FileLineColLoc>(d.getLocation()); file && file.getFilename() == buffer)
    return;
  std::string message = d.str();
  const AsmParserState::OperationDefinition *first = nullptr;
  size_t matches = 0;
  for (const AsmParserState::OperationDefinition &def : parsed.getOpDefs())
    if (def.op->getLoc() == d.getLocation() &&
        llvm::StringRef(message).starts_with(("'" + def.op->getName().getStringRef() + "' op").str())) {
      first = first ? first : &def;
      ++matches;
    }
  if (!first)
    return;
  auto [line, col] = sourceMgr.getLineAndColumn(first->loc.Start);
  Location here = FileLineColLoc::get(&ctx, buffer, line, col);
  if (llvm::any_of(d.getNotes(), [&](const Diagnostic &n) { return n.getLocation() == here; }))
    return;
  Diagnostic &note = d.attachNote(here);
  note << "the '" << first->op->getName() << "' op in the TTGIR";
  if (matches > 1)
    note << " (the first of " << matches << " at that source location)";
}

/// Parses and verifies one buffer; diagnostics name `buffer`'s identifier.
static OwningOpRef<ModuleOp> parseBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer, MLIRContext &ctx,
                                         llvm::raw_ostream &diag) {
  llvm::SourceMgr sourceMgr;
  llvm::StringRef text = buffer->getBuffer();
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  if (const char *where = tooDeep(text)) {
    sourceMgr.PrintMessage(diag, llvm::SMLoc::getFromPointer(where), llvm::SourceMgr::DK_Error,
                           "brackets nest deeper than " + llvm::Twine(kMaxNesting) +
                               " levels (the reader's limit; Triton's TTGIR nests far less)");
    return nullptr;
  }
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, diag);
  // A verifier error names the op by its location, which in Triton's TTGIR is the Python source line; the op's
  // own dump (MLIR's "see current operation", tens of lines of generic IR) is left out and the error gets a
  // note with the op's position in the TTGIR file instead (from the parser's op definitions).
  ctx.printOpOnDiagnostic(false);
  AsmParserState parsed;
  bool verifying = false;
  // Only the first error is reported: later ones follow from it (MLIR's lexer, for one,
  // repeats an error each time a type parser re-reads the bad token).
  bool reported = false;
  ScopedDiagnosticHandler firstErrorOnly(&ctx, [&](Diagnostic &d) -> LogicalResult {
    if (d.getSeverity() != DiagnosticSeverity::Error)
      return failure(); // to the source-manager handler
    if (reported)
      return success(); // swallowed
    reported = true;
    if (verifying)
      noteTTGIRPosition(d, parsed, sourceMgr, ctx);
    return failure();
  });
  Block block;
  ParserConfig config(&ctx, /*verifyAfterParse=*/false); // verified below, with the op positions at hand
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &parsed)))
    return nullptr;
  OwningOpRef<ModuleOp> module = mlir::detail::constructContainerOpForParserIfNecessary<ModuleOp>(
      &block, &ctx, FileLineColLoc::get(&ctx, sourceMgr.getMemoryBuffer(1)->getBufferIdentifier(), 0, 0));
  verifying = true;
  if (!module || failed(verify(*module)))
    return nullptr;
  return module;
}

static std::unique_ptr<llvm::MemoryBuffer> readBuffer(llvm::StringRef path, llvm::raw_ostream &diag,
                                                      std::string &file) {
  file = resolveTTGIRPath(path, diag);
  if (file.empty())
    return nullptr;
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(file, /*IsText=*/true);
  if (!buffer) {
    diag << file << ": error: cannot read file: " << buffer.getError().message() << "\n";
    return nullptr;
  }
  // A binary (a cubin or hsaco given for the .ttgir next to it): said so, rather than the parser's error quoting its
  // bytes to the terminal.
  if ((*buffer)->getBuffer().starts_with("\x7f" "ELF")) {
    diag << file << ": error: a binary file (ELF: a cubin or hsaco?), not TTGIR text: give the .ttgir, its Triton "
                    "cache directory or the capture folder\n";
    return nullptr;
  }
  return std::move(*buffer);
}

OwningOpRef<ModuleOp> readTTGIR(llvm::StringRef path, MLIRContext &ctx, llvm::raw_ostream &diag) {
  std::string file;
  auto buffer = readBuffer(path, diag, file);
  return buffer ? parseBuffer(std::move(buffer), ctx, diag) : nullptr;
}

OwningOpRef<ModuleOp> readTTGIRText(llvm::StringRef text, llvm::StringRef name, MLIRContext &ctx,
                                    llvm::raw_ostream &diag) {
  return parseBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name), ctx, diag);
}

std::vector<OwningOpRef<ModuleOp>> readTTGIRSplit(llvm::StringRef path, MLIRContext &ctx, llvm::raw_ostream &diag) {
  std::string file;
  auto buffer = readBuffer(path, diag, file);
  if (!buffer)
    return {};
  std::vector<OwningOpRef<ModuleOp>> modules;
  bool ok = true;
  llvm::StringRef text = buffer->getBuffer();
  size_t lineOfChunk = 0, line = 0;
  std::string chunk;
  auto flush = [&]() {
    // Pad with the lines before the chunk so that diagnostics keep the file's line numbers.
    std::string padded(lineOfChunk, '\n');
    padded += chunk;
    auto module = parseBuffer(llvm::MemoryBuffer::getMemBufferCopy(padded, file), ctx, diag);
    ok &= static_cast<bool>(module);
    if (module)
      modules.push_back(std::move(module));
  };
  while (!text.empty()) {
    auto [current, rest] = text.split('\n');
    if (current.trim() == "// -----") {
      flush();
      chunk.clear();
      lineOfChunk = line + 1;
    } else {
      chunk += current.str() + "\n";
    }
    text = rest;
    ++line;
  }
  flush();
  if (!ok)
    modules.clear();
  return modules;
}

} // namespace tlxsim::ir
