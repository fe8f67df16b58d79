#include "sim/Lowering.h"

#include "ir/Location.h"
#include "ir/OpSyntax.h"
#include "ir/Types.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <numeric>

using namespace mlir;

namespace tlxsim::sim {

char UnsupportedError::ID = 0;

int32_t Program::totalWarps() const {
  int32_t total = numWarps;
  for (const WarpSpecialize &ws : warpSpecializes) {
    int32_t workers = 0;
    for (const auto &worker : ws.workers)
      workers += worker.numWarps;
    total = std::max(total, numWarps + workers);
  }
  return (total + 3) / 4 * 4; // Triton rounds the total up to whole warp groups
}

std::string Program::clusterText() const {
  std::string text = "the cluster of " + std::to_string(clusterSize()) + " CTAs (";
  if (clusterDims[1] == 1 && clusterDims[2] == 1 && clusterDims[0] == numCtas)
    return text + "ttg.num-ctas)";
  return text + std::to_string(clusterDims[0]) + "x" + std::to_string(clusterDims[1]) + "x" +
         std::to_string(clusterDims[2]) + ")";
}

int64_t Program::sharedBytes() const {
  int64_t bytes = 0;
  for (const Alloc &alloc : allocs)
    if (!alloc.inTensorMemory)
      bytes += alloc.bytes;
  return bytes;
}

std::string Program::barrierName(int32_t alloc, int64_t index) const {
  if (alloc < 0 || alloc >= static_cast<int32_t>(allocs.size()))
    return "<barrier>";
  const Alloc &a = allocs[alloc];
  int64_t slots = 1;
  for (int64_t d : a.shape)
    slots *= d;
  return slots == 1 ? a.name : a.name + "[" + std::to_string(index) + "]";
}

namespace {

int64_t numElements(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getNumElements();
  if (auto memdesc = dyn_cast<ir::MemDescType>(type))
    return memdesc.getNumElements();
  return 1;
}

uint8_t scalarBits(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return static_cast<uint8_t>(integer.getWidth());
  return 64;
}

std::optional<int16_t> binaryKind(StringRef name) {
  return llvm::StringSwitch<std::optional<int16_t>>(name)
      .Case("arith.addi", Add).Case("arith.subi", Sub).Case("arith.muli", Mul)
      .Case("arith.divsi", DivS).Case("arith.divui", DivU).Case("arith.remsi", RemS).Case("arith.remui", RemU)
      .Case("arith.andi", And).Case("arith.ori", Or).Case("arith.xori", Xor)
      .Case("arith.shli", Shl).Case("arith.shrsi", ShrS).Case("arith.shrui", ShrU)
      .Case("arith.minsi", MinS).Case("arith.maxsi", MaxS).Case("arith.minui", MinU).Case("arith.maxui", MaxU)
      .Case("arith.ceildivsi", CeilDivS).Case("arith.floordivsi", FloorDivS)
      .Default(std::nullopt);
}

/// Ops whose only effect is register work proportional to their result's elements.
bool isRegisterTensorOp(StringRef name) {
  return name.starts_with("arith.") || name.starts_with("math.") ||
         llvm::is_contained({"tt.splat", "tt.broadcast", "tt.expand_dims", "tt.make_range", "tt.addptr", "tt.bitcast",
                             "tt.fp_to_fp", "tt.reshape", "tt.trans", "tt.cat", "tt.join", "tt.split", "tt.unsplat",
                             "tt.clampf", "tt.precise_sqrt", "tt.precise_divf", "tt.mulhiui", "tt.extern_elementwise",
                             "tt.elementwise_inline_asm", "tt.gather", "tt.histogram", "tt.advance", "tt.int_to_ptr",
                             "tt.ptr_to_int", "ttg.fp4_to_fp", "amdg.in_thread_transpose", "amdg.extract_slice",
                             "amdg.concat", "amdg.scaled_upcast_fp4", "amdg.scaled_upcast_fp8", "amdg.upcast_mxfp"},
                            name);
}

/// Scheduling hints and compiler annotations: no instruction executes for them.
bool isHint(StringRef name) {
  return llvm::is_contained({"rocdl.sched.barrier", "rocdl.sched.group.barrier", "rocdl.s.setprio",
                             "amdg.instruction_sched_hint", "llvm.intr.assume", "tt.assume", "ttg.local_dealloc",
                             "ttng.prefetch_tensormap", "ttng.tensormap_fenceproxy_acquire", "proton.record",
                             // orders mbarrier inits before the cluster barrier that publishes them; the simulator
                             // orders them by that cluster barrier (verifier/ClusterDeliveryChecker)
                             "ttng.fence_mbarrier_init_release_cluster"},
                            name);
}

/// Bytes of one element of a tensor or memdesc (pointers are 8 bytes).
int64_t elementBytes(Type type) {
  Type element = type;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    element = tensor.getElementType();
  else if (auto memdesc = dyn_cast<ir::MemDescType>(type))
    element = memdesc.getElementType();
  if (element.isIntOrFloat())
    return std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
  return 8; // !tt.ptr
}

/// Vector-memory instructions each thread issues for an AMD direct-to-LDS copy (`global_load_lds` /
/// `buffer_load ... lds`) whose addresses are the tensor `addresses`: the elements a thread holds in its
/// `#ttg.blocked` layout divided by the contiguous elements it holds along the fastest dimension (one
/// instruction moves one such vector; Gluon's CDNA4 `async_copy` requires that vector to be a supported width).
/// This is the count Triton's UpdateAsyncWaitCount (third_party/amd, Triton 3.6) gives an async copy when it
/// turns `ttg.async_wait {num}` into vmcnt instructions. 0 for other layouts (unknown: counted as one).
int64_t directToLdsInstructions(Type addresses) {
  auto tensor = dyn_cast<RankedTensorType>(addresses);
  auto encoding = tensor ? dyn_cast_or_null<ir::EncodingAttr>(tensor.getEncoding()) : ir::EncodingAttr();
  if (!encoding || encoding.getMnemonic() != "blocked")
    return 0;
  auto spt = encoding.getIntArray("sizePerThread"), tpw = encoding.getIntArray("threadsPerWarp"),
       wpc = encoding.getIntArray("warpsPerCTA"), order = encoding.getIntArray("order");
  size_t rank = static_cast<size_t>(tensor.getRank());
  if (spt.size() != rank || tpw.size() != rank || wpc.size() != rank || order.size() != rank || order[0] < 0 ||
      order[0] >= static_cast<int64_t>(rank))
    return 0;
  int64_t perThread = 1;
  for (size_t d = 0; d < rank; ++d) {
    int64_t tile = std::max<int64_t>(1, spt[d] * tpw[d] * wpc[d]), shape = tensor.getShape()[d];
    perThread *= std::max<int64_t>(1, (shape + tile - 1) / tile) * std::max<int64_t>(1, std::min(spt[d], shape));
  }
  int64_t contiguous = std::max<int64_t>(1, std::min(spt[order[0]], tensor.getShape()[order[0]]));
  return std::max<int64_t>(1, perThread / contiguous);
}

/// The TMEM tile of each warp for a tcgen05.ld / st of a rank-2 tensor of type `registers` (PTX ISA 9.1
/// 9.7.16.2.3: the tensor's rows are TMEM lanes, its columns TMEM columns), from its `#ttg.linear` or
/// `#ttg.blocked` layout: the rows and columns the warp's registers and lanes hold. Empty if the layout is
/// another one or the tile does not fit 128 lanes x 512 columns. `blockM` = 64 (the view's
/// `tensor_memory_encoding`): row r sits in lane 32 * (r / 16) + r % 16 (16 lanes of each warp's quarter).
std::vector<TmemWarpTile> tmemWarpTiles(Type registers, int64_t blockM) {
  auto tensor = dyn_cast<RankedTensorType>(registers);
  auto encoding = tensor ? dyn_cast_or_null<ir::EncodingAttr>(tensor.getEncoding()) : ir::EncodingAttr();
  if (!encoding || tensor.getRank() != 2)
    return {};
  int64_t rows = tensor.getShape()[0], cols = tensor.getShape()[1];
  if (rows > 128 || cols > 512)
    return {};
  auto lane = [&](int64_t r) { return blockM == 64 ? 32 * (r / 16) + r % 16 : r; };
  if (blockM == 64 && rows > 64)
    return {};
  std::vector<TmemWarpTile> tiles;
  if (encoding.getMnemonic() == "linear") {
    // bases: arrays of [row, col]; a coordinate is the XOR of the bases of the set bits of (register, lane, warp)
    auto basesOf = [&](StringRef key, std::vector<std::pair<int64_t, int64_t>> &out) {
      auto array = dyn_cast_or_null<ArrayAttr>(encoding.getParams().get(key));
      if (!array)
        return false;
      for (Attribute basis : array) {
        auto pair = dyn_cast<ArrayAttr>(basis);
        if (!pair || pair.size() != 2)
          return false;
        auto r = dyn_cast<IntegerAttr>(pair[0]), c = dyn_cast<IntegerAttr>(pair[1]);
        if (!r || !c)
          return false;
        out.push_back({r.getInt(), c.getInt()});
      }
      return true;
    };
    std::vector<std::pair<int64_t, int64_t>> inWarp, warp;
    if (!basesOf("register", inWarp) || !basesOf("lane", inWarp) || !basesOf("warp", warp) || inWarp.size() > 16 ||
        warp.size() > 4)
      return {};
    for (int64_t w = 0; w < (int64_t(1) << warp.size()); ++w) {
      int64_t r0 = 0, c0 = 0;
      for (size_t b = 0; b < warp.size(); ++b)
        if (w >> b & 1)
          r0 ^= warp[b].first, c0 ^= warp[b].second;
      TmemWarpTile tile;
      for (int64_t i = 0; i < (int64_t(1) << inWarp.size()); ++i) {
        int64_t r = r0, c = c0;
        for (size_t b = 0; b < inWarp.size(); ++b)
          if (i >> b & 1)
            r ^= inWarp[b].first, c ^= inWarp[b].second;
        if (r < 0 || r >= rows || c < 0 || c >= cols)
          return {};
        tile.rows.set(lane(r));
        tile.cols.set(c);
      }
      tiles.push_back(tile);
    }
    return tiles;
  }
  if (encoding.getMnemonic() != "blocked")
    return {};
  auto spt = encoding.getIntArray("sizePerThread"), tpw = encoding.getIntArray("threadsPerWarp"),
       wpc = encoding.getIntArray("warpsPerCTA"), order = encoding.getIntArray("order");
  if (spt.size() != 2 || tpw.size() != 2 || wpc.size() != 2 || order.size() != 2 || wpc[0] * wpc[1] > 16)
    return {};
  int64_t shape[2] = {rows, cols};
  for (int64_t w = 0; w < wpc[0] * wpc[1]; ++w) {
    int64_t coord[2];
    coord[order[0]] = w % wpc[order[0]]; // warps are numbered along `order`, fastest dimension first
    coord[order[1]] = w / wpc[order[0]] % wpc[order[1]];
    TmemWarpTile tile;
    for (int d = 0; d < 2; ++d) {
      int64_t span = spt[d] * tpw[d], tileSize = span * wpc[d];
      for (int64_t start = coord[d] * span; start < std::max(shape[d], tileSize); start += tileSize)
        for (int64_t x = start; x < start + span; ++x)
          if (d == 0)
            tile.rows.set(lane(x % shape[0]));
          else
            tile.cols.set(x % shape[1]);
    }
    tiles.push_back(tile);
  }
  return tiles;
}

/// Bytes a value of `type` holds: all elements of a tensor or memdesc, one scalar otherwise.
int64_t bytesOf(Type type) { return numElements(type) * elementBytes(type); }

bool isSfuOp(StringRef name) {
  return name == "math.exp2" || name == "math.exp" || name == "math.log2" || name == "math.log" ||
         name == "math.rsqrt" || name == "math.sqrt" || name == "math.sin" || name == "math.cos" || name == "arith.divf";
}

class Lowerer {
public:
  explicit Lowerer(Program &program) : p(program) {}

