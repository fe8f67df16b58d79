#include "sim/Binary.h"

#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <optional>

namespace tlxsim::sim {

namespace {
constexpr uint8_t kFormatSizedValue = 4; ///< EIFMT_SVAL: u16 size + payload; other formats carry a u16
constexpr uint8_t kAttrRegCount = 0x2f;  ///< EIATTR_REGCOUNT: u32 symbol index, u32 registers
constexpr uint8_t kAttrFrameSize = 0x11; ///< EIATTR_FRAME_SIZE: u32 symbol index, u32 stack frame bytes per thread
constexpr uint8_t kAttrMinStack = 0x12;  ///< EIATTR_MIN_STACK_SIZE: u32 symbol index, u32 bytes
constexpr uint8_t kAttrMaxStack = 0x23;  ///< EIATTR_MAX_STACK_SIZE: u32 symbol index, u32 bytes

/// An ELF64 little-endian image read from a file, its section table parsed; the buffer
/// keeps the bytes `elf` and `sections` point into alive.
struct ElfImage {
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  llvm::object::ELF64LEFile elf;
  llvm::object::ELF64LEFile::Elf_Shdr_Range sections;
};

/// Reads `path` as an ELF `kind` ("cubin", "code object"); errors name the file:
/// `PATH: cannot read: ...`, `PATH: not an ELF KIND: ...`, or the section-table error.
llvm::Expected<ElfImage> openElf(llvm::StringRef path, llvm::StringRef kind) {
  auto fail = [&](const std::string &what) {
    return llvm::createStringError("%s: %s", path.str().c_str(), what.c_str());
  };
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read: " + buffer.getError().message());
  auto elf = llvm::object::ELF64LEFile::create((*buffer)->getBuffer());
  if (!elf)
    return fail("not an ELF " + kind.str() + ": " + llvm::toString(elf.takeError()));
  auto sections = elf->sections();
  if (!sections)
    return fail(llvm::toString(sections.takeError()));
  return ElfImage{std::move(*buffer), std::move(*elf), *sections};
}

/// The static shared memory of `kernel` as the CUDA driver counts it (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES): the size
/// of `.nv.shared.<kernel>` less the system-reserved shared memory that ptxas (sm_90 and later) lays at its start.
/// A cubin with reserved shared memory has a `.nv.shared.reserved.N` section (ptxas's `__nv_reservedSMEM_*`
/// objects); the reserve is the `.nv.reservedSmem.cap` symbol's value, else CUDA's 1 KB
/// (cudaDevAttrReservedSharedMemoryPerBlock, CUDA C++ Programming Guide "Shared Memory": "1 KB reserved per
/// block"). Measured on an H200 (driver 580, tests/occupancy/probe_reserved_smem.py): a TLX cubin whose
/// `.nv.shared.<kernel>` is 0x400 reports 0 static bytes, and accepts 232448 dynamic bytes (the 227 KB opt-in).
/// The reserve is the model's `smem_reserved_per_cta_bytes`, which occupancy adds once.
int64_t staticSharedBytes(const llvm::object::ELF64LEFile &elf, llvm::object::ELF64LEFile::Elf_Shdr_Range sections,
                          llvm::object::ELF64LEFile::Elf_Sym_Range symbols, llvm::StringRef strtab,
                          llvm::StringRef kernel) {
  int64_t size = 0;
  bool reserved = false;
  for (const auto &section : sections) {
    auto name = elf.getSectionName(section);
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name == (".nv.shared." + kernel).str())
      size = static_cast<int64_t>(section.sh_size);
    reserved |= name->starts_with(".nv.shared.reserved.");
  }
  if (!reserved)
    return size;
  int64_t cap = 1024;
  for (const auto &symbol : symbols)
    if (auto name = symbol.getName(strtab); !name)
      llvm::consumeError(name.takeError());
    else if (*name == ".nv.reservedSmem.cap" && symbol.st_value > 0)
      cap = static_cast<int64_t>(symbol.st_value);
  return std::max<int64_t>(0, size - cap);
}
} // namespace

