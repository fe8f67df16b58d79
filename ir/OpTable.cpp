// The Triton 3.6 op syntax table (see OpSyntax.h for the notation).
//
// Formats follow the `assemblyFormat` of each op in Triton 3.6's TableGen files
// (include/triton/Dialect/Triton/IR/TritonOps.td, TritonGPU/IR/TritonGPUOps.td,
// TritonNvidiaGPU/IR/TritonNvidiaGPUOps.td) and were checked against what
// `triton.compile(...).asm["ttgir"]` prints for the project's kernels (tests/inputs).
// Entries with a null format have a hand-written parser (CustomOps.cpp).
#include "ir/CustomOps.h"
#include "ir/OpSyntax.h"

#include "llvm/ADT/StringMap.h"

namespace tlxsim::ir {
namespace {

const OpSpec kOpSpecs[] = {
    // ---- tt -------------------------------------------------------------------------
    {"tt.func", "", "", "", nullptr, parseFuncOp},
    {"tt.return", "srcs*", "", "", "attr-dict ($srcs^ `:` type($srcs))?"},
    {"tt.get_program_id", "", "axis:enum(x|y|z)", "result", "$axis attr-dict `:` type($result)"},
    {"tt.get_num_programs", "", "axis:enum(x|y|z)", "result", "$axis attr-dict `:` type($result)"},
    {"tt.make_range", "", "", "result", "attr-dict `:` type($result)"},
    {"tt.splat", "src", "", "result", "$src attr-dict `:` type($src) `->` type($result)"},
    {"tt.broadcast", "src", "", "result", "$src attr-dict `:` type($src) `->` type($result)"},
    {"tt.expand_dims", "src", "", "result", "$src attr-dict `:` type($src) `->` type($result)"},
    {"tt.addptr", "ptr=result offset", "", "result", "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)"},
    {"tt.bitcast", "src", "", "result", "$src attr-dict `:` type($src) `->` type($result)"},
    {"tt.fp_to_fp", "src", "", "result", "$src attr-dict `:` type($src) `->` type($result)"},
    // ---- ttg ------------------------------------------------------------------------
    {"ttg.warp_specialize", "", "", "", nullptr, parseWarpSpecializeOp},
    {"ttg.warp_yield", "values*", "", "", "($values^ `:` type($values))? attr-dict"},
    {"ttg.warp_return", "", "", "", "attr-dict"},
    {"ttg.local_alloc", "src?", "", "result", "($src^)? attr-dict `:` functional-type(operands, results)"},
    {"ttg.local_dealloc", "src", "", "", "$src attr-dict `:` type($src)"},
    {"ttg.local_load", "src token?", "", "result", "$src (`token` $token^)? attr-dict `:` type($src) `->` type($result)"},
    {"ttg.local_store", "src dst", "", "", "$src `,` $dst attr-dict `:` type($src) `->` type($dst)"},
    {"ttg.memdesc_index", "src index:i32", "", "result",
     "$src `[` $index `]` attr-dict `:` type($src) `->` type($result)"},
    {"ttg.memdesc_subview", "src offsets*:i32", "", "result",
     "$src `[` $offsets `]` attr-dict `:` type($src) `->` type($result)"},
    {"ttg.memdesc_trans", "src", "", "result", "$src attr-dict `:` type($src) `->` type($result)"},
    {"ttg.memdesc_reshape", "src", "", "result", "$src attr-dict `:` type($src) `->` type($result)"},
    {"ttg.memdesc_reinterpret", "src", "", "result", "$src attr-dict `:` type($src) `->` type($result)"},
    {"ttg.convert_layout", "src", "", "result", "$src attr-dict `:` type($src) `->` type($result)"},
    // ---- ttng -----------------------------------------------------------------------
    {"ttng.init_barrier", "alloc", "count:i32", "", "$alloc `,` $count attr-dict `:` type($alloc)"},
    {"ttng.inval_barrier", "alloc", "", "", "$alloc attr-dict `:` type($alloc)"},
    {"ttng.barrier_expect", "alloc pred:i1", "size:i32", "",
     "$alloc `,` $size attr-dict `,` $pred `:` type($alloc)"},
    {"ttng.wait_barrier", "alloc phase:i32 pred?:i1 deps*", "", "",
     "$alloc `,` $phase (`,` $pred^)? (`deps` $deps^)? attr-dict `:` type($alloc) (`,` type($deps)^)?"},
    {"ttng.arrive_barrier", "alloc pred?:i1", "count:i32", "",
     "$alloc `,` $count (`,` $pred^)? attr-dict `:` type($alloc)"},
    {"ttng.async_tma_copy_global_to_local", "desc coord*:i32 result barrier pred:i1", "", "",
     "$desc `[` $coord `]` $result `,` $barrier `,` $pred attr-dict `:` type($desc) `,` type($barrier) `->` "
     "type($result)"},
    {"ttng.async_tma_copy_local_to_global", "desc coord*:i32 src", "", "",
     "$desc `[` $coord `]` $src attr-dict `:` type($desc) `,` type($src)"},
    {"ttng.async_tma_store_wait", "", "", "", "attr-dict"},
    {"ttng.fence_async_shared", "", "", "", "attr-dict"},
    {"ttng.warp_group_dot", "a b c=d useC?:i1", "", "d",
     "$a `,` $b `,` $c (`,` $useC^)? attr-dict `:` type($a) `*` type($b) `->` type($d)"},
    {"ttng.warp_group_dot_wait", "inputs*", "", "outputs*=inputs", "$inputs attr-dict `:` type($inputs)"},
};

} // namespace

llvm::ArrayRef<OpSpec> allOpSpecs() { return kOpSpecs; }

const OpSpec *lookupOpSpec(llvm::StringRef opName) {
  static const llvm::StringMap<const OpSpec *> index = [] {
    llvm::StringMap<const OpSpec *> map;
    for (const OpSpec &spec : kOpSpecs)
      map[spec.name] = &spec;
    return map;
  }();
  return index.lookup(opName);
}

} // namespace tlxsim::ir
