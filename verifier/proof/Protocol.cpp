// Protocol extraction from the MLIR module (Protocol.h).
#include "verifier/proof/Protocol.h"

#include "ir/OpSyntax.h"
#include "ir/Types.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>
#include <functional>

using namespace mlir;

namespace tlxsim::verifier::proof {

std::vector<Operation *> opsBefore(Block &b, Operation *stop) {
  std::vector<Operation *> out;
  for (Operation &op : b) {
    if (&op == stop)
      break;
    if (!op.hasTrait<OpTrait::IsTerminator>())
      out.push_back(&op);
  }
  return out;
}

std::vector<Operation *> opsAfter(Block &b, Operation *start) {
  std::vector<Operation *> out;
  bool on = start == nullptr;
  for (Operation &op : b) {
    if (on && !op.hasTrait<OpTrait::IsTerminator>())
      out.push_back(&op);
    if (&op == start)
      on = true;
  }
  return on ? out : std::vector<Operation *>{};
}

bool allocatesNoMbarrier(ModuleOp module) {
  bool any = false;
  module.walk([&](Operation *op) {
    if (op->getName().getDialectNamespace() == "ttng")
      any = true;
    else if (op->getName().getStringRef() == "ttg.local_alloc" && op->getNumResults() == 1)
      if (auto t = dyn_cast<ir::MemDescType>(op->getResult(0).getType()))
        any |= t.getElementType().isInteger(64);
  });
  return !any;
}

std::string Protocol::clusterText() const {
  if (clusterDims[1] == 1 && clusterDims[2] == 1 && func && numCtas == clusterDims[0]) {
    auto module = func->getParentOfType<ModuleOp>();
    if (!module || !module->hasAttr("ttg.cluster-dim-x"))
      return "ttg.num-ctas = " + std::to_string(numCtas);
  }
  return "ttg.cluster-dim = " + std::to_string(clusterDims[0]) + "x" + std::to_string(clusterDims[1]) + "x" +
         std::to_string(clusterDims[2]);
}

int Protocol::mostSlots() const {
  int m = 1;
  for (const Group &g : groups)
    m = std::max(m, g.slots);
  return m;
}

Protocol extractProtocol(ModuleOp module) {
  Protocol out;
  Operation *&func = out.func;
  std::vector<Operation *> &prefix = out.prefix, &suffix = out.suffix;
  std::vector<Part> &parts = out.parts;
  std::vector<Group> &groups = out.groups;
  DenseMap<Operation *, int> &groupOfAlloc = out.groupOfAlloc;
  int &maxDepth = out.maxDepth;
  int64_t &numCtas = out.numCtas;
  if (auto n = module->getAttrOfType<IntegerAttr>("ttg.num-ctas"))
    numCtas = std::max<int64_t>(1, n.getInt());
  out.clusterDims = {numCtas, 1, 1};
  std::array<int64_t, 3> dims{1, 1, 1};
  for (int i = 0; i < 3; ++i)
    if (auto d = module->getAttrOfType<IntegerAttr>(std::string("ttg.cluster-dim-") + "xyz"[i]))
      dims[i] = std::clamp<int64_t>(d.getInt(), 1, 64); // the simulator rejects other values; 64: a bound, not a size
  if (dims[0] * dims[1] * dims[2] > 1) {
    out.clusterDims = dims;
    numCtas = dims[0] * dims[1] * dims[2];
  }
  for (Operation &op : module.getBody()->getOperations())
    if (op.getName().getStringRef() == "tt.func") {
      func = &op;
      break;
    }
  if (!func || func->getNumRegions() != 1 || func->getRegion(0).empty())
    throw Unsupported{"the module holds no tt.func kernel with a body"};
  Block &body = func->getRegion(0).front();
  Operation *ws = nullptr;
  for (Operation &op : body)
    if (op.getName().getStringRef() == "ttg.warp_specialize")
      ws = &op;
  if (!ws) {
    Part p;
    p.name = "default";
    p.block = &body;
    parts.push_back(p);
  } else {
    prefix = opsBefore(body, ws);
    suffix = opsAfter(body, ws);
    if (ws->getNumRegions() != 2 || ws->getRegion(0).empty() || ws->getRegion(1).empty() ||
        ws->getRegion(1).front().empty())
      throw Unsupported{"malformed ttg.warp_specialize"};
    Part d;
    d.name = "default";
    d.block = &ws->getRegion(0).front();
    parts.push_back(d);
    Operation *holder = &ws->getRegion(1).front().front();
    for (unsigned i = 0; i < holder->getNumRegions(); ++i) {
      Region &r = holder->getRegion(i);
      if (r.empty() || r.front().getNumArguments() != ws->getNumOperands())
        throw Unsupported{"partition" + std::to_string(i) + " does not take one argument per capture"};
      Part p;
      p.name = "partition" + std::to_string(i);
      p.block = &r.front();
      for (unsigned a = 0; a < ws->getNumOperands(); ++a)
        p.seeds.push_back({r.front().getArgument(a), ws->getOperand(a)});
      parts.push_back(p);
    }
  }
  // Registers the group of allocation `op`, its name made unique ("name#index" after the first).
  auto addGroup = [&](Operation &op, Group g) {
    for (const Group &other : groups)
      if (other.name == g.name)
        g.name += "#" + std::to_string(groups.size());
    groupOfAlloc[&op] = static_cast<int>(groups.size());
    groups.push_back(std::move(g));
  };
  auto addBarrier = [&](Operation &op, bool local) {
    if (op.getName().getStringRef() != "ttg.local_alloc" || op.getNumResults() != 1 || groupOfAlloc.count(&op))
      return;
    auto t = dyn_cast<ir::MemDescType>(op.getResult(0).getType());
    if (!t || !t.getElementType().isInteger(64))
      return;
    Group g;
    g.local = local;
    g.name = ir::variableName(op.getLoc()).value_or("barrier" + std::to_string(groups.size()));
    g.loc = ir::pythonLocation(op.getLoc());
    // N barriers: Gluon's memdesc<N x 1 x i64>, TLX's alloc_barriers memdesc<N x i64> (one barrier:
    // memdesc<1 x i64> in both); memdesc_index selects one of the N.
    g.slots = t.getAllocShape().empty() ? 1 : static_cast<int>(t.getAllocShape().front());
    if (g.slots < 1 || g.slots > 64)
      throw Unsupported{"barrier array '" + g.name + "' has " + std::to_string(g.slots) + " slots"};
    g.count.assign(g.slots, 1);
    addGroup(op, std::move(g));
  };
  for (Operation &op : body)
    addBarrier(op, false);
  // Barriers allocated inside a partition or a loop body (a synchronous tcgen05 MMA's completion barrier): each
  // execution of the allocation is a fresh barrier (Group::local).
  func->walk([&](Operation *op) { addBarrier(*op, op->getBlock() != &body); });
  // Data buffers anywhere in the kernel (a partition's epilogue buffer too): staged (S x ...) or single.
  func->walk([&](Operation *opp) {
    Operation &op = *opp;
    if (op.getName().getStringRef() == "ttg.local_alloc" && op.getNumResults() == 1)
      if (auto t = dyn_cast<ir::MemDescType>(op.getResult(0).getType()))
        if (!t.getElementType().isInteger(64) && t.getAllocShape().size() >= 2) {
          Group g;
          g.data = true;
          g.name = ir::variableName(op.getLoc()).value_or("buffer" + std::to_string(groups.size()));
          g.loc = ir::pythonLocation(op.getLoc());
          bool staged = t.getAllocShape().size() >= 3 && t.getAllocShape().front() >= 2 &&
                        t.getAllocShape().front() <= 64;
          g.slots = staged ? static_cast<int>(t.getAllocShape().front()) : 1;
          g.count.assign(g.slots, 1);
          addGroup(op, std::move(g));
        }
  });
  for (size_t i = 0; i < parts.size(); ++i) {
    analyzeNest(parts[i]);
    maxDepth = std::max(maxDepth, parts[i].depth);
  }
  // A one-loop partition beside partitions with a K loop runs its loop as a tile loop (Part).
  alignLowerBounds(parts);
  alignUpperBounds(parts);
  alignTileRatios(parts);
  markPeeledFirstTiles(parts, maxDepth);
  addNamedBarriers(out);
  return out;
}

std::optional<int64_t> constantOf(Value v) {
  if (auto cst = v.getDefiningOp<arith::ConstantOp>())
    if (auto ia = dyn_cast<IntegerAttr>(cst.getValue()))
      return ia.getValue().getSExtValue();
  return std::nullopt;
}

namespace {
/// The partitions of the deepest loop nest, in order (a tile-only partition's loop is no innermost loop).
std::vector<size_t> deepestPartitions(const std::vector<Part> &parts) {
  int deepest = 0;
  for (const Part &p : parts)
    deepest = std::max(deepest, p.depth);
  std::vector<size_t> out;
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].depth > 0 && parts[i].depth == deepest)
      out.push_back(i);
  return out;
}
} // namespace