  llvm::Error lowerKernel(Operation *func) {
    if (func->getNumRegions() != 1 || func->getRegion(0).empty())
      return llvm::createStringError("kernel '%s' has no body", p.kernelName.c_str());
    Region &body = func->getRegion(0);
    if (auto err = lowerArgs(body.front()))
      return err;
    p.entryBlock = lowerRegion(body);
    if (!error.empty() && unsupported)
      return llvm::make_error<UnsupportedError>(error);
    if (!error.empty())
      return llvm::createStringError("%s", error.c_str());
    return llvm::Error::success();
  }

private:
  Program &p;
  std::string error;        ///< the first malformed or unsupported op; lowering stops there
  bool unsupported = false; ///< the error is a simulator limit, not a malformed input
  llvm::DenseMap<mlir::Value, int32_t> slots;
  llvm::DenseMap<Attribute, int32_t> locIndex;

  int32_t slot(mlir::Value value) {
    auto [it, inserted] = slots.try_emplace(value, p.numSlots);
    if (inserted)
      ++p.numSlots;
    return it->second;
  }

  int32_t loc(Location location) {
    auto [it, inserted] = locIndex.try_emplace(location, static_cast<int32_t>(p.locs.size()));
    if (inserted)
      p.locs.push_back(ir::pythonLocation(location));
    return it->second;
  }