llvm::Expected<BinaryResources> readCubinResources(llvm::StringRef path, llvm::StringRef kernel) {
  auto fail = [&](const std::string &what) {
    return llvm::createStringError("%s: %s", path.str().c_str(), what.c_str());
  };
  auto image = openElf(path, "cubin");
  if (!image)
    return image.takeError();
  const llvm::object::ELF64LEFile *elf = &image->elf;
  const auto *sections = &image->sections;

  const llvm::object::ELF64LE::Shdr *symtab = nullptr, *info = nullptr;
  for (const auto &section : *sections) {
    if (section.sh_type == llvm::ELF::SHT_SYMTAB)
      symtab = &section;
    auto name = elf->getSectionName(section);
    if (name && *name == ".nv.info")
      info = &section;
    else if (!name)
      llvm::consumeError(name.takeError());
  }
  if (!symtab || !info)
    return fail("no symbol table or .nv.info section (not a CUDA cubin?)");
  auto symbols = elf->symbols(symtab);
  auto strtab = elf->getStringTableForSymtab(*symtab);
  auto contents = elf->getSectionContents(*info);
  if (!symbols || !strtab || !contents) {
    llvm::consumeError(symbols.takeError());
    llvm::consumeError(strtab.takeError());
    llvm::consumeError(contents.takeError());
    return fail("malformed symbol table or .nv.info section");
  }
  llvm::ArrayRef<uint8_t> data = *contents;
  // Pass 1: the kernel's symbol index (its EIATTR_REGCOUNT record); pass 2: its stack attributes, which ptxas
  // writes after the register count (cuobjdump -elf lists REGCOUNT, FRAME_SIZE, MIN_STACK_SIZE in that order).
  std::optional<uint32_t> kernelIndex;
  BinaryResources out;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i + 4 <= data.size();) {
      uint8_t format = data[i], attr = data[i + 1];
      uint16_t value = llvm::support::endian::read16le(&data[i + 2]);
      size_t next = i + 4 + (format == kFormatSizedValue ? value : 0);
      if (next > data.size())
        return fail("truncated .nv.info section");
      if (format == kFormatSizedValue && value == 8) {
        uint32_t symbolIndex = llvm::support::endian::read32le(&data[i + 4]);
        uint32_t payload = llvm::support::endian::read32le(&data[i + 8]);
        if (pass == 0 && attr == kAttrRegCount && !kernelIndex && symbolIndex < symbols->size()) {
          auto name = (*symbols)[symbolIndex].getName(*strtab);
          if (!name) {
            llvm::consumeError(name.takeError());
          } else if (kernel.empty() || *name == kernel) {
            kernelIndex = symbolIndex;
            out.registersPerThread = static_cast<int32_t>(payload);
            out.kernel = name->str();
            out.staticSharedBytes = staticSharedBytes(*elf, *sections, *symbols, *strtab, *name);
          }
        } else if (pass == 1 && kernelIndex && symbolIndex == *kernelIndex) {
          if (attr == kAttrFrameSize)
            out.stackFrameBytes = static_cast<int32_t>(payload);
          else if (attr == kAttrMinStack)
            out.minStackBytes = static_cast<int32_t>(payload);
          else if (attr == kAttrMaxStack)
            out.maxStackBytes = static_cast<int32_t>(payload);
        }
      }
      i = next;
    }
    if (!kernelIndex)
      return fail("no register count for kernel '" + kernel.str() + "' in .nv.info");
  }
  out.spilledBytes = out.stackFrameBytes;
  for (const auto &section : *sections) {
    auto name = elf->getSectionName(section);
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name != (".text." + out.kernel))
      continue;
    auto text = elf->getSectionContents(section);
    if (!text)
      return fail("malformed code section " + name->str() + ": " + llvm::toString(text.takeError()));
    out.wgmma = cubinWgmmaIssue(*text);
    out.tma = cubinTmaIssue(*text);
  }
  return out;
}

namespace {
/// The VGPR allocation of `kernel` from its kernel descriptor (the 64-byte `<kernel>.kd` object in the
/// code object; LLVM AMDGPUUsage "Kernel Descriptor", code object v3+): COMPUTE_PGM_RSRC1 (byte 48) bits 5:0
/// GRANULATED_WORKITEM_VGPR_COUNT, on gfx90a / gfx942 / gfx950 "(total VGPRs / 8) - 1" (granule 8, arch + acc
/// VGPRs of the unified file), and COMPUTE_PGM_RSRC3 (byte 44) bits 5:0 ACCUM_OFFSET, "(accum_offset / 4) - 1"
/// (the first AGPR's index in the unified file, i.e. the arch VGPRs rounded up to 4). This is what the
/// hardware's wave launch allocates. Returns {allocated VGPRs, accum_offset}, or {0, 0} without a descriptor.
std::pair<int32_t, int32_t> kernelDescriptorVgprs(const ElfImage &image, llvm::StringRef kernel) {
  const llvm::object::ELF64LE::Shdr *symtab = nullptr;
  for (const auto &section : image.sections)
    if (section.sh_type == llvm::ELF::SHT_SYMTAB)
      symtab = &section;
  if (!symtab)
    return {0, 0};
  auto symbols = image.elf.symbols(symtab);
  auto strtab = image.elf.getStringTableForSymtab(*symtab);
  if (!symbols || !strtab) {
    llvm::consumeError(symbols.takeError());
    llvm::consumeError(strtab.takeError());
    return {0, 0};
  }
  std::string wanted = (kernel + ".kd").str();
  for (const auto &symbol : *symbols) {
    auto name = symbol.getName(*strtab);
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name != wanted || symbol.st_size < 64 || symbol.st_shndx >= image.sections.size())
      continue;
    const auto &section = image.sections[symbol.st_shndx];
    auto contents = image.elf.getSectionContents(section);
    if (!contents) {
      llvm::consumeError(contents.takeError());
      return {0, 0};
    }
    uint64_t at = symbol.st_value - section.sh_addr;
    if (symbol.st_value < section.sh_addr || at + 64 > contents->size())
      return {0, 0};
    const uint8_t *kd = contents->data() + at;
    uint32_t rsrc3 = llvm::support::endian::read32le(kd + 44), rsrc1 = llvm::support::endian::read32le(kd + 48);
    return {static_cast<int32_t>(((rsrc1 & 0x3f) + 1) * 8), static_cast<int32_t>(((rsrc3 & 0x3f) + 1) * 4)};
  }
  return {0, 0};
}
} // namespace

