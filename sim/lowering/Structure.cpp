// Lowering: structured forms that are not scf loops: `scf.execute_region` (inlined), AMD warp-pipeline stage
// borders (ConvertWarpPipeline's barriers), and unstructured cf.br / cf.cond_br triangles and diamonds
// (a function body split by `cf.cond_br` around an early branch, e.g. AMD's XCD pid remap).
#include "sim/lowering/Lowerer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

namespace {
constexpr llvm::StringLiteral kStage = "triton.warp_pipeline.stage";
constexpr llvm::StringLiteral kPipelinedFor = "triton.warp_pipeline.pipelined_for";

bool isStage(Operation *op) { return op && op->getName().getStringRef() == "scf.execute_region" && op->hasAttr(kStage); }

/// ConvertWarpPipeline's isWarpPipelineIgnorableBarrier: a barrier or wait already at a stage border takes the
/// place of the cluster barrier the pass would insert there.
bool isBorderBarrier(Operation *op) {
  if (!op)
    return false;
  StringRef name = op->getName().getStringRef();
  return llvm::is_contained({"rocdl.s.barrier", "gpu.barrier", "ttg.async_wait", "amdg.async_wait",
                             "amdg.async_tdm_wait", "amdg.async_tdm_intrinsic_wait"},
                            name);
}
} // namespace

void Lowerer::ctaBarrier(Operation &op, std::vector<Instr> &out) {
  Instr instr;
  instr.op = Op::CtaBarrier;
  instr.loc = loc(op.getLoc());
  out.push_back(instr);
}

void Lowerer::warpPipelineLoopFence(Operation &forOp, bool after, std::vector<Instr> &out) {
  if (!forOp.hasAttr(kPipelinedFor))
    return;
  // Before: emitPipelinePrelude's `ttg.barrier local` (thread 0 is in warp group 0: warpHigh is false, it skips
  // the phase-shift cond_barrier). After: emitPipelinePostlude's `amdg.cond_barrier %warpLow`, true for thread 0.
  ctaBarrier(forOp, out);
  (void)after;
}

int32_t Lowerer::constSlot(Operation &op, int64_t value, std::vector<Instr> &out) {
  Instr c;
  c.op = Op::Const;
  c.loc = loc(op.getLoc());
  c.result = p.numSlots++;
  c.numResults = 1;
  c.imm = value;
  c.bits = 1;
  out.push_back(c);
  return c.result;
}

int32_t Lowerer::yieldBlock(Operation &branch, ValueRange values) {
  int32_t index = static_cast<int32_t>(p.blocks.size());
  p.blocks.emplace_back();
  Instr y;
  y.op = Op::Yield;
  y.loc = loc(branch.getLoc());
  y.args = slotsOf(values);
  p.blocks[index].instrs.push_back(y);
  return index;
}

/// scf.execute_region (one block: runs once, its yield gives the results; MLIR SCF dialect) as an `scf.if` on a
/// true constant; a warp-pipeline stage also gets the cluster barriers ConvertWarpPipeline places at its borders
/// (third_party/amd/lib/TritonAMDGPUToLLVM/ConvertWarpPipeline.cpp: a barrier before every stage but the first,
/// the loop's wrap-around one before its yield, none where a barrier or wait op already sits; a flat sequence in
/// a function body gets the prelude barrier and the postlude cond_barrier). cf.br inside a structured side block
/// yields its operands to the join block's arguments.
bool Lowerer::lowerStructure(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "cf.br") {
    Instr instr = make(Op::Yield, op);
    instr.args = slotsOf(op.getOperands());
    out.push_back(instr);
    return true;
  }
  if (name == "cf.cond_br")
    return unsupportedOp(op, "a cf.cond_br that is not a triangle or diamond of the function body is not supported "
                             "by the simulator yet");
  if (name != "scf.execute_region")
    return false;
  if (op.getNumRegions() != 1 || op.getRegion(0).empty())
    return reject(op, "expected one region");
  if (!op.getRegion(0).hasOneBlock())
    return unsupportedOp(op, "an scf.execute_region with several blocks is not supported by the simulator yet");
  Operation *prev = op.getPrevNode(), *next = op.getNextNode();
  Operation *parent = op.getParentOp();
  bool inLoop = parent && parent->hasAttr(kPipelinedFor);
  // ConvertWarpPipeline converts flat sequences in the function's top-level blocks only.
  bool topLevel = parent && parent->getName().getStringRef() == "tt.func";
  bool stage = op.hasAttr(kStage);
  // A stage border: a previous stage, possibly behind a barrier op that already serves as the border.
  if (stage && (inLoop || topLevel) && isStage(prev))
    ctaBarrier(op, out);
  bool flatFirst = stage && topLevel && !isStage(prev) && !(isBorderBarrier(prev) && isStage(prev->getPrevNode())) &&
                   isStage(next ? (isBorderBarrier(next) ? next->getNextNode() : next) : nullptr);
  if (flatFirst)
    ctaBarrier(op, out); // emitPipelinePrelude's ttg.barrier local
  Instr instr = make(Op::If, op);
  instr.args = {constSlot(op, 1, out)};
  instr.block = lowerRegion(op.getRegion(0));
  out.push_back(instr);
  if (stage && inLoop && next && next->getName().getStringRef() == "scf.yield") {
    // The wrap-around cluster barrier before the yield, unless the body starts with a barrier op.
    Operation &first = parent->getRegion(0).front().front();
    if (!isBorderBarrier(&first))
      ctaBarrier(op, out);
  }
  bool flatLast = stage && topLevel && !isStage(next) && !(isBorderBarrier(next) && isStage(next->getNextNode())) &&
                  (isStage(prev) || (isBorderBarrier(prev) && isStage(prev->getPrevNode())));
  if (flatLast)
    ctaBarrier(op, out); // emitPipelinePostlude's cond_barrier %warpLow (true for thread 0)
  return true;
}

