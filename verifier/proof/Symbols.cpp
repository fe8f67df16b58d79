// Symbolic values of the encoding (Symbols.h).
#include "verifier/proof/Symbols.h"

namespace tlxsim::verifier::proof {

std::set<std::string> symbolNames(const z3::expr &root) { return symbolNames(std::vector<z3::expr>{root}); }

std::set<std::string> symbolNames(std::vector<z3::expr> todo) {
  std::set<std::string> out;
  std::set<unsigned> seen;
  while (!todo.empty()) {
    z3::expr e = todo.back();
    todo.pop_back();
    if (!seen.insert(e.id()).second || !e.is_app())
      continue;
    if (e.num_args() == 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED)
      out.insert(e.decl().name().str());
    for (unsigned i = 0; i < e.num_args(); ++i)
      todo.push_back(e.arg(i));
  }
  return out;
}

z3::expr Symbols::fresh(const std::string &base, bool isBool) {
  std::string n = base + "!" + std::to_string(freshCounter++);
  return isBool ? c.bool_const(n.c_str()) : c.int_const(n.c_str());
}

z3::expr Symbols::nonlinear(char op, const z3::expr &x, const z3::expr &y, const std::function<z3::expr()> &exact) {
  auto key = std::make_tuple(op, Z3_get_ast_id(c, x), Z3_get_ast_id(c, y));
  auto it = abstractedIndex.find(key);
  if (it != abstractedIndex.end())
    return abstracted[it->second].var;
  z3::expr v = c.int_const(("nl!" + std::to_string(abstracted.size())).c_str());
  abstractedIndex[key] = abstracted.size();
  abstracted.push_back({v, exact()});
  return v;
}

namespace {
/// The most distinct subterms of a product's operand that Symbols::arith distributes the product over.
constexpr int kFiniteChoiceTerms = 512;

/// Whether `e` takes one of finitely many constant values: an integer constant, or an `ite`, sum, difference,
/// negation or constant multiple of such terms (a tile rank `ite(next, r + 2, r)` over a constant start), within
/// `*budget` distinct subterms.
bool finiteChoice(const z3::expr &e, int *budget, std::set<unsigned> &seen) {
  if (!seen.insert(e.id()).second)
    return true;
  if (--*budget < 0)
    return false;
  if (e.is_numeral())
    return true;
  if (!e.is_app())
    return false;
  switch (e.decl().decl_kind()) {
  case Z3_OP_ITE:
    return finiteChoice(e.arg(1), budget, seen) && finiteChoice(e.arg(2), budget, seen);
  case Z3_OP_ADD:
  case Z3_OP_SUB:
  case Z3_OP_UMINUS:
    for (unsigned i = 0; i < e.num_args(); ++i)
      if (!finiteChoice(e.arg(i), budget, seen))
        return false;
    return true;
  case Z3_OP_MUL: // a constant multiple, the constant on either side (`muli %r, %c4` builds `r * 4`)
    return e.num_args() == 2 && (e.arg(0).is_numeral() || e.arg(1).is_numeral()) &&
           finiteChoice(e.arg(0), budget, seen) && finiteChoice(e.arg(1), budget, seen);
  default:
    return false;
  }
}

/// `e * y` for a finiteChoice `e`, pushed through its sums and `ite`s down to its constants (exact: multiplication
/// distributes over them), so that every product is a constant times `y`. `memo` keeps the term's sharing.
z3::expr distributeProduct(const z3::expr &e, const z3::expr &y, std::map<unsigned, z3::expr> &memo) {
  if (auto it = memo.find(e.id()); it != memo.end())
    return it->second;
  if (e.is_numeral())
    return memo.emplace(e.id(), e * y).first->second;
  auto arg = [&](unsigned i) { return distributeProduct(e.arg(i), y, memo); };
  z3::expr r = e;
  switch (e.decl().decl_kind()) {
  case Z3_OP_ITE:
    r = z3::ite(e.arg(0), arg(1), arg(2));
    break;
  case Z3_OP_ADD:
    r = arg(0);
    for (unsigned i = 1; i < e.num_args(); ++i)
      r = r + arg(i);
    break;
  case Z3_OP_SUB:
    r = arg(0);
    for (unsigned i = 1; i < e.num_args(); ++i)
      r = r - arg(i);
    break;
  case Z3_OP_UMINUS:
    r = -arg(0);
    break;
  default: // Z3_OP_MUL: a constant times a finiteChoice term
    r = e.arg(0).is_numeral() ? e.arg(0) * arg(1) : arg(0) * e.arg(1);
  }
  memo.emplace(e.id(), r);
  return r;
}
} // namespace

z3::expr Symbols::arith(char op, const z3::expr &x, const z3::expr &y) {
  auto exact = [&] { return op == '*' ? x * y : op == '/' ? divS(x, y) : remS(x, y); };
  if (y.is_numeral() || (op == '*' && x.is_numeral()))
    return exact();
  // The operands are not simplified: a simplified term has another shape, and Z3's cost follows the shape (TLX's
  // blackwell_fa_ws_persistent: 17.3 M units as written, 28.1 M with simplified operands, the same verdicts).
  if (op == '*')
    for (auto [e, other] : {std::pair{x, y}, {y, x}}) {
      int budget = kFiniteChoiceTerms;
      std::set<unsigned> seen;
      std::map<unsigned, z3::expr> memo;
      if (finiteChoice(e, &budget, seen))
        return distributeProduct(e, other, memo);
    }
  return nonlinear(op, x, y, exact);
}

z3::expr Symbols::clusterCoord(const z3::expr &rank, int axis, const std::array<int64_t, 3> &dims) {
  z3::context &ctx = rank.ctx();
  int64_t below = 1;
  for (int i = 0; i < axis; ++i)
    below *= dims[i];
  return z3::mod(rank / ctx.int_val(below), ctx.int_val(dims[axis]));
}

z3::expr Symbols::forPeer(const z3::expr &x, int64_t cta, const std::array<int64_t, 3> &dims) {
  z3::expr_vector from(c), to(c);
  z3::expr rank = params.at("cluster_rank");
  from.push_back(rank);
  to.push_back(c.int_val(cta));
  for (int axis = 0; axis < 3; ++axis)
    if (auto it = params.find(std::string("program_id_") + "xyz"[axis]); it != params.end()) {
      from.push_back(it->second);
      to.push_back(it->second - clusterCoord(rank, axis, dims) + clusterCoord(c.int_val(cta), axis, dims));
    }
  // The abstracted terms `x` reads, directly or through the exact terms of others (a term reads only earlier ones).
  std::set<std::string> reads = symbolNames(x);
  size_t own = abstracted.size();
  for (size_t i = own; i-- > 0;)
    if (abstracted[i].peerOf < 0 && reads.count(abstracted[i].var.decl().name().str()))
      reads.merge(symbolNames(abstracted[i].exact));
  // In creation order, so that an earlier term's peer version is in `from` by the time a later term's exact term
  // is substituted.
  for (size_t i = 0; i < own; ++i) {
    if (abstracted[i].peerOf >= 0 || !reads.count(abstracted[i].var.decl().name().str()))
      continue;
    auto key = std::make_pair(i, cta);
    auto it = peerTerms.find(key);
    if (it == peerTerms.end()) {
      z3::expr exact = abstracted[i].exact;
      z3::expr mapped = exact.substitute(from, to);
      size_t index = std::string::npos;
      if (!z3::eq(mapped, exact)) {
        index = abstracted.size();
        std::string name = abstracted[i].var.decl().name().str() + "@" + std::to_string(cta);
        abstracted.push_back({c.int_const(name.c_str()), mapped, static_cast<int>(i)});
        // This CTA's own version is its own term (the substitution is the identity at its rank).
        paramConstraints.push_back(z3::implies(rank == c.int_val(cta), abstracted.back().var == abstracted[i].var));
      }
      it = peerTerms.emplace(key, index).first;
    }
    if (it->second != std::string::npos) {
      from.push_back(abstracted[i].var);
      to.push_back(abstracted[it->second].var);
    }
  }
  z3::expr y = x;
  return y.substitute(from, to);
}

z3::expr Symbols::divS(const z3::expr &a, const z3::expr &b) {
  // arith.divsi truncates toward zero; Z3's div is Euclidean (floor for a positive divisor).
  if (b.is_numeral()) {
    int64_t v = b.get_numeral_int64();
    if (v > 0)
      return z3::ite(a >= 0, a / b, -((-a) / b));
    if (v < 0)
      return -divS(a, -b);
  }
  z3::expr q = z3::ite(a >= 0, z3::ite(b > 0, a / b, -(a / (-b))), z3::ite(b > 0, -((-a) / b), (-a) / (-b)));
  return z3::ite(b == 0, fresh("div_by_zero"), q);
}

z3::expr Symbols::remS(const z3::expr &a, const z3::expr &b) { return a - b * divS(a, b); }

Val Symbols::param(const std::string &name) {
  auto it = params.find(name);
  if (it == params.end()) {
    z3::expr e = c.int_const(name.c_str());
    it = params.emplace(name, e).first;
  }
  return {Val::Int, it->second, -1};
}

} // namespace tlxsim::verifier::proof
