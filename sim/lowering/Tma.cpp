// Lowering: TMA: bulk tensor copies, their store waits, and the async-proxy fence.
#include "sim/lowering/Lowerer.h"

#include "ir/Cga.h"
#include "ir/Partitions.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

namespace {

/// The identity of the global tensor a device-made descriptor (`ttng.reinterpret_tensor_descriptor` of a map in
/// global scratch) describes, for the L2 model's keys (ops/Tma.cpp boxKey): the function argument that the
/// `ttng.tensormap_create` writing the map takes as its global address, followed back through partition captures
/// and pointer arithmetic (`tt.addptr`, `tt.bitcast`: their pointer operand), as -2 - its argument number, so that it
/// differs from kernel descriptor arguments (their index, >= 0) and from no identity (-1). Descriptors of different
/// tensors (TLX fused attention's Q, K, V, O, all made in the kernel) then never share L2 lines. An address that is
/// not such an argument (loaded from a pointer table: a grouped GEMM's per-group tensors) is the tensormap_create
/// op's own identity (kOwnIdentity + its ordinal among the module's tensormap_create ops): two maps are then two
/// tensors. -1 when no tensormap_create writes the map.
constexpr int64_t kOwnIdentity = -(int64_t(1) << 30);

int64_t deviceDescriptorSource(Operation &reinterpret) {
  if (reinterpret.getNumOperands() < 1)
    return -1;
  mlir::Value map = ir::capturedValue(reinterpret.getOperand(0));
  for (Operation *user : map.getUsers()) {
    if (user->getName().getStringRef() != "ttng.tensormap_create" || user->getNumOperands() < 2 ||
        user->getOperand(0) != map)
      continue;
    if (mlir::BlockArgument arg = pointerArgument(user->getOperand(1)))
      return -2 - static_cast<int64_t>(arg.getArgNumber());
    int64_t ordinal = 0, found = -1;
    Operation *module = user;
    while (module->getParentOp())
      module = module->getParentOp();
    module->walk([&](Operation *op) {
      if (op == user)
        found = ordinal;
      if (op->getName().getStringRef() == "ttng.tensormap_create")
        ++ordinal;
    });
    return kOwnIdentity + std::max<int64_t>(found, 0);
  }
  return -1;
}

} // namespace

