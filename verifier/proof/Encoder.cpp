// Symbolic execution of ops: the values and events of one op (Encoder.h), dispatched to the op families of
// ExecValues.cpp, ExecBarriers.cpp and ExecAsync.cpp; the partitions' entry environments.
#include "verifier/proof/Encoder.h"

#include "ir/OpSyntax.h"
#include "ir/Types.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace tlxsim::verifier::proof {

Val OpCtx::in(unsigned i) const { return i < op.getNumOperands() ? E.get(env, op.getOperand(i)) : Val{}; }
void OpCtx::setInt(const z3::expr &e) { env[op.getResult(0)] = {Val::Int, e, -1}; }
void OpCtx::setBool(const z3::expr &e) { env[op.getResult(0)] = {Val::Bool, e, -1}; }

void OpCtx::opaque() {
  for (Value r : op.getResults())
    env[r] = E.typedFresh(r.getType(), "opaque");
}

std::optional<Val> OpCtx::groupOperand(const char *group) const {
  auto range = ir::getOperandGroup(&op, group);
  if (!range || range->empty())
    return std::nullopt;
  Val v = E.get(env, (*range)[0]);
  if (v.k != Val::Bar)
    throw Unsupported{ir::pythonLocation(op.getLoc()).str() + ": " + name.str() +
                      " on a barrier the prover cannot trace to its allocation"};
  return v;
}

z3::expr OpCtx::predOf(const char *group) const {
  auto range = ir::getOperandGroup(&op, group);
  if (!range || range->empty())
    return E.c.bool_val(true);
  Val v = E.get(env, (*range)[0]);
  return v.k == Val::Bool ? *v.e : E.fresh("pred", true);
}

void OpCtx::emit(Event::K k, const Val &bar, const z3::expr &pred, const z3::expr &parity, int64_t amount) {
  if (!events)
    return;
  std::vector<Group> &groups = E.groups;
  groups[bar.group].users.insert(part);
  bool tcgen05Arrive = k == Event::Arrive && name.starts_with("ttng.tc_gen5");
  if (k != Event::Arrive || tcgen05Arrive)
    groups[bar.group].asyncSignals |= k != Event::Wait;
  if (k == Event::Wait)
    groups[bar.group].waiters.insert(part);
  if (Operation *l1 = E.parts[part].l1; k == Event::Wait && l1) {
    Operation *at = l1->getBlock()->findAncestorOpInBlock(op);
    if (l1->isAncestor(&op))
      groups[bar.group].loopWaiters.insert(part);
    else if (at && l1->isBeforeInBlock(at))
      groups[bar.group].afterWaiters.insert(part);
    if (Operation *l2 = E.parts[part].l2; l2 && l2->isAncestor(&op))
      groups[bar.group].innerWaiters.insert(part);
  }
  if (k == Event::Arrive)
    groups[bar.group].arrivers.insert(part);
  if (k == Event::Arrive || k == Event::Expect || k == Event::Tma)
    groups[bar.group].signallers.insert(part);
  if (tcgen05Arrive)
    groups[bar.group].asyncArrivers.insert(part);
  events->push_back({k, bar.group, *bar.e, guard && pred, parity, amount, &op, part});
}

void OpCtx::emitRead(Value v, const z3::expr &pred, int64_t how) {
  Val b = E.get(env, v);
  if (!events || b.k != Val::Buf)
    return;
  std::vector<Group> &groups = E.groups;
  if (how != 2)
    groups[b.group].readers.insert(part);
  else
    groups[b.group].storeReaders.insert(part);
  groups[b.group].users.insert(part);
  events->push_back({Event::Read, b.group, *b.e, guard && pred, E.c.int_val(0), how, &op, part});
}

void OpCtx::emitWrite(Value v) {
  Val b = E.get(env, v);
  if (!events || b.k != Val::Buf)
    return;
  std::vector<Group> &groups = E.groups;
  groups[b.group].genericWriters.insert(part);
  groups[b.group].users.insert(part);
  events->push_back({Event::Write, b.group, *b.e, guard, E.c.int_val(0), 0, &op, part});
}

Val Encoder::get(Env &env, Value v) {
  auto it = env.find(v);
  if (it != env.end())
    return it->second;
  return {};
}

