// The bar.syncs that Triton's shared-memory barrier analysis (Membar) puts between a partition's shared-memory
// accesses (Lowerer::membarSyncs).
#include "sim/lowering/Lowerer.h"

#include "ir/Partitions.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace tlxsim::sim::lowering {

namespace {

/// The shared-memory accesses since the last barrier, per allocation (its `ttg.local_alloc`; Membar's intervals,
/// taken whole: a view with a dynamic index touches all of its buffer for Triton too). `allRead` / `allWrite`
/// stand for every interval: an mbarrier arrive's (below) or an access whose buffer is not traced.
struct Pending {
  llvm::SmallPtrSet<const Operation *, 8> reads, writes;
  bool allRead = false, allWrite = false;

  bool empty() const { return reads.empty() && writes.empty() && !allRead && !allWrite; }
  void join(const Pending &o) {
    reads.insert(o.reads.begin(), o.reads.end());
    writes.insert(o.writes.begin(), o.writes.end());
    allRead |= o.allRead;
    allWrite |= o.allWrite;
  }
  bool operator==(const Pending &o) const {
    return allRead == o.allRead && allWrite == o.allWrite && reads == o.reads && writes == o.writes;
  }
  /// Membar's BlockInfo::isIntersected: a read after a write, a write after a read or a write after a write.
  bool conflicts(const Pending &cur) const {
    auto meets = [](const llvm::SmallPtrSet<const Operation *, 8> &x, bool allX,
                    const llvm::SmallPtrSet<const Operation *, 8> &y, bool allY) {
      if ((allX && (allY || !y.empty())) || (allY && !x.empty()))
        return true;
      return llvm::any_of(x, [&](auto *b) { return y.contains(b); });
    };
    return meets(cur.reads, cur.allRead, writes, allWrite) || meets(cur.writes, cur.allWrite, reads, allRead) ||
           meets(cur.writes, cur.allWrite, writes, allWrite);
  }
};

/// The `ttg.local_alloc` a shared-memory view comes from (through views and warp-specialize captures), or null.
const Operation *bufferOf(mlir::Value v) {
  for (int depth = 0; depth < 64; ++depth) {
    v = ir::capturedValue(v);
    Operation *def = v.getDefiningOp();
    if (!def)
      return nullptr;
    StringRef name = def->getName().getStringRef();
    if (name == "ttg.local_alloc")
      return def;
    if (!name.starts_with("ttg.memdesc_") || def->getNumOperands() == 0)
      return nullptr;
    v = def->getOperand(0);
  }
  return nullptr;
}

/// The operand groups an op writes, by Triton's ODS (MemWrite<SharedMemory>); its other shared-memory operands
/// it reads. The ops listed are those with a shared-memory effect: barrier ops, shared loads and stores, TMA and
/// cp.async copies, the MMAs that read shared operands. Views, fences and register ops have none; ops that need
/// scratch (layout conversions, cross-warp reductions) are left out: the barrier then lands on the next op listed
/// here, at the same cost.
const llvm::StringMap<std::vector<StringRef>> &sharedEffects() {
  static const llvm::StringMap<std::vector<StringRef>> table = {
      {"ttng.init_barrier", {"alloc"}},
      {"ttng.inval_barrier", {"alloc"}},
      {"ttng.barrier_expect", {"alloc"}},
      {"ttng.wait_barrier", {}},
      {"ttng.arrive_barrier", {"alloc"}},
      {"ttng.async_copy_mbarrier_arrive", {"barrier"}},
      {"ttg.local_alloc", {}}, // with an initial value it writes the buffer it returns (accessesOf)
      {"ttg.local_load", {}},
      {"ttg.local_store", {"dst"}},
      {"ttng.async_tma_copy_global_to_local", {"result", "barrier"}},
      {"ttng.async_tma_copy_local_to_global", {}},
      {"ttng.async_tma_reduce", {}},
      {"ttng.async_tma_gather", {"result", "barrier"}},
      {"ttng.async_tma_scatter", {}},
      {"ttg.async_copy_global_to_local", {"result"}},
      {"ttng.warp_group_dot", {}},
      {"ttng.tc_gen5_mma", {"barriers"}},
      {"ttng.tc_gen5_mma_scaled", {"barriers"}},
      {"ttng.tmem_copy", {"barrier"}},
  };
  return table;
}

/// Whether `v` is a view of shared memory (not tensor memory, not a register value).
bool isShared(mlir::Value v) {
  auto type = dyn_cast<ir::MemDescType>(v.getType());
  return type && !type.isTensorMemory();
}

/// The shared-memory accesses of `op` (empty when it has none). An mbarrier arrive "may be signalling other
/// threads asynchronously": Membar makes it touch every interval (lib/Analysis/Membar.cpp, MembarAnalysis::update,
/// Triton 3.6 and fbtriton 3.7.4), so it waits for every earlier access and every later access waits for it.
Pending accessesOf(Operation &op) {
  Pending cur;
  StringRef name = op.getName().getStringRef();
  auto it = sharedEffects().find(name);
  if (it == sharedEffects().end() || (name == "ttg.local_alloc" && op.getNumOperands() == 0))
    return cur; // a local_alloc without a value only allocates
  llvm::SmallPtrSet<mlir::Value, 4> written;
  for (StringRef group : it->second)
    if (auto range = ir::getOperandGroup(&op, group))
      written.insert(range->begin(), range->end());
  if (name == "ttg.local_alloc")
    written.insert(op.getResult(0));
  auto add = [&](mlir::Value v) {
    if (!isShared(v))
      return;
    bool write = written.contains(v);
    if (const Operation *buffer = bufferOf(v))
      (write ? cur.writes : cur.reads).insert(buffer);
    else
      (write ? cur.allWrite : cur.allRead) = true;
  };
  for (mlir::Value v : op.getOperands())
    add(v);
  if (name == "ttg.local_alloc")
    add(op.getResult(0));
  if (name == "ttng.arrive_barrier")
    cur.allRead = cur.allWrite = true;
  return cur;
}

/// Whether `op` is an execution barrier of the partition's warps, which completes every shared-memory access
/// before it (Membar's own gpu.barrier, ttg.barrier / local_barrier, a named bar.sync; a named bar.arrive does not
/// wait, so it orders nothing for the arriving warps). The names lowering/NamedBarrier.cpp lowers.
bool isExecutionBarrier(StringRef name) {
  return llvm::is_contained({"gpu.barrier", "ttg.barrier", "ttg.local_barrier", "ttng.wait_barrier_named"}, name);
}

/// Whether `op` waits for asynchronous shared-memory writes or reads (Triton's MemWaitOpTrait: cp.async.wait_group,
/// cp.async.bulk.wait_group.read), after which Membar always puts a barrier unless one comes next.
bool isMemWait(StringRef name) { return name == "ttg.async_wait" || name == "ttng.async_tma_store_wait"; }

/// Membar's forward walk over a partition's code: `pending` holds the accesses since the last barrier; the ops
/// that get a barrier are added to `out` when `record`.
class Walk {
public:
  Walk(Lowerer::MembarPlacement &out) : out(out) {}

