// Lock-step symbolic encoding of the partitions' loop nests and the k-induction / bounded model
// checking queries of Prover.h.
#include "verifier/proof/Prover.h"

#include "ir/OpSyntax.h"
#include "ir/Types.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <z3++.h>

#include <chrono>
#include <functional>
#include <optional>
#include <set>

using namespace mlir;

namespace tlxsim::verifier::proof {

std::string parseAssumption(const std::string &text, Assumption &out) {
  static const char *ops[] = {">=", "<=", "==", "!=", ">", "<"};
  for (const char *op : ops) {
    size_t pos = text.find(op);
    if (pos == std::string::npos)
      continue;
    std::string lhs = text.substr(0, pos), rhs = text.substr(pos + strlen(op));
    auto trim = [](std::string s) {
      while (!s.empty() && isspace(static_cast<unsigned char>(s.front())))
        s.erase(s.begin());
      while (!s.empty() && isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
      return s;
    };
    lhs = trim(lhs);
    rhs = trim(rhs);
    auto isInt = [](const std::string &s, int64_t &v) {
      if (s.empty())
        return false;
      char *end = nullptr;
      errno = 0;
      long long x = strtoll(s.c_str(), &end, 10);
      if (errno || *end)
        return false;
      v = x;
      return true;
    };
    int64_t v;
    std::string o = op;
    auto isName = [](const std::string &n) {
      if (n.empty() || !(isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_'))
        return false;
      for (char ch : n)
        if (!(isalnum(static_cast<unsigned char>(ch)) || ch == '_'))
          return false;
      return true;
    };
    if (!(isName(lhs) && isInt(rhs, v)) && !(isInt(lhs, v) && isName(rhs)))
      return "expected NAME OP INTEGER (OP one of >= <= > < == !=) in '" + text + "'";
    if (isInt(rhs, v) && !lhs.empty() && !isInt(lhs, v)) {
      isInt(rhs, v);
      out = {lhs, o, v};
      return "";
    }
    if (isInt(lhs, v) && !rhs.empty()) { // 64<=K  ==  K>=64
      std::string flipped = o == ">=" ? "<=" : o == "<=" ? ">=" : o == ">" ? "<" : o == "<" ? ">" : o;
      out = {rhs, flipped, v};
      return "";
    }
    return "expected NAME" + o + "INTEGER in '" + text + "'";
  }
  return "expected NAME OP INTEGER (OP one of >= <= > < == !=) in '" + text + "'";
}

namespace {

using Clock = std::chrono::steady_clock;

/// Property kinds; the first three are reported, the others are lemmas of the induction.
enum Kind {
  WaitParity = 0, PhaseBalance, TxBalance, SlotRange, StageOwnership, ProxyFence,
  LemmaAlign, LemmaTx, LemmaTable, NumKinds
};
const char *kindName(int k) {
  static const char *names[] = {"wait-parity", "phase-balance", "tx-balance", "slot-range", "stage-ownership",
                                "proxy-fence", "loop-alignment",
                                "tx-per-step", "phase-table"};
  return names[k];
}

struct Unsupported {
  std::string why;
};

/// A symbolic SSA value: an integer, a boolean, a barrier slot (group + index), or nothing we track.
struct Val {
  enum K { None, Int, Bool, Bar, Buf } k = None; ///< Buf: a stage of a staged data buffer (group: its array)
  std::optional<z3::expr> e; ///< the integer / boolean, or the slot index of a barrier
  int group = -1;
};

/// One barrier allocation (`ttg.local_alloc` of i64 elements): its slots and init counts.
struct Group {
  std::string name;
  ir::SourceLoc loc;
  int slots = 1;
  std::vector<int64_t> count; ///< init count per slot (1 until an init is seen)
  std::set<int> waiters;      ///< partitions that wait on it
  std::set<int> users;        ///< partitions that use it at all
  bool asyncSignals = false;  ///< completed by TMA bytes or tcgen05 arrivals (in flight until a wait sees them)
  /// A staged data buffer (`ttg.local_alloc` of S x ... non-i64 elements), not a barrier: the subject of
  /// stage-ownership (written by TMA through `fill`, read by wgmma / tcgen05 MMA / local_load).
  bool data = false;
  std::set<int> fill;      ///< data: barrier groups its TMA writes complete on
  std::set<int> readers;   ///< data: partitions that read it
  std::set<int> arrivers;  ///< barrier: partitions that arrive on it (plain or tcgen05 commit)
  std::set<int> genericWriters; ///< data: partitions that write it through the generic proxy (local_store / alloc)
  std::set<int> tmaWriters;     ///< data: partitions whose TMA loads write it
  std::set<int> wgmmaReaders;   ///< data: partitions whose wgmma (warp_group_dot) reads it
};

/// One partition: its block and loop nest (pre; for L1 { pre1; for L2 { body }; post1 }; post).
struct Part {
  std::string name;
  Block *block = nullptr;
  std::vector<std::pair<Value, Value>> seeds; ///< block argument <- warp_specialize operand
  int depth = 0;
  Operation *l1 = nullptr, *l2 = nullptr;
};

struct Event {
  /// Read: a data stage read (group: the data array; amount 0 generic, 1 async MMA, 2 TMA store);
  /// Write: a generic-proxy write of a data buffer; Fence: fence.proxy.async (group -1);
  /// Dot: a wgmma group committed (group -1; its operand reads follow as Read events with `wgmma`);
  /// DotWait: warp_group_dot_wait {pendings = amount} (group -1).
  enum K { Wait, Arrive, Expect, Tma, Read, Write, Fence, Dot, DotWait } k;
  int group;
  z3::expr idx, guard, parity;
  int64_t amount; ///< arrive count or bytes
  Operation *op;
  int part;
  int dgroup = -1;                 ///< Tma: the data array written (-1: not a staged buffer)
  std::optional<z3::expr> didx;    ///< Tma: the stage written
  bool wgmma = false;              ///< Read: an operand of a wgmma (in flight until a warp_group_dot_wait retires it)
  /// Cluster kernels: `peer`: bytes or an arrival that a CTA of the cluster (this one included) delivers to this
  /// CTA's barrier (multicast mask, remote barrier), in the issuer's terms with its rank substituted; barrier
  /// accounting only. `issueOnly`: the issuer-side view of such an op (its own wgmma depth, slot range); no
  /// accounting.
  bool peer = false, issueOnly = false;
};

struct PState {
  std::optional<z3::expr> t, k;
  std::optional<z3::expr> first, ub; ///< innermost loop: no iteration of it ran yet; its upper bound
  std::vector<Val> outer, inner;
};

struct Ghost {
  std::vector<std::vector<z3::expr>> tx;                 ///< [group][slot]
  /// (writer partition, data buffer) -> a generic write of it not yet followed by a proxy fence
  std::map<std::pair<int, int>, z3::expr> dirty;
  std::map<std::pair<int, int>, std::vector<z3::expr>> B, D, has, last; ///< (group, waiter) -> [slot]
  /// wgmma depth, per (reader partition, data buffer) and stage: a wgmma group reading the stage may still be in
  /// flight (`inflight`), and how many groups the partition committed since the latest one that reads it, itself
  /// included (`age`, capped at the deepest `pendings` + 1: warp_group_dot_wait {pendings = N} retires every
  /// group older than the N most recent, PTX ISA wgmma.wait_group).
  std::map<std::pair<int, int>, std::vector<z3::expr>> inflight, age;
};

struct State {
  std::optional<z3::expr> done;
  std::vector<PState> parts;
  std::optional<Ghost> ghost;
};

struct Violation {
  int kind, group;
  z3::expr cond;
  Operation *op;
  int part;
  int lemma = -1; ///< learned lemma id (LemmaTable)
};

/// A Z3 `timeout` parameter (milliseconds, unsigned) for `seconds`: at least 1 ms, at most
/// UINT_MAX ms (49.7 days; a larger value would wrap around to a tiny limit).
unsigned queryMilliseconds(double seconds) {
  return static_cast<unsigned>(std::clamp(seconds * 1000, 1.0, 4294967295.0));
}

/// A duration in seconds as the user wrote it (`%g`: 120, 0.5, 0.0001).
std::string secondsText(double seconds) {
  std::string out;
  llvm::raw_string_ostream(out) << llvm::format("%g", seconds);
  return out;
}

class Prover {
public:
  Prover(ModuleOp module, const ProofOptions &options) : module(module), options(options), solverParams(c) {
    unsigned ms = queryMilliseconds(options.timeoutSeconds);
    solverParams.set("timeout", ms);
    solverParams.set("rlimit", static_cast<unsigned>(std::min<double>(4e9, ms * 20000.0)));
  }

  ProofReport run();

private:
  ModuleOp module;
  const ProofOptions &options;
  z3::context c;
  z3::params solverParams;
  ProofReport report;
  bool budgetExhausted = false; ///< a query was refused because the kernel's budget was spent
  Clock::time_point runStart; ///< set by run(): the budget counts from there (encoding included)

  Operation *func = nullptr;
  std::vector<Operation *> prefix; ///< kernel ops before ttg.warp_specialize
  std::vector<Operation *> suffix; ///< kernel ops after it (run by the default partition's warps)
  std::optional<State> shape;      ///< the initial state: kinds and barrier groups of loop-carried values
  /// Nonlinear terms (product or quotient of two symbolic values, e.g. a tile count
  /// cdiv(M, BM) * cdiv(N, BN)) are abstracted by a fresh integer, one per term, so that every
  /// query stays in linear arithmetic; proofs stay sound (the abstraction over-approximates),
  /// counterexamples are concretized with the exact terms (`exact`).
  struct Abstracted {
    z3::expr var, exact;
  };
  std::vector<Abstracted> abstracted;
  std::map<std::tuple<char, unsigned, unsigned>, size_t> abstractedIndex;
  z3::expr nonlinear(char op, const z3::expr &x, const z3::expr &y, const std::function<z3::expr()> &exact) {
    auto key = std::make_tuple(op, Z3_get_ast_id(c, x), Z3_get_ast_id(c, y));
    auto it = abstractedIndex.find(key);
    if (it != abstractedIndex.end())
      return abstracted[it->second].var;
    z3::expr v = c.int_const(("nl!" + std::to_string(abstracted.size())).c_str());
    abstractedIndex[key] = abstracted.size();
    abstracted.push_back({v, exact()});
    return v;
  }
  std::vector<Part> parts;
  std::vector<Group> groups;
  DenseMap<Operation *, int> groupOfAlloc;
  std::map<std::string, z3::expr> params;
  std::vector<z3::expr> paramConstraints, smallConstraints;
  int freshCounter = 0;
  int maxDepth = 0;
  int64_t numCtas = 1; ///< ttg.num-ctas: CTAs per cluster (nvgpu.cluster_id lies in [0, numCtas))
  /// Cluster kernels: the barrier views `ttng.map_to_remote_buffer` makes (the local view, the target CTA).
  struct RemoteView {
    Val bar;
    z3::expr target;
  };
  DenseMap<Value, RemoteView> remoteViews;
  /// Expressions of the ops that reach other CTAs' barriers, and the op: the peers' versions substitute the
  /// issuer's rank, which is exact only when nothing else in them differs between the CTAs (checked in run()).
  std::vector<std::pair<std::vector<z3::expr>, Operation *>> peerExprs;
  std::set<int> remoteData; ///< data buffers that other CTAs' multicasts write (stage-ownership not analyzed)
  /// `x` as the CTA of rank `cta` of this CTA's cluster computes it: the rank substituted, and program_id_x
  /// shifted by the rank difference (a cluster is `numCtas` consecutive CTAs along x).
  z3::expr forPeer(const z3::expr &x, int64_t cta) {
    z3::expr_vector from(c), to(c);
    z3::expr rank = params.at("cluster_rank");
    from.push_back(rank);
    to.push_back(c.int_val(cta));
    if (auto it = params.find("program_id_x"); it != params.end()) {
      from.push_back(it->second);
      to.push_back(it->second - rank + c.int_val(cta));
    }
    z3::expr y = x;
    return y.substitute(from, to);
  }
  int64_t ageCap = 1; ///< the deepest warp_group_dot_wait pendings + 1 (ages beyond it all retire alike)
  bool collecting = false;
  double totalSeconds = 0; ///< all Z3 checks ///< dry run that only learns which partitions use which barrier

  // ---- extraction -------------------------------------------------------------------------
  void findStructure();
  void analyzeNest(Part &p);
  void scanBarriers(Operation *root, int part);

  // ---- symbolic execution -----------------------------------------------------------------
  using Env = DenseMap<Value, Val>;
  z3::expr fresh(const std::string &base, bool isBool = false) {
    std::string n = base + "!" + std::to_string(freshCounter++);
    return isBool ? c.bool_const(n.c_str()) : c.int_const(n.c_str());
  }
  Val get(Env &env, Value v);
  void execOps(llvm::ArrayRef<Operation *> ops, Env &env, const z3::expr &guard, std::vector<Event> *events, int part);
  void execOp(Operation &op, Env &env, const z3::expr &guard, std::vector<Event> *events, int part);
  Val param(Operation &op, const std::string &name);
  z3::expr divS(const z3::expr &a, const z3::expr &b);
  z3::expr remS(const z3::expr &a, const z3::expr &b);

  static std::vector<Operation *> opsBefore(Block &b, Operation *stop) {
    std::vector<Operation *> out;
    for (Operation &op : b) {
      if (&op == stop)
        break;
      if (!op.hasTrait<OpTrait::IsTerminator>())
        out.push_back(&op);
    }
    return out;
  }
  static std::vector<Operation *> opsAfter(Block &b, Operation *start) {
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

  // ---- transition system ------------------------------------------------------------------
  Env baseEnv(int part);
  Val typedFresh(Type t, const std::string &name);
  State freshState(const std::string &tag);
  State initial(std::vector<Violation> &viol);
  State step(const State &s, std::vector<Violation> &viol);
  void apply(Ghost &g, const std::vector<Event> &events, std::vector<Violation> &viol);
  void checkEnd(const Ghost &g, const z3::expr &when, std::vector<Violation> &viol);
  void checkBoundary(const State &s, const z3::expr &when, std::vector<Violation> &viol);
  Ghost freshGhost(const std::string &tag);
  Ghost initGhost();
  static z3::expr merge(const z3::expr &c, const z3::expr &a, const z3::expr &b) { return z3::ite(c, a, b); }
  Val mergeVal(const z3::expr &cond, const Val &a, const Val &b);
  State mergeState(const z3::expr &cond, const State &a, const State &b);

  // ---- queries ------------------------------------------------------------------------------
  /// "the proof budget of B s (--proof-budget) was spent", for witnesses and the note.
  std::string budgetSpent() const {
    return "the proof budget of " + secondsText(options.budgetSeconds) + " s (--proof-budget) was spent";
  }

  /// One Z3 query under the per-query limit and the kernel's remaining wall-time budget
  /// (`ProofOptions::budgetSeconds`): once the budget is spent every query answers `unknown`
  /// without running, so no sequence of queries (Houdini retries, counterexample searches) can
  /// outlast it. `seconds` and the report's total accumulate the wall time.
  z3::check_result check(z3::solver &s, double &seconds) {
    double left = options.budgetSeconds - std::chrono::duration<double>(Clock::now() - runStart).count();
    if (left <= 0) {
      budgetExhausted = true;
      return z3::unknown;
    }
    if (left < options.timeoutSeconds) {
      z3::params p(c);
      p.set("timeout", queryMilliseconds(left));
      s.set(p);
    }
    auto t0 = Clock::now();
    z3::check_result r = s.check();
    double d = std::chrono::duration<double>(Clock::now() - t0).count();
    if (getenv("TLXSIM_PROOF_DEBUG"))
      llvm::errs() << "z3 query: " << (r == z3::sat ? "sat" : r == z3::unsat ? "unsat" : "unknown") << " in " << d
                   << " s\n";
    seconds += d;
    totalSeconds += d;
    return r;
  }
  void describeCounterexample(z3::model &m, const std::vector<State> &states,
                              const std::vector<std::vector<Violation>> &viol, int kind, int group, ProofResult &r);
};

// ---------------------------------------------------------------------------------------------
// Extraction

void Prover::findStructure() {
  if (auto n = module->getAttrOfType<IntegerAttr>("ttg.num-ctas"))
    numCtas = std::max<int64_t>(1, n.getInt());
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
  for (Operation &op : body)
    if (op.getName().getStringRef() == "ttg.local_alloc" && op.getNumResults() == 1)
      if (auto t = dyn_cast<ir::MemDescType>(op.getResult(0).getType()))
        if (t.getElementType().isInteger(64)) {
          Group g;
          g.name = ir::variableName(op.getLoc()).value_or("barrier" + std::to_string(groups.size()));
          g.loc = ir::pythonLocation(op.getLoc());
          g.slots = t.getAllocShape().size() >= 2 ? static_cast<int>(t.getAllocShape().front()) : 1;
          if (g.slots < 1 || g.slots > 64)
            throw Unsupported{"barrier array '" + g.name + "' has " + std::to_string(g.slots) + " slots"};
          g.count.assign(g.slots, 1);
          for (const Group &other : groups)
            if (other.name == g.name)
              g.name += "#" + std::to_string(groups.size());
          groupOfAlloc[&op] = static_cast<int>(groups.size());
          groups.push_back(g);
        }
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
          for (const Group &other : groups)
            if (other.name == g.name)
              g.name += "#" + std::to_string(groups.size());
          groupOfAlloc[&op] = static_cast<int>(groups.size());
          groups.push_back(g);
        }
  });
  for (size_t i = 0; i < parts.size(); ++i) {
    analyzeNest(parts[i]);
    maxDepth = std::max(maxDepth, parts[i].depth);
  }
  for (const Part &p : parts)
    if (p.depth > 0 && p.depth != maxDepth)
      throw Unsupported{p.name + " has a loop nest of depth " + std::to_string(p.depth) + ", another partition " +
                        std::to_string(maxDepth) + ": the lock-step encoding needs aligned loop nests"};
}

void Prover::analyzeNest(Part &p) {
  auto loopsIn = [](Block &b) {
    std::vector<Operation *> loops;
    for (Operation &op : b)
      if (op.getName().getStringRef() == "scf.for")
        loops.push_back(&op);
    return loops;
  };
  auto checkNoLoops = [&](Operation *root, const std::string &where) {
    root->walk([&](Operation *op) {
      if (op != root && (op->getName().getStringRef() == "scf.for" || op->getName().getStringRef() == "scf.while"))
        throw Unsupported{p.name + ": loop nested " + where + " (only a tile loop around one K loop is encoded)"};
    });
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
  p.depth = 1;
  Block &b1 = p.l1->getRegion(0).front();
  std::vector<Operation *> l2 = loopsIn(b1);
  for (Operation &op : b1)
    if (std::find(l2.begin(), l2.end(), &op) == l2.end())
      checkNoLoops(&op, "in a conditional of the loop body");
  if (l2.size() > 1)
    throw Unsupported{p.name + ": " + std::to_string(l2.size()) + " sequential loops inside the tile loop"};
  if (l2.empty())
    return;
  p.l2 = l2[0];
  p.depth = 2;
  checkNoLoops(p.l2, "three deep");
}

// ---------------------------------------------------------------------------------------------
// Symbolic execution

z3::expr Prover::divS(const z3::expr &a, const z3::expr &b) {
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

z3::expr Prover::remS(const z3::expr &a, const z3::expr &b) { return a - b * divS(a, b); }

Val Prover::param(Operation &op, const std::string &name) {
  auto it = params.find(name);
  if (it == params.end()) {
    z3::expr e = c.int_const(name.c_str());
    it = params.emplace(name, e).first;
  }
  return {Val::Int, it->second, -1};
}

Val Prover::get(Env &env, Value v) {
  auto it = env.find(v);
  if (it != env.end())
    return it->second;
  return {};
}

Val Prover::typedFresh(Type t, const std::string &name) {
  if (t.isInteger(1))
    return {Val::Bool, fresh(name, true), -1};
  if (t.isIntOrIndex())
    return {Val::Int, fresh(name), -1};
  return {};
}

static int64_t intAttr(Operation &op, const char *name, int64_t dflt) {
  if (auto a = op.getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return dflt;
}

void Prover::execOps(llvm::ArrayRef<Operation *> ops, Env &env, const z3::expr &guard, std::vector<Event> *events,
                     int part) {
  for (Operation *op : ops)
    execOp(*op, env, guard, events, part);
}

void Prover::execOp(Operation &op, Env &env, const z3::expr &guard, std::vector<Event> *events, int part) {
  llvm::StringRef name = op.getName().getStringRef();
  auto in = [&](unsigned i) { return i < op.getNumOperands() ? get(env, op.getOperand(i)) : Val{}; };
  auto setInt = [&](const z3::expr &e) { env[op.getResult(0)] = {Val::Int, e, -1}; };
  auto setBool = [&](const z3::expr &e) { env[op.getResult(0)] = {Val::Bool, e, -1}; };
  auto opaque = [&]() {
    for (Value r : op.getResults())
      env[r] = typedFresh(r.getType(), "opaque");
  };
  auto groupOperand = [&](const char *group) -> std::optional<Val> {
    auto range = ir::getOperandGroup(&op, group);
    if (!range || range->empty())
      return std::nullopt;
    Val v = get(env, (*range)[0]);
    if (v.k != Val::Bar)
      throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": " + name.str() +
                        " on a barrier the prover cannot trace to its allocation"};
    return v;
  };
  auto predOf = [&](const char *group) -> z3::expr {
    auto range = ir::getOperandGroup(&op, group);
    if (!range || range->empty())
      return c.bool_val(true);
    Val v = get(env, (*range)[0]);
    return v.k == Val::Bool ? *v.e : fresh("pred", true);
  };

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
    env[op.getResult(0)] = param(op, "cluster_rank");
    return;
  }
  if (name == "tt.get_program_id" || name == "tt.get_num_programs") {
    int64_t axis = intAttr(op, "axis", 0);
    const char *ax[] = {"x", "y", "z"};
    std::string n = std::string(name == "tt.get_program_id" ? "program_id_" : "num_programs_") + ax[((axis % 3) + 3) % 3];
    env[op.getResult(0)] = param(op, n);
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
      return setInt(x.is_numeral() || y.is_numeral() ? x * y : nonlinear('*', x, y, [&] { return x * y; }));
    if (name == "arith.divsi" || name == "arith.divui")
      return setInt(y.is_numeral() ? divS(x, y) : nonlinear('/', x, y, [&] { return divS(x, y); }));
    if (name == "arith.remsi" || name == "arith.remui")
      return setInt(y.is_numeral() ? remS(x, y) : nonlinear('%', x, y, [&] { return remS(x, y); }));
    if (name == "arith.floordivsi" && y.is_numeral() && y.get_numeral_int64() > 0)
      return setInt(x / y);
    if (name == "arith.ceildivsi" && y.is_numeral() && y.get_numeral_int64() > 0)
      return setInt(-((-x) / y));
    if (name == "arith.minsi" || name == "arith.minui")
      return setInt(z3::ite(x < y, x, y));
    if (name == "arith.maxsi" || name == "arith.maxui")
      return setInt(z3::ite(x > y, x, y));
    // Bitwise ops with the constant 1 (parity bits); exact on all integers (Z3's mod is Euclidean).
    auto one = [](const z3::expr &e) { return e.is_numeral() && e.get_numeral_int64() == 1; };
    if (name == "arith.andi" && (one(x) || one(y)))
      return setInt(z3::mod(one(y) ? x : y, 2));
    if (name == "arith.xori" && (one(x) || one(y))) {
      z3::expr v = one(y) ? x : y;
      return setInt(v + 1 - 2 * z3::mod(v, 2));
    }
    if (name == "arith.ori" && (one(x) || one(y))) {
      z3::expr v = one(y) ? x : y;
      return setInt(v + 1 - z3::mod(v, 2));
    }
    return opaque();
  }
  if (name == "scf.if") {
    Val cond = in(0);
    z3::expr cnd = cond.k == Val::Bool ? *cond.e : fresh("cond", true);
    Block *thenB = op.getRegion(0).empty() ? nullptr : &op.getRegion(0).front();
    Block *elseB = op.getRegion(1).empty() ? nullptr : &op.getRegion(1).front();
    if (thenB)
      execOps(opsAfter(*thenB, nullptr), env, guard && cnd, events, part);
    if (elseB)
      execOps(opsAfter(*elseB, nullptr), env, guard && !cnd, events, part);
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
    return;
  }
  if (name == "ttg.local_alloc") {
    auto it = groupOfAlloc.find(&op);
    if (it != groupOfAlloc.end())
      env[op.getResult(0)] = {groups[it->second].data ? Val::Buf : Val::Bar, c.int_val(0), it->second};
    if (events && it != groupOfAlloc.end() && groups[it->second].data && op.getNumOperands() > 0) {
      // Initialized from registers: a generic-proxy write.
      groups[it->second].genericWriters.insert(part);
      groups[it->second].users.insert(part);
      events->push_back({Event::Write, it->second, c.int_val(0), guard, c.int_val(0), 0, &op, part});
    }
    return;
  }
  if (name == "ttg.memdesc_index" || name == "ttg.memdesc_subview") {
    Val src = in(0), idx = in(1);
    if (src.k == Val::Bar || src.k == Val::Buf)
      env[op.getResult(0)] = {src.k, idx.k == Val::Int ? *idx.e : fresh("index"), src.group};
    return;
  }
  if (name == "ttng.init_barrier") {
    if (auto bar = groupOperand("alloc")) {
      Group &g = groups[bar->group];
      z3::expr idx = bar->e->simplify();
      if (idx.is_numeral() && idx.get_numeral_int64() >= 0 && idx.get_numeral_int64() < g.slots)
        g.count[idx.get_numeral_int64()] = intAttr(op, "count", 1);
    }
    return;
  }
  auto emit = [&](Event::K k, const Val &bar, const z3::expr &pred, const z3::expr &parity, int64_t amount) {
    if (!events)
      return;
    groups[bar.group].users.insert(part);
    if (k != Event::Arrive || name.starts_with("ttng.tc_gen5"))
      groups[bar.group].asyncSignals |= k != Event::Wait;
    if (k == Event::Wait)
      groups[bar.group].waiters.insert(part);
    if (k == Event::Arrive)
      groups[bar.group].arrivers.insert(part);
    events->push_back({k, bar.group, *bar.e, guard && pred, parity, amount, &op, part});
  };
  // A read of a data stage (an MMA operand or a local_load of a staged buffer).
  auto emitRead = [&](Value v, const z3::expr &pred, int64_t how = 0) {
    Val b = get(env, v);
    if (!events || b.k != Val::Buf)
      return;
    if (how != 2)
      groups[b.group].readers.insert(part);
    groups[b.group].users.insert(part);
    events->push_back({Event::Read, b.group, *b.e, guard && pred, c.int_val(0), how, &op, part});
  };
  auto emitWrite = [&](Value v) {
    Val b = get(env, v);
    if (!events || b.k != Val::Buf)
      return;
    groups[b.group].genericWriters.insert(part);
    groups[b.group].users.insert(part);
    events->push_back({Event::Write, b.group, *b.e, guard, c.int_val(0), 0, &op, part});
  };
  if (numCtas > 1) {
    // The prover follows one CTA, rank `cluster_rank`, and assumes its peers run the same code on the same loop
    // state (checked in run()). A TMA multicast completes its bytes on the barriers of every CTA of its mask, a
    // remote arrive (map_to_remote_buffer) or a ctaMask arrive arrives on other CTAs' barriers: this CTA's
    // barrier receives them from every issuer whose mask or target names it (events `peer`). 2-CTA copies and
    // MMAs and layout-implied multicasts are not encoded.
    if (op.hasAttr("two_cta") || op.hasAttr("two_ctas") || op.hasAttr("multicast") ||
        (op.hasAttr("ctaMask") && name != "ttng.arrive_barrier"))
      throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": cluster kernel (ttg.num-ctas = " +
                        std::to_string(numCtas) + "): " + name.str() +
                        " spans the CTAs of a pair or a CTA layout, whose barriers then count the peers' copies and "
                        "arrivals; not encoded"};
    z3::expr rank = *param(op, "cluster_rank").e;
    auto peers = [&](Event templ, const z3::expr &sel, bool isMask) {
      if (!events)
        return;
      std::vector<z3::expr> deps = {templ.guard, templ.idx, sel};
      if (templ.didx)
        deps.push_back(*templ.didx);
      peerExprs.push_back({deps, &op});
      Event issue = templ;
      issue.issueOnly = true;
      events->push_back(issue);
      for (int64_t cta = 0; cta < numCtas; ++cta) {
        Event e = templ;
        z3::expr sc = forPeer(sel, cta);
        z3::expr reach = c.bool_val(false);
        if (isMask) {
          for (int64_t r = 0; r < numCtas; ++r)
            reach = reach || (rank == c.int_val(r) && z3::mod(sc / c.int_val(int64_t(1) << r), 2) == 1);
        } else
          reach = sc == rank;
        e.guard = forPeer(templ.guard, cta) && reach;
        e.idx = forPeer(templ.idx, cta);
        if (e.didx)
          e.didx = forPeer(*e.didx, cta);
        e.peer = true;
        events->push_back(e);
      }
    };
    if (name == "ttng.map_to_remote_buffer") {
      Val src = in(0), target = in(1);
      if (src.k != Val::Bar || target.k != Val::Int)
        throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": cluster kernel: a remote view of a barrier or "
                          "a target CTA the prover cannot follow"};
      remoteViews.erase(op.getResult(0)); // this execution's view (an earlier step's expressions are stale)
      remoteViews.insert({op.getResult(0), RemoteView{src, *target.e}});
      return;
    }
    if (name == "ttng.arrive_barrier") {
      auto range = ir::getOperandGroup(&op, "alloc");
      auto rv = range && !range->empty() ? remoteViews.find((*range)[0]) : remoteViews.end();
      if (rv != remoteViews.end() || op.hasAttr("ctaMask")) {
        Val bar = rv != remoteViews.end() ? rv->second.bar : *groupOperand("alloc");
        z3::expr sel = rv != remoteViews.end() ? rv->second.target : c.int_val(intAttr(op, "ctaMask", 0));
        if (events) {
          groups[bar.group].users.insert(part);
          groups[bar.group].arrivers.insert(part);
        }
        peers({Event::Arrive, bar.group, *bar.e, guard && predOf("pred"), c.int_val(0), intAttr(op, "count", 1), &op,
               part},
              sel, rv == remoteViews.end());
        return;
      }
    }
    auto mask = ir::getOperandGroup(&op, "multicastTargets");
    if (name == "ttng.async_tma_copy_global_to_local" && mask && !mask->empty()) {
      Val m = get(env, (*mask)[0]);
      auto desc = ir::getOperandGroup(&op, "desc");
      int64_t bytes = 0;
      if (desc && !desc->empty())
        if (auto t = dyn_cast<ir::TensorDescType>((*desc)[0].getType()))
          bytes = t.getBlockBytes();
      auto bar = groupOperand("barrier");
      if (!bar || m.k != Val::Int)
        throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": cluster kernel: a multicast whose mask or "
                          "barrier the prover cannot follow"};
      auto dst = ir::getOperandGroup(&op, "result");
      Val d = dst && !dst->empty() ? get(env, (*dst)[0]) : Val{};
      Event e{Event::Tma, bar->group, *bar->e, guard && predOf("pred"), c.int_val(0), bytes, &op, part};
      if (events) {
        groups[bar->group].users.insert(part);
        groups[bar->group].asyncSignals = true;
        if (d.k == Val::Buf) {
          groups[d.group].fill.insert(bar->group);
          groups[d.group].tmaWriters.insert(part);
          groups[d.group].users.insert(part);
          remoteData.insert(d.group);
        }
      }
      if (d.k == Val::Buf) {
        e.dgroup = d.group;
        e.didx = *d.e;
      }
      peers(e, *m.e, true);
      return;
    }
  }
  if (name == "ttng.wait_barrier") {
    auto bar = groupOperand("alloc");
    auto range = ir::getOperandGroup(&op, "phase");
    Val ph = range && !range->empty() ? get(env, (*range)[0]) : Val{};
    z3::expr parity = ph.k == Val::Int ? z3::mod(*ph.e, 2)
                      : ph.k == Val::Bool ? z3::ite(*ph.e, c.int_val(1), c.int_val(0))
                                          : z3::mod(fresh("phase"), 2);
    if (bar)
      emit(Event::Wait, *bar, predOf("pred"), parity, 0);
    return;
  }
  if (name == "ttng.arrive_barrier") {
    if (auto bar = groupOperand("alloc"))
      emit(Event::Arrive, *bar, predOf("pred"), c.int_val(0), intAttr(op, "count", 1));
    return;
  }
  if (name == "ttng.barrier_expect") {
    if (auto bar = groupOperand("alloc"))
      emit(Event::Expect, *bar, predOf("pred"), c.int_val(0), intAttr(op, "size", 0));
    return;
  }
  if (name == "ttng.async_tma_copy_global_to_local") {
    auto desc = ir::getOperandGroup(&op, "desc");
    int64_t bytes = 0;
    if (desc && !desc->empty())
      if (auto t = dyn_cast<ir::TensorDescType>((*desc)[0].getType()))
        bytes = t.getBlockBytes();
    if (auto bar = groupOperand("barrier")) {
      emit(Event::Tma, *bar, predOf("pred"), c.int_val(0), bytes);
      auto dst = ir::getOperandGroup(&op, "result");
      Val d = dst && !dst->empty() ? get(env, (*dst)[0]) : Val{};
      if (events && d.k == Val::Buf) {
        events->back().dgroup = d.group;
        events->back().didx = *d.e;
        groups[d.group].fill.insert(bar->group);
        groups[d.group].tmaWriters.insert(part);
        groups[d.group].users.insert(part);
      }
    }
    return;
  }
  if (name == "ttng.tc_gen5_commit") {
    if (auto bar = groupOperand("barrier"))
      emit(Event::Arrive, *bar, predOf("pred"), c.int_val(0), 1);
    return;
  }
  if (name == "ttng.tc_gen5_mma" || name == "ttng.tc_gen5_mma_scaled") {
    auto bars = ir::getOperandGroup(&op, "barriers");
    auto preds = ir::getOperandGroup(&op, "barrier_preds");
    z3::expr pred = predOf("pred");
    for (const char *operand : {"a", "b"})
      if (auto r = ir::getOperandGroup(&op, operand); r && !r->empty())
        emitRead((*r)[0], pred, 1);
    if (bars)
      for (unsigned i = 0; i < bars->size(); ++i) {
        Val b = get(env, (*bars)[i]);
        if (b.k != Val::Bar)
          throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": tc_gen5_mma barrier not traced"};
        Val p = preds && i < preds->size() ? get(env, (*preds)[i]) : Val{};
        emit(Event::Arrive, b, pred && (p.k == Val::Bool ? *p.e : c.bool_val(true)), c.int_val(0), 1);
      }
    for (Value r : op.getResults())
      env[r] = typedFresh(r.getType(), "mma");
    return;
  }
  if (name == "ttng.warp_group_dot") {
    // One wgmma group: committed, its shared operands read until a warp_group_dot_wait retires it; a
    // synchronous one waits for itself (wgmma.wait_group 0, as the simulator lowers it).
    if (events)
      events->push_back({Event::Dot, -1, c.int_val(0), guard, c.int_val(0), 0, &op, part});
    for (const char *operand : {"a", "b"})
      if (auto r = ir::getOperandGroup(&op, operand); r && !r->empty()) {
        size_t before = events ? events->size() : 0;
        emitRead((*r)[0], c.bool_val(true), 1);
        if (events && events->size() > before) {
          events->back().wgmma = true;
          groups[events->back().group].wgmmaReaders.insert(part);
        }
      }
    if (events && !op.hasAttr("isAsync"))
      events->push_back({Event::DotWait, -1, c.int_val(0), guard, c.int_val(0), 0, &op, part});
    return opaque();
  }
  if (name == "ttng.warp_group_dot_wait") {
    int64_t pendings = std::max<int64_t>(0, intAttr(op, "pendings", 0));
    ageCap = std::max(ageCap, pendings + 1);
    if (events)
      events->push_back({Event::DotWait, -1, c.int_val(0), guard, c.int_val(0), pendings, &op, part});
    // The results are the operands, retired: the same values (an accumulator, the operand views).
    for (unsigned i = 0; i < op.getNumResults() && i < op.getNumOperands(); ++i) {
      Val v = get(env, op.getOperand(i));
      env[op.getResult(i)] = v.k != Val::None ? v : typedFresh(op.getResult(i).getType(), "opaque");
    }
    return;
  }
  if (name == "ttg.local_load") {
    if (auto r = ir::getOperandGroup(&op, "src"); r && !r->empty())
      emitRead((*r)[0], c.bool_val(true), 0);
    return opaque();
  }
  if (name == "ttng.async_tma_copy_local_to_global") {
    if (auto r = ir::getOperandGroup(&op, "src"); r && !r->empty())
      emitRead((*r)[0], c.bool_val(true), 2);
    return;
  }
  if (name == "ttg.local_store") {
    if (auto r = ir::getOperandGroup(&op, "dst"); r && !r->empty())
      emitWrite((*r)[0]);
    return;
  }
  if (name == "ttng.fence_async_shared") {
    if (events)
      events->push_back({Event::Fence, -1, c.int_val(0), guard, c.int_val(0), 0, &op, part});
    return;
  }
  if (name == "scf.for" || name == "scf.while")
    throw Unsupported{"unexpected loop"};
  // Any other op that takes a barrier synchronizes in a way the prover does not encode.
  for (Value v : op.getOperands())
    if (get(env, v).k == Val::Bar && !name.starts_with("ttg.memdesc") && name != "ttng.inval_barrier" &&
        name != "ttg.local_dealloc")
      throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": " +
                        (numCtas > 1 && name.contains("remote")
                             ? "cluster kernel (ttg.num-ctas = " + std::to_string(numCtas) + "): " + name.str() +
                                   " reaches a peer CTA's barrier; the prover models one CTA"
                             : name.str() + " takes a barrier and has no proof semantics")};
  if (op.getNumRegions() > 0) {
    bool sync = false;
    op.walk([&](Operation *inner) {
      llvm::StringRef n = inner->getName().getStringRef();
      if (n.starts_with("ttng.") && (n.contains("barrier") || n.contains("tma_copy") || n.contains("tc_gen5")))
        sync = true;
    });
    if (sync)
      throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": " + name.str() +
                        " holds synchronization in a region the prover does not encode"};
  }
  opaque();
}

