#include "sim/SharedAllocation.h"

#include "ir/Cga.h"
#include "ir/Compiler.h"

#include "sim/SharedScratch.h"

#include "ir/Location.h"
#include "ir/Types.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <map>

// Mirrors Triton's lib/Analysis/Allocation.cpp (AllocationAnalysis) and lib/Analysis/Alias.cpp
// (SharedMemoryAliasAnalysis) as of Triton 3.6.0 / fbtriton 3.7.4. Triton runs it after `convert-scf-to-cf`; the
// operation ids here are the post-order ids of the structured (scf) form, whose order of nested and enclosing ops
// is the same as the CF form's blocks, so live ranges overlap the same way.

using namespace mlir;

namespace tlxsim::sim {

namespace {

/// Triton's Interval<size_t>: half open [start, end); the default one is everything.
struct Interval {
  uint64_t start = 0, end = std::numeric_limits<uint64_t>::max();
  bool intersects(const Interval &r) const { return start < r.end && r.start < end; }
};

Interval rangeOf(const SharedBuffer &b) { return {b.start, b.end}; }
Interval bytesOf(const SharedBuffer &b) {
  return {static_cast<uint64_t>(b.offset), static_cast<uint64_t>(b.offset + b.size)};
}
int64_t alignTo(int64_t value, int64_t alignment) { return alignment > 0 ? llvm::alignTo(value, alignment) : value; }

using Graph = std::vector<std::vector<size_t>>; ///< buffer (sorted position) -> interfering buffers

/// AllocationAnalysis::calculateStarts: first-fit over (offset, live range) slots, lowest offset first.
void calculateStarts(std::vector<SharedBuffer *> &sorted) {
  std::multimap<int64_t, Interval> slots;
  slots.insert({0, Interval()});
  std::vector<SharedBuffer *> pending = sorted;
  while (!pending.empty()) {
    auto slotIt = slots.begin();
    int64_t offset = slotIt->first;
    Interval range = slotIt->second;
    slots.erase(slotIt);
    SharedBuffer *chosen = nullptr;
    for (SharedBuffer *buffer : pending) {
      Interval live = rangeOf(*buffer);
      if (!live.intersects(range))
        continue;
      if (std::none_of(slots.begin(), slots.end(), [&](const auto &slot) { return slot.second.intersects(live); })) {
        chosen = buffer;
        break;
      }
    }
    if (!chosen)
      continue;
    chosen->offset = alignTo(offset, chosen->alignment);
    Interval live = rangeOf(*chosen);
    slots.insert({chosen->offset + chosen->size, Interval{std::max(range.start, live.start), std::min(range.end, live.end)}});
    if (range.start < live.start)
      slots.insert({offset, Interval{range.start, live.end}});
    if (live.end < range.end)
      slots.insert({offset, Interval{live.start, range.end}});
    pending.erase(std::find(pending.begin(), pending.end(), chosen));
  }
}

/// AllocationAnalysis::buildInterferenceGraph: live at once (or in concurrent warp_specialize regions) and
/// overlapping bytes.
Graph interferenceGraph(const std::vector<SharedBuffer *> &sorted) {
  Graph graph(sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i)
    for (size_t j = 0; j < sorted.size(); ++j) {
      if (i == j)
        continue;
      const SharedBuffer &x = *sorted[i], &y = *sorted[j];
      if (!bytesOf(x).intersects(bytesOf(y)))
        continue;
      bool concurrent = x.asyncOp >= 0 && x.asyncOp == y.asyncOp && x.asyncRegion != y.asyncRegion;
      if (rangeOf(x).intersects(rangeOf(y)) || concurrent)
        graph[i].push_back(j);
    }
  return graph;
}

bool empty(const Graph &graph) {
  return std::all_of(graph.begin(), graph.end(), [](const auto &edges) { return edges.empty(); });
}

/// AllocationAnalysis::allocate: first-fit coloring, then every buffer not of color 0 moves past its neighbours.
int64_t colorAndBump(std::vector<SharedBuffer *> &sorted, const Graph &graph) {
  std::vector<int> colors(sorted.size(), -1);
  if (!sorted.empty())
    colors[0] = 0;
  std::vector<bool> available(sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) {
    std::fill(available.begin(), available.end(), true);
    for (size_t j : graph[i])
      if (colors[j] >= 0)
        available[colors[j]] = false;
    colors[i] = static_cast<int>(std::find(available.begin(), available.end(), true) - available.begin());
  }
  int64_t size = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    int64_t newOffset = 0;
    for (size_t j : graph[i])
      newOffset = std::max(newOffset, sorted[j]->offset + sorted[j]->size);
    if (colors[i] != 0)
      sorted[i]->offset = alignTo(newOffset, sorted[i]->alignment);
    size = std::max(size, sorted[i]->offset + sorted[i]->size);
  }
  return size;
}

} // namespace

