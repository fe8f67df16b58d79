#include "sim/Lowering.h"

#include "sim/lowering/Lowerer.h"
#include "sim/RegisterPolicy.h"
#include "sim/ProtonBuffer.h"
#include "sim/SharedAllocation.h"

#include "ir/Location.h"

#include "mlir/IR/BuiltinOps.h"

// The lowering driver: finds the kernel, reads the module's launch attributes, walks regions and blocks and hands
// each op to the op families (sim/lowering/<Family>.cpp); an op no family knows becomes Op::Unknown.
// Adding an op family: a `bool Lowerer::lowerFoo(Operation &, StringRef, std::vector<Instr> &)` in
// sim/lowering/Foo.cpp (declared in lowering/Lowerer.h) and its entry in kFamilies below.

using namespace mlir;

namespace tlxsim::sim {

char UnsupportedError::ID = 0;

namespace lowering {

namespace {

using Family = bool (Lowerer::*)(Operation &, StringRef, std::vector<Instr> &);

/// The op families, tried in turn (each knows its ops by name; no two share one).
constexpr Family kFamilies[] = {
    &Lowerer::lowerScalar,       &Lowerer::lowerControlFlow, &Lowerer::lowerTcgen05,  &Lowerer::lowerSharedMemory,
    &Lowerer::lowerMbarrier,     &Lowerer::lowerTma,         &Lowerer::lowerWgmma,    &Lowerer::lowerNamedBarrier,
    &Lowerer::lowerCluster,      &Lowerer::lowerGlobalMemory, &Lowerer::lowerAsyncCopy, &Lowerer::lowerRegister,
    &Lowerer::lowerStructure,
    &Lowerer::lowerAmd,          &Lowerer::lowerClc,
};

} // namespace

llvm::Error Lowerer::lowerKernel(Operation *func) {
  if (func->getNumRegions() != 1 || func->getRegion(0).empty())
    return llvm::createStringError("kernel '%s' has no body", p.kernelName.c_str());
  Region &body = func->getRegion(0);
  if (auto err = lowerArgs(body.front()))
    return err;
  entrySyncAfter = entryClusterSync(func);
  membar = membarSyncs(func);
  p.entryBlock = lowerRegion(body);
  for (const KernelArg &arg : p.args) // a buffer the kernel writes: its contents at launch are not what loads read
    if (arg.writtenByKernel)
      p.unknownWhy[arg.loadOrigin] = "the kernel also stores to (or atomically updates) that buffer, so its contents "
                                     "at launch do not tell what a load reads (the simulator keeps no data of global "
                                     "memory)";
  splitWaveGroups(body);
  markScalarArgs();
  if (!error.empty() && unsupported)
    return llvm::make_error<UnsupportedError>(error);
  if (!error.empty())
    return llvm::createStringError("%s", error.c_str());
  return llvm::Error::success();
}


/// Binds kernel arguments by Python name; a host tensor descriptor is followed by its
/// shape (i32) and stride (i64) arguments under the same name.
llvm::Error Lowerer::lowerArgs(mlir::Block &entry) {
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    BlockArgument arg = entry.getArgument(i);
    KernelArg out;
    out.name = ir::variableName(arg.getLoc()).value_or("arg" + std::to_string(i));
    out.slot = slot(arg);
    if (auto desc = dyn_cast<ir::TensorDescType>(arg.getType())) {
      out.kind = KernelArg::Desc;
      out.block.assign(desc.getBlockType().getShape().begin(), desc.getBlockType().getShape().end());
      out.elementBytes = (desc.getBlockType().getElementTypeBitWidth() + 7) / 8;
      int64_t rank = static_cast<int64_t>(out.block.size());
      p.args.push_back(out);
      for (int64_t j = 0; j < 2 * rank; ++j) {
        if (i + 1 >= entry.getNumArguments())
          return llvm::createStringError("descriptor '%s' lacks its shape and stride arguments", out.name.c_str());
        BlockArgument part = entry.getArgument(++i);
        KernelArg partArg;
        partArg.kind = j < rank ? KernelArg::DescShape : KernelArg::DescStride;
        partArg.name = out.name;
        partArg.slot = slot(part);
        partArg.dim = static_cast<int32_t>(j % rank);
        partArg.bits = scalarBits(part.getType());
        p.args.push_back(partArg);
      }
      continue;
    }
    if (isa<ir::PtrType>(arg.getType())) {
      out.kind = KernelArg::Pointer;
      out.loadOrigin = static_cast<int32_t>(p.unknownOps.size());
      p.unknownOps.push_back("a load from pointer argument '" + out.name + "'");
      p.unknownWhy.push_back("the launch does not give that buffer's contents: add them to the launch spec as "
                             "\"ptrs\": {\"" + out.name + "\": {\"values\": [...]}} (row-major integers; a capture "
                             "records them for an integer tensor the host code makes from Python data, "
                             "torch.tensor([...]))");
    }
    out.bits = scalarBits(arg.getType());
    out.isFloat = isa<FloatType>(arg.getType());
    if (std::optional<int64_t> divisibility = ir::argDivisibility(entry.getParentOp(), i))
      out.divisibility = std::max<int64_t>(1, *divisibility);
    p.args.push_back(out);
  }
  return llvm::Error::success();
}


int32_t Lowerer::lowerBlock(mlir::Block &block) {
  int32_t index = static_cast<int32_t>(p.blocks.size());
  p.blocks.emplace_back();
  std::vector<int32_t> args;
  for (BlockArgument arg : block.getArguments())
    args.push_back(slot(arg));
  std::vector<Instr> instrs;
  if (StringRef(p.target).starts_with("cuda")) // ptxas's scheduling; on CDNA the LDS waits' placement is the checker's
    sinkRegisterOps(block);
  for (Operation &op : block) {
    if (!error.empty())
      break;
    lowerOp(op, instrs);
    if (&op == entrySyncAfter) { // fence.mbarrier_init (a no-op here), barrier.cluster.arrive.relaxed + wait
      instrs.push_back(make(Op::ClusterArrive, op));
      instrs.push_back(make(Op::ClusterWait, op));
    }
  }
  if (StringRef(p.target).starts_with("cuda"))
    hoistAsyncWgmmas(instrs);
  p.blocks[index].args = std::move(args);
  p.blocks[index].instrs = std::move(instrs);
  return index;
}


void Lowerer::markScalarArgs() {
  for (Block &block : p.blocks)
    for (Instr &in : block.instrs) {
      bool noInstr = in.op == Op::Cast && (in.sub == 1 || in.sub == 2);
      size_t used = in.op == Op::Yield || in.op == Op::WarpSpecialize || in.op == Op::While || noInstr ? 0
                    : in.op == Op::For                                                     ? 3 // lb, ub, step
                    : in.op == Op::Condition                                               ? 1 // the predicate
                                                                                           : in.args.size();
      for (size_t i = 0; i < std::min<size_t>({used, in.args.size(), 32}); ++i)
        if (int32_t arg = in.args[i]; arg >= 0 && static_cast<size_t>(arg) < scalarSlots.size() && scalarSlots[arg])
          in.scalarArgs |= uint32_t(1) << i;
    }
}

int32_t Lowerer::lowerRegion(Region &region) {
  if (region.empty())
    return -1;
  if (!region.hasOneBlock())
    return lowerCfgRegion(region);
  return lowerBlock(region.front());
}


bool Lowerer::tensorOp(Operation &op, StringRef name, int16_t unit, std::vector<Instr> &out) {
  Instr instr = make(Op::TensorOp, op);
  instr.sub = unit;
  instr.imm = op.getNumResults() ? numElements(op.getResult(0).getType()) : 0;
  // Shape-only ops name registers the source already holds (a broadcast reuses them, a
  // make_range is a per-thread constant): no instruction per element.
  if (llvm::is_contained({"tt.splat", "tt.broadcast", "tt.expand_dims", "tt.make_range", "tt.reshape"}, name))
    instr.imm = 0;
  instr.args = slotsOf(op.getOperands());
  // a scalar pointer's arithmetic: the engine follows it into a buffer whose contents the launch gives (Instr::aux)
  if (name == "tt.addptr" && op.getNumResults() == 1)
    if (auto ptr = dyn_cast<ir::PtrType>(op.getResult(0).getType()); ptr && feedsScalarIntLoad(op.getResult(0), 0))
      instr.aux = static_cast<int32_t>(elementBytes(ptr.getPointeeType()));
  out.push_back(instr);
  return true;
}

bool Lowerer::addressed(Operation &op, std::vector<Instr> &out, Op kind, std::initializer_list<StringRef> addressGroups,
                        int64_t bytes) {
  Instr instr = make(kind, op);
  for (StringRef group : addressGroups)
    for (int32_t s : operands(op, group))
      instr.args.push_back(s);
  for (mlir::Value v : op.getOperands()) // remaining operands: data, masks
    if (!llvm::is_contained(instr.args, slot(v)))
      instr.args.push_back(slot(v));
  instr.imm = bytes;
  int64_t address = 0;
  for (StringRef group : addressGroups)
    address += static_cast<int64_t>(operands(op, group).size());
  instr.imm2 = address;
  out.push_back(instr);
  return true;
}

void Lowerer::lowerOp(Operation &op, std::vector<Instr> &out) {
  auto membarSync = [&] {
    Instr sync;
    sync.op = Op::MembarSync;
    sync.loc = loc(op.getLoc());
    out.push_back(sync);
  };
  if (membar.before.contains(&op))
    membarSync();
  lowerOpItself(op, out);
  if (membar.after.contains(&op))
    membarSync();
}

void Lowerer::lowerOpItself(Operation &op, std::vector<Instr> &out) {
  StringRef name = op.getName().getStringRef();
  for (Family family : kFamilies)
    if ((this->*family)(op, name, out))
      return;
  if (isRegisterTensorOp(name))
    return (void)tensorOp(op, name, isSfuOp(name) ? 1 : 0, out);
  if (name == "proton.record") { // Proton's scope marker: its scope by name, start or end (Op::ProtonRecord)
    Instr instr = make(Op::ProtonRecord, op);
    auto scope = op.getAttrOfType<StringAttr>("name");
    std::string id = scope ? scope.getValue().str() : "";
    auto it = llvm::find(p.protonScopes, id);
    instr.imm = it - p.protonScopes.begin();
    if (it == p.protonScopes.end())
      p.protonScopes.push_back(id);
    instr.sub = op.hasAttr("isStart") ? 1 : 0;
    return out.push_back(instr);
  }
  if (isHint(name))
    return; // no instruction (ttg.local_dealloc: shared-memory reuse is not modeled)
  if (op.getNumRegions() > 0 && holdsSideEffects(op))
    return notSupported(op, "holds barrier, memory or other non-register ops in its regions, and the simulator has "
                            "no semantics for it yet (supported control flow: scf.for, scf.if, ttg.warp_specialize)");
  if (llvm::any_of(op.getOperands(), isBarrier))
    return notSupported(op, "takes an mbarrier operand, and the simulator has no semantics for this op yet: its "
                            "arrivals cannot be simulated, so no verdict would be sound");

  Instr instr = make(Op::Unknown, op);
  instr.imm = static_cast<int64_t>(p.unknownOps.size());
  p.unknownOps.push_back(name.str());
  p.unknownWhy.emplace_back();
  out.push_back(instr);
}

} // namespace lowering