  void region(Region &r, Pending &pending, bool record) {
    for (mlir::Block &block : r)
      for (Operation &op : block)
        this->op(op, pending, record);
  }

private:
  Lowerer::MembarPlacement &out;

  void op(Operation &op, Pending &pending, bool record) {
    StringRef name = op.getName().getStringRef();
    if (name == "ttg.warp_specialize") {
      // The default region goes on from here; each worker partition is its own function body (fresh state).
      for (unsigned i = 0; i < op.getNumRegions(); ++i) {
        if (i == 0) {
          region(op.getRegion(0), pending, record);
          continue;
        }
        for (Operation &partitions : op.getRegion(i).getOps())
          for (Region &part : partitions.getRegions()) {
            Pending fresh;
            region(part, fresh, record);
          }
      }
      return;
    }
    if (name == "scf.for" || name == "scf.while")
      return loop(op, pending, record);
    if (name == "scf.if") {
      Pending joined;
      bool hasElse = op.getNumRegions() > 1 && !op.getRegion(1).empty();
      for (Region &r : op.getRegions())
        if (!r.empty()) {
          Pending branch = pending;
          region(r, branch, record);
          joined.join(branch);
        }
      if (!hasElse)
        joined.join(pending);
      pending = std::move(joined);
      return;
    }
    if (isExecutionBarrier(name)) {
      pending = Pending();
      return;
    }
    if (isMemWait(name)) {
      Operation *next = op.getNextNode();
      if (record && !(next && isExecutionBarrier(next->getName().getStringRef())))
        out.after.insert(&op);
      pending = Pending();
      return;
    }
    if (op.getNumRegions() > 0) { // any other region op runs its regions in order (scf.execute_region, ...)
      for (Region &r : op.getRegions())
        region(r, pending, record);
      return;
    }
    Pending cur = accessesOf(op);
    if (cur.empty())
      return;
    if (pending.conflicts(cur)) {
      if (record)
        out.before.insert(&op);
      pending = Pending();
    }
    pending.join(cur);
  }

  /// A loop's entry state joins the state before it with the body's end (the back edge), to a fixed point (the
  /// states only grow: the buffers of one function are finite); then one recorded pass from it. Zero trips leave
  /// the state before the loop, which the entry state includes.
  void loop(Operation &op, Pending &pending, bool record) {
    auto body = [&](Pending in, bool rec) {
      for (Region &r : op.getRegions())
        region(r, in, rec);
      return in;
    };
    Pending entry = pending;
    for (;;) {
      Pending next = pending;
      next.join(body(entry, /*rec=*/false));
      if (next == entry)
        break;
      entry = std::move(next);
    }
    Pending end = body(entry, record);
    pending = std::move(entry);
    pending.join(end);
  }
};

} // namespace

Lowerer::MembarPlacement Lowerer::membarSyncs(Operation *func) {
  MembarPlacement out;
  // AMD's Membar runs with a filter (third_party/amd MembarUtility.h membarFilter: no barrier between a local_load
  // an async_wait synced and the next async copy) and lowers to s_barrier; not modelled: CDNA kernels get none.
  if (StringRef(p.target).starts_with("hip"))
    return out;
  Walk walk(out);
  for (Region &r : func->getRegions()) {
    Pending pending;
    walk.region(r, pending, /*record=*/true);
  }
  return out;
}

} // namespace tlxsim::sim::lowering