int64_t assignSharedOffsets(std::vector<SharedBuffer> &buffers) {
  std::vector<SharedBuffer *> sorted;
  for (SharedBuffer &b : buffers)
    sorted.push_back(&b);
  std::stable_sort(sorted.begin(), sorted.end(), [](const SharedBuffer *a, const SharedBuffer *b) { return a->size > b->size; });
  calculateStarts(sorted);
  Graph graph = interferenceGraph(sorted);
  int64_t size = 0;
  do {
    size = colorAndBump(sorted, graph);
    graph = interferenceGraph(sorted);
  } while (!empty(graph));
  return size;
}

namespace {

bool inSharedMemory(Type type) {
  auto memdesc = dyn_cast<ir::MemDescType>(type);
  if (!memdesc)
    return false;
  auto space = dyn_cast_or_null<ir::EncodingAttr>(memdesc.getMemorySpace());
  return space && space.getMnemonic() == "shared_memory";
}

std::string describe(Operation *op) {
  return op->getName().getStringRef().str() + " at " + ir::pythonLocation(op->getLoc()).str();
}

/// Bytes and alignment of a `ttg.local_alloc` (getExplicitValueSize, LocalAllocOp::getAlignmentOrDefault).
std::pair<int64_t, int64_t> explicitSize(Operation *op, ir::MemDescType type) {
  int64_t elements = 1;
  llvm::ArrayRef<int64_t> shape = type.getAllocShape();
  auto encoding = dyn_cast_or_null<ir::EncodingAttr>(type.getEncoding());
  // getAllocationShapePerCTA: the trailing dims are split over the CTAs of the CGA (a `CGALayout`, or the older
  // `CTASplitNum` key: ir/Cga.h)
  llvm::SmallVector<int64_t> split = ir::ctaSplitNum(type.getEncoding(), shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    elements *= std::max<int64_t>(1, shape[i] / std::max<int64_t>(1, i < split.size() ? split[i] : 1));
  if (encoding && encoding.getMnemonic() == "padded_shared") {
    // PaddedSharedEncodingAttr::getPaddedSize: `padding` elements after every `interval` elements, but none after
    // the last element (an exact multiple of the interval drops the last padding)
    int64_t padding = 0;
    for (auto [interval, pad] : encoding.getPaddingIntervals()) {
      padding += (elements >> llvm::Log2_64(interval)) << llvm::Log2_64(pad);
      if (elements % interval == 0)
        padding -= pad;
    }
    elements += padding;
  }
  int64_t bits = scratchElementBits(type.getElementType());
  int64_t alignment = 16; // SharedEncodingTrait's default (swizzled_shared, padded_shared, ...)
  if (encoding && encoding.getMnemonic() == "nvmma_shared") {
    int64_t swizzle = encoding.getInt("swizzlingByteWidth").value_or(0);
    alignment = 128 * (swizzle == 0 ? 1 : swizzle / 16); // NVMMASharedEncodingAttr::getAlignment
  }
  if (auto attr = op->getAttrOfType<IntegerAttr>("alignment"))
    alignment = attr.getInt();
  return {elements * bits / 8, alignment};
}

/// mlir::getForwardSlice(op): the ops that use `op`'s results, transitively (not through block arguments).
llvm::SetVector<Operation *> forwardSlice(Operation *op) {
  llvm::SetVector<Operation *> slice;
  std::vector<Operation *> work{op};
  while (!work.empty()) {
    Operation *current = work.back();
    work.pop_back();
    for (Value result : current->getResults())
      for (Operation *user : result.getUsers())
        if (slice.insert(user))
          work.push_back(user);
  }
  return slice;
}

/// The allocation analysis of one function (Allocation.cpp AllocationAnalysis).
class FunctionAllocation {
public:
  /// `tmemAllocBefore`: the op before which fbtriton's TMEM allocation pass inserts its `ttng.tcgen5_global_alloc`
  /// (tmemAllocPoint), or null.
  FunctionAllocation(Operation *func, bool fbtriton, Operation *tmemAllocBefore, SharedAllocation &out)
      : func(func), fbtriton(fbtriton), tmemAllocBefore(tmemAllocBefore), out(out) {}

  llvm::Error run() {
    numberOps();
    std::vector<SharedBuffer> explicitBuffers, scratch;
    llvm::Error error = llvm::Error::success();
    func->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (error)
        return WalkResult::interrupt();
      if (op == tmemAllocBefore)
        scratch.push_back(tmemAllocScratch(op));
      if (op->getName().getStringRef() == "ttg.local_alloc" && op->getNumResults() == 1 &&
          inSharedMemory(op->getResult(0).getType())) {
        auto [bytes, alignment] = explicitSize(op, cast<ir::MemDescType>(op->getResult(0).getType()));
        SharedBuffer b;
        b.what = describe(op);
        b.op = op;
        b.size = bytes;
        b.alignment = alignment;
        placeInAsyncRegion(op, b);
        allocOf[op->getResult(0)] = explicitBuffers.size();
        explicitBuffers.push_back(b);
      }
      auto size = scratchSize(op, func);
      if (!size) {
        error = size.takeError();
        return WalkResult::interrupt();
      }
      if (size->bytes > 0) {
        SharedBuffer b;
        b.kind = SharedBuffer::Scratch;
        b.what = describe(op);
        b.size = size->bytes;
        b.alignment = size->alignment;
        if (op == func) {
          b.start = 0; // function scratch: live for the whole function
          b.end = std::numeric_limits<uint64_t>::max();
        } else if (fbtriton && op->getName().getStringRef() == "ttg.warp_specialize") {
          // fbtriton's resolveScratchBufferLiveness: the captures stay live for the whole function (the partitions
          // read them while they run, after the op's own id)
          b.start = 0;
          b.end = numIds;
        } else {
          b.start = ids.at(op);
          b.end = b.start + 1;
        }
        placeInAsyncRegion(op, b);
        if (!size->estimate.empty())
          out.estimates.push_back(describe(op) + ": " + size->estimate);
        scratch.push_back(b);
      }
      return WalkResult::advance();
    });
    if (error)
      return error;
    resolveAliases();
    for (auto &[value, buffer] : allocOf) {
      Interval live = liveness(value);
      explicitBuffers[buffer].start = live.start;
      explicitBuffers[buffer].end = live.end;
    }
    for (auto &[value, buffers] : aliases) {
      Interval live = liveness(value);
      for (size_t buffer : buffers) {
        explicitBuffers[buffer].start = std::min(explicitBuffers[buffer].start, live.start);
        explicitBuffers[buffer].end = std::max(explicitBuffers[buffer].end, live.end);
      }
    }
    std::vector<SharedBuffer> buffers = std::move(explicitBuffers);
    buffers.insert(buffers.end(), scratch.begin(), scratch.end());
    int64_t size = assignSharedOffsets(buffers);
    if (size > out.sizeBytes) {
      out.sizeBytes = size;
      out.buffers = std::move(buffers);
    }
    return llvm::Error::success();
  }

private:
  /// Triton's post-order operation ids (Allocation.cpp resolveLiveness), with the `ttng.tcgen5_global_alloc` that
  /// fbtriton inserts before `tmemAllocBefore` numbered as that op would be: after the ops before it, before
  /// `tmemAllocBefore`'s own regions.
  void numberOps() {
    func->walk([&](Operation *op, const WalkStage &stage) {
      if (op == tmemAllocBefore && stage.isBeforeAllRegions())
        tmemAllocId = numIds++;
      if (!stage.isAfterAllRegions())
        return;
      if (op->getName().getStringRef() == "ttg.warp_specialize")
        warpSpecializeIds.push_back(numIds);
      ids[op] = numIds++;
    });
  }