// ---------------------------------------------------------------------------------------------
// Transition system

Prover::Env Prover::baseEnv(int part) {
  Env env;
  Block &body = func->getRegion(0).front();
  for (unsigned i = 0; i < body.getNumArguments(); ++i) {
    BlockArgument arg = body.getArgument(i);
    if (!arg.getType().isIntOrIndex() || arg.getType().isInteger(1))
      continue;
    std::string n = ir::variableName(arg.getLoc()).value_or("arg" + std::to_string(i));
    // Descriptor shape/stride arguments share the descriptor's Python name.
    bool dup = false;
    for (unsigned j = 0; j < body.getNumArguments(); ++j)
      if (j != i && ir::variableName(body.getArgument(j).getLoc()) == n)
        dup = true;
    if (dup)
      n += "#" + std::to_string(i);
    env[arg] = param(*func, n);
  }
  execOps(prefix, env, c.bool_val(true), nullptr, part);
  for (auto &[arg, outer] : parts[part].seeds)
    env[arg] = get(env, outer);
  return env;
}

Ghost Prover::initGhost() {
  Ghost g;
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int w : groups[gi].genericWriters)
      g.dirty.insert_or_assign({w, static_cast<int>(gi)}, c.bool_val(false));
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int r : groups[gi].wgmmaReaders) {
      g.inflight.insert_or_assign({r, static_cast<int>(gi)}, std::vector<z3::expr>(groups[gi].slots, c.bool_val(false)));
      g.age.insert_or_assign({r, static_cast<int>(gi)}, std::vector<z3::expr>(groups[gi].slots, c.int_val(0)));
    }
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    g.tx.push_back(std::vector<z3::expr>(groups[gi].slots, c.int_val(0)));
    for (int w : groups[gi].waiters) {
      auto key = std::make_pair(static_cast<int>(gi), w);
      g.B[key] = std::vector<z3::expr>(groups[gi].slots, c.int_val(0));
      g.D[key] = std::vector<z3::expr>(groups[gi].slots, c.bool_val(false));
      g.has[key] = std::vector<z3::expr>(groups[gi].slots, c.bool_val(false));
      g.last[key] = std::vector<z3::expr>(groups[gi].slots, c.int_val(0));
    }
  }
  return g;
}