  /// Binds kernel arguments by Python name; a host tensor descriptor is followed by its
  /// shape (i32) and stride (i64) arguments under the same name.
  llvm::Error lowerArgs(mlir::Block &entry) {
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
      if (isa<ir::PtrType>(arg.getType()))
        out.kind = KernelArg::Pointer;
      out.bits = scalarBits(arg.getType());
      p.args.push_back(out);
    }
    return llvm::Error::success();
  }

  /// Records that the simulator cannot execute `op` yet (the input is fine).
  void notSupported(Operation &op, const llvm::Twine &what) {
    if (error.empty()) {
      unsupported = true;
      malformed(op, what);
    }
  }

  /// Whether `value` is a shared-memory mbarrier (an i64 memdesc).
  static bool isBarrier(mlir::Value value) {
    auto type = dyn_cast<ir::MemDescType>(value.getType());
    return type && type.getElementType().isInteger(64);
  }

  /// Records that `op` is not what Triton emits (the reader's shim dialects do not verify
  /// Triton ops); the first such error is reported.
  void malformed(Operation &op, const llvm::Twine &what) {
    if (error.empty())
      error = (op.getName().getStringRef() + " at " + ir::pythonLocation(op.getLoc()).str() + ": " + what).str();
  }

  static std::string typeString(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    return text;
  }

  /// The type of `value` as T, or a malformed-op error naming `what` and the type found.
  template <typename T> T typed(Operation &op, mlir::Value value, StringRef what, StringRef expected) {
    auto type = dyn_cast<T>(value.getType());
    if (!type)
      malformed(op, what + " has type " + typeString(value.getType()) + ", expected " + expected);
    return type;
  }

  int32_t lowerBlock(mlir::Block &block) {
    int32_t index = static_cast<int32_t>(p.blocks.size());
    p.blocks.emplace_back();
    std::vector<int32_t> args;
    for (BlockArgument arg : block.getArguments())
      args.push_back(slot(arg));
    std::vector<Instr> instrs;
    for (Operation &op : block) {
      if (!error.empty())
        break;
      lowerOp(op, instrs);
    }
    p.blocks[index].args = std::move(args);
    p.blocks[index].instrs = std::move(instrs);
    return index;
  }

  int32_t lowerRegion(Region &region) {
    if (region.empty())
      return -1;
    if (!region.hasOneBlock()) {
      notSupported(*region.getParentOp(), "regions with several blocks (cf.br / cf.cond_br control flow) are not "
                                          "supported by the simulator yet");
      return -1;
    }
    return lowerBlock(region.front());
  }

  Instr make(Op kind, Operation &op) {
    Instr instr;
    instr.op = kind;
    instr.loc = loc(op.getLoc());
    if (op.getNumResults() > 0) {
      instr.result = slot(op.getResult(0));
      for (unsigned i = 1; i < op.getNumResults(); ++i)
        slot(op.getResult(i)); // consecutive: results are numbered in order on first sight
      instr.numResults = static_cast<int32_t>(op.getNumResults());
    }
    return instr;
  }

  std::vector<int32_t> slotsOf(ValueRange values) {
    std::vector<int32_t> out;
    for (mlir::Value value : values)
      out.push_back(slot(value));
    return out;
  }

  /// Slot of the first operand of group `group`, -1 if the optional group is empty.
  int32_t operand(Operation &op, StringRef group) {
    auto range = ir::getOperandGroup(&op, group);
    return range && !range->empty() ? slot(range->front()) : -1;
  }

  /// Slot of the required operand `group`; a malformed-op error if it is missing.
  int32_t required(Operation &op, StringRef group) {
    int32_t s = operand(op, group);
    if (s < 0)
      malformed(op, "lacks its '" + group + "' operand");
    return s;
  }

  /// The value of the required operand `group` (null, with an error, if missing).
  mlir::Value requiredValue(Operation &op, StringRef group) {
    auto range = ir::getOperandGroup(&op, group);
    if (!range || range->empty()) {
      malformed(op, "lacks its '" + group + "' operand");
      return {};
    }
    return range->front();
  }

  /// Whether an op without simulator semantics holds synchronization or memory ops in
  /// its regions: skipping it would silently drop them.
  static bool holdsSideEffects(Operation &op) {
    bool found = false;
    op.walk([&](Operation *inner) {
      StringRef name = inner->getName().getStringRef();
      if (inner != &op && !isRegisterTensorOp(name) && !name.ends_with(".return") && !name.ends_with("yield") &&
          !name.starts_with("arith.") && !name.starts_with("math."))
        found = true;
    });
    return found;
  }

  std::vector<int32_t> operands(Operation &op, StringRef group) {
    auto range = ir::getOperandGroup(&op, group);
    return range ? slotsOf(*range) : std::vector<int32_t>{};
  }

  int64_t intAttr(Operation &op, StringRef name, int64_t fallback = 0) {
    if (auto attr = op.getAttrOfType<IntegerAttr>(name))
      return attr.getInt();
    return fallback;
  }

