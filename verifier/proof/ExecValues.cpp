// Op family: values and control flow (constants, launch quantities, integer arith, scf.if) of execOp.
#include "verifier/proof/Encoder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace tlxsim::verifier::proof {

// Integer and boolean arith ops are exact on unbounded integers (the launch bounds keep i32 arithmetic from
// overflowing); products and quotients of two symbols are abstracted (Symbols::arith, Symbols::nonlinear).
void Encoder::execValue(OpCtx &x) {
  Operation &op = x.op;
  Env &env = x.env;
  llvm::StringRef name = x.name;
  auto in = [&](unsigned i) { return x.in(i); };
  auto setInt = [&](const z3::expr &e) { x.setInt(e); };
  auto setBool = [&](const z3::expr &e) { x.setBool(e); };
  auto opaque = [&]() { x.opaque(); };
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    if (auto ia = dyn_cast<IntegerAttr>(cst.getValue())) {
      if (ia.getType().isInteger(1))
        setBool(c.bool_val(ia.getValue().getBoolValue()));
      else
        setInt(c.int_val(static_cast<int64_t>(ia.getValue().getSExtValue())));
    } else
      opaque();
    return;
  }
  if (name == "nvgpu.cluster_id" || name == "nvg.cluster_id") { // nvg: fbtriton (TLX cluster_cta_rank)
    // The CTA's rank in its cluster: one launch quantity per CTA, in [0, ttg.num-ctas) (constrained in run()).
    env[op.getResult(0)] = param("cluster_rank");
    return;
  }
  if (name == "tt.get_program_id" || name == "tt.get_num_programs") {
    int64_t axis = intAttr(op, "axis", 0);
    const char *ax[] = {"x", "y", "z"};
    std::string n = std::string(name == "tt.get_program_id" ? "program_id_" : "num_programs_") + ax[((axis % 3) + 3) % 3];
    env[op.getResult(0)] = param(n);
    return;
  }
  if (name.starts_with("arith.") && op.getNumResults() == 1 && op.getResult(0).getType().isIntOrIndex()) {
    bool isBool = op.getResult(0).getType().isInteger(1);
    Val a = in(0), b = in(1);
    auto both = [&](Val::K k) { return a.k == k && b.k == k; };
    if (name == "arith.cmpi") {
      if (!both(Val::Int) && !both(Val::Bool))
        return opaque();
      auto pred = cast<arith::CmpIOp>(op).getPredicate();
      if (a.k == Val::Bool) {
        if (pred == arith::CmpIPredicate::eq)
          return setBool(*a.e == *b.e);
        if (pred == arith::CmpIPredicate::ne)
          return setBool(*a.e != *b.e);
        return opaque();
      }
      const z3::expr &x = *a.e, &y = *b.e;
      switch (pred) {
      case arith::CmpIPredicate::eq: return setBool(x == y);
      case arith::CmpIPredicate::ne: return setBool(x != y);
      case arith::CmpIPredicate::slt: case arith::CmpIPredicate::ult: return setBool(x < y);
      case arith::CmpIPredicate::sle: case arith::CmpIPredicate::ule: return setBool(x <= y);
      case arith::CmpIPredicate::sgt: case arith::CmpIPredicate::ugt: return setBool(x > y);
      case arith::CmpIPredicate::sge: case arith::CmpIPredicate::uge: return setBool(x >= y);
      }
      return opaque();
    }
    if (name == "arith.select") {
      Val t = in(1), f = in(2);
      if (a.k != Val::Bool || t.k != f.k || (t.k != Val::Int && t.k != Val::Bool))
        return opaque();
      env[op.getResult(0)] = {t.k, z3::ite(*a.e, *t.e, *f.e), -1};
      return;
    }
    if (name == "arith.extsi" || name == "arith.extui" || name == "arith.trunci" || name == "arith.index_cast" ||
        name == "arith.index_castui") {
      if (a.k == Val::Bool && !isBool)
        return setInt(z3::ite(*a.e, c.int_val(name == "arith.extsi" ? -1 : 1), c.int_val(0)));
      if (a.k == Val::Int && isBool)
        return setBool(z3::mod(*a.e, 2) == 1);
      if (a.k != Val::None)
        env[op.getResult(0)] = a;
      else
        opaque();
      return;
    }
    if (isBool && both(Val::Bool)) {
      if (name == "arith.andi")
        return setBool(*a.e && *b.e);
      if (name == "arith.ori")
        return setBool(*a.e || *b.e);
      if (name == "arith.xori")
        return setBool(*a.e != *b.e);
      return opaque();
    }
    if (!both(Val::Int))
      return opaque();
    const z3::expr &x = *a.e, &y = *b.e;
    if (name == "arith.addi")
      return setInt(x + y);
    if (name == "arith.subi")
      return setInt(x - y);
    if (name == "arith.muli")
      return setInt(arith('*', x, y));
    if (name == "arith.divsi" || name == "arith.divui")
      return setInt(arith('/', x, y));
    if (name == "arith.remsi" || name == "arith.remui")
      return setInt(arith('%', x, y));
    if (name == "arith.floordivsi" && y.is_numeral() && y.get_numeral_int64() > 0)
      return setInt(x / y);
    if (name == "arith.ceildivsi" && y.is_numeral() && y.get_numeral_int64() > 0)
      return setInt(-((-x) / y));
    if (name == "arith.minsi" || name == "arith.minui")
      return setInt(z3::ite(x < y, x, y));
    if (name == "arith.maxsi" || name == "arith.maxui")
      return setInt(z3::ite(x > y, x, y));
    // Bitwise ops on a parity bit: one operand a constant or a 0/1 value (`extui` of an i1, a select of
    // constants), e.g. TLX's `phase ^ (buf == S - 1)`; exact on all integers (two's complement).
    if (name == "arith.andi" || name == "arith.ori" || name == "arith.xori")
      if (auto r = bitwiseWithConstants(name, x, y))
        return setInt(*r);
    if (name == "arith.shli" && y.is_numeral() && y.get_numeral_int64() >= 0 && y.get_numeral_int64() < 31)
      return setInt(x * c.int_val(int64_t(1) << y.get_numeral_int64()));
    if (auto r = overClusterRank(name, x, y))
      return setInt(*r);
    return opaque();
  }
}