Ghost Prover::freshGhost(const std::string &tag) {
  Ghost g = initGhost();
  for (auto &v : g.tx)
    for (auto &e : v)
      e = fresh(tag + "tx");
  for (auto &[k, v] : g.B)
    for (auto &e : v)
      e = fresh(tag + "B");
  for (auto &[k, v] : g.D)
    for (auto &e : v)
      e = fresh(tag + "D", true);
  for (auto &[k, v] : g.has)
    for (auto &e : v)
      e = fresh(tag + "has", true);
  for (auto &[k, e] : g.dirty)
    e = fresh(tag + "dirty", true);
  for (auto &[k, v] : g.inflight)
    for (auto &e : v)
      e = fresh(tag + "inflight", true);
  for (auto &[k, v] : g.age)
    for (auto &e : v) {
      e = fresh(tag + "age");
      paramConstraints.push_back(e >= 0 && e <= c.int_val(ageCap));
    }
  for (auto &[k, v] : g.last)
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = fresh(tag + "last");
      paramConstraints.push_back(v[i] == 0 || v[i] == 1);
    }
  return g;
}

void Prover::apply(Ghost &g, const std::vector<Event> &events, std::vector<Violation> &viol) {
  if (collecting)
    return;
  // Stage ownership, per lock-step step (one loop iteration): the slot of each partition's last wait on
  // each barrier in this step (-1: none yet). A TMA write of stage j completes on slot j of its barrier
  // array and follows the writer's wait on slot j of the barrier its readers release the stage with; a
  // read of stage j follows the reader's wait on slot j of the barrier the stage's TMA writes complete on.
  std::map<std::pair<int, int>, z3::expr> lastWait;
  auto waited = [&](int part, int group) {
    auto it = lastWait.find({part, group});
    return it == lastWait.end() ? c.int_val(-1) : it->second;
  };
  // wgmma depth (part of stage-ownership): a stage a partition's wgmma may still be reading, `hit` selecting it.
  auto stillRead = [&](int part, int group, const z3::expr &idx) -> std::optional<z3::expr> {
    auto it = g.inflight.find({part, group});
    if (it == g.inflight.end())
      return std::nullopt;
    z3::expr_vector any(c);
    for (size_t s = 0; s < it->second.size(); ++s)
      any.push_back(idx == static_cast<int>(s) && it->second[s]);
    return z3::mk_or(any);
  };
  for (const Event &e : events) {
    if (e.k == Event::Dot || e.k == Event::DotWait) {
      for (auto &[key, inflight] : g.inflight) {
        if (key.first != e.part)
          continue;
        std::vector<z3::expr> &age = g.age.at(key);
        for (size_t s = 0; s < inflight.size(); ++s)
          if (e.k == Event::Dot)
            age[s] = z3::ite(e.guard && age[s] < c.int_val(ageCap), age[s] + 1, age[s]);
          else
            inflight[s] = inflight[s] && !(e.guard && age[s] > c.int_val(e.amount));
      }
      continue;
    }
    // A stage handed to a writer while a wgmma of this partition may still read it: overwritten by this
    // partition (TMA load, generic store) or released to another one (an arrive on the barrier its writers
    // wait on before they refill the stage).
    if (e.k == Event::Tma && e.dgroup >= 0 && !e.peer && !e.issueOnly)
      if (auto r = stillRead(e.part, e.dgroup, *e.didx))
        viol.push_back({StageOwnership, e.dgroup, e.guard && *r, e.op, e.part});
    if (e.k == Event::Write)
      if (auto r = stillRead(e.part, e.group, e.idx))
        viol.push_back({StageOwnership, e.group, e.guard && *r, e.op, e.part});
    if (e.k == Event::Arrive && !e.peer && e.op->getName().getStringRef() == "ttng.arrive_barrier")
      for (auto &[key, inflight] : g.inflight) {
        const Group &buf = groups[key.second], &rel = groups[e.group];
        if (key.first != e.part || rel.slots != buf.slots || buf.fill.count(e.group))
          continue;
        bool writerWaits = false;
        for (int w : buf.tmaWriters)
          writerWaits |= rel.waiters.count(w) > 0;
        for (int w : buf.genericWriters)
          writerWaits |= rel.waiters.count(w) > 0;
        if (writerWaits)
          viol.push_back({StageOwnership, key.second, e.guard && *stillRead(e.part, key.second, e.idx), e.op, e.part});
      }
    if (e.issueOnly) { // the issuer's view of an op whose effect reaches the cluster's barriers (`peer` events)
      viol.push_back({SlotRange, e.group, e.guard && (e.idx < 0 || e.idx >= groups[e.group].slots), e.op, e.part});
      continue;
    }
    if (e.k == Event::Read && e.wgmma) {
      std::vector<z3::expr> &inflight = g.inflight.at({e.part, e.group}), &age = g.age.at({e.part, e.group});
      for (size_t s = 0; s < inflight.size(); ++s) {
        z3::expr hit = e.guard && e.idx == static_cast<int>(s);
        inflight[s] = inflight[s] || hit;
        age[s] = z3::ite(hit, c.int_val(1), age[s]);
      }
    }
    // proxy-fence: an async-proxy read (wgmma / tcgen05 operand, TMA store) of a buffer some partition wrote
    // through the generic proxy needs a fence.proxy.async after that write (fences of any partition count).
    if (e.k == Event::Fence) {
      for (auto &[key, d] : g.dirty)
        d = d && !e.guard;
      continue;
    }
    if (e.k == Event::Write) {
      z3::expr &d = g.dirty.at({e.part, e.group});
      d = d || e.guard;
      continue;
    }
    if (e.k == Event::Read && e.amount >= 1) {
      z3::expr_vector pending(c);
      for (auto &[key, d] : g.dirty)
        if (key.second == e.group)
          pending.push_back(d);
      if (!pending.empty())
        viol.push_back({ProxyFence, e.group, e.guard && z3::mk_or(pending), e.op, e.part});
    }
    if (e.k == Event::Read && e.amount == 2)
      continue; // a TMA store reads no stage the protocol hands over
    if (e.k == Event::Read) {
      const Group &buf = groups[e.group];
      for (int f : buf.fill)
        if (groups[f].slots == buf.slots && buf.fill.size() == 1) {
          z3::expr w = waited(e.part, f);
          viol.push_back({StageOwnership, e.group, e.guard && w != -1 && w != e.idx, e.op, e.part});
        }
      continue;
    }
    if (e.k == Event::Tma && e.dgroup >= 0 && !e.peer) {
      const Group &buf = groups[e.dgroup];
      if (groups[e.group].slots == buf.slots)
        viol.push_back({StageOwnership, e.dgroup, e.guard && e.idx != *e.didx, e.op, e.part});
      for (size_t r = 0; r < groups.size(); ++r) {
        const Group &rel = groups[r];
        bool releasedByReaders = false;
        for (int p : rel.arrivers)
          releasedByReaders |= buf.readers.count(p) > 0;
        if (rel.data || static_cast<int>(r) == e.group || rel.slots != buf.slots || !releasedByReaders ||
            !rel.waiters.count(e.part))
          continue;
        z3::expr w = waited(e.part, static_cast<int>(r));
        viol.push_back({StageOwnership, e.dgroup, e.guard && w != -1 && w != *e.didx, e.op, e.part});
      }
    }
    if (e.k == Event::Wait)
      lastWait.insert_or_assign({e.part, e.group}, z3::ite(e.guard, e.idx, waited(e.part, e.group)));
    const Group &grp = groups[e.group];
    viol.push_back({SlotRange, e.group, e.guard && (e.idx < 0 || e.idx >= grp.slots), e.op, e.part});
    for (int s = 0; s < grp.slots; ++s) {
      z3::expr hit = e.guard && e.idx == s;
      int64_t n = grp.count[s];
      switch (e.k) {
      case Event::Wait: {
        auto key = std::make_pair(e.group, e.part);
        z3::expr &has = g.has[key][s], &last = g.last[key][s], &B = g.B[key][s], &D = g.D[key][s];
        viol.push_back({WaitParity, e.group, hit && has && e.parity == last, e.op, e.part});
        z3::expr first = hit && !has;
        B = B - z3::ite(hit, c.int_val(n), c.int_val(0)) + z3::ite(first && e.parity == 1, c.int_val(n), c.int_val(0));
        D = D || (first && e.parity == 1);
        last = z3::ite(hit, e.parity, last);
        has = has || hit;
        break;
      }
      case Event::Arrive:
      case Event::Expect:
        for (auto &[key, B] : g.B)
          if (key.first == e.group)
            B[s] = B[s] + z3::ite(hit, c.int_val(e.k == Event::Arrive ? e.amount : 1), c.int_val(0));
        if (e.k == Event::Expect)
          g.tx[e.group][s] = g.tx[e.group][s] + z3::ite(hit, c.int_val(e.amount), c.int_val(0));
        break;
      case Event::Tma:
        g.tx[e.group][s] = g.tx[e.group][s] - z3::ite(hit, c.int_val(e.amount), c.int_val(0));
        break;
      }
    }
  }
}

