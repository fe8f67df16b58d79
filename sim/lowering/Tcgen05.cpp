// Lowering: tcgen05 and tensor memory (Blackwell): MMAs, commits, TMEM loads / stores / copies.
#include "sim/lowering/Lowerer.h"
#include "sim/lowering/TmemGeometry.h"

#include "ir/Cga.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

/// ttng.tc_gen5_mma[_scaled], tc_gen5_commit, tmem_load / tmem_store, tmem_copy.
bool Lowerer::lowerTcgen05(Operation &op, StringRef name, std::vector<Instr> &out) {
  if (name == "ttng.tc_gen5_mma" || name == "ttng.tc_gen5_mma_scaled") {
    mlir::Value a = requiredValue(op, "a"), b = requiredValue(op, "b");
    auto aType = a ? typed<ir::MemDescType>(op, a, "operand a", "!ttg.memdesc") : ir::MemDescType();
    auto bType = b ? typed<ir::MemDescType>(op, b, "operand b", "!ttg.memdesc") : ir::MemDescType();
    if (!aType || !bType || aType.getShape().size() != 2 || bType.getShape().size() != 2)
      return reject(op, "expected rank-2 memdesc operands a (M x K) and b (K x N)");
    Instr instr = make(Op::Tc05Mma, op);
    std::vector<int32_t> barriers = operands(op, "barriers"), preds = operands(op, "barrier_preds");
    instr.args = {slot(a), slot(b), required(op, "d"), required(op, "useD"), required(op, "pred")};
    instr.args.insert(instr.args.end(), barriers.begin(), barriers.end());
    for (size_t i = 0; i < barriers.size(); ++i) // a barrier without a predicate always arrives
      instr.args.push_back(i < preds.size() ? preds[i] : -1);
    // Flops of one CTA's MMA: its parts of A (M x K) and B (K x N) when CGA layouts split them (`num_ctas` > 1,
    // ir/Cga.h). A 2-CTA MMA (`two_ctas`, tcgen05.mma.cta_group::2, issued once per pair) runs on the tensor cores
    // of both CTAs: each computes its own rows of A (its M x K part) against the whole N of B, whose K x N/2 halves
    // the two CTAs hold (PTX ISA 9.1 9.7.16.10.1 "cta_group::2"; TLX blackwell_gemm_ws cta2: A 128 x 64 and B
    // 64 x 64 per CTA, the accumulator 128 x 128), so one CTA's share is M x (the accumulator's N) x K: instr.imm,
    // charged to each CTA's SM (ops/Tcgen05.cpp).
    llvm::SmallVector<int64_t> aSplit = ir::ctaSplitNum(aType.getEncoding(), 2);
    int64_t m = aType.getShape()[0] / aSplit[0], k = aType.getShape()[1] / aSplit[1];
    int64_t n = bType.getShape()[1] / ir::ctaSplitNum(bType.getEncoding(), 2)[1];
    if (op.hasAttr("two_ctas")) {
      mlir::Value d = requiredValue(op, "d");
      auto dType = d ? typed<ir::MemDescType>(op, d, "operand d", "!ttg.memdesc") : ir::MemDescType();
      if (!dType || dType.getShape().size() != 2)
        return reject(op, "expected a rank-2 memdesc accumulator d (M x N)");
      n = dType.getShape()[1] / ir::ctaSplitNum(dType.getEncoding(), 2)[1];
    }
    instr.imm = 2 * m * n * k;
    instr.imm2 = static_cast<int64_t>(barriers.size());
    instr.sub = (barriers.empty() && !op.hasAttr("is_async") ? 1 : 0) | (op.hasAttr("two_ctas") ? 2 : 0);
    instr.viewElems[0] = viewExtent(aType); // A: shared or tensor memory (PTX ISA 9.1 9.7.16.10.1 [a-tmem])
    instr.viewElems[1] = viewExtent(bType);
    if (mlir::Value d = requiredValue(op, "d"))
      instr.viewElems[2] = viewExtent(d.getType()); // the accumulator in tensor memory, written
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.tc_gen5_commit") {
    Instr instr = make(Op::Tc05Commit, op);
    instr.args = {required(op, "barrier"), operand(op, "pred")};
    // A module in 2-CTA mode (`ttng.two-ctas`, TLX's `tlx.enable_paired_cta_mma`) lowers every commit to
    // tcgen05.commit.cta_group::2 .multicast::cluster over the pair (fbtriton 3.7 TCGen5CommitOpConversion: the
    // two_ctas flag is the module's), with or without the op's own `two_ctas`.
    ModuleOp module = op.getParentOfType<ModuleOp>();
    auto flag = [&](StringRef attr) {
      auto b = module ? module->getAttrOfType<BoolAttr>(attr) : BoolAttr();
      return b && b.getValue();
    };
    instr.sub = op.hasAttr("two_ctas") || flag("ttng.two-ctas") || flag("tlx.enable_paired_cta_mma") ? 1 : 0;
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.tmem_load" || name == "ttng.tmem_store") {
    // Register <-> tensor-memory traffic (tcgen05.ld / tcgen05.st) over the bytes moved; the view is an
    // access to the tensor-memory region for the race checks.
    bool store = name == "ttng.tmem_store";
    mlir::Value view = requiredValue(op, store ? "dst" : "src");
    if (!view)
      return true;
    Instr instr = make(Op::TensorOp, op);
    instr.sub = 3;
    instr.imm = bytesOf(view.getType());
    instr.imm2 = store ? 1 : 0;
    instr.viewElems[0] = viewExtent(view.getType()); // TMEM columns
    instr.args = {slot(view)};
    if (store)
      instr.args.push_back(required(op, "src"));
    mlir::Value data = store ? requiredValue(op, "src") : (op.getNumResults() ? op.getResult(0) : mlir::Value());
    if (data) {
      int64_t blockM = 128;
      if (auto memdesc = dyn_cast<ir::MemDescType>(view.getType()))
        if (auto enc = dyn_cast_or_null<ir::EncodingAttr>(memdesc.getEncoding()))
          blockM = enc.getInt("blockM").value_or(128);
      std::vector<TmemWarpTile> tiles = tmemWarpTiles(data.getType(), blockM);
      if (!tiles.empty()) {
        instr.aux = static_cast<int32_t>(p.tmemWarpTiles.size());
        p.tmemWarpTiles.push_back(std::move(tiles));
      }
    }
    out.push_back(instr);
    return true;
  }
  if (name == "ttng.tmem_copy") {
    mlir::Value src = requiredValue(op, "src");
    if (!src)
      return true;
    Instr instr = make(Op::Tc05Copy, op);
    instr.args = {slot(src), required(op, "dst"), operand(op, "barrier")};
    instr.imm = bytesOf(src.getType());
    if (auto type = dyn_cast<ir::MemDescType>(src.getType()))
      instr.viewElems[0] = type.getNumElements();
    if (mlir::Value dst = requiredValue(op, "dst")) // tcgen05.cp writes its TMEM destination (PTX ISA 9.1 9.7.16.9.1)
      instr.viewElems[1] = viewExtent(dst.getType());
    out.push_back(instr);
    return true;
  }
  return false;
}

} // namespace tlxsim::sim::lowering