/// TMA copies (load, store, reduce, gather, scatter), async_tma_store_wait, async_tma_store_token_wait,
/// fence_async_shared.
bool Lowerer::lowerTma(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "ttng.async_tma_copy_global_to_local" || name == "ttng.async_tma_copy_local_to_global" ||
      name == "ttng.async_tma_reduce") {
    bool load = name == "ttng.async_tma_copy_global_to_local";
    mlir::Value descValue = requiredValue(op, "desc");
    auto desc = descValue ? typed<ir::TensorDescType>(op, descValue, "the descriptor", "!tt.tensordesc")
                          : ir::TensorDescType();
    if (!desc)
      return true;
    Instr instr = make(load ? Op::TmaLoad : Op::TmaStore, op);
    std::vector<int32_t> coords = operands(op, "coord");
    if (coords.size() != static_cast<size_t>(desc.getBlockType().getRank()))
      return reject(op, "has " + llvm::Twine(coords.size()) + " coordinates for a rank-" +
                               llvm::Twine(desc.getBlockType().getRank()) + " descriptor");
    instr.args = {slot(descValue)};
    instr.args.insert(instr.args.end(), coords.begin(), coords.end());
    if (load) {
      // `multicast` with an explicit CTA mask (`multicastTargets`) is fbtriton's TLX form: the mask names the
      // destinations (fbtriton AsyncTMACopyGlobalToLocalOp::verify: the layout broadcast is needed only without a
      // mask). Without a mask it multicasts through the CTA layout of its destination.
      if (op.hasAttr("multicast") && operand(op, "multicastTargets") < 0)
        return unsupportedOp(op, "multicasts through the CTA layout of its destination (Triton main's `multicast`), "
                                "which the simulator does not model; TLX's explicit CTA mask operand is supported");
      instr.args.push_back(required(op, "result"));
      instr.args.push_back(required(op, "barrier"));
      instr.args.push_back(required(op, "pred"));
      if (int32_t mask = operand(op, "multicastTargets"); mask >= 0)
        instr.args.push_back(mask); // .multicast::cluster: the box lands in every CTA of the mask
      instr.sub = op.hasAttr("two_cta") ? 1 : 0;
    } else {
      instr.args.push_back(required(op, "src"));
    }
    // A box split across the cluster's CTAs by the CGA layout of its shared encoding (`num_ctas` > 1): Triton
    // lowers the copy to one copy per CTA of that CTA's getShapePerCTA part, at the box's coordinates offset by
    // the CTA's part, into the CTA's own buffer and completing on the CTA's own mbarrier (Triton's NVIDIA TMA
    // lowering, third_party/nvidia/lib/TritonNVIDIAGPUToLLVM, getMsgToPackedOffsetLayout: TMA messages over
    // getShapePerCTA, the `block` (CTA) input through CTASplitNum; the host descriptor's box is the part,
    // compiled metadata tensordesc_meta.block_size). No multicast in Triton 3.6 ("NYI: Support multicast"): the
    // SASS of the 2- and 4-CTA captures (hopper/cga_*) has plain UTMALDG.2D after an S2UR of SR_CgaCtaId, and
    // CTAs a zero basis gives the same part each load it. So imm is the part's bytes (`nbytes_per_cta`), the
    // same in every CTA.
    instr.imm = ir::boxBytesPerCta(desc);
    instr.imm2 = static_cast<int64_t>(coords.size());
    instr.viewElems[0] = ir::boxElementsPerCta(desc);
    instr.aux = static_cast<int32_t>(ir::ctaSplitBits(desc.getBlockType().getEncoding()));
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.async_tma_store_wait") {
    Instr instr = make(Op::TmaStoreWait, op);
    instr.imm = intAttr(op, "pendings");
    out.push_back(instr);
    return true;
  }
  // Device-side tensor descriptors (TLX `make_tensor_descriptor` in the kernel): `ttg.global_scratch_alloc` is a
  // pointer into the launch's global scratch (pointers carry no address in the simulator: 0, as kernel pointer
  // arguments are bound); `ttng.tensormap_create` writes the 128-byte CUtensorMap there (a global store; PTX ISA
  // tensormap.replace / st.global of the map); `ttng.reinterpret_tensor_descriptor` reads the map back as a
  // descriptor value that TMA ops take (their box bytes come from its !tt.tensordesc type, which
  // tensormap_create's box_dim matches). The acquire fence (`ttng.tensormap_fenceproxy_acquire`) is a hint.
  if (name == "ttg.global_scratch_alloc" || name == "ttng.reinterpret_tensor_descriptor") {
    if (op.getNumResults() != 1)
      return reject(op, "expected one result");
    Instr instr = make(Op::Const, op);
    instr.imm = 0;
    instr.bits = 64;
    if (name == "ttng.reinterpret_tensor_descriptor") { // a descriptor value naming the tensor it describes
      instr.sub = 2;
      instr.imm = deviceDescriptorSource(op);
    }
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.tensormap_create")
    return addressed(op, out, Op::GlobalStore, {"desc_ptr"}, 128); // sizeof(CUtensorMap)
  if (name == "ttng.async_tma_store_token_wait") {
    Instr instr = make(Op::TmaStoreTokenWait, op);
    instr.args = {required(op, "token")};
    out.push_back(instr);
    // Then an arrive on each barrier whose predicate holds (TLX: the staging buffer's release).
    std::vector<int32_t> barriers = operands(op, "barriers"), preds = operands(op, "barrier_preds");
    if (!preds.empty() && preds.size() != barriers.size())
      return reject(op, "has " + llvm::Twine(barriers.size()) + " barriers but " + llvm::Twine(preds.size()) +
                               " predicates");
    for (size_t i = 0; i < barriers.size(); ++i) {
      Instr arrive;
      arrive.op = Op::ArriveBarrier;
      arrive.loc = instr.loc;
      arrive.args = {barriers[i], preds.empty() ? -1 : preds[i]};
      arrive.imm = 1;
      out.push_back(arrive);
    }
    return true;
  }
  if (name == "ttng.fence_async_shared") {
    out.push_back(make(Op::FenceAsync, op));
    return true;
  }
  if (name == "ttng.async_tma_gather" || name == "ttng.async_tma_scatter") {
    bool load = name == "ttng.async_tma_gather";
    mlir::Value view = requiredValue(op, load ? "result" : "src");
    auto type = view ? typed<ir::MemDescType>(op, view, "the shared-memory view", "!ttg.memdesc") : ir::MemDescType();
    if (!type)
      return true;
    // Rows picked by x_offsets (a register tensor) at column y_offset: one box of the view's bytes.
    Instr instr = make(load ? Op::TmaLoad : Op::TmaStore, op);
    instr.args = {required(op, "desc"), required(op, "y_offset")};
    if (load) {
      instr.args.push_back(slot(view));
      instr.args.push_back(required(op, "barrier"));
      instr.args.push_back(required(op, "pred"));
    } else {
      instr.args.push_back(slot(view));
    }
    instr.imm = ir::bytesPerCta(type);
    instr.imm2 = 1;
    instr.viewElems[0] = ir::elementsPerCta(type);
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