void Prover::checkEnd(const Ghost &g, const z3::expr &when, std::vector<Violation> &viol) {
  if (collecting)
    return;
  for (auto &[key, B] : g.B) {
    const Group &grp = groups[key.first];
    for (int s = 0; s < grp.slots; ++s) {
      int64_t n = grp.count[s];
      z3::expr hi = z3::ite(g.D.at(key)[s], c.int_val(n), c.int_val(0));
      // A phase completed by plain arrivals that nobody waits for is harmless at the end; one completed
      // by TMA bytes or tcgen05 may still be in flight when the kernel ends (and the barrier is invalidated).
      z3::expr over = grp.asyncSignals ? B[s] > hi : c.bool_val(false);
      viol.push_back({PhaseBalance, key.first, when && (B[s] < 0 || over || z3::mod(B[s], (int)n) != 0), nullptr,
                      key.second});
    }
  }
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int s = 0; s < groups[gi].slots && !groups[gi].data; ++s)
      viol.push_back({TxBalance, static_cast<int>(gi), when && g.tx[gi][s] != 0, nullptr, -1});
}

void Prover::checkBoundary(const State &st, const z3::expr &when, std::vector<Violation> &viol) {
  if (collecting)
    return;
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int s = 0; s < groups[gi].slots && !groups[gi].data; ++s)
      viol.push_back({LemmaTx, static_cast<int>(gi), when && st.ghost->tx[gi][s] != 0, nullptr, -1});
}

Val Prover::mergeVal(const z3::expr &cond, const Val &a, const Val &b) {
  if (a.k == b.k && (a.k == Val::Int || a.k == Val::Bool))
    return {a.k, z3::ite(cond, *a.e, *b.e), -1};
  if (a.k == Val::Buf && b.k == Val::Buf && a.group == b.group)
    return {Val::Buf, z3::ite(cond, *a.e, *b.e), a.group};
  if (a.k == Val::Bar && b.k == Val::Bar) {
    if (a.group != b.group)
      throw Unsupported{"a loop-carried barrier switches between allocations " + groups[a.group].name + " and " +
                        groups[b.group].name};
    return {Val::Bar, z3::ite(cond, *a.e, *b.e), a.group};
  }
  return a.k == Val::None ? b : a;
}

State Prover::freshState(const std::string &tag) {
  State s;
  s.done = fresh(tag + "done", true);
  for (size_t i = 0; i < parts.size(); ++i) {
    const Part &p = parts[i];
    PState ps;
    auto freshArgs = [&](Operation *loop, std::vector<Val> &out, const std::string &n) {
      const std::vector<Val> &like = loop == p.l2 || p.depth == 1 ? shape->parts[i].inner : shape->parts[i].outer;
      for (const Val &v : like)
        out.push_back(v.k == Val::Bar || v.k == Val::Buf ? Val{v.k, fresh(tag + p.name + n), v.group}
                      : v.k == Val::Int ? Val{Val::Int, fresh(tag + p.name + n), -1}
                      : v.k == Val::Bool ? Val{Val::Bool, fresh(tag + p.name + n, true), -1}
                                         : Val{});
    };
    if (p.depth > 0) {
      ps.first = fresh(tag + p.name + "first", true);
      ps.ub = fresh(tag + p.name + "ub");
    }
    if (p.depth == 1) {
      ps.k = fresh(tag + p.name + "k");
      freshArgs(p.l1, ps.inner, "it");
    } else if (p.depth == 2) {
      ps.t = fresh(tag + p.name + "t");
      ps.k = fresh(tag + p.name + "k");
      freshArgs(p.l1, ps.outer, "ot");
      freshArgs(p.l2, ps.inner, "it");
    }
    s.parts.push_back(ps);
  }
  s.ghost = freshGhost(tag);
  return s;
}

State Prover::mergeState(const z3::expr &cond, const State &a, const State &b) {
  State s;
  s.done = z3::ite(cond, *a.done, *b.done);
  for (size_t i = 0; i < a.parts.size(); ++i) {
    PState ps;
    const PState &x = a.parts[i], &y = b.parts[i];
    if (x.t)
      ps.t = z3::ite(cond, *x.t, *y.t);
    if (x.k)
      ps.k = z3::ite(cond, *x.k, *y.k);
    if (x.first)
      ps.first = z3::ite(cond, *x.first, *y.first);
    if (x.ub)
      ps.ub = z3::ite(cond, *x.ub, *y.ub);
    for (size_t j = 0; j < x.outer.size(); ++j)
      ps.outer.push_back(mergeVal(cond, x.outer[j], y.outer[j]));
    for (size_t j = 0; j < x.inner.size(); ++j)
      ps.inner.push_back(mergeVal(cond, x.inner[j], y.inner[j]));
    s.parts.push_back(ps);
  }
  return s;
}

static std::vector<Value> initOperands(Operation *loop) {
  std::vector<Value> v;
  for (unsigned i = 3; i < loop->getNumOperands(); ++i)
    v.push_back(loop->getOperand(i));
  return v;
}