  /// Global memory, async copies, register MMAs, reductions, layout conversions, execution
  /// barriers, AMD TLX barrier reads and scf.while; false if `op` is none of them.
  bool lowerMemoryOrCompute(Operation &op, StringRef name, std::vector<Instr> &out) {
    auto resultBytes = [&]() { return op.getNumResults() ? bytesOf(op.getResult(0).getType()) : 0; };
    auto operandBytes = [&](StringRef group) {
      mlir::Value v = requiredValue(op, group);
      return v ? bytesOf(v.getType()) : 0;
    };
    // Address operands first (they key the L2 model), then the rest (awaited if not ready).
    auto addressed = [&](Op kind, std::initializer_list<StringRef> addressGroups, int64_t bytes) {
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
    };
    if (name == "tt.load" || name == "amdg.masked_load")
      return addressed(Op::GlobalLoad, {"ptr"}, resultBytes());
    if (name == "amdg.buffer_load")
      return addressed(Op::GlobalLoad, {"ptr", "offsets"}, resultBytes());
    if (name == "tt.descriptor_load" || name == "tt.descriptor_gather")
      return addressed(Op::GlobalLoad, {"desc", "indices", "x_offsets", "y_offset"}, resultBytes());
    if (name == "tt.atomic_rmw" || name == "tt.atomic_cas" || name == "amdg.buffer_atomic_rmw" ||
        name == "amdg.buffer_atomic_cas") {
      addressed(Op::GlobalLoad, {"ptr", "offsets"}, resultBytes());
      out.back().sub = 1;
      return true;
    }
    if (name == "tt.store" || name == "amdg.masked_store")
      return addressed(Op::GlobalStore, {"ptr"}, operandBytes("value"));
    if (name == "amdg.buffer_store")
      return addressed(Op::GlobalStore, {"ptr", "offsets"}, operandBytes("value"));
    if (name == "tt.descriptor_store" || name == "tt.descriptor_reduce" || name == "tt.descriptor_scatter")
      return addressed(Op::GlobalStore, {"desc", "indices", "x_offsets", "y_offset"}, operandBytes("src"));
    if (name == "ttg.async_copy_global_to_local" || name == "amdg.buffer_load_to_local") {
      bool amd = name == "amdg.buffer_load_to_local";
      mlir::Value dst = requiredValue(op, amd ? "dest" : "result");
      auto type = dst ? typed<ir::MemDescType>(op, dst, "the destination", "!ttg.memdesc") : ir::MemDescType();
      if (!type)
        return true;
      Instr instr = make(Op::AsyncCopy, op);
      instr.args = {slot(dst)};
      for (StringRef group : {"src", "ptr", "offsets"})
        for (int32_t s : operands(op, group))
          instr.args.push_back(s);
      instr.imm = type.getSizeInBytes();
      instr.viewElems[0] = type.getNumElements();
      if (mlir::Value addresses = amd ? requiredValue(op, "offsets") : requiredValue(op, "src"))
        instr.imm2 = directToLdsInstructions(addresses.getType());
      out.push_back(instr);
      return true;
    }
    if (name == "ttng.async_copy_mbarrier_arrive" || name == "amdg.async_copy_mbarrier_arrive") {
      Instr instr = make(Op::ArriveBarrier, op);
      instr.args = {required(op, "barrier"), -1};
      instr.imm = 1;
      instr.sub = 1; // when the issuer's earlier cp.async complete
      out.push_back(instr);
      return true;
    }
    if (name == "ttg.async_commit_group") {
      out.push_back(make(Op::AsyncCommit, op));
      return true;
    }
    if (name == "ttg.async_wait" || name == "amdg.async_wait") {
      Instr instr = make(Op::AsyncWait, op);
      instr.imm = intAttr(op, "num", intAttr(op, "num_inst", 0));
      instr.sub = name == "amdg.async_wait" ? 1 : 0; // num_inst counts instructions (vmcnt), num commit groups
      out.push_back(instr);
      return true;
    }
    if (name == "tt.dot" || name == "tt.dot_scaled") {
      mlir::Value a = requiredValue(op, "a");
      if (!a || op.getNumResults() != 1)
        return malformed(op, "expected operands a, b, c and one result"), true;
      auto aType = typed<RankedTensorType>(op, a, "operand a", "a rank-2 tensor");
      auto dType = typed<RankedTensorType>(op, op.getResult(0), "the result", "a rank-2 tensor");
      if (!aType || !dType || aType.getRank() != 2 || dType.getRank() != 2)
        return malformed(op, "expected rank-2 tensors a (M x K) and d (M x N)"), true;
      Instr instr = make(Op::Dot, op);
      instr.args = slotsOf(op.getOperands());
      int64_t k = aType.getShape()[1];
      if (name == "tt.dot_scaled" && aType.getElementType().isInteger(8))
        k *= 2; // e2m1 packs two elements per byte along K
      instr.imm = 2 * dType.getShape()[0] * dType.getShape()[1] * k;
      instr.sub = p.target.rfind("hip:", 0) == 0 ? 1 : 0;
      out.push_back(instr);
      return true;
    }
    if (name == "tt.reduce" || name == "tt.scan" || name == "tt.map_elementwise") {
      // The combine region is applied across the operands' elements: ALU work over every
      // input element (its ops are arith on scalars); no memory or barrier ops may hide in it.
      Instr instr = make(Op::TensorOp, op);
      instr.args = slotsOf(op.getOperands());
      for (mlir::Value v : op.getOperands())
        instr.imm += numElements(v.getType());
      out.push_back(instr);
      return true;
    }
    if (name == "ttg.convert_layout" || name == "ttg.local_gather" || name == "ttg.local_scatter") {
      if (op.getNumOperands() < 1)
        return malformed(op, "lacks its operands"), true;
      if (name == "ttg.convert_layout") {
        Instr instr = make(Op::TensorOp, op);
        instr.args = {slot(op.getOperand(0))};
        if (op.getNumResults() == 1 && op.getResult(0).getType() != op.getOperand(0).getType()) {
          instr.sub = 2; // a layout change through shared memory: written, then read back
          instr.imm = bytesOf(op.getResult(0).getType());
        }
        out.push_back(instr);
        return true;
      }
      bool gather = name == "ttg.local_gather";
      Instr instr = make(gather ? Op::LocalLoad : Op::LocalStore, op);
      instr.args = gather ? std::vector<int32_t>{slot(op.getOperand(0))}
                          : std::vector<int32_t>{required(op, "values"), required(op, "dst")};
      instr.imm = gather ? resultBytes() : operandBytes("values");
      out.push_back(instr);
      return true;
    }
    if (name == "ttg.barrier" || name == "ttg.local_barrier" || name == "gpu.barrier" || name == "rocdl.s.barrier" ||
        name == "amdg.cond_barrier") {
      out.push_back(make(Op::CtaBarrier, op));
      return true;
    }
    if (name == "amdg.read_barrier_phase") {
      Instr instr = make(Op::ReadBarrierPhase, op);
      instr.args = {required(op, "alloc")};
      instr.bits = 32;
      out.push_back(instr);
      return true;
    }
    if (name == "rocdl.s.sleep" || name == "llvm.amdgcn.s.sleep") {
      Instr instr = make(Op::Sleep, op);
      for (NamedAttribute attr : op.getAttrs())
        if (auto integer = dyn_cast<IntegerAttr>(attr.getValue()))
          instr.imm = integer.getInt();
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
      out.push_back(instr);
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
      instr.imm = type.getSizeInBytes();
      instr.imm2 = 1;
      instr.viewElems[0] = type.getNumElements();
      out.push_back(instr);
      return true;
    }
    if (name == "scf.while") {
      if (op.getNumRegions() != 2 || op.getRegion(0).empty() || op.getRegion(1).empty())
        return malformed(op, "expected a before and an after region"), true;
      Instr instr = make(Op::While, op);
      instr.args = slotsOf(op.getOperands());
      instr.block = lowerRegion(op.getRegion(0));
      instr.block2 = lowerRegion(op.getRegion(1));
      out.push_back(instr);
      return true;
    }
    if (name == "scf.condition") {
      Instr instr = make(Op::Condition, op);
      instr.args = slotsOf(op.getOperands());
      out.push_back(instr);
      return true;
    }
    return false;
  }

