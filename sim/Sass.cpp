// Scans of a kernel's SASS (sm_90, 128-bit instructions), one set of encoding fields for both: its wgmma pipeline
// (cubinWgmmaIssue) and the loops its producers issue TMA loads in (cubinTmaIssue).
#include "sim/Binary.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Endian.h"

#include <vector>

namespace tlxsim::sim {

namespace {

constexpr size_t kBytes = 16; // one sm_90 instruction
constexpr uint64_t kOpcodeMask = 0xfff, kUtmaldg = 0x5b4, kUtmaldgMulticast = 0x3b4, kHgmma = 0x9f0,
                   kHgmmaRegA = 0xdf0, kWarpGroup = 0x9c5, kBra = 0x947, kExit = 0x94d, kRet = 0x950, kBrx = 0x949,
                   kJmx = 0x94c;
constexpr uint64_t kDepbarBit = uint64_t{1} << 47; // WARPGROUP: set for DEPBAR
constexpr uint64_t kAlwaysTrue = 7; // predicate field (bits 12-15) PT / UPT: the instruction is unconditional
/// The scan keeps a dominator set and a loop body of one bit per block for every block: n^2 bits. Past this many
/// blocks (32 MB; the largest committed kernel has 5712 instructions) it gives up and the IR-only cost stays.
constexpr size_t kMaxBlocks = 16384;

/// One decoded instruction: what the loop scan needs of it.
struct Sass {
  uint64_t opcode = 0;
  bool conditional = false;
  int64_t target = -1; ///< a BRA's target instruction index; -1 for others or a target outside the section
};

/// A basic block: instructions [first, last] and the blocks control may go to next.
struct Block {
  size_t first = 0, last = 0;
  std::vector<size_t> successors, predecessors;
};

std::vector<Sass> decode(llvm::ArrayRef<uint8_t> text) {
  std::vector<Sass> out(text.size() / kBytes);
  for (size_t i = 0; i < out.size(); ++i) {
    uint64_t lo = llvm::support::endian::read64le(&text[i * kBytes]);
    out[i].opcode = lo & kOpcodeMask;
    if (out[i].opcode == kUtmaldgMulticast) // one UTMALDG, whichever form
      out[i].opcode = kUtmaldg;
    if (out[i].opcode == kHgmmaRegA) // one HGMMA, A in shared memory or in registers
      out[i].opcode = kHgmma;
    out[i].conditional = ((lo >> 12) & 0xf) != kAlwaysTrue;
    if (out[i].opcode != kBra)
      continue;
    // byte offset from the next instruction: signed bits 32-63 x 256 plus bits 16-23 x 4
    int64_t offset =
        static_cast<int64_t>(static_cast<int32_t>(lo >> 32)) * 256 + static_cast<int64_t>((lo >> 16) & 0xff) * 4;
    int64_t target = static_cast<int64_t>((i + 1) * kBytes) + offset;
    if (target >= 0 && target % kBytes == 0 && static_cast<size_t>(target / kBytes) < out.size())
      out[i].target = target / kBytes;
  }
  return out;
}

bool endsBlock(const Sass &s) {
  return s.opcode == kBra || s.opcode == kExit || s.opcode == kRet || s.opcode == kBrx || s.opcode == kJmx;
}

/// Splits the code into basic blocks and links them. An indirect branch (BRX, JMX, RET) has no known successor.
std::vector<Block> controlFlow(const std::vector<Sass> &code, std::vector<size_t> &blockOf) {
  std::vector<bool> leader(code.size() + 1, false);
  leader[0] = true;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code[i].target >= 0)
      leader[static_cast<size_t>(code[i].target)] = true;
    if (endsBlock(code[i]))
      leader[i + 1] = true;
  }
  std::vector<Block> blocks;
  blockOf.assign(code.size(), 0);
  for (size_t i = 0; i < code.size(); ++i) {
    if (leader[i])
      blocks.push_back(Block{i, i, {}, {}});
    blocks.back().last = i;
    blockOf[i] = blocks.size() - 1;
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    const Sass &last = code[blocks[b].last];
    bool fallsThrough = !endsBlock(last) || last.conditional;
    if (last.opcode == kBra && last.target >= 0)
      blocks[b].successors.push_back(blockOf[static_cast<size_t>(last.target)]);
    if (fallsThrough && b + 1 < blocks.size())
      blocks[b].successors.push_back(b + 1);
    for (size_t s : blocks[b].successors)
      blocks[s].predecessors.push_back(b);
  }
  return blocks;
}