int32_t Lowerer::lowerCfgRegion(Region &region) {
  int32_t index = static_cast<int32_t>(p.blocks.size());
  p.blocks.emplace_back();
  mlir::Block *entry = &region.front();
  std::vector<int32_t> args;
  for (BlockArgument arg : entry->getArguments())
    args.push_back(slot(arg));
  std::vector<Instr> instrs;
  llvm::SmallPtrSet<mlir::Block *, 8> seen;
  auto fail = [&](Operation &op, const llvm::Twine &what) {
    notSupported(op, "regions with several blocks: " + what +
                         " (the simulator follows cf.br chains and cf.cond_br triangles and diamonds only)");
    return -1;
  };
  /// Lowers `side` (one predecessor, ending in cf.br to `join`) as a Program block: its cf.br yields.
  auto sideBlock = [&](mlir::Block *side, mlir::Block *join) -> int32_t {
    Operation *br = side->empty() ? nullptr : &side->back();
    if (!br || br->getName().getStringRef() != "cf.br" || br->getSuccessor(0) != join || !side->getSinglePredecessor() ||
        side->getNumArguments() != 0)
      return -2;
    seen.insert(side);
    return lowerBlock(*side);
  };
  for (mlir::Block *b = entry; b && error.empty();) {
    if (!seen.insert(b).second)
      return fail(*region.getParentOp(), "a branch back to an earlier block (a loop)");
    for (Operation &op : b->without_terminator()) {
      if (!error.empty())
        break;
      lowerOp(op, instrs);
    }
    Operation *term = &b->back();
    StringRef name = term->getName().getStringRef();
    if (name != "cf.br" && name != "cf.cond_br") {
      lowerOp(*term, instrs);
      break;
    }
    mlir::Block *join = nullptr;
    int32_t thenBlock = -1, elseBlock = -1, cond = -1;
    if (name == "cf.br") {
      join = term->getSuccessor(0);
      thenBlock = yieldBlock(*term, term->getOperands());
      cond = constSlot(*term, 1, instrs);
    } else {
      mlir::Block *t = term->getSuccessor(0), *f = term->getSuccessor(1);
      // cf.cond_br's operands: the condition, the true destination's operands, the false destination's.
      if (term->getNumOperands() != 1 + t->getNumArguments() + f->getNumArguments())
        return fail(*term, "a cf.cond_br whose operands do not match its destinations' arguments");
      ValueRange tArgs = term->getOperands().slice(1, t->getNumArguments());
      ValueRange fArgs = term->getOperands().slice(1 + t->getNumArguments(), f->getNumArguments());
      auto brTarget = [](mlir::Block *x) -> mlir::Block * {
        return !x->empty() && x->back().getName().getStringRef() == "cf.br" ? x->back().getSuccessor(0) : nullptr;
      };
      cond = slot(term->getOperand(0));
      if (brTarget(f) == t) { // triangle: the false side joins the true target
        join = t;
        thenBlock = yieldBlock(*term, tArgs);
        elseBlock = sideBlock(f, join);
      } else if (brTarget(t) == f) { // triangle: the true side joins the false target
        join = f;
        thenBlock = sideBlock(t, join);
        elseBlock = yieldBlock(*term, fArgs);
      } else if (brTarget(t) && brTarget(t) == brTarget(f)) { // diamond
        join = brTarget(t);
        thenBlock = sideBlock(t, join);
        elseBlock = sideBlock(f, join);
      }
      if (!join || thenBlock == -2 || elseBlock == -2)
        return fail(*term, "a cf.cond_br whose successors do not meet at one join block");
    }
    // The If's results are the join block's arguments, numbered consecutively here (first sight).
    Instr instr;
    instr.op = Op::If;
    instr.loc = loc(term->getLoc());
    instr.args = {cond};
    instr.block = thenBlock;
    instr.block2 = elseBlock;
    if (join->getNumArguments() > 0) {
      instr.result = p.numSlots;
      for (BlockArgument arg : join->getArguments())
        if (slot(arg) != instr.result + static_cast<int32_t>(arg.getArgNumber()))
          return fail(*term, "a join block argument used before its block");
      instr.numResults = static_cast<int32_t>(join->getNumArguments());
    }
    instrs.push_back(instr);
    b = join;
  }
  p.blocks[index].args = std::move(args);
  p.blocks[index].instrs = std::move(instrs);
  return index;
}

} // namespace tlxsim::sim::lowering
