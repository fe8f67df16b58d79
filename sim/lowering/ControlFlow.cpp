// Lowering: Control flow: scf.for / if / while, yields, returns, ttg.warp_specialize partitions, thread-id conditions.
#include "sim/lowering/Lowerer.h"

#include "ir/Partitions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringSwitch.h"

#include <numeric>

using namespace mlir;

namespace tlxsim::sim::lowering {

std::optional<int64_t> Lowerer::threadValue(mlir::Value v, int64_t tid, bool &usesTid, int depth) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 16)
    return std::nullopt;
  StringRef name = def->getName().getStringRef();
  if (name == "rocdl.workitem.id.x" || (name == "gpu.thread_id" && def->hasAttr("dimension"))) {
    if (name == "gpu.thread_id") { // only the x dimension: Triton's CTAs are 1-D in threads
      std::string dim;
      llvm::raw_string_ostream os(dim);
      def->getAttr("dimension").print(os);
      if (os.str().find('x') == std::string::npos)
        return std::nullopt;
    }
    usesTid = true;
    return tid;
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
      return integer.getValue().getSExtValue();
  if (name == "arith.extsi" || name == "arith.extui" || name == "arith.trunci" || name == "arith.index_cast")
    return threadValue(def->getOperand(0), tid, usesTid, depth + 1);
  if (def->getNumOperands() != 2)
    return std::nullopt;
  auto l = threadValue(def->getOperand(0), tid, usesTid, depth + 1);
  auto r = threadValue(def->getOperand(1), tid, usesTid, depth + 1);
  if (!l || !r)
    return std::nullopt;
  if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq: return *l == *r;
    case arith::CmpIPredicate::ne: return *l != *r;
    case arith::CmpIPredicate::slt: case arith::CmpIPredicate::ult: return *l < *r;
    case arith::CmpIPredicate::sle: case arith::CmpIPredicate::ule: return *l <= *r;
    case arith::CmpIPredicate::sgt: case arith::CmpIPredicate::ugt: return *l > *r;
    case arith::CmpIPredicate::sge: case arith::CmpIPredicate::uge: return *l >= *r;
    }
  }
  if ((name == "arith.remsi" || name == "arith.remui" || name == "arith.divsi" || name == "arith.divui") && *r == 0)
    return std::nullopt;
  return llvm::StringSwitch<std::optional<int64_t>>(name)
      .Case("arith.addi", *l + *r).Case("arith.subi", *l - *r).Case("arith.muli", *l * *r)
      .Cases("arith.remsi", "arith.remui", *r ? *l % *r : 0).Cases("arith.divsi", "arith.divui", *r ? *l / *r : 0)
      .Case("arith.andi", *l & *r).Case("arith.ori", *l | *r).Case("arith.xori", *l ^ *r)
      .Case("arith.shli", *l << (*r & 63)).Cases("arith.shrsi", "arith.shrui", *l >> (*r & 63))
      .Default(std::nullopt);
}

/// The threads of the executing partition (its warps x `ttg.threads-per-warp`, thread ids from 0) for which
/// the condition of the `scf.if` `op` holds, if it depends on the thread id only; none otherwise.
bool Lowerer::insideThreadIf(Operation &op) {
  for (Operation *parent = op.getParentOp(); parent; parent = parent->getParentOp()) {
    StringRef name = parent->getName().getStringRef();
    if (name == "ttg.warp_specialize.partitions" || name == "tt.func")
      return false;
    if (name == "scf.if" && threadsTaking(*parent))
      return true;
  }
  return false;
}

std::optional<int64_t> Lowerer::threadsTaking(Operation &op) {
  std::vector<int32_t> warps = threadsTakingPerWarp(op);
  if (warps.empty())
    return std::nullopt;
  return std::accumulate(warps.begin(), warps.end(), int64_t(0));
}