State Prover::initial(std::vector<Violation> &viol) {
  State s;
  Ghost ghost = initGhost();
  std::vector<Event> events;
  // Inits in the kernel prefix (counts), then each partition's code up to its loop head.
  {
    Env env;
    Block &body = func->getRegion(0).front();
    (void)body;
    env = baseEnv(0);
    execOps(prefix, env, c.bool_val(true), &events, 0);
  }
  std::optional<z3::expr> enterAll;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Part &p = parts[i];
    PState ps;
    if (p.depth == 0) {
      s.parts.push_back(ps);
      continue;
    }
    Env env = baseEnv(i);
    Block &b = *p.block;
    execOps(opsBefore(b, p.l1), env, c.bool_val(true), &events, i);
    Val lb = get(env, p.l1->getOperand(0));
    std::vector<Val> init;
    for (Value v : initOperands(p.l1))
      init.push_back(get(env, v));
    if (lb.k != Val::Int)
      throw Unsupported{p.name + ": loop lower bound is not an integer the prover can follow"};
    ps.first = c.bool_val(true);
    if (p.depth == 1) {
      ps.k = *lb.e;
      ps.inner = init;
      Val ub = get(env, p.l1->getOperand(1));
      ps.ub = ub.k == Val::Int ? *ub.e : fresh("ub");
    } else {
      Val ub = get(env, p.l1->getOperand(1));
      if (ub.k != Val::Int)
        throw Unsupported{p.name + ": tile loop bound not followed"};
      ps.t = *lb.e;
      ps.outer = init;
      z3::expr enter = *lb.e < *ub.e;
      Block &b1 = p.l1->getRegion(0).front();
      env[b1.getArgument(0)] = lb;
      for (size_t a = 0; a < init.size(); ++a)
        env[b1.getArgument(a + 1)] = init[a];
      execOps(opsBefore(b1, p.l2), env, enter, &events, i);
      Val lb2 = get(env, p.l2->getOperand(0));
      if (lb2.k != Val::Int)
        throw Unsupported{p.name + ": K loop lower bound not followed"};
      ps.k = *lb2.e;
      Val ub2 = get(env, p.l2->getOperand(1));
      ps.ub = ub2.k == Val::Int ? *ub2.e : fresh("ub");
      for (Value v : initOperands(p.l2))
        ps.inner.push_back(get(env, v));
      // Fill kinds for values the prover does not track so that merges line up.
      Block &b2 = p.l2->getRegion(0).front();
      for (size_t a = 0; a < ps.inner.size(); ++a)
        if (ps.inner[a].k == Val::None)
          ps.inner[a] = typedFresh(b2.getArgument(a + 1).getType(), "init");
    }
    Block &bl = (p.depth == 1 ? p.l1 : p.l2)->getRegion(0).front();
    for (size_t a = 0; a < ps.inner.size(); ++a)
      if (ps.inner[a].k == Val::None)
        ps.inner[a] = typedFresh(bl.getArgument(a + 1).getType(), "init");
    for (size_t a = 0; a < ps.outer.size(); ++a)
      if (ps.outer[a].k == Val::None)
        ps.outer[a] = typedFresh(p.l1->getRegion(0).front().getArgument(a + 1).getType(), "init");
    s.parts.push_back(ps);
  }
  s.done = c.bool_val(false);
  if (maxDepth == 0) {
    // No loops: every partition runs to its end in this one transition.
    for (size_t i = 0; i < parts.size(); ++i) {
      Env env = baseEnv(i);
      execOps(opsBefore(*parts[i].block, nullptr), env, c.bool_val(true), &events, i);
    }
    Env env = baseEnv(0);
    execOps(suffix, env, c.bool_val(true), &events, 0);
    s.done = c.bool_val(true);
  }
  // Groups' waiters are known only after the events were collected: build the ghost now.
  ghost = initGhost();
  apply(ghost, events, viol);
  s.ghost = ghost;
  if (maxDepth == 0)
    checkEnd(*s.ghost, c.bool_val(true), viol);
  else
    checkBoundary(s, c.bool_val(true), viol);
  return s;
}

State Prover::step(const State &s, std::vector<Violation> &viol) {
  std::vector<Event> events;
  State out = s;
  z3::expr active = !*s.done;
  std::optional<z3::expr> exitRef;
  std::vector<z3::expr> exits;
  std::vector<z3::expr> innerConts, tileConts, offsets; // offsets: iterations done, per level
  for (size_t i = 0; i < parts.size(); ++i) {
    const Part &p = parts[i];
    if (p.depth == 0)
      continue;
    const PState &ps = s.parts[i];
    PState &ns = out.parts[i];
    Env env = baseEnv(i);
    Block &b = *p.block;
    execOps(opsBefore(b, p.l1), env, c.bool_val(true), nullptr, i);
    Val ub1 = get(env, p.l1->getOperand(1)), st1 = get(env, p.l1->getOperand(2));
    if (ub1.k != Val::Int || st1.k != Val::Int)
      throw Unsupported{p.name + ": loop bounds not followed"};
    Block &b1 = p.l1->getRegion(0).front();
    auto yieldsOf = [&](Block &blk) {
      std::vector<Val> y;
      for (Value v : blk.getTerminator()->getOperands())
        y.push_back(get(env, v));
      return y;
    };
    auto fixKinds = [&](std::vector<Val> &vals, const std::vector<Val> &like) {
      for (size_t a = 0; a < vals.size() && a < like.size(); ++a)
        if (vals[a].k != like[a].k ||
            ((like[a].k == Val::Bar || like[a].k == Val::Buf) && vals[a].group != like[a].group)) {
          if (like[a].k == Val::Buf)
            throw Unsupported{p.name + ": a loop-carried buffer stage the prover cannot follow"};
          if (like[a].k == Val::Bar)
            throw Unsupported{p.name + ": a loop-carried barrier the prover cannot follow"};
          vals[a] = like[a].k == Val::Int ? Val{Val::Int, fresh("y"), -1}
                    : like[a].k == Val::Bool ? Val{Val::Bool, fresh("y", true), -1}
                                             : Val{};
        }
    };
    Val lb1 = get(env, p.l1->getOperand(0));
    if (lb1.k != Val::Int)
      throw Unsupported{p.name + ": loop bounds not followed"};
    if (p.depth == 1) {
      z3::expr cont = *ps.k < *ub1.e;
      innerConts.push_back(cont);
      offsets.push_back(*ps.k - *lb1.e);
      offsets.push_back(*st1.e);
      viol.push_back({LemmaAlign, -1, active && *ps.ub != *ub1.e, nullptr, (int)i});
      ns.first = z3::ite(active && cont, c.bool_val(false), *ps.first);
      env[b1.getArgument(0)] = {Val::Int, *ps.k, -1};
      for (size_t a = 0; a < ps.inner.size(); ++a)
        env[b1.getArgument(a + 1)] = ps.inner[a];
      execOps(opsBefore(b1, nullptr), env, active && cont, &events, i);
      std::vector<Val> y = yieldsOf(b1);
      fixKinds(y, ps.inner);
      ns.k = z3::ite(active && cont, *ps.k + *st1.e, *ps.k);
      for (size_t a = 0; a < ps.inner.size(); ++a)
        ns.inner[a] = mergeVal(active && cont, y[a], ps.inner[a]);
      // Exit: the code after the loop sees the loop's results.
      for (size_t a = 0; a < ps.inner.size(); ++a)
        env[p.l1->getResult(a)] = ps.inner[a];
      execOps(opsAfter(b, p.l1), env, active && !cont, &events, i);
      exits.push_back(!cont);
    } else {
      z3::expr inTile = *ps.t < *ub1.e;
      env[b1.getArgument(0)] = {Val::Int, *ps.t, -1};
      for (size_t a = 0; a < ps.outer.size(); ++a)
        env[b1.getArgument(a + 1)] = ps.outer[a];
      execOps(opsBefore(b1, p.l2), env, c.bool_val(true), nullptr, i);
      Val ub2 = get(env, p.l2->getOperand(1)), st2 = get(env, p.l2->getOperand(2));
      if (ub2.k != Val::Int || st2.k != Val::Int)
        throw Unsupported{p.name + ": K loop bounds not followed"};
      z3::expr cont = inTile && *ps.k < *ub2.e;
      innerConts.push_back(cont);
      tileConts.push_back(inTile);
      Val lb2 = get(env, p.l2->getOperand(0));
      offsets.push_back(*ps.t - *lb1.e);
      offsets.push_back(*st1.e);
      offsets.push_back(lb2.k == Val::Int ? *ps.k - *lb2.e : fresh("off"));
      offsets.push_back(*st2.e);
      viol.push_back({LemmaAlign, -1, active && inTile && *ps.ub != *ub2.e, nullptr, (int)i});
      Block &b2 = p.l2->getRegion(0).front();
      env[b2.getArgument(0)] = {Val::Int, *ps.k, -1};
      for (size_t a = 0; a < ps.inner.size(); ++a)
        env[b2.getArgument(a + 1)] = ps.inner[a];
      execOps(opsBefore(b2, nullptr), env, active && cont, &events, i);
      std::vector<Val> y2 = yieldsOf(b2);
      fixKinds(y2, ps.inner);
      // Tile transition: post1 with the K loop's results, next tile's pre1.
      z3::expr tileEnd = active && inTile && !cont;
      for (size_t a = 0; a < ps.inner.size(); ++a)
        env[p.l2->getResult(a)] = ps.inner[a];
      execOps(opsAfter(b1, p.l2), env, tileEnd, &events, i);
      std::vector<Val> y1 = yieldsOf(b1);
      fixKinds(y1, ps.outer);
      z3::expr t2 = *ps.t + *st1.e;
      z3::expr nextIn = t2 < *ub1.e;
      Env env2 = baseEnv(i);
      execOps(opsBefore(b, p.l1), env2, c.bool_val(true), nullptr, i);
      env2[b1.getArgument(0)] = {Val::Int, t2, -1};
      for (size_t a = 0; a < y1.size(); ++a)
        env2[b1.getArgument(a + 1)] = y1[a];
      execOps(opsBefore(b1, p.l2), env2, tileEnd && nextIn, &events, i);
      Val lb2n = get(env2, p.l2->getOperand(0));
      Val ub2n = get(env2, p.l2->getOperand(1));
      std::vector<Val> init2;
      for (Value v : initOperands(p.l2))
        init2.push_back(get(env2, v));
      fixKinds(init2, ps.inner);
      // Kernel exit: code after the tile loop sees its results.
      z3::expr leave = active && !inTile;
      for (size_t a = 0; a < ps.outer.size(); ++a)
        env[p.l1->getResult(a)] = ps.outer[a];
      execOps(opsAfter(b, p.l1), env, leave, &events, i);
      exits.push_back(!inTile);
      // Next state.
      z3::expr inner = active && cont;
      ns.k = z3::ite(inner, *ps.k + *st2.e, z3::ite(tileEnd, lb2n.k == Val::Int ? *lb2n.e : fresh("lb"), *ps.k));
      ns.t = z3::ite(tileEnd, t2, *ps.t);
      ns.first = z3::ite(inner, c.bool_val(false), z3::ite(tileEnd, c.bool_val(true), *ps.first));
      ns.ub = z3::ite(tileEnd, ub2n.k == Val::Int ? *ub2n.e : fresh("ub"), *ps.ub);
      for (size_t a = 0; a < ps.inner.size(); ++a)
        ns.inner[a] = mergeVal(inner, y2[a], mergeVal(tileEnd, init2[a], ps.inner[a]));
      for (size_t a = 0; a < ps.outer.size(); ++a)
        ns.outer[a] = mergeVal(tileEnd, y1[a], ps.outer[a]);
    }
  }
  // Lock-step alignment: all partitions continue, change tile or leave together.
  z3::expr aligned = c.bool_val(true);
  for (size_t a = 1; a < innerConts.size(); ++a)
    aligned = aligned && innerConts[a] == innerConts[0];
  for (size_t a = 1; a < tileConts.size(); ++a)
    aligned = aligned && tileConts[a] == tileConts[0];
  size_t per = maxDepth == 2 ? 4 : 2;
  for (size_t a = per; a < offsets.size(); ++a)
    aligned = aligned && offsets[a] == offsets[a % per];
  viol.push_back({LemmaAlign, -1, active && !aligned, nullptr, -1});
  z3::expr leaving = exits.empty() ? c.bool_val(true) : exits[0];
  z3::expr finishing = active && leaving;
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].depth == 0) {
      Env env = baseEnv(i);
      execOps(opsBefore(*parts[i].block, nullptr), env, finishing, &events, i);
    }
  {
    Env env = baseEnv(0);
    execOps(suffix, env, finishing, &events, 0);
  }
  Ghost g = *s.ghost;
  apply(g, events, viol);
  out.ghost = g;
  out.done = *s.done || finishing;
  checkEnd(g, finishing, viol);
  checkBoundary(out, active && !finishing, viol);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Queries

void Prover::describeCounterexample(z3::model &m, const std::vector<State> &states,
                                    const std::vector<std::vector<Violation>> &viol, int kind, int group,
                                    ProofResult &r) {
  // Parameters the violated formulas mention (the launch values that matter).
  std::set<std::string> used;
  {
    std::set<unsigned> seen;
    std::vector<z3::expr> todo;
    for (auto &vs : viol)
      for (const Violation &v : vs)
        if (v.kind == kind && v.group == group)
          todo.push_back(v.cond);
    for (auto &a : abstracted)
      todo.push_back(a.exact);
    while (!todo.empty()) {
      z3::expr e = todo.back();
      todo.pop_back();
      if (!seen.insert(Z3_get_ast_id(c, e)).second)
        continue;
      if (e.is_const() && !e.is_numeral())
        used.insert(e.decl().name().str());
      if (e.is_app())
        for (unsigned i = 0; i < e.num_args(); ++i)
          todo.push_back(e.arg(i));
    }
  }
  for (auto &[n, e] : params) {
    if (!used.count(n))
      continue;
    z3::expr v = m.eval(e, true);
    if (v.is_numeral())
      r.params[n] = v.get_numeral_int64();
  }
  for (size_t st = 0; st < viol.size(); ++st)
    for (const Violation &v : viol[st]) {
      if (v.kind != kind || v.group != group || !m.eval(v.cond, true).is_true())
        continue;
      r.step = static_cast<int64_t>(st);
      if (v.op)
        r.location = ir::pythonLocation(v.op->getLoc());
      if (v.part >= 0) {
        r.partitions = {parts[v.part].name};
        // The loop iteration that ran in this step: the state before it.
        const State &pre = states[st > 0 ? st - 1 : 0];
        const PState &ps = pre.parts[v.part];
        std::string it;
        auto val = [&](const std::optional<z3::expr> &e) {
          z3::expr x = m.eval(*e, true);
          return x.is_numeral() ? std::to_string(x.get_numeral_int64()) : std::string("?");
        };
        if (st == 0)
          it = "before the loop";
        else {
          if (ps.t)
            it = "tile iteration " + val(ps.t) + ", ";
          if (ps.k)
            it += "loop iteration " + val(ps.k);
        }
        r.iteration = it;
      }
      return;
    }
}