Val Encoder::typedFresh(Type t, const std::string &name) {
  if (t.isInteger(1))
    return {Val::Bool, fresh(name, true), -1};
  if (t.isIntOrIndex())
    return {Val::Int, fresh(name), -1};
  return {};
}

int64_t intAttr(Operation &op, const char *name, int64_t dflt) {
  if (auto a = op.getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return dflt;
}

void Encoder::execOps(llvm::ArrayRef<Operation *> ops, Env &env, const z3::expr &guard, std::vector<Event> *events,
                     int part) {
  for (Operation *op : ops)
    execOp(*op, env, guard, events, part);
}

void Encoder::execOp(Operation &op, Env &env, const z3::expr &guard, std::vector<Event> *events, int part) {
  llvm::StringRef name = op.getName().getStringRef();
  OpCtx x{*this, op, env, guard, events, part, name};
  if (isa<arith::ConstantOp>(op) || name == "nvgpu.cluster_id" || name == "nvg.cluster_id" || name == "tt.get_program_id" ||
      name == "tt.get_num_programs" ||
      (name.starts_with("arith.") && op.getNumResults() == 1 && op.getResult(0).getType().isIntOrIndex()))
    return execValue(x);
  if (name == "scf.if")
    return execIf(x);
  if (name == "ttg.local_alloc" || name == "ttg.memdesc_index" || name == "ttg.memdesc_subview" ||
      name == "ttng.init_barrier" || isStageView(op))
    return execMemory(x);
  if (numCtas > 1 && execCluster(x))
    return;
  if (name == "ttng.wait_barrier" || name == "ttng.arrive_barrier" || name == "ttng.barrier_expect" ||
      name == "ttng.async_tma_copy_global_to_local" || name == "ttng.tc_gen5_commit" ||
      name == "ttng.async_clc_try_cancel" || name == "ttng.clc_query_cancel" || isNamedBarrierOp(op))
    return execBarrier(x);
  if (name == "ttng.tc_gen5_mma" || name == "ttng.tc_gen5_mma_scaled" || name == "ttng.warp_group_dot" ||
      name == "ttng.warp_group_dot_wait" || name == "ttg.local_load" || name == "ttng.async_tma_copy_local_to_global" ||
      name == "ttng.async_tma_store_token_wait" || name == "ttng.async_tma_store_wait" || name == "ttg.local_store" || name == "ttng.fence_async_shared")
    return execAsync(x);
  execOther(x);
}

namespace {

/// Whether a kernel argument of type `t` is a launch parameter the prover follows: an integer or index, not a bool.
bool isIntegerParam(mlir::Type t) { return t.isIntOrIndex() && !t.isInteger(1); }

} // namespace

std::string Encoder::argumentParamName(unsigned i) {
  Block &body = func->getRegion(0).front();
  std::string n = ir::variableName(body.getArgument(i).getLoc()).value_or("arg" + std::to_string(i));
  // Descriptor shape/stride arguments share the descriptor's Python name.
  for (unsigned j = 0; j < body.getNumArguments(); ++j)
    if (j != i && ir::variableName(body.getArgument(j).getLoc()) == n)
      return n + "#" + std::to_string(i);
  return n;
}

std::set<std::string> Encoder::descriptorExtentParams() {
  std::set<std::string> names;
  Block &body = func->getRegion(0).front();
  for (unsigned i = 0; i < body.getNumArguments(); ++i) {
    auto desc = dyn_cast<ir::TensorDescType>(body.getArgument(i).getType());
    if (!desc)
      continue;
    unsigned extents = 2 * static_cast<unsigned>(desc.getBlockType().getRank());
    for (unsigned j = i + 1; j <= i + extents && j < body.getNumArguments(); ++j)
      if (isIntegerParam(body.getArgument(j).getType()))
        names.insert(argumentParamName(j));
  }
  return names;
}

Env Encoder::baseEnv(int part) {
  Env env;
  Block &body = func->getRegion(0).front();
  for (unsigned i = 0; i < body.getNumArguments(); ++i) {
    BlockArgument arg = body.getArgument(i);
    if (isIntegerParam(arg.getType()))
      env[arg] = param(argumentParamName(i));
  }
  execOps(prefix, env, c.bool_val(true), nullptr, part);
  for (auto &[arg, outer] : parts[part].seeds)
    env[arg] = get(env, outer);
  return env;
}

} // namespace tlxsim::verifier::proof