  /// The scratch buffer of fbtriton's `ttng.tcgen5_global_alloc` (the 4 bytes tcgen05.alloc writes the TMEM address
  /// to, placed like any op scratch: aligned 128, live at the op only), inserted before `before`.
  SharedBuffer tmemAllocScratch(Operation *before) {
    SharedBuffer b;
    b.kind = SharedBuffer::Scratch;
    b.what = "ttng.tcgen5_global_alloc (fbtriton's TMEM allocation) before " + describe(before);
    b.size = 4;
    b.alignment = 128;
    b.start = tmemAllocId;
    b.end = tmemAllocId + 1;
    placeInAsyncRegion(before, b);
    return b;
  }

  /// The warp_specialize region that holds `op` (Operation::getParentWithTrait<AsyncRegions>, compared by the
  /// region that directly holds the op once scf is lowered to cf, i.e. the warp_specialize region itself).
  void placeInAsyncRegion(Operation *op, SharedBuffer &b) {
    Region *region = op->getParentRegion();
    while (region && region->getParentOp() != func) {
      Operation *parent = region->getParentOp();
      StringRef name = parent->getName().getStringRef();
      if (name == "ttg.warp_specialize" || name == "ttg.warp_specialize.partitions") {
        Operation *ws = name == "ttg.warp_specialize" ? parent : parent->getParentOp();
        b.asyncOp = static_cast<int64_t>(ids.at(ws));
        b.asyncRegion = reinterpret_cast<intptr_t>(region) & std::numeric_limits<int64_t>::max();
        return;
      }
      region = parent->getParentRegion();
    }
  }