// A bitwise op or shift whose operands are functions of the cluster rank alone (constants after substituting each
// rank): the table of its values over the cluster's ranks, an ite on the rank. Exact: the rank lies in
// [0, numCtas) (Driver::constrainLaunch). TLX's multicast masks, `1 << rank | 1 << (rank ^ 1)`.
std::optional<z3::expr> Encoder::overClusterRank(llvm::StringRef name, const z3::expr &x, const z3::expr &y) {
  bool bitwise = name == "arith.andi" || name == "arith.ori" || name == "arith.xori";
  bool shift = name == "arith.shli" || name == "arith.shrsi" || name == "arith.shrui";
  if (numCtas < 2 || numCtas > 64 || (!bitwise && !shift))
    return std::nullopt;
  z3::expr rank = *param("cluster_rank").e;
  std::optional<z3::expr> table;
  for (int64_t r = numCtas - 1; r >= 0; --r) {
    z3::expr_vector from(c), to(c);
    from.push_back(rank);
    to.push_back(c.int_val(r));
    z3::expr xr = z3::expr(x).substitute(from, to).simplify(), yr = z3::expr(y).substitute(from, to).simplify();
    int64_t a = 0, b = 0;
    if (!xr.is_numeral_i64(a) || !yr.is_numeral_i64(b))
      return std::nullopt;
    int64_t v = 0;
    if (bitwise)
      v = name == "arith.andi" ? (a & b) : name == "arith.ori" ? (a | b) : (a ^ b);
    else if (b < 0 || b > 62)
      return std::nullopt; // i32 shifts past the width are poison
    else
      v = name == "arith.shli" ? a << b : name == "arith.shrsi" ? a >> b : int64_t(uint64_t(a) >> b);
    table = table ? z3::ite(rank == c.int_val(r), c.int_val(v), *table) : c.int_val(v);
  }
  return table;
}