llvm::Expected<BinaryResources> readHsacoResources(llvm::StringRef path, llvm::StringRef kernel) {
  auto fail = [&](const std::string &what) {
    return llvm::createStringError("%s: %s", path.str().c_str(), what.c_str());
  };
  auto image = openElf(path, "code object");
  if (!image)
    return image.takeError();
  const llvm::object::ELF64LEFile *elf = &image->elf;
  const auto *sections = &image->sections;
  for (const auto &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    llvm::Error err = llvm::Error::success();
    for (const auto &note : elf->notes(section, err)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      llvm::ArrayRef<uint8_t> desc = note.getDesc(section.sh_addralign);
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(llvm::StringRef(reinterpret_cast<const char *>(desc.data()), desc.size()), false))
        return fail("malformed AMDGPU metadata note");
      if (!doc.getRoot().isMap())
        return fail("malformed AMDGPU metadata note");
      auto &root = doc.getRoot().getMap();
      auto kernels = root.find(doc.getNode("amdhsa.kernels"));
      if (kernels == root.end() || !kernels->second.isArray())
        return fail("no amdhsa.kernels in the AMDGPU metadata");
      for (auto &entry : kernels->second.getArray()) {
        if (!entry.isMap())
          continue;
        auto &map = entry.getMap();
        auto field = [&](llvm::StringRef key) -> int64_t {
          auto it = map.find(doc.getNode(key));
          if (it == map.end())
            return 0;
          if (it->second.getKind() == llvm::msgpack::Type::UInt)
            return static_cast<int64_t>(it->second.getUInt());
          if (it->second.getKind() == llvm::msgpack::Type::Int)
            return it->second.getInt();
          return 0;
        };
        auto name = map.find(doc.getNode(".name"));
        std::string kernelName =
            name != map.end() && name->second.getKind() == llvm::msgpack::Type::String ? name->second.getString().str() : "";
        if (!kernel.empty() && kernelName != kernel)
          continue;
        // `.vgpr_count` is already the unified total (LLVM AMDGPUAsmPrinter: NumVGPRsForWavesPerEU from
        // getTotalNumVGPRs = align(arch, 4) + acc on gfx90a-class targets); `.agpr_count` is its acc part.
        int64_t total = field(".vgpr_count"), agprs = field(".agpr_count");
        BinaryResources out;
        out.kernel = kernelName;
        out.spilledBytes = static_cast<int32_t>(field(".private_segment_fixed_size"));
        auto [allocated, accumOffset] = kernelDescriptorVgprs(*image, kernelName);
        out.registersPerThread = static_cast<int32_t>(allocated > 0 ? allocated : (total + 7) / 8 * 8);
        out.accumulationVgprs = static_cast<int32_t>(allocated > 0 && agprs > 0 ? allocated - accumOffset : agprs);
        out.architecturalVgprs = out.registersPerThread - out.accumulationVgprs;
        // CDNA3 ISA 3.6.4 / AMDGPUUsage: at most 256 arch VGPRs and 256 AGPRs, 512 per wave in all.
        if (out.registersPerThread > 512 || out.architecturalVgprs > 256 || out.accumulationVgprs > 256)
          return fail("kernel '" + kernelName + "' allocates " + std::to_string(out.registersPerThread) +
                      " VGPRs (" + std::to_string(out.architecturalVgprs) + " arch + " +
                      std::to_string(out.accumulationVgprs) + " acc); a wave has at most 256 + 256");
        return out;
      }
    }
    if (err)
      return fail("malformed note section: " + llvm::toString(std::move(err)));
  }
  return fail("no register count for kernel '" + kernel.str() + "' in the AMDGPU metadata");
}

} // namespace tlxsim::sim