  /// Joins `from`'s buffers into `to`'s; true if `to` grew.
  bool join(Value to, Value from) {
    if (!inSharedMemory(from.getType()) || !inSharedMemory(to.getType()))
      return false;
    llvm::SetVector<size_t> incoming;
    if (auto it = allocOf.find(from); it != allocOf.end())
      incoming.insert(it->second);
    if (auto it = aliases.find(from); it != aliases.end())
      incoming.insert(it->second.begin(), it->second.end());
    bool grew = false;
    for (size_t buffer : incoming)
      grew |= aliases[to].insert(buffer);
    return grew;
  }

  static Operation *terminatorOf(Region &region) {
    return region.empty() || region.front().empty() ? nullptr : &region.front().back();
  }

  /// SharedMemoryAliasAnalysis: a memdesc view aliases its source; loop-carried values, if/while results and
  /// warp_specialize captures alias what flows into them. Iterated to a fixed point.
  void resolveAliases() {
    bool changed = true;
    while (changed) {
      changed = false;
      func->walk<WalkOrder::PreOrder>([&](Operation *op) { changed |= aliasStep(op); });
    }
  }

  bool aliasStep(Operation *op) {
    StringRef name = op->getName().getStringRef();
    bool grew = false;
    if (name == "scf.for") {
      Block &body = op->getRegion(0).front();
      Operation *yield = &body.back();
      for (unsigned i = 0; i < op->getNumResults(); ++i) {
        Value init = op->getOperand(3 + i), carried = body.getArgument(1 + i), next = yield->getOperand(i);
        grew |= join(carried, init) | join(carried, next) | join(op->getResult(i), init) |
                join(op->getResult(i), next);
      }
      return grew;
    }
    if (name == "scf.if" || name == "scf.execute_region") {
      for (Region &region : op->getRegions())
        if (Operation *yield = terminatorOf(region))
          for (unsigned i = 0; i < op->getNumResults() && i < yield->getNumOperands(); ++i)
            grew |= join(op->getResult(i), yield->getOperand(i));
      return grew;
    }
    if (name == "scf.while") {
      Block &before = op->getRegion(0).front(), &after = op->getRegion(1).front();
      Operation *condition = &before.back(), *yield = &after.back();
      for (unsigned i = 0; i < before.getNumArguments(); ++i)
        grew |= join(before.getArgument(i), op->getOperand(i)) | join(before.getArgument(i), yield->getOperand(i));
      for (unsigned i = 0; i < after.getNumArguments(); ++i)
        grew |= join(after.getArgument(i), condition->getOperand(1 + i)) |
                join(op->getResult(i), condition->getOperand(1 + i));
      return grew;
    }
    if (name == "ttg.warp_specialize") {
      if (Operation *yield = terminatorOf(op->getRegion(0)))
        for (unsigned i = 0; i < op->getNumResults() && i < yield->getNumOperands(); ++i)
          grew |= join(op->getResult(i), yield->getOperand(i));
      return grew;
    }
    if (name == "ttg.warp_specialize.partitions") {
      Operation *captures = op->getNumOperands() > 0 ? op : op->getParentOp();
      for (Region &region : op->getRegions())
        if (!region.empty())
          for (unsigned i = 0; i < region.front().getNumArguments() && i < captures->getNumOperands(); ++i)
            grew |= join(region.front().getArgument(i), captures->getOperand(i));
      return grew;
    }
    if (name == "ttg.local_alloc")
      return false;
    // Any other op producing a shared-memory descriptor is a view of its memdesc operands (MemDescViewTrait).
    for (Value result : op->getResults())
      if (inSharedMemory(result.getType()))
        for (Value operand : op->getOperands())
          grew |= join(result, operand);
    return grew;
  }

  /// mlir::Liveness::resolveLiveness(value) as operation ids: from the definition (or the block's first op for a
  /// block argument) to the last op of the defining block that uses it or holds a use.
  Interval liveness(Value value) {
    Block *block = value.getParentBlock();
    if (!block || block->empty())
      return {0, 1};
    Operation *start = value.getDefiningOp() ? value.getDefiningOp() : &block->front();
    uint64_t lo = ids.at(start), hi = lo + 1;
    for (Operation *user : value.getUsers()) {
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        continue;
      lo = std::min<uint64_t>(lo, ids.at(ancestor));
      hi = std::max<uint64_t>(hi, ids.at(ancestor) + 1);
    }
    return fbtriton ? fbtritonLiveness(value, {lo, hi}) : Interval{lo, hi};
  }