llvm::Expected<Program> lowerModule(ModuleOp module) {
  Program program;
  Operation *kernel = nullptr;
  for (Operation &op : module.getBody()->getOperations()) {
    if (op.getName().getStringRef() != "tt.func")
      continue;
    auto visibility = op.getAttrOfType<StringAttr>("sym_visibility");
    if (!kernel || (visibility && visibility.getValue() == "public"))
      kernel = &op;
  }
  if (!kernel)
    return llvm::createStringError("the module holds no tt.func kernel");
  if (auto name = kernel->getAttrOfType<StringAttr>("sym_name"))
    program.kernelName = name.getValue().str();
  if (auto target = module->getAttrOfType<StringAttr>("ttg.target"))
    program.target = target.getValue().str();
  if (auto warps = module->getAttrOfType<IntegerAttr>("ttg.num-warps"))
    program.numWarps = static_cast<int32_t>(warps.getInt());
  if (auto tpw = module->getAttrOfType<IntegerAttr>("ttg.threads-per-warp"))
    program.threadsPerWarp = static_cast<int32_t>(tpw.getInt());
  if (auto ctas = module->getAttrOfType<IntegerAttr>("ttg.num-ctas"))
    program.numCtas = static_cast<int32_t>(ctas.getInt());
  if (program.numWarps < 1 || program.threadsPerWarp < 1 || program.numCtas < 1)
    return llvm::createStringError("module attributes ttg.num-warps (%d), ttg.threads-per-warp (%d) and ttg.num-ctas "
                                   "(%d) must be positive",
                                   program.numWarps, program.threadsPerWarp, program.numCtas);
  // The cluster shape: TLX writes `ttg.cluster-dim-x/-y/-z` (before Triton's PlanCTA pass, which makes a trivial
  // shape (num-ctas, 1, 1)); Triton upstream has only ttg.num-ctas, a cluster along x.
  bool haveDims = false;
  for (int i = 0; i < 3; ++i) {
    std::string name = std::string("ttg.cluster-dim-") + "xyz"[i];
    if (auto dim = module->getAttrOfType<IntegerAttr>(name)) {
      if (dim.getInt() < 1 || dim.getInt() > 65535)
        return llvm::createStringError("module attribute %s = %lld must be a positive cluster dimension",
                                       name.c_str(), static_cast<long long>(dim.getInt()));
      program.clusterDims[i] = static_cast<int32_t>(dim.getInt());
      haveDims = true;
    }
  }
  if (int64_t(program.clusterDims[0]) * program.clusterDims[1] * program.clusterDims[2] > INT32_MAX)
    return llvm::createStringError("module attributes ttg.cluster-dim-x/-y/-z (%d, %d, %d) make a cluster too large",
                                   program.clusterDims[0], program.clusterDims[1], program.clusterDims[2]);
  if (!haveDims || (program.numCtas > 1 && program.clusterSize() == 1))
    program.clusterDims = {program.numCtas, 1, 1};
  else if (program.numCtas > 1 && program.clusterSize() != program.numCtas)
    return llvm::createStringError("module attributes ttg.cluster-dim-x/-y/-z (%d, %d, %d) make clusters of %d CTAs, "
                                   "but ttg.num-ctas is %d",
                                   program.clusterDims[0], program.clusterDims[1], program.clusterDims[2],
                                   program.clusterSize(), program.numCtas);
  lowering::Lowerer lowerer(program);
  if (auto err = lowerer.lowerKernel(kernel))
    return err;
  RegisterPolicy registers = tritonRegisterPolicy(module);
  program.maxnreg = registers.maxnreg;
  program.maxnregSource = registers.source;
  program.maxnregEstimated = registers.estimated;
  program.protonSegments = protonSegments(module);
  if (auto allocation = allocateSharedMemory(module)) {
    program.allocatedSharedBytes = allocation->sizeBytes;
    if (allocation->estimates.empty()) // the offsets are Triton's own: name which buffers share bytes
      for (const SharedBuffer &b : allocation->buffers)
        if (auto it = lowerer.allocOf.find(b.op); b.op && it != lowerer.allocOf.end())
          program.allocs[it->second].sharedOffset = b.offset;
    program.sharedEstimates = std::move(allocation->estimates);
  } else {
    program.sharedEstimates.push_back(llvm::toString(allocation.takeError()));
  }
  return program;
}

} // namespace tlxsim::sim