  /// Cluster-scope ops (PTX ISA 9.1 5.1.1 distributed shared memory): the CTA's rank, DSMEM views (mapa) and
  /// stores into a peer CTA's shared memory. False if `op` is none of them.
  bool lowerClusterOp(Operation &op, StringRef name, std::vector<Instr> &out) {
    if (name == "nvgpu.cluster_id") {
      Instr instr = make(Op::ClusterCtaRank, op);
      instr.bits = 32;
      out.push_back(instr);
      return true;
    }
    if (name == "ttng.map_to_remote_buffer") {
      Instr instr = make(Op::MapRemote, op);
      instr.args = {required(op, "src"), required(op, "ctaRank")};
      out.push_back(instr);
      return true;
    }
    if (name == "ttg.remote_shmem_store" || name == "ttg.async_remote_shmem_store" ||
        name == "ttg.async_remote_shmem_copy") {
      mlir::Value dst = requiredValue(op, "dst");
      auto type = dst ? typed<ir::MemDescType>(op, dst, "the destination", "!ttg.memdesc") : ir::MemDescType();
      if (!type)
        return true;
      Instr instr = make(Op::RemoteStore, op);
      instr.sub = name == "ttg.remote_shmem_store" ? 0 : name == "ttg.async_remote_shmem_store" ? 1 : 2;
      instr.args = {required(op, "src"), slot(dst), required(op, "ctaRank"), operand(op, "barrier")};
      instr.imm = type.getSizeInBytes();
      instr.viewElems[0] = type.getNumElements();
      out.push_back(instr);
      return true;
    }
    return false;
  }

  /// The value of the scalar `v` in thread `tid` if it is computed from constants and the thread id
  /// (`rocdl.workitem.id.x`, `gpu.thread_id x`) by integer arith only; `usesTid` tells whether it reads the id.
  static std::optional<int64_t> threadValue(mlir::Value v, int64_t tid, bool &usesTid, int depth = 0) {
    Operation *def = v.getDefiningOp();
    if (!def || depth > 16)
      return std::nullopt;
    StringRef name = def->getName().getStringRef();
    if (name == "rocdl.workitem.id.x" || (name == "gpu.thread_id" && def->hasAttr("dimension"))) {
      if (name == "gpu.thread_id") { // only the x dimension: Triton's CTAs are 1-D in threads
        std::string dim;
        llvm::raw_string_ostream os(dim);
        def->getAttr("dimension").print(os);
        if (os.str().find('x') == std::string::npos)
          return std::nullopt;
      }
      usesTid = true;
      return tid;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(def))
      if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
        return integer.getValue().getSExtValue();
    if (name == "arith.extsi" || name == "arith.extui" || name == "arith.trunci" || name == "arith.index_cast")
      return threadValue(def->getOperand(0), tid, usesTid, depth + 1);
    if (def->getNumOperands() != 2)
      return std::nullopt;
    auto l = threadValue(def->getOperand(0), tid, usesTid, depth + 1);
    auto r = threadValue(def->getOperand(1), tid, usesTid, depth + 1);
    if (!l || !r)
      return std::nullopt;
    if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
      switch (cmp.getPredicate()) {
      case arith::CmpIPredicate::eq: return *l == *r;
      case arith::CmpIPredicate::ne: return *l != *r;
      case arith::CmpIPredicate::slt: case arith::CmpIPredicate::ult: return *l < *r;
      case arith::CmpIPredicate::sle: case arith::CmpIPredicate::ule: return *l <= *r;
      case arith::CmpIPredicate::sgt: case arith::CmpIPredicate::ugt: return *l > *r;
      case arith::CmpIPredicate::sge: case arith::CmpIPredicate::uge: return *l >= *r;
      }
    }
    if ((name == "arith.remsi" || name == "arith.remui" || name == "arith.divsi" || name == "arith.divui") && *r == 0)
      return std::nullopt;
    return llvm::StringSwitch<std::optional<int64_t>>(name)
        .Case("arith.addi", *l + *r).Case("arith.subi", *l - *r).Case("arith.muli", *l * *r)
        .Cases("arith.remsi", "arith.remui", *r ? *l % *r : 0).Cases("arith.divsi", "arith.divui", *r ? *l / *r : 0)
        .Case("arith.andi", *l & *r).Case("arith.ori", *l | *r).Case("arith.xori", *l ^ *r)
        .Case("arith.shli", *l << (*r & 63)).Cases("arith.shrsi", "arith.shrui", *l >> (*r & 63))
        .Default(std::nullopt);
  }

  /// The threads of the executing partition (its warps x `ttg.threads-per-warp`, thread ids from 0) for which
  /// the condition of the `scf.if` `op` holds, if it depends on the thread id only; none otherwise.
  std::optional<int64_t> threadsTaking(Operation &op) {
    int64_t warps = p.numWarps;
    for (Operation *child = &op, *parent = op.getParentOp(); parent; child = parent, parent = parent->getParentOp())
      if (parent->getName().getStringRef() == "ttg.warp_specialize.partitions") {
        Region *region = child->getParentRegion();
        auto ws = parent->getParentOp();
        auto numWarps = ws ? ws->getAttrOfType<DenseI32ArrayAttr>("partitionNumWarps") : DenseI32ArrayAttr();
        if (numWarps && region && region->getRegionNumber() < numWarps.size())
          warps = numWarps[region->getRegionNumber()];
        break;
      }
    int64_t threads = warps * p.threadsPerWarp, taking = 0;
    for (int64_t tid = 0; tid < threads; ++tid) {
      bool usesTid = false;
      std::optional<int64_t> cond = threadValue(op.getOperand(0), tid, usesTid);
      if (!cond || !usesTid)
        return std::nullopt;
      taking += *cond != 0;
    }
    return taking;
  }

