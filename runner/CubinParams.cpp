#include "runner/CubinParams.h"

#include "llvm/BinaryFormat/ELF.h"

#include <algorithm>
#include <cstring>

namespace tlxsim::runner {

namespace {
constexpr uint8_t kFormatSizedValue = 4; ///< EIFMT_SVAL
constexpr uint8_t kAttrParamCbank = 0x0a;
constexpr uint8_t kAttrKParamInfo = 0x17;

template <typename T> bool readAt(llvm::StringRef bytes, uint64_t offset, T &out) {
  if (offset + sizeof(T) > bytes.size() || offset + sizeof(T) < offset)
    return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}
} // namespace

llvm::Expected<CubinParams> readCubinParams(llvm::StringRef bytes, llvm::StringRef kernel) {
  using namespace llvm::ELF;
  Elf64_Ehdr header;
  if (!readAt(bytes, 0, header) || std::memcmp(header.e_ident, ElfMagic, 4) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64)
    return llvm::createStringError("not a 64-bit ELF cubin");
  auto section = [&](unsigned i, Elf64_Shdr &out) {
    return readAt(bytes, header.e_shoff + uint64_t(i) * header.e_shentsize, out);
  };
  Elf64_Shdr names;
  if (header.e_shentsize != sizeof(Elf64_Shdr) || !section(header.e_shstrndx, names))
    return llvm::createStringError("malformed ELF section table");
  std::string wanted = (".nv.info." + kernel).str();
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr s;
    if (!section(i, s))
      return llvm::createStringError("malformed ELF section table");
    uint64_t nameAt = names.sh_offset + s.sh_name;
    if (nameAt >= bytes.size())
      continue;
    llvm::StringRef name(bytes.data() + nameAt, strnlen(bytes.data() + nameAt, bytes.size() - nameAt));
    if (name != wanted)
      continue;
    if (s.sh_offset + s.sh_size > bytes.size())
      return llvm::createStringError("truncated %s section", wanted.c_str());
    llvm::StringRef data = bytes.substr(s.sh_offset, s.sh_size);
    CubinParams out;
    for (size_t at = 0; at + 4 <= data.size();) {
      uint8_t format = data[at], attr = data[at + 1];
      uint16_t value = 0;
      readAt(data, at + 2, value);
      size_t next = at + 4 + (format == kFormatSizedValue ? value : 0);
      if (next > data.size())
        return llvm::createStringError("truncated %s section", wanted.c_str());
      if (format == kFormatSizedValue && attr == kAttrKParamInfo && value >= 12) {
        uint16_t ordinal = 0, offset = 0;
        uint32_t flags = 0;
        readAt(data, at + 8, ordinal);
        readAt(data, at + 10, offset);
        readAt(data, at + 12, flags);
        out.params.push_back({ordinal, offset, (flags >> 18) & 0x3fff});
      } else if (format == kFormatSizedValue && attr == kAttrParamCbank && value >= 8) {
        uint16_t offset = 0, size = 0;
        readAt(data, at + 8, offset);
        readAt(data, at + 10, size);
        out.cbankOffset = offset;
        out.cbankSize = size;
      }
      at = next;
    }
    std::sort(out.params.begin(), out.params.end(),
              [](const CubinParam &a, const CubinParam &b) { return a.ordinal < b.ordinal; });
    return out;
  }
  return llvm::createStringError("no %s section (kernel not in this cubin?)", wanted.c_str());
}

} // namespace tlxsim::runner
