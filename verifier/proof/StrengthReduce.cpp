// Strength reduction of loop-carried products (StrengthReduce.h).
#include "verifier/proof/StrengthReduce.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

using namespace mlir;

namespace tlxsim::verifier::proof {
namespace {

/// A product to reduce: `mul` = iter_arg `arg` of `loop` times `factor` (defined outside the loop), the iter_arg
/// advancing by `step` per iteration.
struct Product {
  scf::ForOp loop;
  arith::MulIOp mul;
  unsigned arg = 0;
  Value factor;
  APInt step;
};

/// The constant c where `yielded` is `r + c` or `c + r` (of r's width).
std::optional<APInt> constantIncrement(Value yielded, BlockArgument r) {
  auto add = yielded.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  Value other = add.getLhs() == r ? add.getRhs() : add.getRhs() == r ? add.getLhs() : Value();
  APInt c;
  if (!other || !matchPattern(other, m_ConstantInt(&c)))
    return std::nullopt;
  return c;
}

/// The first reducible product in `root`, if any.
std::optional<Product> findProduct(ModuleOp root) {
  std::optional<Product> found;
  root.walk([&](scf::ForOp loop) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [i, r] : llvm::enumerate(loop.getRegionIterArgs())) {
      if (!r.getType().isSignlessInteger() || r.getType().isInteger(1)) // an i1 sum is no counter
        continue;
      std::optional<APInt> step = constantIncrement(yield.getOperand(i), r);
      if (!step)
        continue;
      for (Operation *user : r.getUsers()) {
        auto mul = dyn_cast<arith::MulIOp>(user);
        if (!mul || mul->getParentOp() != loop.getOperation())
          continue;
        Value f = mul.getLhs() == r ? mul.getRhs() : mul.getLhs();
        if (f == r || !f.getParentRegion()->isProperAncestor(&loop.getRegion()) || matchPattern(f, m_Constant()))
          continue;
        found = Product{loop, mul, static_cast<unsigned>(i), f, *step};
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return found;
}

/// Replaces `p.mul` by a new iter_arg of `p.loop` (see strengthReduced); false where the loop cannot grow one.
bool reduce(Product p) {
  IRRewriter rw(p.loop.getContext());
  rw.setInsertionPoint(p.loop);
  Location loc = p.mul.getLoc();
  Type type = p.mul.getType();
  Value init = rw.create<arith::MulIOp>(loc, p.loop.getInitArgs()[p.arg], p.factor);
  Value stepC = rw.create<arith::ConstantOp>(loc, rw.getIntegerAttr(type, p.step));
  Value inc = rw.create<arith::MulIOp>(loc, p.factor, stepC);
  arith::MulIOp mul = p.mul;
  FailureOr<LoopLikeOpInterface> grown = cast<LoopLikeOpInterface>(p.loop.getOperation())
      .replaceWithAdditionalYields(rw, ValueRange{init}, /*replaceInitOperandUsesInLoop=*/false,
                                   [&](OpBuilder &b, Location l, ArrayRef<BlockArgument> added) {
                                     return SmallVector<Value>{b.create<arith::AddIOp>(l, added[0], inc)};
                                   });
  if (failed(grown))
    return false;
  Value g = grown->getRegionIterArgs().back();
  rw.replaceAllUsesWith(mul.getResult(), g);
  rw.eraseOp(mul);
  return true;
}

} // namespace

OwningOpRef<ModuleOp> strengthReduced(ModuleOp module) {
  if (!findProduct(module))
    return nullptr;
  OwningOpRef<ModuleOp> clone(module.clone());
  // One product at a time: a rewrite replaces its loop, so the others are found again in the new IR. Bounded by the
  // products found in the original (each rewrite removes one).
  for (int n = 0; n < 256; ++n) {
    std::optional<Product> p = findProduct(*clone);
    if (!p || !reduce(*p))
      break;
  }
  return clone;
}

} // namespace tlxsim::verifier::proof