const LoopView &innermostLoop(const Part &p) { return p.depth == 1 ? *p.v1 : *p.v2; }

std::optional<int64_t> constantTripCount(const Part &p) {
  if (p.depth == 0)
    return std::nullopt;
  const LoopView &loop = innermostLoop(p);
  std::optional<int64_t> lb = p.alignedLb ? p.alignedLb : constantOf(loop.lb);
  std::optional<int64_t> ub = p.alignedUb ? p.alignedUb : constantOf(loop.ub);
  std::optional<int64_t> st = constantOf(loop.step);
  if (loop.clc || !lb || !ub || !st || *st <= 0)
    return std::nullopt;
  return *ub > *lb ? (*ub - *lb + *st - 1) / *st : 0;
}

void alignLowerBounds(std::vector<Part> &parts) {
  std::optional<int64_t> lowest, step;
  const std::vector<size_t> deepest = deepestPartitions(parts);
  for (size_t i : deepest) {
    const LoopView &loop = innermostLoop(parts[i]);
    if (loop.clc)
      return; // a CLC tile loop has no step (the loop-alignment lemma judges it)
    auto lb = constantOf(loop.lb), st = constantOf(loop.step);
    if (!lb || !st || *st <= 0 || (step && *st != *step))
      return; // symbolic or differing bounds: no alignment (the loop-alignment lemma judges them)
    step = st;
    lowest = lowest ? std::min(*lowest, *lb) : *lb;
  }
  for (size_t i : deepest) {
    Part &p = parts[i];
    int64_t lb = *constantOf(innermostLoop(p).lb);
    if (lb > *lowest && (lb - *lowest) % *step == 0 && (lb - *lowest) / *step <= 4) {
      p.realLb = lb;
      p.alignedLb = *lowest;
    }
  }
}