ProofReport Prover::run() {
  runStart = Clock::now();
  bool namedBarriers = false;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef().ends_with("barrier_named"))
      namedBarriers = true;
  });
  if (namedBarriers)
    report.notes.push_back("named barriers (bar.sync / bar.arrive) are not encoded: the verdicts cover the mbarrier "
                           "protocol only; named-barrier deadlocks and counts come from the simulation");
  try {
    findStructure();
  } catch (const Unsupported &u) {
    report.notes.push_back("not analyzed: " + u.why);
    return report;
  }
  auto t0 = Clock::now();
  std::vector<State> states;
  std::vector<std::vector<Violation>> viol;
  int maxSlots = 1;
  for (const Group &g : groups)
    maxSlots = std::max(maxSlots, g.slots);
  // Induction depth: the learned lemmas pin the ghost state to the loop counters, so a short window
  // usually suffices; the base case (bounded model checking from the start) covers the same depth.
  int k = 2 * maxSlots + 1;
  if (const char *e = getenv("TLXSIM_PROOF_K"))
    k = std::max(1, atoi(e));
  int N = options.bmcSteps > 0 ? std::max(options.bmcSteps, k) : k;
  // The unrolling also feeds the samples the lemmas are learned from: longer than the proof needs.
  int unroll = std::max(N, 4 * maxSlots + 4);
  try {
    // Dry run: which partitions wait on / use each barrier (sizes the ghost state).
    collecting = true;
    {
      std::vector<Violation> none;
      State s0 = initial(none);
      shape = s0;
      step(s0, none);
    }
    collecting = false;
    viol.emplace_back();
    states.push_back(initial(viol.back()));
    for (int i = 0; i < unroll; ++i) {
      viol.emplace_back();
      states.push_back(step(states.back(), viol.back()));
    }
  } catch (const Unsupported &u) {
    report.notes.push_back("not analyzed: " + u.why);
    return report;
  } catch (const z3::exception &e) {
    report.notes.push_back(std::string("not analyzed: Z3 error: ") + e.msg());
    return report;
  }
  // Launch constraints: arguments within 2^30 (no i32 overflow in index arithmetic), their
  // tt.divisibility, the grid, and the user's assumptions.
  Block &body = func->getRegion(0).front();
  for (auto &[n, e] : params) {
    if (n.starts_with("num_programs_"))
      paramConstraints.push_back(e >= 1 && e <= (1 << 20));
    else if (n == "cluster_rank")
      paramConstraints.push_back(e >= 0 && e < c.int_val(numCtas));
    else if (n.starts_with("program_id_")) {
      std::string axis = n.substr(std::string("program_id_").size());
      auto np = params.find("num_programs_" + axis);
      paramConstraints.push_back(e >= 0);
      if (np != params.end())
        paramConstraints.push_back(e < np->second);
      else
        paramConstraints.push_back(e < (1 << 20));
    } else {
      paramConstraints.push_back(e >= -kArgumentBound && e <= kArgumentBound);
      smallConstraints.push_back(e >= 0 && e <= 4096);
    }
  }
  if (numCtas > 1) {
    // A cluster is numCtas consecutive CTAs along x (the simulator's reading of ctas_per_cga).
    auto rank = params.find("cluster_rank");
    auto pid = params.find("program_id_x"), np = params.find("num_programs_x");
    if (rank != params.end() && pid != params.end())
      paramConstraints.push_back(z3::mod(pid->second, c.int_val(numCtas)) == rank->second);
    if (np != params.end())
      paramConstraints.push_back(z3::mod(np->second, c.int_val(numCtas)) == 0);
  }
  for (unsigned i = 0; i < body.getNumArguments(); ++i) {
    if (auto attrs = func->getAttrOfType<ArrayAttr>("arg_attrs"))
      if (i < attrs.size())
        if (auto dict = dyn_cast<DictionaryAttr>(attrs[i]))
          if (auto d = dict.getAs<IntegerAttr>("tt.divisibility")) {
            std::string n = ir::variableName(body.getArgument(i).getLoc()).value_or("");
            auto it = params.find(n);
            if (it != params.end() && d.getInt() > 1)
              paramConstraints.push_back(z3::mod(it->second, c.int_val(d.getInt())) == 0);
          }
  }
  for (auto &[n, e] : params)
    if (n.starts_with("num_programs_"))
      smallConstraints.push_back(e <= 4);
  for (const Assumption &a : options.assumptions) {
    auto it = params.find(a.name);
    if (it == params.end()) {
      report.notes.push_back("assumption on '" + a.name + "' ignored: the kernel's protocol does not use it");
      continue;
    }
    z3::expr x = it->second, v = c.int_val(a.value);
    z3::expr cond = a.op == ">=" ? x >= v : a.op == "<=" ? x <= v : a.op == ">" ? x > v : a.op == "<" ? x < v
                    : a.op == "==" ? x == v : x != v;
    paramConstraints.push_back(cond);
  }
  double setupSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  (void)setupSeconds;

  z3::solver base(c);
  base.set(solverParams);
  for (auto &e : paramConstraints)
    base.add(e);
  double satSeconds = 0;
  z3::check_result sat = check(base, satSeconds);
  report.seconds += satSeconds;
  if (sat == z3::unsat) {
    report.assumptionsUnsat = true;
    report.notes.push_back("the assumptions admit no launch: nothing is proved");
    return report;
  }

  // Stage-ownership of buffers that other CTAs write is not analyzed (a note below): its checks leave.
  auto dropRemote = [&](std::vector<std::vector<Violation>> &vv) {
    for (auto &vs : vv)
      vs.erase(std::remove_if(vs.begin(), vs.end(),
                              [&](const Violation &v) { return v.kind == StageOwnership && remoteData.count(v.group); }),
               vs.end());
  };
  dropRemote(viol);
  // Which (kind, group) properties exist.
  std::set<std::pair<int, int>> props;
  for (auto &vs : viol)
    for (auto &v : vs)
      if (v.kind < LemmaAlign)
        props.insert({v.kind, v.group});
  for (int d : remoteData)
    report.notes.push_back("stage-ownership on " + groups[d].name +
                           " not analyzed: other CTAs of the cluster write it (TMA multicast), and their release "
                           "of its stages is not encoded");
  if (props.empty()) {
    bool anyBarrier = std::any_of(groups.begin(), groups.end(), [](const Group &g) { return !g.data; });
    report.notes.push_back(!anyBarrier
                               ? "no mbarrier protocol: the kernel allocates no mbarrier, nothing to prove"
                               : "no mbarrier protocol: no barrier is waited on, arrived at or filled by TMA in "
                                 "the encoded code, nothing to prove");
    report.seconds = totalSeconds;
    return report;
  }
  std::set<int> dropped; // learned lemmas refuted by bounded model checking
  const int kMaxRefinements = 16; // rows a table may learn from base-case counterexamples
  auto anyViol = [&](size_t from, size_t to, const std::function<bool(const Violation &)> &sel,
                     const std::vector<std::vector<Violation>> &vv) {
    z3::expr_vector xs(c);
    for (size_t st = from; st < to && st < vv.size(); ++st)
      for (auto &v : vv[st])
        if (sel(v) && !(v.kind == LemmaTable && dropped.count(v.lemma)))
          xs.push_back(v.cond);
    return z3::mk_or(xs);
  };
  auto newSolver = [&](bool small) {
    z3::solver s(c);
    s.set(solverParams);
    for (auto &e : paramConstraints)
      s.add(e);
    if (small)
      for (auto &e : smallConstraints)
        s.add(e);
    return s;
  };

  // 1. Bounded model checking of all properties at once; per property only when one fails.
  std::vector<ProofResult> results;
  std::vector<std::function<bool(const Violation &)>> sels;
  for (auto [kind, group] : props) {
    ProofResult r;
    r.property = kindName(kind);
    r.barrier = groups[group].name;
    r.location = groups[group].loc;
    for (int w : groups[group].users)
      r.partitions.push_back(parts[w].name);
    results.push_back(r);
    sels.push_back([kind = kind, group = group](const Violation &v) { return v.kind == kind && v.group == group; });
  }
  // The k-induction window: k + 1 steps from an arbitrary state.
  std::vector<std::vector<Violation>> wviol;
  std::vector<State> wstates;
  bool windowOk = true;
  try {
    wviol.emplace_back();
    wstates.push_back(freshState("w"));
    for (int i = 0; i < k + 1; ++i) {
      wviol.emplace_back();
      wstates.push_back(step(wstates.back(), wviol.back()));
    }
  } catch (...) {
    windowOk = false;
  }
  dropRemote(wviol);

  // Cluster kernels: the peers' versions of the ops that reach this CTA's barriers substitute the issuer's rank
  // (and program id) and keep everything else. That is exact only when nothing else they read differs between
  // the CTAs: launch arguments, and loop-carried values that depend neither on the rank nor on the program id
  // nor on values the prover does not follow (a fixed point over one step of the window).
  if (!peerExprs.empty()) {
    std::string why;
    auto constsOf = [&](const z3::expr &root) {
      std::set<std::string> out;
      std::set<unsigned> seen;
      std::vector<z3::expr> todo = {root};
      while (!todo.empty()) {
        z3::expr e = todo.back();
        todo.pop_back();
        if (!seen.insert(Z3_get_ast_id(c, e)).second || !e.is_app())
          continue;
        if (e.num_args() == 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED)
          out.insert(e.decl().name().str());
        for (unsigned i = 0; i < e.num_args(); ++i)
          todo.push_back(e.arg(i));
      }
      return out;
    };
    auto perCta = [](const std::string &n) { return n == "cluster_rank" || n.starts_with("program_id_"); };
    // Abstracted terms (tile counts) are the same in every CTA unless they read the rank or program id.
    std::map<std::string, bool> abstractedOk;
    for (auto &a : abstracted) {
      bool ok = true;
      for (const std::string &n : constsOf(a.exact))
        ok &= params.count(n) && !perCta(n);
      abstractedOk[a.var.decl().name().str()] = ok;
    }
    // (window const, its next value, its initial value) per loop-carried component.
    std::vector<std::tuple<std::optional<z3::expr>, std::optional<z3::expr>, std::optional<z3::expr>>> comps;
    if (windowOk && wstates.size() >= 2) {
      auto add = [&](const std::optional<z3::expr> &w, const std::optional<z3::expr> &n,
                     const std::optional<z3::expr> &i) { comps.push_back({w, n, i}); };
      add(wstates[0].done, wstates[1].done, states[0].done);
      for (size_t q = 0; q < parts.size(); ++q) {
        const PState &w = wstates[0].parts[q], &n = wstates[1].parts[q], &i = states[0].parts[q];
        add(w.t, n.t, i.t);
        add(w.k, n.k, i.k);
        add(w.first, n.first, i.first);
        add(w.ub, n.ub, i.ub);
        for (size_t a = 0; a < w.outer.size(); ++a)
          add(w.outer[a].e, a < n.outer.size() ? n.outer[a].e : std::nullopt,
              a < i.outer.size() ? i.outer[a].e : std::nullopt);
        for (size_t a = 0; a < w.inner.size(); ++a)
          add(w.inner[a].e, a < n.inner.size() ? n.inner[a].e : std::nullopt,
              a < i.inner.size() ? i.inner[a].e : std::nullopt);
      }
    } else
      why = "the loop state of the window could not be built";
    std::set<std::string> windowConsts, tainted;
    for (auto &[w, n, i] : comps)
      if (w && w->is_const())
        windowConsts.insert(w->decl().name().str());
    auto sameEverywhere = [&](const std::string &n) {
      if (perCta(n))
        return false;
      if (params.count(n))
        return true;
      if (auto it = abstractedOk.find(n); it != abstractedOk.end())
        return it->second;
      return windowConsts.count(n) && !tainted.count(n);
    };
    for (bool changed = true; changed && why.empty();) {
      changed = false;
      for (auto &[w, n, i] : comps) {
        if (!w || !w->is_const() || tainted.count(w->decl().name().str()))
          continue;
        bool ok = n && i;
        for (const std::optional<z3::expr> &x : {n, i})
          if (x)
            for (const std::string &name : constsOf(*x))
              ok &= sameEverywhere(name);
        if (!ok) {
          tainted.insert(w->decl().name().str());
          changed = true;
        }
      }
    }
    for (auto &[deps, op] : peerExprs) {
      if (!why.empty())
        break;
      for (const z3::expr &d : deps)
        for (const std::string &name : constsOf(d))
          if (!perCta(name) && !sameEverywhere(name)) {
            why = ir::pythonLocation(op->getLoc()).str() + ": " + op->getName().getStringRef().str() +
                  " reaches other CTAs' barriers and depends on a value that may differ between the CTAs (" + name +
                  ")";
            break;
          }
    }
    if (!why.empty()) {
      std::erase_if(report.notes, [](const std::string &n) { return n.starts_with("stage-ownership on "); });
      report.notes.push_back("not analyzed: cluster kernel (ttg.num-ctas = " + std::to_string(numCtas) + "): " + why);
      report.seconds = totalSeconds;
      return report;
    }
  }

  // 2. Learned lemmas: the phase balance, first-wait parity and visited flag of every (barrier
  //    slot, waiter) as a table over (a loop-carried value mod the stage count, first iteration
  //    of the K loop, visited, iterations left), sampled from bounded runs and then checked like
  //    every other lemma (bounded model checking for the base case, induction for the step).
  int anchor = -1;
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].depth > 0 && anchor < 0)
      anchor = static_cast<int>(i);
  struct Cand {
    int part, var, mod; // var: -1 none, 0 k, 1.. inner ints, 100.. outer ints
  };
  auto varExpr = [&](const State &st, const Cand &cd) -> std::optional<z3::expr> {
    const PState &ps = st.parts[cd.part];
    if (cd.var == 0)
      return ps.k;
    if (cd.var >= 100) {
      size_t i = cd.var - 100;
      return i < ps.outer.size() && ps.outer[i].k == Val::Int ? ps.outer[i].e : std::nullopt;
    }
    size_t i = cd.var - 1;
    return i < ps.inner.size() && ps.inner[i].k == Val::Int ? ps.inner[i].e : std::nullopt;
  };
  const int R = maxSlots + 1;
  auto remOf = [&](const State &st) {
    const PState &ps = st.parts[anchor];
    z3::expr d = *ps.ub - *ps.k;
    return z3::ite(d > R, c.int_val(R), z3::ite(d < 0, c.int_val(-1), d));
  };
  auto num = [&](const z3::model &m, const z3::expr &e) -> int64_t {
    z3::expr v = m.eval(e, true);
    if (v.is_bool())
      return v.is_true() ? 1 : 0;
    int64_t x = 0;
    return v.is_numeral_i64(x) ? x : INT64_MIN;
  };
  // A learned table lemma: the ghost state (B, D, has) of one (barrier slot, waiter) as a function of the
  // key (residue of a loop-carried value, first iteration of the K loop, visited flag, iterations left),
  // with the features not in `mask` ignored. Rows come from sampled runs and from base-case
  // counterexamples (a state reachable from the start: its row is a fact, added when no row with the
  // same key disagrees); the lemma is checked whole by the base case and the induction.
  using Key = std::array<int64_t, 4>;
  using Row = std::array<int64_t, 3>; // B, D, has (-1: the visited flag is part of the key)
  struct Table {
    std::pair<int, int> key;
    int slot;
    Cand cd;
    int mask;
    std::map<Key, Row> rows;
    int refined = 0;
  };
  std::map<int, Table> tables; // lemma id -> table
  auto observe = [&](const Table &t, const z3::model &m, const State &st) -> std::optional<std::pair<Key, Row>> {
    int64_t res = 0;
    if (t.cd.var >= 0) {
      auto v = varExpr(st, t.cd);
      if (!v)
        return std::nullopt;
      int64_t x = num(m, *v);
      if (x == INT64_MIN)
        return std::nullopt;
      res = ((x % t.cd.mod) + t.cd.mod) % t.cd.mod;
    }
    Key k4 = {res, num(m, *st.parts[anchor].first), num(m, st.ghost->has.at(t.key)[t.slot]), num(m, remOf(st))};
    for (int f = 0; f < 4; ++f)
      if (!(t.mask & (1 << f)))
        k4[f] = 0;
    Row val = {num(m, st.ghost->B.at(t.key)[t.slot]), num(m, st.ghost->D.at(t.key)[t.slot]),
               (t.mask & 4) ? -1 : num(m, st.ghost->has.at(t.key)[t.slot])};
    if (val[0] == INT64_MIN)
      return std::nullopt;
    return std::make_pair(k4, val);
  };
  auto tableAt = [&](const Table &t, const State &st) -> z3::expr {
    z3::expr_vector alts(c);
    std::optional<z3::expr> v = t.cd.var >= 0 ? varExpr(st, t.cd) : std::nullopt;
    for (auto &[k4, val] : t.rows) {
      z3::expr e = st.ghost->B.at(t.key)[t.slot] == c.int_val(val[0]) &&
                   st.ghost->D.at(t.key)[t.slot] == c.bool_val(val[1] != 0);
      if (val[2] >= 0)
        e = e && st.ghost->has.at(t.key)[t.slot] == c.bool_val(val[2] != 0);
      if ((t.mask & 1) && v)
        e = e && z3::mod(*v, t.cd.mod) == c.int_val(k4[0]);
      if (t.mask & 2)
        e = e && *st.parts[anchor].first == c.bool_val(k4[1] != 0);
      if (t.mask & 4)
        e = e && st.ghost->has.at(t.key)[t.slot] == c.bool_val(k4[2] != 0);
      if (t.mask & 8)
        e = e && remOf(st) == c.int_val(k4[3]);
      alts.push_back(e);
    }
    return !*st.done && !z3::mk_or(alts);
  };
  if (anchor >= 0 && windowOk) {
    // Samples: a long run, a run that ends at the bound, and (tile loops) runs with many tiles.
    std::vector<z3::model> samples;
    // One solver for all samples (incremental: each sample is one push / check / pop).
    z3::solver sampler = newSolver(true);
    auto sample = [&](const z3::expr &cond) {
      sampler.push();
      sampler.add(cond);
      double secs = 0;
      if (check(sampler, secs) == z3::sat)
        samples.push_back(sampler.get_model());
      sampler.pop();
    };
    sample(!*states.back().done);
    // Every short trip count of the first innermost loop: runs of one length may differ in their trip count
    // (a loop that runs zero times and one whose bound lies below its start both end after one step; a
    // pipelined prologue issues work for the first iterations whatever the loop then runs).
    for (int d = 0; d <= R; ++d) {
      const PState &p0 = states[0].parts[anchor];
      sample(*p0.ub - *p0.k == d);
    }
    // A loop whose bound lies below its start (a negative size argument): the small launches above never
    // show it, yet predicated prologues (Triton's pipeliner: `num_k > j`) take a value there of their own.
    {
      z3::solver wide = newSolver(false);
      const PState &p0 = states[0].parts[anchor];
      wide.add(*p0.ub - *p0.k < 0);
      double secs = 0;
      if (check(wide, secs) == z3::sat)
        samples.push_back(wide.get_model());
    }
    sample(*states.back().done && !*states[states.size() - 2].done);
    // Short runs, one per length up to R + 1 + 2 S steps: every number of iterations left (the `rem`
    // feature, capped at R) is seen at every residue of the stage index.
    for (size_t j = 1; j + 1 < states.size() && static_cast<int>(j) <= R + 1 + 2 * maxSlots; ++j)
      sample(*states[j].done && !*states[j - 1].done);
    if (maxDepth == 2) {
      z3::expr_vector firsts(c), notFirsts(c);
      for (size_t j = 1; j < states.size(); ++j) {
        firsts.push_back(z3::ite(*states[j].parts[anchor].first && !*states[j].done, c.int_val(1), c.int_val(0)));
        notFirsts.push_back(z3::ite(!*states[j].parts[anchor].first && !*states[j].done, c.int_val(1), c.int_val(0)));
      }
      sample(z3::sum(firsts) >= 4);
      sample(z3::sum(firsts) >= 2 && z3::sum(notFirsts) >= 4);
    }
    int lemmaId = 0;
    for (auto &[key, Bv] : states[0].ghost->B) {
      int grp = key.first;
      int S = groups[grp].slots;
      std::vector<Cand> cands = {{anchor, -1, 1}};
      for (size_t q = 0; q < parts.size(); ++q) {
        if (parts[q].depth == 0)
          continue;
        const PState &ps = states[0].parts[q];
        std::vector<int> vars = {0};
        for (size_t i = 0; i < ps.inner.size(); ++i)
          if (ps.inner[i].k == Val::Int)
            vars.push_back(static_cast<int>(i) + 1);
        for (size_t i = 0; i < ps.outer.size(); ++i)
          if (ps.outer[i].k == Val::Int)
            vars.push_back(static_cast<int>(i) + 100);
        for (int M : {S, 2 * S})
          for (int v : vars)
            cands.push_back({static_cast<int>(q), v, M});
      }
      for (int slot = 0; slot < S; ++slot, ++lemmaId) {
        // Rows (residue, first, has, rem) -> (B, D) over the samples; the smallest consistent key
        // (fewest features, then the candidate order) generalizes best.
        struct Obs {
          std::array<int64_t, 4> key;
          std::array<int64_t, 3> val; // B, D, has
        };
        std::vector<std::vector<Obs>> obsPerCand(cands.size());
        for (size_t ci = 0; ci < cands.size(); ++ci) {
          const Cand &cd = cands[ci];
          for (z3::model &m : samples)
            for (size_t j = 0; j < states.size(); ++j) {
              const State &st = states[j];
              if (num(m, *st.done))
                break;
              int64_t res = 0;
              if (cd.var >= 0) {
                auto v = varExpr(st, cd);
                if (!v)
                  break;
                int64_t x = num(m, *v);
                res = ((x % cd.mod) + cd.mod) % cd.mod;
              }
              obsPerCand[ci].push_back({{res, num(m, *st.parts[anchor].first), num(m, st.ghost->has.at(key)[slot]),
                                         num(m, remOf(st))},
                                        {num(m, st.ghost->B.at(key)[slot]), num(m, st.ghost->D.at(key)[slot]),
                                         num(m, st.ghost->has.at(key)[slot])}});
            }
        }
        std::optional<Cand> chosen;
        int chosenMask = 0;
        std::map<std::array<int64_t, 4>, std::array<int64_t, 3>> rows;
        // The visited flag is part of the value when some key determines it, else part of the key.
        for (int hasInKey = 0; hasInKey < 2 && !chosen; ++hasInKey)
        for (int pop = 0; pop <= 4 && !chosen; ++pop)
          for (size_t ci = 0; ci < cands.size() && !chosen; ++ci)
            for (int mask = 0; mask < 16 && !chosen; ++mask) {
              if (__builtin_popcount(mask) != pop || ((mask & 1) != 0) != (cands[ci].var >= 0) ||
                  ((mask & 4) != 0) != (hasInKey != 0))
                continue;
              std::map<std::array<int64_t, 4>, std::array<int64_t, 3>> r;
              bool ok = !obsPerCand[ci].empty();
              for (const Obs &o : obsPerCand[ci]) {
                std::array<int64_t, 4> k4 = o.key;
                for (int f = 0; f < 4; ++f)
                  if (!(mask & (1 << f)))
                    k4[f] = 0;
                std::array<int64_t, 3> val = o.val;
                if (hasInKey)
                  val[2] = -1;
                auto [it, inserted] = r.emplace(k4, val);
                if (!inserted && it->second != val) {
                  ok = false;
                  break;
                }
              }
              if (ok) {
                chosen = cands[ci];
                chosenMask = mask;
                rows = std::move(r);
              }
            }
        if (chosen) {
          Table &t = tables[lemmaId] = Table{key, slot, *chosen, chosenMask, rows};
          const Cand cd = t.cd;
          const int mask = t.mask;
          auto lemmaAt = [&](const State &st) { return tableAt(t, st); };
          for (size_t j = 0; j < states.size(); ++j)
            viol[j].push_back({LemmaTable, grp, lemmaAt(states[j]), nullptr, key.second, lemmaId});
          for (size_t j = 0; j < wstates.size(); ++j)
            wviol[j].push_back({LemmaTable, grp, lemmaAt(wstates[j]), nullptr, key.second, lemmaId});
          if (getenv("TLXSIM_PROOF_DEBUG"))
            llvm::errs() << "lemma " << lemmaId << " " << groups[grp].name << "[" << slot << "]@" << key.second
                         << ": var " << cd.part << "/" << cd.var << " mod " << cd.mod << " mask " << mask << ", "
                         << rows.size() << " rows\n";
          if (getenv("TLXSIM_PROOF_DEBUG"))
            for (auto &[k4, val] : rows)
              llvm::errs() << "  (" << k4[0] << "," << k4[1] << "," << k4[2] << "," << k4[3] << ") -> B=" << val[0]
                           << " D=" << val[1] << " has=" << val[2] << "\n";
        }
      }
    }
    // Range lemmas: a loop-carried counter (iteration index, stage counter, tile counter) that is
    // non-negative in every sample is assumed non-negative (checked and dropped like the tables):
    // without it an arbitrary induction state may start at a negative counter, e.g. a stage index
    // (it - 1) % S = -1 that no run reaches.
    for (size_t q = 0; q < parts.size(); ++q) {
      if (parts[q].depth == 0)
        continue;
      std::vector<Cand> vars = {{static_cast<int>(q), 0, 1}};
      const PState &p0 = states[0].parts[q];
      for (size_t i = 0; i < p0.inner.size(); ++i)
        if (p0.inner[i].k == Val::Int)
          vars.push_back({static_cast<int>(q), static_cast<int>(i) + 1, 1});
      for (size_t i = 0; i < p0.outer.size(); ++i)
        if (p0.outer[i].k == Val::Int)
          vars.push_back({static_cast<int>(q), static_cast<int>(i) + 100, 1});
      for (const Cand &cd : vars) {
        bool nonNegative = !samples.empty();
        for (z3::model &m : samples)
          for (const State &st : states) {
            if (num(m, *st.done))
              break;
            auto v = varExpr(st, cd);
            if (!v || num(m, *v) < 0)
              nonNegative = false;
          }
        if (!nonNegative)
          continue;
        auto lemmaAt = [&, cd](const State &st) {
          std::optional<z3::expr> v = varExpr(st, cd);
          return !*st.done && *v < 0;
        };
        for (size_t j = 0; j < states.size(); ++j)
          viol[j].push_back({LemmaTable, -1, lemmaAt(states[j]), nullptr, cd.part, lemmaId});
        for (size_t j = 0; j < wstates.size(); ++j)
          wviol[j].push_back({LemmaTable, -1, lemmaAt(wstates[j]), nullptr, cd.part, lemmaId});
        ++lemmaId;
      }
    }
  }

  // 1. Bounded model checking from the initial state, incrementally (one solver; a clean depth
  //    is asserted before the next is checked), properties and learned lemmas together: a
  //    violated lemma is dropped (Houdini) and the depth checked again; a violated property ends
  //    the search and each property is then checked alone for its counterexample.
  bool lemmasHold = true;
  {
    size_t bmcEnd = static_cast<size_t>(N) + 1; // viol[0] (before the loops) .. viol[N]
    int failDepth = -1;
    bool unknownSeen = false;
    std::map<std::pair<int, int>, size_t> propIndex;
    for (auto kg : props)
      propIndex[kg] = propIndex.size();
    std::set<size_t> failed; // properties violated: searched alone for their counterexample below
    z3::solver s = newSolver(false);
    auto sel = [&](const Violation &v) {
      return v.kind < LemmaAlign ? !failed.count(propIndex.at({v.kind, v.group})) : lemmasHold;
    };
    for (size_t d = 0; d < bmcEnd && !unknownSeen; ++d) {
      for (;;) {
        z3::expr bad = anyViol(d, d + 1, sel, viol);
        s.push();
        s.add(bad);
        double secs = 0;
        z3::check_result r = check(s, secs);
        if (r == z3::unsat) {
          s.pop();
          s.add(!bad);
          break;
        }
        if (r == z3::unknown) {
          s.pop();
          unknownSeen = true;
          break;
        }
        z3::model m = s.get_model();
        s.pop();
        bool propBad = false, structural = false;
        size_t before = dropped.size();
        std::set<int> refinedNow;
        for (const Violation &v : viol[d]) {
          if (!sel(v) || (v.kind == LemmaTable && dropped.count(v.lemma)) || !m.eval(v.cond, true).is_true())
            continue;
          if (v.kind < LemmaAlign) {
            propBad = true;
            failed.insert(propIndex.at({v.kind, v.group}));
          } else if (v.kind == LemmaTable) {
            // A table without a row for this reachable state learns it (when no row of the same key
            // disagrees); otherwise the lemma is dropped.
            auto tit = tables.find(v.lemma);
            if (tit != tables.end() && tit->second.refined < kMaxRefinements && !refinedNow.count(v.lemma)) {
              Table &t = tit->second;
              auto obs = observe(t, m, states[d]);
              if (obs && !t.rows.count(obs->first)) {
                t.rows.emplace(obs->first, obs->second);
                ++t.refined;
                refinedNow.insert(v.lemma);
                if (getenv("TLXSIM_PROOF_DEBUG"))
                  llvm::errs() << "base case: lemma " << v.lemma << " learns a row at step " << d << "\n";
                continue;
              }
            }
            dropped.insert(v.lemma);
            if (getenv("TLXSIM_PROOF_DEBUG"))
            {
              llvm::errs() << "base case: dropped lemma " << v.lemma << " at step " << d << ":";
              for (auto &[pn, pe] : params)
                llvm::errs() << " " << pn << "=" << m.eval(pe, true).to_string();
              llvm::errs() << "\n";
            }
          } else if (!structural) {
            structural = true;
            report.notes.push_back(std::string("lemma '") + kindName(v.kind) + "' fails at lock-step step " +
                                   std::to_string(d) +
                                   (v.group >= 0 ? " on " + groups[v.group].name : std::string()) +
                                   ": properties are proved without it if possible");
          }
        }
        if (propBad) { // the other properties and the lemmas go on
          if (failDepth < 0)
            failDepth = static_cast<int>(d);
          continue;
        }
        for (int id : refinedNow) { // the refined tables' conditions, at every step and in the window
          const Table &t = tables.at(id);
          for (size_t j = 0; j < viol.size(); ++j)
            for (Violation &v : viol[j])
              if (v.kind == LemmaTable && v.lemma == id)
                v.cond = tableAt(t, states[j]);
          for (size_t j = 0; j < wviol.size(); ++j)
            for (Violation &v : wviol[j])
              if (v.kind == LemmaTable && v.lemma == id)
                v.cond = tableAt(t, wstates[j]);
        }
        if (structural)
          lemmasHold = false;
        else if (dropped.size() == before && refinedNow.empty()) { // cannot happen: a violation was seen; stay sound
          unknownSeen = true;
          break;
        }
      }
    }
    z3::check_result any = failDepth >= 0 ? z3::sat : unknownSeen ? z3::unknown : z3::unsat;
    // Each property's counterexample is searched over the whole bound: a deeper one often needs a more
    // realistic launch (the parameters are then moved toward the simulated one).
    size_t cexDepth = bmcEnd;
    const size_t fullDepth = bmcEnd;
    if (any != z3::unsat) {
      if (unknownSeen)
        lemmasHold = false; // their base case was not checked to the full depth
      for (size_t i = 0; i < results.size(); ++i) {
        if (!unknownSeen && !failed.count(i))
          continue; // clean to the full depth: left to the induction
        ProofResult &r = results[i];
        size_t cexDepthFor = cexDepth;
        z3::check_result res = z3::unsat;
        std::optional<z3::model> model;
        {
          z3::solver q = newSolver(false);
          q.add(anyViol(0, cexDepth, sels[i], viol));
          res = check(q, r.seconds);
          if (res == z3::unsat && cexDepth < fullDepth) { // the induction's base case needs the full depth
            z3::solver full = newSolver(false);
            full.add(anyViol(0, fullDepth, sels[i], viol));
            res = check(full, r.seconds);
            if (res == z3::sat) {
              cexDepthFor = fullDepth;
              model = full.get_model();
            }
          } else if (res == z3::sat)
            model = q.get_model();
          if (res == z3::sat) {
            z3::solver small = newSolver(true); // a small launch reads better, when there is one
            small.add(anyViol(0, cexDepthFor, sels[i], viol));
            for (auto &a : abstracted)
              small.add(a.var >= 0 && a.var <= 64);
            if (check(small, r.seconds) == z3::sat)
              model = small.get_model();
          }
        }
        if (res == z3::sat && !abstracted.empty()) {
          // Concretize: the abstracted terms take their exact values.
          z3::solver q = newSolver(true);
          q.add(anyViol(0, cexDepthFor, sels[i], viol));
          for (auto &a : abstracted) {
            z3::expr v = model->eval(a.var, true);
            q.add(a.var == v && a.exact == v);
          }
          z3::check_result cr = check(q, r.seconds);
          if (cr != z3::sat) {
            z3::solver q2 = newSolver(false);
            q2.add(anyViol(0, cexDepthFor, sels[i], viol));
            for (auto &a : abstracted)
              q2.add(a.var == a.exact);
            cr = check(q2, r.seconds);
            if (cr == z3::sat)
              model = q2.get_model();
          } else
            model = q.get_model();
          if (cr != z3::sat) {
            res = z3::unknown;
            r.verdict = cr == z3::unsat ? "bounded" : "timeout";
            r.bound = N;
            r.witness = cr == z3::unsat ? "the violation found on the linear abstraction of the tile count is not "
                                          "realizable; no realizable violation within the bound"
                                        : "a violation on the linear abstraction could not be concretized in time";
          }
        }
        if (res == z3::sat && !options.launch.empty()) {
          // Move the parameters toward the simulated launch where the violation allows it.
          z3::solver q = newSolver(false);
          q.add(anyViol(0, cexDepthFor, sels[i], viol));
          for (auto &a : abstracted)
            q.add(a.var == a.exact);
          z3::params quick(c);
          // A resource limit rather than a time limit: the launch chosen must not depend on the load.
          quick.set("timeout", queryMilliseconds(options.timeoutSeconds));
          quick.set("rlimit", 40000000u);
          q.set(quick);
          std::vector<std::pair<z3::expr, z3::expr>> prefs; // (param, preferred value), first ones first
          for (auto &[n, e] : params)
            if (n.starts_with("program_id_") || n == "cluster_rank")
              prefs.push_back({e, c.int_val(0)}); // the first CTA: the one a replay shows first
          for (auto &[n, v] : options.launch)
            if (auto it = params.find(n); it != params.end())
              prefs.push_back({it->second, c.int_val(v)});
          for (auto &[n, e] : params) {
            if (!n.starts_with("num_programs_") && !n.starts_with("program_id_") && n != "cluster_rank") {
              prefs.push_back({e >= 1, c.bool_val(true)}); // positive sizes read as real launches,
              prefs.push_back({e >= 0, c.bool_val(true)}); // else non-negative ones
            }
          }
          for (auto &[lhs, v] : prefs) {
            q.push();
            q.add(lhs == v);
            z3::check_result pr = check(q, r.seconds);
            if (pr == z3::sat) {
              model = q.get_model();
              q.pop();
              q.add(lhs == v);
            } else {
              q.pop();
              if (pr == z3::unknown)
                break; // out of resources: the later preferences would be too; keep the model found
            }
          }
        }
        if (res == z3::sat) {
          r.verdict = "counterexample";
          r.bound = N;
          auto [kind, group] = *std::next(props.begin(), i);
          describeCounterexample(*model, states, viol, kind, group, r);
          std::string ps;
          for (auto &[n, v] : r.params)
            ps += (ps.empty() ? "" : ", ") + n + "=" + std::to_string(v);
          std::string where = r.iteration.empty() ? "lock-step step " + std::to_string(r.step)
                                                  : r.iteration + " (lock-step step " + std::to_string(r.step) + ")";
          r.witness = ps.empty() ? "any launch; " + where : ps + "; " + where;
        } else if (res == z3::unknown && r.verdict.empty()) {
          r.verdict = "timeout";
          r.witness = budgetExhausted
                          ? budgetSpent() + " before the bounded check finished"
                          : "Z3 answered unknown within " + llvm::formatv("{0}", options.timeoutSeconds).str() +
                                " s (bounded check)";
        }
      }
    }
  }

  // 2. k-induction from an arbitrary state over the clean properties and the lemmas together;
  //    whatever the step violates is removed from the set and the rest tried again (Houdini):
  //    the remaining set is k-inductive and its base case was checked above.
  {
    std::map<std::pair<int, int>, size_t> resultOf;
    size_t idx = 0;
    for (auto kg : props)
      resultOf[kg] = idx++;
    std::set<size_t> active;
    for (size_t i = 0; i < results.size(); ++i)
      if (results[i].verdict.empty())
        active.insert(i);
    bool structOk = lemmasHold;
    std::string why = "not " + std::to_string(k) + "-inductive";
    double indSecs = 0;
    std::set<size_t> open = active;
    bool unknownSeen = false;
    while (!active.empty() && windowOk) {
      auto sel = [&](const Violation &v) {
        if (v.kind < LemmaAlign)
          return active.count(resultOf.at({v.kind, v.group})) > 0;
        if (!lemmasHold)
          return false;
        return v.kind == LemmaTable || structOk;
      };
      z3::solver s = newSolver(false);
      for (int i = 0; i <= k; ++i)
        s.add(!anyViol(i, i + 1, sel, wviol));
      s.add(anyViol(k + 1, k + 2, sel, wviol));
      z3::check_result r = check(s, indSecs);
      if (r == z3::unsat)
        break;
      if (r == z3::unknown) {
        unknownSeen = true;
        break;
      }
      z3::model m = s.get_model();
      size_t before = active.size() + dropped.size() + (structOk ? 1 : 0);
      for (const Violation &v : wviol[k + 1]) {
        if (!sel(v) || (v.kind == LemmaTable && dropped.count(v.lemma)) || !m.eval(v.cond, true).is_true())
          continue;
        if (getenv("TLXSIM_PROOF_DEBUG"))
          llvm::errs() << "induction step violates " << kindName(v.kind) << " "
                       << (v.group >= 0 ? groups[v.group].name : "") << " lemma " << v.lemma << "\n";
        if (v.kind < LemmaAlign)
          active.erase(resultOf.at({v.kind, v.group}));
        else if (v.kind == LemmaTable)
          dropped.insert(v.lemma);
        else
          structOk = false;
      }
      if (active.size() + dropped.size() + (structOk ? 1 : 0) == before) { // nothing removed: stay sound
        unknownSeen = true;
        break;
      }
    }
    for (size_t i : open) {
      ProofResult &r = results[i];
      r.seconds += indSecs / open.size();
      if (windowOk && !unknownSeen && active.count(i)) {
        r.verdict = "proved";
        r.witness = std::to_string(k) + "-induction over lock-step loop iterations (base case: " +
                    std::to_string(N) + " steps)";
      } else if (windowOk && unknownSeen && active.count(i)) {
        r.verdict = "timeout";
        r.bound = N;
        r.witness = "no violation within " + std::to_string(N) + " lock-step steps; the induction step " +
                    (budgetExhausted ? "ran out of the proof budget (--proof-budget)" : "timed out");
      } else {
        r.verdict = "bounded";
        r.bound = N;
        r.witness = "no violation within " + std::to_string(N) + " lock-step steps; " + why;
      }
    }
  }
  if (budgetExhausted)
    report.notes.push_back(budgetSpent() + ": the queries after it were not run, their properties read "
                           "'timeout'");
  report.seconds = totalSeconds;
  report.results = std::move(results);
  return report;
}

} // namespace

ProofReport proveProtocol(ModuleOp module, const ProofOptions &options) {
  try {
    Prover p(module, options);
    return p.run();
  } catch (const z3::exception &e) {
    ProofReport r;
    r.notes.push_back(std::string("not analyzed: Z3 error: ") + e.msg());
    return r;
  } catch (const Unsupported &u) {
    ProofReport r;
    r.notes.push_back("not analyzed: " + u.why);
    return r;
  }
}

} // namespace tlxsim::verifier::proof