  void lowerOp(Operation &op, std::vector<Instr> &out) {
    StringRef name = op.getName().getStringRef();
    bool scalar = op.getNumResults() == 1 && op.getResult(0).getType().isIntOrIndexOrFloat();
    auto tensorOp = [&](int16_t unit) {
      Instr instr = make(Op::TensorOp, op);
      instr.sub = unit;
      instr.imm = op.getNumResults() ? numElements(op.getResult(0).getType()) : 0;
      // Shape-only ops name registers the source already holds (a broadcast reuses them, a
      // make_range is a per-thread constant): no instruction per element.
      if (llvm::is_contained({"tt.splat", "tt.broadcast", "tt.expand_dims", "tt.make_range", "tt.reshape"}, name))
        instr.imm = 0;
      instr.args = slotsOf(op.getOperands());
      out.push_back(instr);
    };

    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      Instr instr = make(Op::Const, op);
      if (auto integer = dyn_cast<IntegerAttr>(constant.getValue())) {
        instr.imm = integer.getValue().getSExtValue();
        instr.bits = scalarBits(integer.getType());
      } else if (!scalar) {
        instr = make(Op::TensorOp, op); // a splat constant: materialized in registers, no cost
      }
      out.push_back(instr);
      return;
    }
    if (auto kind = binaryKind(name)) {
      if (!scalar)
        return tensorOp(0);
      Instr instr = make(Op::Binary, op);
      instr.sub = *kind;
      instr.bits = scalarBits(op.getResult(0).getType());
      instr.args = slotsOf(op.getOperands());
      out.push_back(instr);
      return;
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      if (!scalar)
        return tensorOp(0);
      Instr instr = make(Op::Cmp, op);
      instr.sub = static_cast<int16_t>(cmp.getPredicate());
      instr.bits = 1;
      instr.imm = scalarBits(op.getOperand(0).getType()); // operand width, for unsigned predicates
      instr.args = slotsOf(op.getOperands());
      out.push_back(instr);
      return;
    }
    if (name == "arith.select" && scalar) {
      Instr instr = make(Op::Select, op);
      instr.bits = scalarBits(op.getResult(0).getType());
      instr.args = slotsOf(op.getOperands());
      out.push_back(instr);
      return;
    }
    if ((name == "arith.extsi" || name == "arith.extui" || name == "arith.trunci" || name == "arith.index_cast" ||
         name == "arith.index_castui") &&
        scalar) {
      Instr instr = make(Op::Cast, op);
      instr.sub = name == "arith.extui" || name == "arith.index_castui" ? 1 : name == "arith.trunci" ? 2 : 0;
      instr.bits = scalarBits(op.getResult(0).getType());
      instr.imm = scalarBits(op.getOperand(0).getType());
      instr.args = slotsOf(op.getOperands());
      out.push_back(instr);
      return;
    }
    if (name == "tt.get_program_id" || name == "tt.get_num_programs") {
      Instr instr = make(name == "tt.get_program_id" ? Op::ProgramId : Op::NumPrograms, op);
      instr.sub = static_cast<int16_t>(intAttr(op, "axis"));
      instr.bits = 32;
      out.push_back(instr);
      return;
    }
    if (name == "scf.for") {
      if (op.getNumOperands() < 3 || op.getNumRegions() != 1 || op.getRegion(0).empty() ||
          op.getRegion(0).front().getNumArguments() != op.getNumOperands() - 2)
        return malformed(op, "expected lower bound, upper bound, step and a body taking the induction variable and "
                             "the iteration arguments");
      Instr instr = make(Op::For, op);
      instr.args = slotsOf(op.getOperands());
      instr.block = lowerRegion(op.getRegion(0));
      instr.sub = op.hasAttr("unsignedCmp") ? 1 : 0;
      instr.bits = scalarBits(op.getOperand(0).getType());
      out.push_back(instr);
      return;
    }
    if (name == "rocdl.workitem.id.x" || name == "gpu.thread_id") {
      // The partition runs thread 0's path (its thread-id conditions are counted at the scf.if instead).
      Instr instr = make(Op::Const, op);
      instr.imm = 0;
      instr.bits = op.getNumResults() ? scalarBits(op.getResult(0).getType()) : 32;
      out.push_back(instr);
      return;
    }
    if (name == "scf.if") {
      if (op.getNumOperands() != 1 || op.getNumRegions() != 2)
        return malformed(op, "expected a condition, a then region and an else region");
      Instr instr = make(Op::If, op);
      instr.args = slotsOf(op.getOperands());
      if (std::optional<int64_t> threads = threadsTaking(op)) { // `tid % 64 == 0`: per thread, not per partition
        instr.sub = 1;
        instr.imm2 = *threads;
      }
      instr.block = lowerRegion(op.getRegion(0));
      instr.block2 = lowerRegion(op.getRegion(1));
      out.push_back(instr);
      return;
    }
    if (name == "scf.yield" || name == "ttg.warp_yield") {
      Instr instr = make(Op::Yield, op);
      instr.args = slotsOf(op.getOperands());
      out.push_back(instr);
      return;
    }
    if (name == "tt.return" || name == "ttg.warp_return") {
      out.push_back(make(Op::Return, op));
      return;
    }
    if (name == "ttg.warp_specialize") {
      Instr instr = make(Op::WarpSpecialize, op);
      instr.args = slotsOf(op.getOperands());
      WarpSpecialize ws;
      auto numWarps = op.getAttrOfType<DenseI32ArrayAttr>("partitionNumWarps");
      if (op.getNumRegions() != 2 || op.getRegion(0).empty() || op.getRegion(1).empty() ||
          op.getRegion(1).front().empty())
        return malformed(op, "expected a default region and a region holding ttg.warp_specialize.partitions");
      Operation *partitions = &op.getRegion(1).front().front();
      if (!numWarps || numWarps.size() != static_cast<int64_t>(partitions->getNumRegions()))
        return malformed(op, "partitionNumWarps must give one warp count per partition (" +
                                 llvm::Twine(partitions->getNumRegions()) + ")");
      ws.defaultBlock = lowerRegion(op.getRegion(0));
      for (unsigned i = 0; i < partitions->getNumRegions(); ++i) {
        if (numWarps[i] <= 0)
          return malformed(op, "partition" + llvm::Twine(i) + " has num_warps " + llvm::Twine(numWarps[i]));
        Region &region = partitions->getRegion(i);
        if (region.empty() || region.front().getNumArguments() != op.getNumOperands())
          return malformed(op, "partition" + llvm::Twine(i) + " must take one argument per capture (" +
                                   llvm::Twine(op.getNumOperands()) + ")");
        ws.workers.push_back({lowerRegion(region), numWarps[i], "partition" + std::to_string(i)});
      }
      // First warp ids: `warpGroupStartIds` when make_llir's allocate-warp-groups already ran, else its rule:
      // workers ordered by num_warps (largest first, stable) after the default partition's warps.
      auto startIds = op.getAttrOfType<DenseI32ArrayAttr>("warpGroupStartIds");
      if (startIds && startIds.size() == static_cast<int64_t>(ws.workers.size())) {
        for (size_t i = 0; i < ws.workers.size(); ++i)
          ws.workers[i].firstWarp = startIds[i];
      } else {
        std::vector<size_t> byWarps(ws.workers.size());
        std::iota(byWarps.begin(), byWarps.end(), 0);
        std::stable_sort(byWarps.begin(), byWarps.end(),
                         [&](size_t x, size_t y) { return ws.workers[x].numWarps > ws.workers[y].numWarps; });
        int32_t next = p.numWarps;
        for (size_t i : byWarps) {
          ws.workers[i].firstWarp = next;
          next += ws.workers[i].numWarps;
        }
      }
      instr.imm = static_cast<int64_t>(p.warpSpecializes.size());
      p.warpSpecializes.push_back(std::move(ws));
      out.push_back(instr);
      return;
    }
    if (name == "ttng.tc_gen5_mma" || name == "ttng.tc_gen5_mma_scaled") {
      mlir::Value a = requiredValue(op, "a"), b = requiredValue(op, "b");
      auto aType = a ? typed<ir::MemDescType>(op, a, "operand a", "!ttg.memdesc") : ir::MemDescType();
      auto bType = b ? typed<ir::MemDescType>(op, b, "operand b", "!ttg.memdesc") : ir::MemDescType();
      if (!aType || !bType || aType.getShape().size() != 2 || bType.getShape().size() != 2)
        return malformed(op, "expected rank-2 memdesc operands a (M x K) and b (K x N)");
      Instr instr = make(Op::Tc05Mma, op);
      std::vector<int32_t> barriers = operands(op, "barriers"), preds = operands(op, "barrier_preds");
      instr.args = {slot(a), slot(b), required(op, "d"), required(op, "useD"), required(op, "pred")};
      instr.args.insert(instr.args.end(), barriers.begin(), barriers.end());
      for (size_t i = 0; i < barriers.size(); ++i) // a barrier without a predicate always arrives
        instr.args.push_back(i < preds.size() ? preds[i] : -1);
      instr.imm = 2 * aType.getShape()[0] * bType.getShape()[1] * aType.getShape()[1];
      instr.imm2 = static_cast<int64_t>(barriers.size());
      instr.sub = (barriers.empty() && !op.hasAttr("is_async") ? 1 : 0) | (op.hasAttr("two_ctas") ? 2 : 0);
      instr.viewElems[0] = aType.getNumElements();
      instr.viewElems[1] = bType.getNumElements();
      if (mlir::Value d = requiredValue(op, "d"))
        instr.viewElems[2] = numElements(d.getType()); // the accumulator in tensor memory, written
      out.push_back(instr);
      return;
    }
    if (name == "ttng.tc_gen5_commit") {
      Instr instr = make(Op::Tc05Commit, op);
      instr.args = {required(op, "barrier"), operand(op, "pred")};
      instr.sub = op.hasAttr("two_ctas") ? 1 : 0;
      out.push_back(instr);
      return;
    }
    if (name == "ttng.tmem_load" || name == "ttng.tmem_store") {
      // Register <-> tensor-memory traffic (tcgen05.ld / tcgen05.st) over the bytes moved; the view is an
      // access to the tensor-memory region for the race checks.
      bool store = name == "ttng.tmem_store";
      mlir::Value view = requiredValue(op, store ? "dst" : "src");
      if (!view)
        return;
      Instr instr = make(Op::TensorOp, op);
      instr.sub = 3;
      instr.imm = bytesOf(view.getType());
      instr.imm2 = store ? 1 : 0;
      instr.viewElems[0] = numElements(view.getType());
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
      return;
    }
    if (name == "ttg.local_alloc" || name == "ttng.tmem_alloc") {
      if (op.getNumResults() < 1)
        return malformed(op, "expected a result");
      auto type = typed<ir::MemDescType>(op, op.getResult(0), "the result", "!ttg.memdesc");
      if (!type)
        return;
      Instr instr = make(Op::LocalAlloc, op);
      Alloc alloc;
      alloc.name = ir::variableName(op.getLoc()).value_or("alloc" + std::to_string(p.allocs.size()));
      alloc.loc = ir::pythonLocation(op.getLoc());
      alloc.shape.assign(type.getAllocShape().begin(), type.getAllocShape().end());
      alloc.bytes = type.getSizeInBytes();
      alloc.elementBytes = alloc.bytes / std::max<int64_t>(1, type.getNumElements());
      alloc.isBarrier = type.getElementType().isInteger(64);
      alloc.inTensorMemory = type.isTensorMemory();
      instr.imm = static_cast<int64_t>(p.allocs.size());
      p.allocs.push_back(alloc);
      out.push_back(instr);
      if (op.getNumOperands() > 0) { // allocation initialized from registers
        Instr store = make(Op::LocalStore, op);
        store.result = -1;
        store.numResults = 0;
        store.args = {slot(op.getOperand(0)), instr.result};
        store.imm = alloc.bytes;
        store.viewElems[0] = type.getNumElements();
        out.push_back(store);
      }
      return;
    }
    if (name == "ttg.memdesc_index" || name == "ttg.memdesc_subview") {
      if (op.getNumOperands() < 2 || op.getNumResults() != 1 ||
          !typed<ir::MemDescType>(op, op.getOperand(0), "the source", "!ttg.memdesc") ||
          !typed<ir::MemDescType>(op, op.getResult(0), "the result", "!ttg.memdesc"))
        return malformed(op, "expected a memdesc source, an index and a memdesc result");
      Instr instr = make(Op::MemDescIndex, op);
      instr.imm2 = cast<ir::MemDescType>(op.getOperand(0).getType()).getShape().front(); // bound of the index
      instr.args = {slot(op.getOperand(0)), slot(op.getOperand(1))};
      instr.imm = numElements(op.getResult(0).getType());
      out.push_back(instr);
      return;
    }
    if (name == "ttg.memdesc_trans" || name == "ttg.memdesc_reshape" || name == "ttg.memdesc_reinterpret" ||
        name == "ttg.memdesc_subslice" || name == "ttng.tmem_subslice") {
      if (op.getNumOperands() < 1 || op.getNumResults() != 1)
        return malformed(op, "expected a source and one result");
      Instr instr = make(Op::MemDescView, op);
      instr.args = {slot(op.getOperand(0))};
      if (name == "ttng.tmem_subslice") // columns N.. of the source: the TMEM view starts N columns further
        instr.imm = intAttr(op, "N");
      out.push_back(instr);
      return;
    }
    if (name == "ttng.init_barrier" || name == "ttng.inval_barrier" || name == "amdg.init_barrier") {
      Instr instr = make(name == "ttng.inval_barrier" ? Op::InvalBarrier : Op::InitBarrier, op);
      instr.args = {required(op, "alloc")};
      instr.imm = intAttr(op, "count");
      out.push_back(instr);
      return;
    }
    if (name == "ttng.barrier_expect") {
      Instr instr = make(Op::BarrierExpect, op);
      instr.args = {required(op, "alloc"), required(op, "pred")};
      instr.imm = intAttr(op, "size");
      out.push_back(instr);
      return;
    }
    if (name == "ttng.wait_barrier" || name == "amdg.wait_barrier") {
      Instr instr = make(Op::WaitBarrier, op);
      instr.args = {required(op, "alloc"), required(op, "phase"), operand(op, "pred")};
      out.push_back(instr);
      return;
    }
    if (name == "ttng.arrive_barrier" || name == "amdg.arrive_barrier") {
      Instr instr = make(Op::ArriveBarrier, op); // amdg: the result (the barrier's old state) stays unknown
      instr.args = {required(op, "alloc"), operand(op, "pred")};
      instr.imm = intAttr(op, "count", 1);
      instr.imm2 = intAttr(op, "ctaMask", 0); // Triton main: arrive on the barrier of every CTA of the mask
      out.push_back(instr);
      return;
    }
    if (name == "ttng.async_tma_copy_global_to_local" || name == "ttng.async_tma_copy_local_to_global" ||
        name == "ttng.async_tma_reduce") {
      bool load = name == "ttng.async_tma_copy_global_to_local";
      mlir::Value descValue = requiredValue(op, "desc");
      auto desc = descValue ? typed<ir::TensorDescType>(op, descValue, "the descriptor", "!tt.tensordesc")
                            : ir::TensorDescType();
      if (!desc)
        return;
      Instr instr = make(load ? Op::TmaLoad : Op::TmaStore, op);
      std::vector<int32_t> coords = operands(op, "coord");
      if (coords.size() != static_cast<size_t>(desc.getBlockType().getRank()))
        return malformed(op, "has " + llvm::Twine(coords.size()) + " coordinates for a rank-" +
                                 llvm::Twine(desc.getBlockType().getRank()) + " descriptor");
      instr.args = {slot(descValue)};
      instr.args.insert(instr.args.end(), coords.begin(), coords.end());
      if (load) {
        if (op.hasAttr("multicast"))
          return notSupported(op, "multicasts through the CTA layout of its destination (Triton main's `multicast`), "
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
      instr.imm = desc.getBlockBytes();
      instr.imm2 = static_cast<int64_t>(coords.size());
      instr.viewElems[0] = desc.getBlockType().getNumElements();
      out.push_back(instr);
      return;
    }
    if (name == "ttng.async_tma_store_wait") {
      Instr instr = make(Op::TmaStoreWait, op);
      instr.imm = intAttr(op, "pendings");
      out.push_back(instr);
      return;
    }
    if (name == "ttng.fence_async_shared") {
      out.push_back(make(Op::FenceAsync, op));
      return;
    }
    if (name == "ttng.warp_group_dot") {
      if (op.getNumOperands() < 3 || op.getNumResults() != 1)
        return malformed(op, "expected operands a, b, c and one result");
      Type aType = op.getOperand(0).getType(), bType = op.getOperand(1).getType();
      auto dType = typed<RankedTensorType>(op, op.getResult(0), "the result", "a rank-2 tensor");
      bool aOk = isa<ir::MemDescType, RankedTensorType>(aType);
      if (!dType || dType.getRank() != 2 || !aOk || !isa<ir::MemDescType>(bType))
        return malformed(op, "expected a (memdesc or tensor) x b (memdesc) -> rank-2 tensor");
      Instr instr = make(Op::WgmmaIssue, op);
      instr.args = {required(op, "a"), required(op, "b"), required(op, "c"), operand(op, "useC")};
      int64_t k = isa<ir::MemDescType>(aType) ? cast<ir::MemDescType>(aType).getShape().back()
                                               : cast<RankedTensorType>(aType).getShape().back();
      instr.imm = 2 * dType.getShape()[0] * dType.getShape()[1] * k;
      if (auto a = dyn_cast<ir::MemDescType>(aType)) {
        instr.imm2 += a.getSizeInBytes();
        instr.viewElems[0] = a.getNumElements();
      }
      if (auto b = dyn_cast<ir::MemDescType>(bType)) {
        instr.imm2 += b.getSizeInBytes();
        instr.viewElems[1] = b.getNumElements();
      }
      out.push_back(instr);
      if (!op.hasAttr("isAsync")) { // a synchronous wgmma waits for itself
        Instr wait;
        wait.op = Op::WgmmaWait;
        wait.loc = instr.loc;
        out.push_back(wait);
      }
      return;
    }
    if (name == "ttng.warp_group_dot_wait") {
      Instr instr = make(Op::WgmmaWait, op);
      instr.args = slotsOf(op.getOperands());
      instr.imm = intAttr(op, "pendings");
      out.push_back(instr);
      return;
    }
    if (name == "ttg.local_store" || name == "ttg.local_load" || name == "amdg.local_load_packed_tranposed") {
      bool store = name == "ttg.local_store";
      if (op.getNumOperands() < (store ? 2u : 1u))
        return malformed(op, "lacks its operands");
      auto memdesc = typed<ir::MemDescType>(op, op.getOperand(store ? 1 : 0), store ? "the destination" : "the source",
                                            "!ttg.memdesc");
      if (!memdesc)
        return;
      Instr instr = make(store ? Op::LocalStore : Op::LocalLoad, op);
      instr.args = slotsOf(op.getOperands());
      instr.viewElems[0] = memdesc.getNumElements();
      instr.imm = memdesc.getSizeInBytes();
      out.push_back(instr);
      return;
    }
    if (name == "ttng.arrive_barrier_named" || name == "ttng.wait_barrier_named") {
      if (op.getNumOperands() != 2)
        return malformed(op, "expected a barrier id and a thread count");
      Instr instr = make(Op::NamedBarrier, op);
      instr.args = slotsOf(op.getOperands());
      instr.sub = name == "ttng.wait_barrier_named" ? 1 : 0;
      out.push_back(instr);
      return;
    }
    if (name == "ttng.cluster_arrive" || name == "ttng.cluster_wait") {
      out.push_back(make(name == "ttng.cluster_arrive" ? Op::ClusterArrive : Op::ClusterWait, op));
      return;
    }
    if (lowerClusterOp(op, name, out))
      return;
    if (lowerMemoryOrCompute(op, name, out))
      return;
    if (isRegisterTensorOp(name))
      return tensorOp(isSfuOp(name) ? 1 : 0);
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
    out.push_back(instr);
  }
};

} // namespace

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
  Lowerer lowerer(program);
  if (auto err = lowerer.lowerKernel(kernel))
    return err;
  return program;
}

} // namespace tlxsim::sim