void alignUpperBounds(std::vector<Part> &parts) {
  std::optional<int64_t> highest, step, lower;
  const std::vector<size_t> deepest = deepestPartitions(parts);
  for (size_t i : deepest) {
    const Part &p = parts[i];
    const LoopView &loop = innermostLoop(p);
    if (loop.clc)
      return;
    auto lb = constantOf(loop.lb), ub = constantOf(loop.ub), st = constantOf(loop.step);
    int64_t start = p.alignedLb ? *p.alignedLb : lb ? *lb : 0;
    if (!lb || !ub || !st || *st <= 0 || (step && *st != *step) || (lower && start != *lower))
      return; // symbolic or differing bounds: no alignment (the loop-alignment lemma judges them)
    step = st;
    lower = start;
    highest = highest ? std::max(*highest, *ub) : *ub;
  }
  for (size_t i : deepest) {
    Part &p = parts[i];
    int64_t ub = *constantOf(innermostLoop(p).ub);
    if (ub < *highest && ub > *lower && (*highest - ub) % *step == 0 && (*highest - ub) / *step <= 4) {
      p.realUb = ub;
      p.alignedUb = *highest;
    }
  }
}

void markPeeledFirstTiles(std::vector<Part> &parts, int maxDepth) {
  for (Part &p : parts) {
    if (p.depth != 1 || maxDepth != 2 || p.v1->clc || constantOf(p.v1->lb) != 0)
      continue;
    if (auto sub = p.v1->ub.getDefiningOp<arith::SubIOp>())
      p.peeledFirstTile = constantOf(sub.getRhs()) == 1;
  }
}