/// scf.for / if / yield / while / condition, tt.return, ttg.warp_specialize.
bool Lowerer::lowerControlFlow(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "scf.for") {
    if (op.getNumOperands() < 3 || op.getNumRegions() != 1 || op.getRegion(0).empty() ||
        op.getRegion(0).front().getNumArguments() != op.getNumOperands() - 2)
      return reject(op, "expected lower bound, upper bound, step and a body taking the induction variable and "
                           "the iteration arguments");
    Instr instr = make(Op::For, op);
    instr.args = slotsOf(op.getOperands());
    instr.block = lowerRegion(op.getRegion(0));
    instr.sub = op.hasAttr("unsignedCmp") ? 1 : 0;
    instr.bits = scalarBits(op.getOperand(0).getType());
    warpPipelineLoopFence(op, /*after=*/false, out);
    out.push_back(instr);
    warpPipelineLoopFence(op, /*after=*/true, out);
    return true;
  }
  if (name == "scf.if") {
    if (op.getNumOperands() != 1 || op.getNumRegions() != 2)
      return reject(op, "expected a condition, a then region and an else region");
    Instr instr = make(Op::If, op);
    instr.args = slotsOf(op.getOperands());
    if (std::vector<int32_t> warps = threadsTakingPerWarp(op); !warps.empty()) { // `tid % 64 == 0`: per thread
      instr.sub = 1;
      instr.imm2 = std::accumulate(warps.begin(), warps.end(), int64_t(0));
      instr.aux = static_cast<int32_t>(p.threadIfWarps.size());
      p.threadIfWarps.push_back(std::move(warps));
    }
    instr.block = lowerRegion(op.getRegion(0));
    instr.block2 = lowerRegion(op.getRegion(1));
    out.push_back(instr);
    return true;
  }
  if (name == "scf.yield" || name == "ttg.warp_yield") {
    Instr instr = make(Op::Yield, op);
    instr.args = slotsOf(op.getOperands());
    out.push_back(instr);
    return true;
  }
  if (name == "tt.return" || name == "ttg.warp_return") {
    out.push_back(make(Op::Return, op));
    return true;
  }
  if (name == "ttg.warp_specialize") {
    Instr instr = make(Op::WarpSpecialize, op);
    instr.args = slotsOf(op.getOperands());
    WarpSpecialize ws;
    auto numWarps = op.getAttrOfType<DenseI32ArrayAttr>("partitionNumWarps");
    if (op.getNumRegions() != 2 || op.getRegion(0).empty() || op.getRegion(1).empty() ||
        op.getRegion(1).front().empty())
      return reject(op, "expected a default region and a region holding ttg.warp_specialize.partitions");
    Operation *partitions = &op.getRegion(1).front().front();
    if (!numWarps || numWarps.size() != static_cast<int64_t>(partitions->getNumRegions()))
      return reject(op, "partitionNumWarps must give one warp count per partition (" +
                               llvm::Twine(partitions->getNumRegions()) + ")");
    ws.defaultBlock = lowerRegion(op.getRegion(0));
    for (unsigned i = 0; i < partitions->getNumRegions(); ++i) {
      if (numWarps[i] <= 0)
        return reject(op, "partition" + llvm::Twine(i) + " has num_warps " + llvm::Twine(numWarps[i]));
      Region &region = partitions->getRegion(i);
      if (region.empty() || region.front().getNumArguments() != op.getNumOperands())
        return reject(op, "partition" + llvm::Twine(i) + " must take one argument per capture (" +
                                 llvm::Twine(op.getNumOperands()) + ")");
      size_t firstBlock = p.blocks.size(); // the partition's blocks: its region's and every nested one's, in order
      ws.workers.push_back({lowerRegion(region), numWarps[i], "partition" + std::to_string(i)});
      if (numWarps[i] > 1 && warpsDiverge(region)) {
        // Per-warp agents: the partition's execution barrier (bar.sync over its threads) becomes a rendezvous of its
        // warps' agents, run in global time order as a named barrier is (Op::NamedBarrier sub 2).
        ws.workers.back().perWarp = p.hasPerWarpAgents = true;
        for (size_t b = firstBlock; b < p.blocks.size(); ++b)
          for (Instr &barrier : p.blocks[b].instrs)
            if (barrier.op == Op::CtaBarrier) {
              barrier.op = Op::NamedBarrier;
              barrier.sub = 2;
            }
      }
    }
    // First warp ids: `warpGroupStartIds` when make_llir's allocate-warp-groups already ran, else its rule:
    // workers ordered by num_warps (largest first, stable) after the default partition's warps.
    auto startIds = op.getAttrOfType<DenseI32ArrayAttr>("warpGroupStartIds");
    if (startIds && startIds.size() == static_cast<int64_t>(ws.workers.size())) {
      for (size_t i = 0; i < ws.workers.size(); ++i)
        ws.workers[i].firstWarp = startIds[i];
    } else {
      std::vector<size_t> byWarps(ws.workers.size());
      std::iota(byWarps.begin(), byWarps.end(), 0);
      std::stable_sort(byWarps.begin(), byWarps.end(),
                       [&](size_t x, size_t y) { return ws.workers[x].numWarps > ws.workers[y].numWarps; });
      int32_t next = p.numWarps;
      for (size_t i : byWarps) {
        ws.workers[i].firstWarp = next;
        next += ws.workers[i].numWarps;
      }
    }
    instr.imm = static_cast<int64_t>(p.warpSpecializes.size());
    p.warpSpecializes.push_back(std::move(ws));
    out.push_back(instr);
    return true;
  }
  if (name == "scf.while") {
    if (op.getNumRegions() != 2 || op.getRegion(0).empty() || op.getRegion(1).empty())
      return malformed(op, "expected a before and an after region"), true;
    Instr instr = make(Op::While, op);
    instr.args = slotsOf(op.getOperands());
    instr.block = lowerRegion(op.getRegion(0));
    instr.block2 = lowerRegion(op.getRegion(1));
    out.push_back(instr);
    return true;
  }
  if (name == "scf.condition") {
    Instr instr = make(Op::Condition, op);
    instr.args = slotsOf(op.getOperands());
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