  /// fbtriton's getValueLivenessRange additions (lib/Analysis/Allocation.cpp of facebookexperimental/triton): a value
  /// live at a warp_specialize starts at id 0; a buffer whose def reaches an mbarrier init or a remote
  /// (DSMEM) store lives for the whole function; one a TMA store reads lives until the store's token wait.
  Interval fbtritonLiveness(Value value, Interval live) {
    // a value live at a ttg.warp_specialize (used by its regions, or live across it) lives from the function's
    // start: fbtriton's getValueLivenessRange sets minId = 0 for a live WarpSpecializeOp
    auto ws = llvm::lower_bound(warpSpecializeIds, live.start);
    if (ws != warpSpecializeIds.end() && *ws < live.end)
      live.start = 0;
    Operation *def = value.getDefiningOp();
    if (!def)
      return live;
    llvm::SetVector<Operation *> slice = forwardSlice(def);
    auto has = [&](std::initializer_list<StringRef> names) {
      return llvm::any_of(slice, [&](Operation *op) {
        return llvm::is_contained(names, op->getName().getStringRef());
      });
    };
    if (has({"ttg.remote_shmem_store", "ttg.async_remote_shmem_store", "ttg.async_remote_shmem_copy",
             "ttng.init_barrier"}))
      return {0, numIds};
    if (has({"ttng.async_tma_copy_local_to_global"}))
      for (Operation *op : slice)
        if (op->getName().getStringRef() == "ttng.async_tma_store_token_wait")
          live.end = std::max<uint64_t>(live.end, ids.at(op) + 1);
    return live;
  }

  Operation *func;
  bool fbtriton;
  Operation *tmemAllocBefore;
  SharedAllocation &out;
  llvm::DenseMap<Operation *, uint64_t> ids;
  uint64_t numIds = 0;      ///< operation ids given (Triton's operationId.size())
  uint64_t tmemAllocId = 0; ///< the id of the inserted tcgen5_global_alloc, if `tmemAllocBefore`
  std::vector<uint64_t> warpSpecializeIds; ///< ids of the ttg.warp_specialize ops, ascending
  llvm::MapVector<Value, size_t> allocOf;                      ///< local_alloc result -> its buffer
  llvm::MapVector<Value, llvm::SetVector<size_t>> aliases;     ///< value -> buffers it may point into
};

} // namespace

/// Where fbtriton's TritonTensorMemoryAllocationPass (lib/Dialect/TritonNvidiaGPU/Transforms/
/// TensorMemoryAllocation.cpp, which its make_llir runs before the shared-memory allocation) inserts the
/// `ttng.tcgen5_global_alloc` that allocates the kernel's TMEM, in `func`: when the module allocates TMEM, at the
/// start of the kernel holding its first `ttng.tmem_alloc`, or right before that tmem_alloc when TLX pairs the MMAs
/// of a CTA pair (`tlx.enable_paired_cta_mma`). Null otherwise, for upstream Triton (which allocates TMEM without a
/// shared-memory scratch) and for a module that already holds the op.
Operation *tmemAllocPoint(ModuleOp module, Operation *func) {
  Operation *firstAlloc = nullptr;
  bool inserted = false;
  module->walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    inserted |= name == "ttng.tcgen5_global_alloc";
    if (name == "ttng.tmem_alloc" && !firstAlloc)
      firstAlloc = op;
  });
  if (!firstAlloc || inserted || !func->isAncestor(firstAlloc))
    return nullptr;
  auto paired = module->getAttrOfType<BoolAttr>("tlx.enable_paired_cta_mma");
  if (paired && paired.getValue())
    return firstAlloc;
  Block &entry = func->getRegion(0).front();
  return entry.empty() ? nullptr : &entry.front();
}

llvm::Expected<SharedAllocation> allocateSharedMemory(ModuleOp module) {
  SharedAllocation out;
  bool fbtriton = ir::compiledByFbtriton(module);
  for (Operation &op : module.getBody()->getOperations()) {
    if (op.getName().getStringRef() != "tt.func" || op.getNumRegions() != 1 || op.getRegion(0).empty())
      continue;
    FunctionAllocation function(&op, fbtriton, fbtriton ? tmemAllocPoint(module, &op) : nullptr, out);
    if (auto err = function.run())
      return std::move(err);
  }
  return out;
}

} // namespace tlxsim::sim