std::string loopMismatch(const std::vector<Part> &parts) {
  int deepest = 0;
  for (const Part &p : parts)
    deepest = std::max(deepest, p.depth);
  const Part *first = nullptr;
  for (const Part &p : parts) {
    if (p.depth == 0 || p.depth != deepest)
      continue;
    if (!first) {
      first = &p;
      continue;
    }
    for (int level = 1; level <= deepest; ++level) {
      const LoopView &a = level == 1 ? *first->v1 : *first->v2, &b = level == 1 ? *p.v1 : *p.v2;
      std::string loop = deepest == 1 ? "loop" : level == 1 ? "tile loop" : "K loop";
      auto sa = a.clc ? std::nullopt : constantOf(a.step), sb = b.clc ? std::nullopt : constantOf(b.step);
      bool ratio = level == 1 && deepest == 2 && (first->tileRatio || p.tileRatio); // aligned n:1 (TileRatio.cpp)
      if (sa && sb && *sa != *sb && !ratio)
        return p.name + "'s " + loop + " steps " + std::to_string(*sb) + ", " + first->name + "'s " +
               std::to_string(*sa) + ": one iteration of each covers different " +
               (level == 1 && deepest == 2 ? "tiles" : "iterations") + ", so the loops cannot run in lock-step";
      auto la = constantOf(a.lb), lb = constantOf(b.lb);
      if (la && lb && *la != *lb && !ratio && (level != deepest || (!first->realLb && !p.realLb))) // realLb: innermost only
        return p.name + "'s " + loop + " starts at " + std::to_string(*lb) + ", " + first->name + "'s at " +
               std::to_string(*la) + ", and the difference is not a small multiple of a common step";
      auto ua = a.clc ? std::nullopt : constantOf(a.ub), ub = b.clc ? std::nullopt : constantOf(b.ub);
      bool ubAligned = level == deepest && (first->realUb || p.realUb); // a peeled last iteration (alignUpperBounds)
      if (sa && sb && *sa == *sb && *sa > 0 && la && lb && *la == *lb && ua && ub && *ua != *ub && !ubAligned) {
        auto trips = [&](int64_t u) { return std::to_string(std::max<int64_t>(0, (u - *la + *sa - 1) / *sa)); };
        return p.name + "'s " + loop + " runs to " + std::to_string(*ub) + ", " + first->name + "'s to " +
               std::to_string(*ua) + " (" + trips(*ub) + " against " + trips(*ua) + " iterations of step " +
               std::to_string(*sa) + ": one of them handles an iteration outside its loop)";
      }
    }
  }
  return "";
}

void analyzeNest(Part &p) {
  auto loopsIn = [](Block &b) {
    std::vector<Operation *> loops;
    for (Operation &op : b)
      if (isLoop(&op))
        loops.push_back(&op);
    return loops;
  };
  auto checkNoLoops = [&](Operation *root, const std::string &where) {
    root->walk([&](Operation *op) {
      if (op != root && isLoop(op))
        throw Unsupported{p.name + ": loop nested " + where + " (only a tile loop around one K loop is encoded)"};
    });
  };
  auto view = [&](Operation *loop) {
    std::string why;
    std::optional<LoopView> v = loopView(loop, &why);
    if (!v)
      throw Unsupported{p.name + ": " + why};
    return v;
  };
  // The K loop in `b`: directly, or under a chain of scf.if (each with the loop in one branch), filling p.guards.
  std::function<Operation *(Block &)> findInner = [&](Block &b) -> Operation * {
    std::vector<Operation *> loops = loopsIn(b), ifs;
    for (Operation &op : b) {
      if (isLoop(&op))
        continue;
      bool holds = false;
      op.walk([&](Operation *o) { holds |= o != &op && isLoop(o); });
      if (holds && op.getName().getStringRef() == "scf.if")
        ifs.push_back(&op);
      else if (holds)
        throw Unsupported{p.name + ": loop nested in a region of the loop body (only a tile loop around one K loop, "
                                   "possibly under scf.if, is encoded)"};
    }
    if (loops.size() + ifs.size() > 1)
      throw Unsupported{p.name + ": " + std::to_string(loops.size() + ifs.size()) +
                        " sequential loops inside the tile loop"};
    if (!loops.empty())
      return loops[0];
    if (ifs.empty())
      return nullptr;
    Operation *ifOp = ifs[0];
    int withLoops = -1;
    for (unsigned r = 0; r < 2 && r < ifOp->getNumRegions(); ++r) {
      bool holds = false;
      ifOp->getRegion(r).walk([&](Operation *o) { holds |= isLoop(o); });
      if (holds && withLoops >= 0)
        throw Unsupported{p.name + ": loops in both branches of an scf.if of the loop body"};
      if (holds)
        withLoops = static_cast<int>(r);
    }
    p.guards.push_back({ifOp, withLoops == 0});
    return findInner(ifOp->getRegion(withLoops).front());
  };
  std::vector<Operation *> l1 = loopsIn(*p.block);
  for (Operation &op : *p.block)
    if (std::find(l1.begin(), l1.end(), &op) == l1.end())
      checkNoLoops(&op, "in a conditional or region");
  if (l1.size() > 1)
    throw Unsupported{p.name + ": " + std::to_string(l1.size()) + " sequential loops (one loop nest is encoded)"};
  if (l1.empty())
    return;
  p.l1 = l1[0];
  p.v1 = view(p.l1);
  p.depth = 1;
  p.l2 = findInner(*p.v1->body);
  if (!p.l2)
    return;
  p.v2 = view(p.l2);
  p.depth = 2;
  for (Operation &op : *p.v2->body)
    checkNoLoops(&op, "three deep");
}

} // namespace tlxsim::verifier::proof