/// Dominator sets by the iterative data-flow algorithm (Aho, Lam, Sethi, Ullman, "Compilers", 2nd ed., 9.6.1),
/// from a virtual root whose successors are the first block and every block without a predecessor: the targets
/// of an indirect branch (Triton's warp_specialize dispatches its partitions with a BRX through a jump table in
/// the constant bank) are unknown, and each partition's code starts at one. Blocks no root reaches are left out
/// (`reachable`).
std::vector<llvm::BitVector> dominators(const std::vector<Block> &blocks, llvm::BitVector &reachable) {
  size_t n = blocks.size();
  llvm::BitVector root(n, false);
  for (size_t b = 0; b < n; ++b)
    if (b == 0 || blocks[b].predecessors.empty())
      root.set(b);
  reachable = llvm::BitVector(n, false);
  std::vector<size_t> work(root.set_bits_begin(), root.set_bits_end());
  while (!work.empty()) {
    size_t b = work.back();
    work.pop_back();
    if (reachable.test(b))
      continue;
    reachable.set(b);
    for (size_t s : blocks[b].successors)
      work.push_back(s);
  }
  std::vector<llvm::BitVector> dom(n, llvm::BitVector(n, true));
  for (size_t b : root.set_bits()) {
    dom[b] = llvm::BitVector(n, false);
    dom[b].set(b);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < n; ++b) {
      if (!reachable.test(b) || root.test(b))
        continue;
      llvm::BitVector next(n, true);
      for (size_t p : blocks[b].predecessors)
        if (reachable.test(p))
          next &= dom[p];
      next.set(b);
      if (next != dom[b]) {
        dom[b] = std::move(next);
        changed = true;
      }
    }
  }
  return dom;
}

} // namespace

WgmmaIssue cubinWgmmaIssue(llvm::ArrayRef<uint8_t> text) {
  WgmmaIssue out;
  bool awaitingDepbar = false; // the last HGMMA carried gsb0 and no warp-group instruction followed it yet
  for (size_t i = 0; i + kBytes <= text.size(); i += kBytes) {
    uint64_t lo = llvm::support::endian::read64le(&text[i]);
    uint64_t hi = llvm::support::endian::read64le(&text[i + 8]);
    uint64_t opcode = lo & kOpcodeMask;
    if (opcode == kHgmma || opcode == kHgmmaRegA) {
      ++out.instructions;
      awaitingDepbar = ((hi >> 20) & 7) == 0; // scoreboard gsb0
    } else if (opcode == kWarpGroup) {
      bool depbar = (lo & kDepbarBit) != 0;
      if (awaitingDepbar && depbar && ((hi >> 8) & 0x3f) == 0)
        ++out.serialized;
      awaitingDepbar = false;
    }
  }
  return out;
}

TmaIssue cubinTmaIssue(llvm::ArrayRef<uint8_t> text) {
  std::vector<Sass> code = decode(text);
  TmaIssue out;
  if (code.empty())
    return out;
  std::vector<size_t> blockOf;
  std::vector<Block> blocks = controlFlow(code, blockOf);
  if (blocks.size() > kMaxBlocks)
    return out;
  llvm::BitVector reachable;
  std::vector<llvm::BitVector> dom = dominators(blocks, reachable);
  // Natural loops, one per header: the header and every block that reaches one of its back edges' sources (an edge
  // u -> h where h dominates u) without passing through the header.
  std::vector<llvm::BitVector> body(blocks.size());
  for (size_t u = 0; u < blocks.size(); ++u) {
    if (!reachable.test(u))
      continue;
    for (size_t h : blocks[u].successors) {
      if (!dom[u].test(h))
        continue;
      llvm::BitVector &loop = body[h];
      if (loop.empty())
        loop = llvm::BitVector(blocks.size(), false);
      loop.set(h);
      std::vector<size_t> work{u};
      while (!work.empty()) {
        size_t b = work.back();
        work.pop_back();
        if (loop.test(b) || !reachable.test(b))
          continue;
        loop.set(b);
        for (size_t p : blocks[b].predecessors)
          work.push_back(p);
      }
    }
  }
  auto count = [&](const llvm::BitVector &loop, uint64_t opcode) {
    int32_t n = 0;
    for (size_t b : loop.set_bits())
      for (size_t i = blocks[b].first; i <= blocks[b].last; ++i)
        n += code[i].opcode == opcode;
    return n;
  };
  std::vector<int32_t> copies(body.size(), 0); // UTMALDG per loop, by header
  for (size_t h = 0; h < body.size(); ++h)
    if (!body[h].empty())
      copies[h] = count(body[h], kUtmaldg);
  // The innermost loops that issue TMA loads: natural loops with different headers are nested or disjoint, so a
  // loop holds another one when it holds that loop's header. Of those, the producers' (no HGMMA).
  for (size_t h = 0; h < body.size(); ++h) {
    if (copies[h] == 0)
      continue;
    bool holdsInner = false;
    for (size_t g : body[h].set_bits())
      holdsInner = holdsInner || (g != h && copies[g] > 0);
    if (holdsInner || count(body[h], kHgmma) > 0)
      continue;
    out.copies += copies[h];
    for (size_t b : body[h].set_bits())
      out.loopInstructions += static_cast<int32_t>(blocks[b].last - blocks[b].first + 1);
  }
  return out;
}

} // namespace tlxsim::sim
