// Counted loops (Loops.h).
#include "verifier/proof/Loops.h"

#include "ir/Location.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <string>

using namespace mlir;

namespace tlxsim::verifier::proof {

bool isLoop(Operation *op) {
  llvm::StringRef n = op->getName().getStringRef();
  return n == "scf.for" || n == "scf.while";
}

std::vector<Value> LoopView::yields() const {
  std::vector<Value> out;
  for (Value v : body->getTerminator()->getOperands())
    out.push_back(v);
  return out;
}

namespace {
/// Whether `v` is defined outside `loop` (a value the loop does not change).
bool definedOutside(Value v, Operation *loop) {
  Region *r = v.getParentRegion();
  return r && !loop->isAncestor(r->getParentOp()) && r->getParentOp() != loop;
}

/// The `ttng.clc_query_cancel` a while loop's continuation depends on: the condition's operands are computed (in
/// the before region) from arguments whose yielded values (in the after region) depend on the query; null if none.
Operation *clcSource(Block &before, Block &after, Operation *cond) {
  Operation *yield = after.getTerminator();
  if (!yield || yield->getNumOperands() != before.getNumArguments())
    return nullptr;
  llvm::SmallVector<Value> todo;
  llvm::SmallPtrSet<Operation *, 16> seen;
  if (cond->getNumOperands() > 0)
    todo.push_back(cond->getOperand(0));
  while (!todo.empty()) {
    Value v = todo.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == &before)
        todo.push_back(yield->getOperand(arg.getArgNumber()));
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!def || !seen.insert(def).second)
      continue;
    if (def->getName().getStringRef() == "ttng.clc_query_cancel")
      return def;
    for (Value o : def->getOperands())
      todo.push_back(o);
  }
  return nullptr;
}

std::optional<LoopView> whileView(Operation *op, std::string &why) {
  if (op->getNumRegions() != 2 || op->getRegion(0).empty() || op->getRegion(1).empty()) {
    why = "a malformed scf.while";
    return std::nullopt;
  }
  Block &before = op->getRegion(0).front(), &after = op->getRegion(1).front();
  Operation *cond = before.getTerminator();
  if (!cond || cond->getName().getStringRef() != "scf.condition" || cond->getNumOperands() < 1 ||
      cond->getNumOperands() - 1 != after.getNumArguments() || op->getNumOperands() != before.getNumArguments()) {
    why = "an scf.while that does not forward its arguments";
    return std::nullopt;
  }
  // The before block's arguments are the carried values; the condition forwards some of them (each once) to the
  // after block's arguments and the loop's results.
  std::vector<Value> carried(before.getNumArguments());
  std::vector<unsigned> results;
  for (unsigned i = 0; i + 1 < cond->getNumOperands(); ++i) {
    auto arg = dyn_cast<BlockArgument>(cond->getOperand(i + 1));
    if (!arg || arg.getOwner() != &before || carried[arg.getArgNumber()]) {
      why = "an scf.while whose condition forwards other values than its arguments";
      return std::nullopt;
    }
    carried[arg.getArgNumber()] = after.getArgument(i);
    results.push_back(arg.getArgNumber());
  }
  for (Operation &o : before)
    if (&o != cond && !o.getName().getStringRef().starts_with("arith.")) {
      why = "an scf.while whose condition runs " + o.getName().getStringRef().str();
      return std::nullopt;
    }
  auto cmp = cond->getOperand(0).getDefiningOp<arith::CmpIOp>();
  Operation *yield = after.getTerminator();
  if (!yield || yield->getNumOperands() != before.getNumArguments()) {
    why = "an scf.while whose body does not yield one value per argument";
    return std::nullopt;
  }
  auto view = [&](unsigned j) {
    LoopView v;
    v.op = op;
    v.lb = op->getOperand(j);
    v.body = &after;
    v.iv = carried[j];
    v.ivIndex = j;
    v.ivCarried = true;
    v.carried = carried;
    v.results = results;
    for (unsigned a = 0; a < op->getNumOperands(); ++a)
      v.inits.push_back(op->getOperand(a));
    return v;
  };
  if (cmp && cmp.getPredicate() == arith::CmpIPredicate::slt)
    for (unsigned j = 0; j < before.getNumArguments(); ++j) {
      if (cmp.getLhs() != before.getArgument(j) || !definedOutside(cmp.getRhs(), op) || !carried[j])
        continue;
      auto add = yield->getOperand(j).getDefiningOp<arith::AddIOp>();
      if (!add)
        continue;
      Value iv = carried[j];
      Value step = add.getLhs() == iv ? add.getRhs() : add.getRhs() == iv ? add.getLhs() : Value();
      if (!step || !definedOutside(step, op))
        continue;
      LoopView v = view(j);
      v.ub = cmp.getRhs();
      v.step = step;
      return v;
    }
  // A CLC tile loop: `a_j != stop` with a_j's next value from the cancellation response.
  Operation *clc = clcSource(before, after, cond);
  if (cmp && cmp.getPredicate() == arith::CmpIPredicate::ne && clc)
    for (unsigned j = 0; j < before.getNumArguments(); ++j) {
      Value arg = before.getArgument(j);
      Value stop = cmp.getLhs() == arg ? cmp.getRhs() : cmp.getRhs() == arg ? cmp.getLhs() : Value();
      if (!stop || !definedOutside(stop, op))
        continue;
      LoopView v = view(j);
      v.clc = true;
      v.ub = stop;
      return v;
    }
  why = "an scf.while that is not counted (its condition is not `iv < bound` with `iv += step` in its body, bound "
        "and step loop-invariant): a symbolic trip count the lock-step encoding cannot align";
  if (clc)
    why = "a CLC tile loop (" + ir::pythonLocation(clc->getLoc()).str() +
          "): an scf.while whose condition is not `tile_id != stop` on a loop-carried tile id (stop loop-invariant) "
          "with the tile id from ttng.clc_query_cancel";
  return std::nullopt;
}
} // namespace

std::optional<LoopView> loopView(Operation *op, std::string *why) {
  std::string reason;
  std::optional<LoopView> out;
  if (op->getName().getStringRef() == "scf.for" && op->getNumRegions() == 1 && !op->getRegion(0).empty() &&
      op->getNumOperands() >= 3) {
    LoopView v;
    v.op = op;
    v.lb = op->getOperand(0);
    v.ub = op->getOperand(1);
    v.step = op->getOperand(2);
    v.body = &op->getRegion(0).front();
    v.iv = v.body->getArgument(0);
    for (unsigned a = 3; a < op->getNumOperands(); ++a) {
      v.inits.push_back(op->getOperand(a));
      v.carried.push_back(v.body->getArgument(a - 2));
      v.results.push_back(a - 3);
    }
    out = v;
  } else if (op->getName().getStringRef() == "scf.while") {
    out = whileView(op, reason);
  } else {
    reason = "not a loop";
  }
  if (!out && why)
    *why = reason;
  return out;
}

} // namespace tlxsim::verifier::proof