// x OP y for OP in andi / ori / xori, where y (or x) is a numeral in {-1, 0, 1} or an ite tree of them (depth
// <= 4): the op distributes over the ite's branches. Z3's mod is Euclidean, so x & 1 = x mod 2 and
// x ^ 1 = x + 1 - 2 (x mod 2) also hold for negative x in two's complement; x ^ -1 = -1 - x. Also andi with a
// low-bit mask 2^j - 1 (x mod 2^j) or its complement -2^j (x - x mod 2^j: a 2-CTA pair's leader rank, rank & -2).
std::optional<z3::expr> Encoder::bitwiseWithConstants(llvm::StringRef name, const z3::expr &x, const z3::expr &y,
                                                      int depth) {
  auto numeral = [](const z3::expr &e, int64_t &v) { return e.is_numeral() && e.is_numeral_i64(v); };
  int64_t a = 0, b = 0;
  if (numeral(x, a) && numeral(y, b))
    return c.int_val(name == "arith.andi" ? (a & b) : name == "arith.ori" ? (a | b) : (a ^ b));
  auto withConstant = [&](const z3::expr &v, int64_t k) -> std::optional<z3::expr> {
    if (k == 0)
      return name == "arith.andi" ? c.int_val(0) : v;
    if (k == -1)
      return name == "arith.andi" ? v : name == "arith.ori" ? c.int_val(-1) : c.int_val(-1) - v;
    if (k == 1)
      return name == "arith.andi" ? z3::mod(v, 2)
             : name == "arith.ori" ? v + 1 - z3::mod(v, 2)
                                   : v + 1 - 2 * z3::mod(v, 2);
    auto pow2 = [](int64_t p) { return p > 0 && p <= (int64_t(1) << 30) && (p & (p - 1)) == 0; };
    if (name == "arith.andi" && pow2(k + 1))
      return z3::mod(v, c.int_val(k + 1));
    if (name == "arith.andi" && k < 0 && pow2(-k))
      return v - z3::mod(v, c.int_val(-k));
    return std::nullopt;
  };
  if (numeral(y, b))
    return withConstant(x, b);
  if (numeral(x, a))
    return withConstant(y, a);
  if (depth >= 4)
    return std::nullopt;
  for (const z3::expr *t : {&y, &x}) {
    const z3::expr &other = t == &y ? x : y;
    if (t->is_app() && t->decl().decl_kind() == Z3_OP_ITE) {
      auto hi = bitwiseWithConstants(name, other, t->arg(1), depth + 1);
      auto lo = hi ? bitwiseWithConstants(name, other, t->arg(2), depth + 1) : std::nullopt;
      if (hi && lo)
        return z3::ite(t->arg(0), *hi, *lo);
    }
  }
  return std::nullopt;
}


// Both branches run under their conditions; the results merge by ite where the kinds agree.
void Encoder::execIf(OpCtx &x) {
  Operation &op = x.op;
  Env &env = x.env;
  llvm::StringRef name = x.name;
  auto in = [&](unsigned i) { return x.in(i); };
  const z3::expr &guard = x.guard;
  std::vector<Event> *events = x.events;
  int part = x.part;
  if (name == "scf.if") {
    Val cond = in(0);
    z3::expr cnd = cond.k == Val::Bool ? *cond.e : fresh("cond", true);
    Block *thenB = op.getRegion(0).empty() ? nullptr : &op.getRegion(0).front();
    Block *elseB = op.getRegion(1).empty() ? nullptr : &op.getRegion(1).front();
    if (thenB)
      execOps(opsAfter(*thenB, nullptr), env, guard && cnd, events, part);
    if (elseB)
      execOps(opsAfter(*elseB, nullptr), env, guard && !cnd, events, part);
    bindIfResults(op, env, cnd);
    return;
  }
}

void Encoder::bindIfResults(Operation &op, Env &env, const z3::expr &cnd) {
  Block *thenB = op.getRegion(0).empty() ? nullptr : &op.getRegion(0).front();
  Block *elseB = op.getRegion(1).empty() ? nullptr : &op.getRegion(1).front();
  for (unsigned i = 0; i < op.getNumResults(); ++i) {
    Val t = thenB ? get(env, thenB->getTerminator()->getOperand(i)) : Val{};
    Val f = elseB && elseB->mightHaveTerminator() ? get(env, elseB->getTerminator()->getOperand(i)) : Val{};
    if (t.k == f.k && (t.k == Val::Int || t.k == Val::Bool))
      env[op.getResult(i)] = {t.k, z3::ite(cnd, *t.e, *f.e), -1};
    else if ((t.k == Val::Bar || t.k == Val::Buf) && f.k == t.k && t.group == f.group)
      env[op.getResult(i)] = {t.k, z3::ite(cnd, *t.e, *f.e), t.group};
    else
      env[op.getResult(i)] = typedFresh(op.getResult(i).getType(), "if");
  }
}

} // namespace tlxsim::verifier::proof
