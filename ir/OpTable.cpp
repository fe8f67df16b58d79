// The Triton 3.6 op syntax table (see OpSyntax.h for the notation).
//
// Every op that Triton 3.6 registers in the tt, ttg, ttng, amdg, nvws and proton dialects
// (the op set was read off a Triton 3.6.0 build; the generic-form lit test checks each
// entry against it), plus the ops TLX adds in facebookexperimental/triton. Each entry
// mirrors the op's ODS definition: operand groups in ODS order with Triton's names,
// attributes written positionally, results, and the `assemblyFormat`.
//
// Sources: include/triton/Dialect/Triton/IR/TritonOps.td, TritonGPU/IR/TritonGPUOps.td,
// TritonNvidiaGPU/IR/TritonNvidiaGPUOps.td, third_party/amd/include/Dialect/TritonAMDGPU/IR/
// TritonAMDGPUOps.td, third_party/nvidia/include/Dialect/NVWS/IR/NVWSOps.td,
// third_party/proton/Dialect/include/Dialect/Proton/IR/ProtonOps.td. Formats were
// checked against what Triton 3.6.0 parses and prints (tests/lit/ir/). Entries marked
// "(main)" exist only in Triton main / facebookexperimental/triton (TLX) and follow that
// source; they are not in Triton 3.6.0.
//
// A null format without a custom parser marks an op that Triton always prints in generic
// form (no assemblyFormat and no custom printer, e.g. tt.reduce); a custom parser
// (CustomOps.h) handles `hasCustomAssemblyFormat` ops the format language cannot express.
#include "ir/CustomOps.h"
#include "ir/OpSyntax.h"

#include "llvm/ADT/StringMap.h"

namespace tlxsim::ir {
namespace {

// I32EnumAttr cases of TritonAttrDefs.td (keyword = value), shared by many ops.
#define CACHE "enum(none=1|ca=2|cg=3|wb=4|cs=5|wt=6|cv=7)"
#define EVICT "enum(evict_normal=1|evict_first=2|evict_last=3)"
#define SEM "enum(relaxed=1|acquire=2|release=3|acq_rel=4)"
#define SCOPE "enum(gpu=1|cta=2|sys=3)"
#define RMW "enum(and=1|or=2|xor=3|add=4|fadd=5|max=6|min=7|umax=8|umin=9|exch=10)"
#define REDUCE_CASES "add=1|min=2|max=3|inc=4|dec=5|and=6|or=7|xor=8"
#define REDUCE "enum(" REDUCE_CASES ")"
#define SCALE_ELEM "enum(e4m3=0|e5m2=1|e2m3=2|e3m2=3|e2m1=4|bf16=5|fp16=6)"
#define PRECISION "enum(tf32=0|tf32x3=1|ieee=2|bf16x3=3|bf16x6=4)"

// Common formats.
#define UNARY "$src attr-dict `:` type($src) `->` type($result)"
#define MD_VIEW "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))"
#define OILIST_CE "oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)"

const OpSpec kOpSpecs[] = {
    // ==== tt (TritonOps.td) ==============================================================
    {"tt.int_to_ptr", "src", "", "result", UNARY},
    {"tt.ptr_to_int", "src", "", "result", UNARY},
    {"tt.bitcast", "src", "", "result", UNARY},
    {"tt.fp_to_fp", "src", "rounding:enum(rtz=0|rtne=1)", "result",
     "$src attr-dict (`,` `rounding` `=` $rounding^)? `:` type($src) `->` type($result)"},
    {"tt.clampf", "x=result min=result max=result", "propagateNan:enum(none=0|all=65535)", "result",
     "$x `,` $min `,` $max `,` `propagateNan` `=` $propagateNan attr-dict `:` type($result)"},
    {"tt.precise_sqrt", "x", "", "result=x", "$x attr-dict `:` type($x)"},
    {"tt.precise_divf", "x y=x", "", "result=x", "$x `,` $y attr-dict `:` type($x)"},
    {"tt.mulhiui", "x y=x", "", "result=x", "$x `,` $y attr-dict `:` type($x)"},
    {"tt.addptr", "ptr=result offset", "", "result", "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)"},
    {"tt.advance", "ptr=result offsets*:i32", "", "result!ptr",
     "$ptr `,` `[` $offsets `]` attr-dict `:` type($result)"},
    {"tt.load", "ptr mask?=ptr~i1 other?=ptr~pointee", "cache:" CACHE " evict:" EVICT, "result=ptr~pointee",
     "$ptr (`,` $mask^)? (`,` $other^)? " OILIST_CE " attr-dict `:` type($ptr)"},
    {"tt.store", "ptr value=ptr~pointee mask?=ptr~i1", "cache:" CACHE " evict:" EVICT, "",
     "$ptr `,` $value (`,` $mask^)? " OILIST_CE " attr-dict `:` type($ptr)"},
    {"tt.atomic_rmw", "ptr val mask?", "atomic_rmw_op:" RMW " sem:" SEM " scope:" SCOPE, "result",
     "$atomic_rmw_op `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:` "
     "functional-type(operands, $result)"},
    {"tt.atomic_cas", "ptr cmp val", "sem:" SEM " scope:" SCOPE, "result",
     "$sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` functional-type(operands, $result)"},
    {"tt.splat", "src", "", "result", UNARY},
    {"tt.unsplat", "src", "", "result=src~elem", "$src attr-dict `:` type($src)"},
    {"tt.expand_dims", "src", "", "result", UNARY},
    {"tt.reshape", "src", "allow_reorder:unit efficient_layout:unit", "result",
     "$src (`allow_reorder` $allow_reorder^)? (`efficient_layout` $efficient_layout^)? attr-dict `:` type($src) `->` "
     "type($result)"},
    {"tt.broadcast", "src", "", "result", UNARY},
    {"tt.cat", "lhs rhs=lhs", "", "result", "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"},
    {"tt.join", "lhs rhs=lhs", "", "result", "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"},
    {"tt.split", "src", "", "outLHS outRHS=outLHS", "$src attr-dict `:` type($src) `->` type($outLHS)"},
    {"tt.trans", "src", "", "result", UNARY},
    {"tt.get_program_id", "", "axis:enum(x=0|y=1|z=2)", "result", "$axis attr-dict `:` type($result)"},
    {"tt.get_num_programs", "", "axis:enum(x=0|y=1|z=2)", "result", "$axis attr-dict `:` type($result)"},
    {"tt.dot", "a b c=d", "inputPrecision:" PRECISION, "d",
     "$a `,` $b `,` $c (`,` `inputPrecision` `=` $inputPrecision^)? attr-dict `:` type($a) `*` type($b) `->` "
     "type($d)"},
    {"tt.dot_scaled", "a b c=d a_scale? b_scale?", "a_elem_type:" SCALE_ELEM " b_elem_type:" SCALE_ELEM, "d",
     "$a (`scale` $a_scale^)? `,` $b (`scale` $b_scale^)? `,` $c `lhs` `=` $a_elem_type `rhs` `=` $b_elem_type "
     "attr-dict `:` type($a) (`,` type($a_scale)^)? `*` type($b) (`,` type($b_scale)^)? `->` type($d)"},
    // tt.reduce / tt.scan / tt.map_elementwise have no assemblyFormat: Triton prints them generic.
    {"tt.reduce", "srcs*", "", "result*", nullptr, nullptr, "combineOp"},
    {"tt.reduce.return", "result*", "", "", "$result attr-dict `:` type($result)"},
    {"tt.scan", "srcs*", "", "result*", nullptr, nullptr, "combineOp"},
    {"tt.scan.return", "result*", "", "", "$result attr-dict `:` type($result)"},
    {"tt.map_elementwise", "srcs*", "", "result*", nullptr, nullptr, "scalarOp"},
    {"tt.map_elementwise.return", "result*", "", "", "attr-dict ($result^ `:` type($result))?"},
    {"tt.extern_elementwise", "srcs*", "", "result", "operands attr-dict `:` functional-type(operands, $result)"},
    {"tt.make_range", "", "", "result", "attr-dict `:` type($result)"},
    {"tt.elementwise_inline_asm", "args*", "asm_string:any", "result*",
     "$asm_string attr-dict ($args^ `:` type($args))? `->` type($result)"},
    {"tt.histogram", "src mask?=src~i1", "", "result", "$src (`,` $mask^)? attr-dict `:` type($src) `->` type($result)"},
    {"tt.gather", "src indices", "", "result", "$src `[` $indices `]` attr-dict `:` functional-type(operands, results)"},
    {"tt.print", "args*", "prefix:any", "", "$prefix attr-dict (`:` $args^ `:` type($args))?"},
    {"tt.assert", "condition", "message:any", "", "$condition `,` $message attr-dict `:` type($condition)"},
    {"tt.make_tensor_ptr", "~base=result~baseptr shape*:i64 strides*:i64 offsets*:i32", "", "result!ptr",
     "$base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict `:` type($result)"},
    {"tt.make_tensor_descriptor", "~base!ptr shape*:i32 strides*:i64", "", "result!tensordesc",
     "$base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:` type($base) `,` type($result)"},
    {"tt.call", "operands*", "callee:any", "result*",
     "$callee `(` $operands `)` attr-dict `:` functional-type($operands, results)"},
    {"tt.func", "", "", "", nullptr, parseFuncOp, "body"},
    {"tt.return", "srcs*", "", "", "attr-dict ($srcs^ `:` type($srcs))?"},
    {"tt.descriptor_load", "desc!tensordesc indices*:i32", "cache:" CACHE " evict:" EVICT, "result",
     "$desc `[` $indices `]` " OILIST_CE " attr-dict `:` qualified(type($desc)) `->` type($result)"},
    // (main) adds `oilist(reduce_kind = ...)`; accepted here since the clause is optional.
    {"tt.descriptor_store", "desc!tensordesc src indices*:i32", "reduce_kind:enum(none=0|" REDUCE_CASES ")", "",
     "$desc `[` $indices `]` `,` $src oilist(`reduce_kind` `=` $reduce_kind) attr-dict `:` qualified(type($desc)) "
     "`,` type($src)"},
    {"tt.descriptor_reduce", "desc!tensordesc src indices*:i32", "kind:" REDUCE, "",
     "$kind `,` $desc `[` $indices `]` `,` $src attr-dict `:` qualified(type($desc)) `,` type($src)"},
    {"tt.descriptor_gather", "desc x_offsets y_offset", "", "result",
     "$desc `[` $x_offsets `,` $y_offset `]` attr-dict `:` functional-type(operands, results)"},
    {"tt.descriptor_scatter", "desc x_offsets y_offset src", "", "",
     "$desc `[` $x_offsets `,` $y_offset `]` `,` $src attr-dict `:` type(operands)"},
    // (3.9) Added after 3.6: cache hints moved into an optional `cachePolicy` attribute (attr-dict), which
    // the oilists above accept by being optional.
    {"tt.approx_divf", "x y=x", "", "result=x", "$x `,` $y attr-dict `:` type($x)"},
    {"tt.grid_dependency_wait", "", "", "", "attr-dict"},
    {"tt.grid_dependency_launch_dependents", "", "", "", "attr-dict"},
    {"tt.atomic_load", "ptr mask?", "sem:" SEM " scope:" SCOPE, "result",
     "$sem `,` $scope `,` $ptr (`,` $mask^)? attr-dict `:` functional-type(operands, $result)"},
    {"tt.atomic_store", "ptr value=ptr~pointee mask?=ptr~i1", "sem:" SEM " scope:" SCOPE, "",
     "$sem `,` $scope `,` $ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)"},
    {"tt.atomic_poll", "ptr!ptr expected timeout?:i64", "sem:" SEM " scope:" SCOPE, "result",
     "$sem `,` $scope `,` $ptr `,` $expected (`timeout` $timeout^)? attr-dict `:` qualified(type($ptr)) `,` "
     "type($expected) `->` type($result)"},

    // ==== ttg (TritonGPUOps.td) ==========================================================
    {"ttg.convert_layout", "src", "", "result", UNARY},
    {"ttg.async_wait", "asyncToken*:token", "", "retToken:token", "($asyncToken^)? attr-dict"},
    {"ttg.async_commit_group", "inputTokens*:token", "", "asyncToken:token", "(`tokens` $inputTokens^)? attr-dict"},
    {"ttg.async_copy_global_to_local", "src result!memdesc mask?=src~i1 other?=src~pointee",
     "cache:" CACHE " evict:" EVICT, "token:token",
     "$src `,` $result (`mask` $mask^)? (`other` $other^)? " OILIST_CE " attr-dict `:` type($src) `->` type($result)"},
    {"ttg.local_alloc", "src?", "", "result", "($src^)? attr-dict `:` functional-type(operands, results)"},
    {"ttg.local_dealloc", "src", "", "", "$src attr-dict `:` qualified(type($src))"},
    {"ttg.memdesc_index", "src index:i32", "", "result",
     "$src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))"},
    {"ttg.memdesc_subslice", "src", "offsets:dense_i32", "result",
     "$src `[` custom<Offsets>($offsets) `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))"},
    {"ttg.memdesc_trans", "src", "", "result", MD_VIEW},
    {"ttg.memdesc_reshape", "src", "", "result", MD_VIEW},
    {"ttg.memdesc_reinterpret", "src", "", "result", MD_VIEW},
    {"ttg.local_load", "src token?:token", "", "result",
     "$src (`token` $token^)? attr-dict `:` qualified(type($src)) `->` type($result)"},
    {"ttg.local_store", "src dst", "", "", "$src `,` $dst attr-dict `:` type($src) `->` qualified(type($dst))"},
    {"ttg.local_barrier", "", "", "", "attr-dict"},
    {"ttg.predicate_stage", "iv ub=iv step=iv", "maxStage:i32 stage:i32", "result",
     "$iv `,` $ub `,` $step `maxStage` $maxStage `stage` $stage attr-dict `:` type($iv) `->` type($result)"},
    {"ttg.mask", "pred", "", "result*", nullptr, nullptr, "region"},
    {"ttg.mask.return", "result*", "", "", "$result attr-dict `:` type($result)"},
    {"ttg.fp4_to_fp", "src", "", "result", UNARY},
    {"ttg.global_scratch_alloc", "", "", "result!ptr", "attr-dict `:` qualified(type($result))"},
    {"ttg.warp_specialize", "", "", "", nullptr, parseWarpSpecializeOp, "defaultRegion partitionOpHolder"},
    // Only ever nested in ttg.warp_specialize, whose printer hides it; generic form only.
    {"ttg.warp_specialize.partitions", "explicitCaptures*", "", "", nullptr, nullptr, ""},
    {"ttg.warp_yield", "values*", "", "", "($values^)? attr-dict (`:` type($values)^)?"},
    {"ttg.warp_return", "", "", "", "attr-dict"},
    // Pre-rename form of memdesc_index/memdesc_subslice (Triton <= 3.4): offsets are operands.
    {"ttg.memdesc_subview", "src offsets*:i32", "", "result",
     "$src `[` $offsets `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))"},
    // (main) TLX and later upstream additions.
    {"ttg.memdesc_dynamic_subslice", "src offsets*:i32", "", "result",
     "$src `[` $offsets `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))"},
    {"ttg.remote_shmem_store", "src dst ctaRank:i32", "", "",
     "$src `,` `rank` $ctaRank `,` $dst attr-dict `:` type($src) `->` qualified(type($dst))"},
    {"ttg.async_remote_shmem_store", "src dst ctaRank:i32 barrier", "", "",
     "$src `,` `rank` $ctaRank `,` $dst `barrier` $barrier attr-dict `:` type($src) `->` qualified(type($dst)) "
     "`barrier_ty` qualified(type($barrier))"},
    {"ttg.async_remote_shmem_copy", "src dst ctaRank:i32 barrier", "", "",
     "$src `,` `rank` $ctaRank `,` $dst `barrier` $barrier attr-dict `:` qualified(type($src)) `->` "
     "qualified(type($dst)) `barrier_ty` qualified(type($barrier))"},
    {"ttg.local_gather", "src indices token?:token", "", "result",
     "$src `[` $indices `]` (`token` $token^)? attr-dict `:` qualified(type($src)) `,` type($indices) `->` "
     "type($result)"},
    {"ttg.local_scatter", "dst values indices token?:token", "", "",
     "$dst `[` $indices `]` `,` $values (`token` $token^)? attr-dict `:` qualified(type($dst)) `,` type($indices) "
     "`,` type($values)"},
    {"ttg.clock64", "", "", "res:i64", "attr-dict"},
    {"ttg.warp_id", "", "", "result:i32", "attr-dict"},
    // (3.9)
    {"ttg.inline_asm", "args*", "asm_string:any", "result*",
     "$asm_string attr-dict ($args^)? `:` functional-type($args, $result)"},
    {"ttg.local_atomic_scatter_rmw", "dst values indices mask?", "atomic_rmw_op:" RMW, "result",
     "$atomic_rmw_op `,` $dst `[` $indices `]` `,` $values (`,` $mask^)? attr-dict `:` "
     "functional-type(operands, results)"},
    // `ttg.barrier local|global_read|...` (main; Triton 3.6.0 has ttg.local_barrier).
    {"ttg.barrier", "", "", "", nullptr, parseBarrierOp},

    // ==== ttng (TritonNvidiaGPUOps.td) ===================================================
    {"ttng.fence_async_shared", "", "", "", "attr-dict"},
    {"ttng.cluster_arrive", "", "", "", "attr-dict"},
    {"ttng.cluster_wait", "", "", "", "attr-dict"},
    // (3.7, 3.9) `{relaxed = ...}` in attr-dict; replaces cluster_arrive + cluster_wait in 3.9.
    {"ttng.cluster_barrier", "", "", "", "attr-dict"},
    // (3.9) Cluster launch control (upstream names; fbtriton 3.7.4 prints async_clc_try_cancel and
    // clc_query_cancel below).
    {"ttng.clc_try_cancel", "result mbarrier", "", "",
     "$result `,` $mbarrier attr-dict `:` qualified(type($result)) `,` qualified(type($mbarrier))"},
    {"ttng.clc_try_cancel_sync", "", "", "response", "attr-dict `:` type($response)"},
    {"ttng.clc_load_result", "src", "", "clcResult", "$src attr-dict `:` qualified(type($src)) `->` type($clcResult)"},
    {"ttng.clc_is_canceled", "clcResult", "", "is_canceled",
     "$clcResult attr-dict `:` type($clcResult) `->` type($is_canceled)"},
    {"ttng.clc_get_program_id", "clcResult", "dim:enum(x=0|y=1|z=2)", "result",
     "$clcResult `,` $dim attr-dict `:` type($clcResult) `->` type($result)"},
    // (3.9) st.async.shared: its completion decrements `mbarrier`'s tx-count.
    {"ttng.async_shared_store", "src dst mbarrier", "", "",
     "$src `,` $dst `,` $mbarrier attr-dict `:` type($src) `->` qualified(type($dst)) `,` qualified(type($mbarrier))"},
    {"ttng.packed_arith", "operands*", "op_kind:enum(add=0|sub|mul|fma|min|max)", "result",
     "$op_kind $operands attr-dict `:` functional-type($operands, $result)"},
    {"ttng.tmem_wait", "", "kind:enum(load=0|store=1)", "", "$kind attr-dict"},
    {"ttng.warp_group_dot", "a b c=d useC?:i1", "", "d",
     "$a `,` $b `,` $c (`,` $useC^)? attr-dict `:` type($a) `*` qualified(type($b)) `->` type($d)"},
    {"ttng.warp_group_dot_wait", "inputs*", "", "outputs*=inputs", "$inputs attr-dict `:` type($inputs)"},
    {"ttng.init_barrier", "alloc", "count:i32", "", "$alloc `,` $count attr-dict `:` qualified(type($alloc))"},
    {"ttng.inval_barrier", "alloc", "", "", "$alloc attr-dict `:` qualified(type($alloc))"},
    // TLX prints `%b, 32768 {async_task_id = ...}, %true`: the attr-dict sits before the predicate.
    {"ttng.barrier_expect", "alloc pred:i1", "size:i32", "",
     "$alloc `,` $size attr-dict `,` $pred `:` qualified(type($alloc))"},
    {"ttng.wait_barrier", "alloc phase:i32 pred?:i1 deps*", "", "",
     "$alloc `,` $phase (`,` $pred^)? (`deps` $deps^)? attr-dict `:` qualified(type($alloc)) (`,` type($deps)^)?"},
    {"ttng.arrive_barrier", "alloc pred?:i1", "count:i32", "",
     "$alloc `,` $count (`,` $pred^)? attr-dict `:` qualified(type($alloc))"},
    {"ttng.async_copy_mbarrier_arrive", "barrier", "", "", "$barrier attr-dict `:` qualified(type($barrier))"},
    // (main) TLX adds the optional multicast CTA mask `multicastTargets` (first in ODS order, printed after pred).
    // (3.9) adds im2col `offsets = [...]` (i16) after the coordinates and a `multicast` unit attribute.
    {"ttng.async_tma_copy_global_to_local",
     "multicastTargets?:i32 desc coord*:i32 offsets*:i16 barrier result pred:i1", "cache:" CACHE " evict:" EVICT, "",
     "$desc `[` $coord `]` (`offsets` `=` `[` $offsets^ `]`)? $result `,` $barrier `,` $pred "
     "(`,` $multicastTargets^)? " OILIST_CE
     " attr-dict `:` qualified(type($desc)) `,` qualified(type($barrier)) `->` qualified(type($result))"},
    // (fbtriton 3.7) TMA stores and reductions may return a token (`-> !ttg.async.token`), waited by
    // ttng.async_tma_store_token_wait.
    {"ttng.async_tma_copy_local_to_global", "desc coord*:i32 src", "evict:" EVICT, "token?:token",
     "$desc `[` $coord `]` $src oilist(`evictionPolicy` `=` $evict) attr-dict `:` qualified(type($desc)) `,` "
     "qualified(type($src)) (`->` type($token)^)?"},
    {"ttng.async_tma_reduce", "desc coord*:i32 src", "kind:" REDUCE " evict:" EVICT, "token?:token",
     "$kind `,` $desc `[` $coord `]` $src oilist(`evictionPolicy` `=` $evict) attr-dict `:` qualified(type($desc)) "
     "`,` qualified(type($src)) (`->` type($token)^)?"},
    // (fbtriton 3.7) waits until the TMA store that produced `token` has read its shared memory; then
    // arrives on each `barriers` whose predicate holds. The wheel's ODS has two more variadic groups (an
    // any-type one and an i32 one; their names are not in the wheel: by the autoWS pass that attaches them,
    // consumer-release tokens and their buffer indices), never written in custom syntax.
    {"ttng.async_tma_store_token_wait", "token:token barriers* barrier_preds*:i1 release_tokens* release_idx*:i32",
     "", "",
     "$token `` custom<BarriersAndPreds>($barriers, $barrier_preds) attr-dict `:` type($token) "
     "(`,` qualified(type($barriers))^)?"},
    {"ttng.async_tma_gather", "desc x_offsets y_offset barrier result pred", "", "",
     "$desc `[` $x_offsets `,` $y_offset `]` $result `,` $barrier `,` $pred attr-dict `:` type(operands)"},
    {"ttng.async_tma_scatter", "desc x_offsets y_offset src", "", "",
     "$desc `[` $x_offsets `,` $y_offset `]` $src attr-dict `:` type(operands)"},
    {"ttng.async_tma_store_wait", "", "", "", "attr-dict"},
    {"ttng.tc_gen5_mma", "a b d acc_dep?:token useD:i1 pred:i1 barriers* barrier_preds*:i1", "", "token?",
     "$a `,` $b `,` $d `` custom<Token>($acc_dep, type($token)) `,` $useD `,` $pred `` "
     "custom<BarriersAndPreds>($barriers, $barrier_preds) attr-dict `:` qualified(type($a)) `,` qualified(type($b)) "
     "`,` qualified(type($d)) (`,` qualified(type($barriers))^)?"},
    {"ttng.tc_gen5_mma_scaled",
     "a b d acc_dep?:token a_scale b_scale useD:i1 pred:i1 barriers* barrier_preds*:i1",
     "a_type:" SCALE_ELEM " b_type:" SCALE_ELEM, "token?",
     "$a `,` $b `,` $d `` custom<Token>($acc_dep, type($token)) `,` $a_scale `,` $b_scale `,` $useD `,` $pred "
     "`lhs` `=` $a_type `rhs` `=` $b_type `` custom<BarriersAndPreds>($barriers, $barrier_preds) attr-dict `:` "
     "qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($d)) `,` qualified(type($a_scale)) `,` "
     "qualified(type($b_scale)) (`,` qualified(type($barriers))^)?"},
    // (3.9) `descs` (multicast commit to the CTAs owning these buffers).
    {"ttng.tc_gen5_commit", "barrier pred?:i1 descs*", "", "",
     "$barrier (`,` $pred^)? (`descs` $descs^)? attr-dict `:` qualified(type($barrier)) (`,` qualified(type($descs))^)?"},
    // (3.9) `{redOp = #ttng.redOp<min|max>}` adds the reduced tensor `red`.
    {"ttng.tmem_load", "src dep?:token", "", "result token? red?",
     "$src `` custom<Token>($dep, type($token)) attr-dict `:` qualified(type($src)) `->` type($result) "
     "(`,` type($red)^)?"},
    {"ttng.tmem_store", "dst dep?:token src pred:i1", "", "token?",
     "$src `,` $dst `` custom<Token>($dep, type($token)) `,` $pred attr-dict `:` type($src) `->` "
     "qualified(type($dst))"},
    {"ttng.tmem_alloc", "src?", "", "result token?", "($src^)? attr-dict `:` functional-type(operands, results)"},
    {"ttng.tmem_subslice", "src", "", "result", MD_VIEW},
    {"ttng.tmem_copy", "src dst barrier?", "", "",
     "$src `,` $dst (`,` $barrier^)? attr-dict `:` qualified(type(operands))"},
    {"ttng.reinterpret_tensor_descriptor", "rawDesc", "", "result!tensordesc",
     "$rawDesc attr-dict `:` qualified(type($rawDesc)) `to` qualified(type($result))"},
    {"ttng.tensormap_create", "desc_ptr global_address box_dim*:i32 global_dim*:i32 global_stride*:i64 "
                              "element_stride*:i32",
     "", "",
     "$desc_ptr `,` $global_address `,` `[` $box_dim `]` `,` `[` $global_dim `]` `,` `[` $global_stride `]` `,` `[` "
     "$element_stride `]` attr-dict `:` functional-type(operands, results)"},
    {"ttng.tensormap_fenceproxy_acquire", "desc_ptr", "", "", "$desc_ptr attr-dict `:` qualified(type($desc_ptr))"},
    // (main) TLX additions.
    {"ttng.map_to_remote_buffer", "src ctaRank:i32", "", "result",
     "$src `,` $ctaRank attr-dict `:` qualified(type($src)) `->` qualified(type($result))"},
    {"ttng.arrive_barrier_named", "bar numThreads", "", "", "$bar `,` $numThreads attr-dict `:` type(operands)"},
    {"ttng.fence_mbarrier_init_release_cluster", "", "", "", "attr-dict"},
    {"ttng.wait_barrier_named", "bar numThreads", "", "", "$bar `,` $numThreads attr-dict `:` type(operands)"},
    {"ttng.async_clc_try_cancel", "mbarAlloc clcResAlloc", "", "",
     "$mbarAlloc `,` $clcResAlloc attr-dict `:` type(operands)"},
    // fbtriton 3.7.4 returns the canceled cluster's (x, y, z) (older TLX: one i32).
    {"ttng.clc_query_cancel", "clcResAlloc", "", "ctaId*", "$clcResAlloc attr-dict `:` functional-type(operands, $ctaId)"},
    {"ttng.vote_ballot_sync", "mask:i32 pred", "", "result", "$mask `,` $pred attr-dict `:` type($pred) `->` type($result)"},
    {"ttng.async_bulk_copy_global_to_local", "src dst size:i32 barrier pred:i1", "", "",
     "$src `,` $dst `,` $size `,` $barrier `,` $pred attr-dict `:` qualified(type($src)) `,` qualified(type($dst)) "
     "`,` qualified(type($barrier))"},
    {"ttng.async_bulk_copy_local_to_global", "src dst size:i32 pred:i1", "", "",
     "$src `,` $dst `,` $size `,` $pred attr-dict `:` qualified(type($src)) `,` qualified(type($dst))"},

    // ==== amdg (TritonAMDGPUOps.td) ======================================================
    {"amdg.extract_slice", "source", "static_offsets:dense_i64", "result",
     "$source $static_offsets attr-dict `:` type($source) `to` type($result)"},
    {"amdg.concat", "sources*", "", "result", "$sources attr-dict `:` type($sources) `->` type($result)"},
    {"amdg.instruction_sched_hint", "", "", "", "attr-dict"},
    {"amdg.cond_barrier", "pred:i1", "", "", "$pred attr-dict"},
    {"amdg.buffer_load", "ptr=result~elemptr offsets=result~i32 stride?:i32 mask?=result~i1 other?=result", "cache:" CACHE,
     "result",
     "$ptr `[` $offsets `]` (`,` $mask^)? (`,` $other^)? oilist(`cacheModifier` `=` $cache) (`stride` `=` $stride^)? "
     "attr-dict `:` custom<LeadingType>(type($ptr), type($result))"},
    {"amdg.buffer_load_to_local", "dest!memdesc ptr!ptr offsets mask?=offsets~i1 other? stride?:i32", "cache:" CACHE,
     "token:token",
     "$ptr `[` $offsets `]` (`mask` `=` $mask^)? (`other` `=` $other^)? (`stride` `=` $stride^)? "
     "oilist(`cacheModifier` `=` $cache) `into` $dest attr-dict `:` type($ptr) `[` type($offsets) `]` type($other) "
     "`->` type($dest)"},
    {"amdg.buffer_atomic_rmw", "ptr=result~elemptr offsets=result~i32 value=result stride?:i32 mask?=result~i1",
     "atomic_rmw_op:" RMW " sem:" SEM " scope:" SCOPE, "result",
     "$atomic_rmw_op `,` $sem `,` $scope `,` $value `,` $ptr `[` $offsets `]` (`,` $mask^)? (`stride` `=` $stride^)? "
     "attr-dict `:` type($result)"},
    {"amdg.buffer_atomic_cas", "ptr=result~elemptr offsets=result~i32 cmp=result val=result stride?:i32",
     "sem:" SEM " scope:" SCOPE, "result",
     "$sem `,` $scope `,` $cmp `,` $val `,` $ptr `[` $offsets `]` (`stride` `=` $stride^)? attr-dict `:` "
     "type($result)"},
    {"amdg.buffer_store", "value ptr=value~elemptr offsets=value~i32 stride?:i32 mask?=value~i1", "cache:" CACHE, "",
     "$value `,` $ptr `[` $offsets `]` (`,` $mask^)? oilist(`cacheModifier` `=` $cache) (`stride` `=` $stride^)? "
     "attr-dict `:` custom<LeadingType>(type($ptr), type($value))"},
    {"amdg.masked_load", "ptr mask falseVal multicastMask?", "cache:" CACHE " forceNoAlias:any", "result",
     "$ptr `,` $mask `,` $falseVal (`,` $multicastMask^)? oilist(`cacheModifier` `=` $cache) (`forceNoAlias` "
     "$forceNoAlias^)? attr-dict `:` functional-type(operands, results)"},
    {"amdg.masked_store", "ptr value mask", "cache:" CACHE " forceNoAlias:any", "",
     "$ptr `,` $value `,` $mask oilist(`cacheModifier` `=` $cache) (`forceNoAlias` $forceNoAlias^)? attr-dict `:` "
     "type(operands)"},
    {"amdg.scaled_upcast_fp4", "input scale", "", "output",
     "$input `scale` $scale attr-dict `:` type($input) `,` type($scale) `->` type($output)"},
    {"amdg.scaled_upcast_fp8", "input scale", "", "output",
     "$input `scale` $scale attr-dict `:` type($input) `,` type($scale) `->` type($output)"},
    {"amdg.upcast_mxfp", "src scale", "fp_type:" SCALE_ELEM, "result",
     "$src `,` $scale `fp_type` `=` $fp_type attr-dict `:` type($src) `,` type($scale) `->` type($result)"},
    {"amdg.in_thread_transpose", "src", "", "result", UNARY},
    {"amdg.local_load_packed_tranposed", "src token?:token", "", "result",
     "$src (`token` $token^)? attr-dict `:` qualified(type($src)) `->` type($result)"},
    {"amdg.init_barrier", "alloc", "count:i32", "", "$alloc `,` $count attr-dict `:` qualified(type($alloc))"},
    {"amdg.wait_barrier", "alloc phase:i32", "", "", "$alloc `,` $phase attr-dict `:` qualified(type($alloc))"},
    {"amdg.arrive_barrier", "alloc", "count:i32", "result",
     "$alloc `,` $count attr-dict `:` qualified(type($alloc)) `->` type($result)"},
    {"amdg.async_copy_mbarrier_arrive", "barrier", "", "", "$barrier attr-dict `:` qualified(type($barrier))"},
    {"amdg.async_tdm_copy_global_to_local", "desc indices*:i32 result pred:i32 barrier?", "", "token:token",
     "$desc `[` $indices `]` `into` $result `,` `pred` `=` $pred (`,` `barrier` `=` $barrier^)? attr-dict `:` "
     "qualified(type($desc)) (`,` qualified(type($barrier))^)? `->` qualified(type($result))"},
    {"amdg.async_tdm_copy_local_to_global", "desc indices*:i32 src barrier?", "", "",
     "$desc `[` $indices `]` `from` $src (`,` `barrier` `=` $barrier^)? attr-dict `:` qualified(type($src)) (`,` "
     "qualified(type($barrier))^)? `->` qualified(type($desc))"},
    {"amdg.async_tdm_wait", "asyncToken*:token", "", "retToken:token", "($asyncToken^)? attr-dict"},
    {"amdg.async_wait", "asyncToken*:token", "", "retToken:token", "($asyncToken^)? attr-dict"},
    {"amdg.memory_counter_wait", "", "load:i32 store:i32 ds:i32", "",
     "oilist(`load` `(` $load `)` | `store` `(` $store `)` | `ds` `(` $ds `)`) attr-dict"},
    // (main) TLX / gfx1250 additions.
    {"amdg.async_copy_local_to_global", "src dst mask?=dst~i1", "cache:" CACHE " evict:" EVICT, "token:token",
     "$src `,` $dst (`mask` $mask^)? " OILIST_CE " attr-dict `:` qualified(type($src)) `->` type($dst)"},
    {"amdg.read_barrier_phase", "alloc", "", "result", nullptr},
    {"amdg.async_tdm_scatter", "desc dst_row_indices dst_col_offset:i32 src barrier?", "", "retToken:token",
     "$desc `[` $dst_row_indices `,` $dst_col_offset `]` `from` $src (`,` `barrier` `=` $barrier^)? attr-dict `:` "
     "qualified(type($dst_row_indices)) `,` qualified(type($src)) (`,` qualified(type($barrier))^)? `->` "
     "qualified(type($desc))"},
    {"amdg.async_tdm_gather", "desc src_row_indices src_col_offset:i32 dst pred:i32 barrier?", "", "token:token",
     "$desc `[` $src_row_indices `,` $src_col_offset `]` `to` $dst `,` `pred` `=` $pred (`,` `barrier` `=` "
     "$barrier^)? attr-dict `:` qualified(type($src_row_indices)) `,` qualified(type($dst)) (`,` "
     "qualified(type($barrier))^)? `->` qualified(type($desc))"},
    {"amdg.async_tdm_intrinsic_wait", "asyncToken*:token", "", "retToken:token", "($asyncToken^)? attr-dict"},
    {"amdg.tdm_prefetch", "desc indices*:i32 pred:i1", "speculative:any returnOffsets:unit", "maybeOffsets?",
     "$desc `[` $indices `]` `,` $pred `,` `speculative` `=` $speculative (`returnOffsets` $returnOffsets^)? attr-dict "
     "`:` qualified(type($desc)) (`->` type($maybeOffsets)^)?"},
    {"amdg.update_tensor_descriptor", "desc add_offsets*:i32 set_bounds*:i32 dest? pred?:i32 barrier?", "",
     "result=desc",
     "$desc oilist(`add_offsets` `=` `[` $add_offsets `]` | `set_bounds` `=` `[` $set_bounds `]` | `dest` `=` $dest "
     "`:` qualified(type($dest)) | `pred` `=` $pred | `barrier` `=` $barrier `:` qualified(type($barrier))) "
     "attr-dict `:` qualified(type($desc))"},
    {"amdg.cluster_barrier_arrive", "", "", "", "attr-dict"},
    {"amdg.cluster_barrier_wait", "", "", "", "attr-dict"},

    // ==== nvws (NVWSOps.td; autoWS internals, lowered before the .ttgir is written) ====
    {"nvws.aref.create", "buffers*", "", "result", "$buffers attr-dict `:` type($result)"},
    {"nvws.aref.buffer", "aref token stage?:i32", "", "buffers*",
     "$aref (`[` $stage^ `]`)? `,` $token attr-dict `:` type($aref) `,` type($token) `->` type(results)"},
    {"nvws.aref.get.enter", "aref stage?:i32 phase?:i32", "", "buffers* token",
     "$aref (`[` $stage^ `,` $phase `]`)? attr-dict `:` type($aref) `->` type(results)"},
    {"nvws.aref.get.exit", "aref token stage?:i32", "async_ops:any", "",
     "$aref (`[` $stage^ `]`)? `,` $token $async_ops attr-dict `:` type($aref) `,` type($token)"},
    {"nvws.aref.put.enter", "aref stage?:i32 phase?:i32", "", "buffers* token",
     "$aref (`[` $stage^ `,` $phase `]`)? attr-dict `:` type($aref) `->` type(results)"},
    {"nvws.aref.put.exit", "aref token stage?:i32", "async_ops:any", "",
     "$aref (`[` $stage^ `]`)? `,` $token $async_ops attr-dict `:` type($aref) `,` type($token)"},
    {"nvws.warp_group", "", "", "results*", nullptr, nullptr, "partitionRegions"},
    {"nvws.warp_group.yield", "values*", "", "", "($values^)? attr-dict (`:` type($values)^)?"},
    {"nvws.warp_group.return", "", "", "", "attr-dict"},
    {"nvws.create_token", "", "", "result", "attr-dict `:` type($result)"},
    {"nvws.producer_acquire", "token idx phase", "", "", "$token `,` $idx `,` $phase attr-dict `:` type(operands)"},
    {"nvws.producer_commit", "token idx", "", "", "$token `,` $idx attr-dict `:` type(operands)"},
    {"nvws.consumer_wait", "token idx phase", "", "", "$token `,` $idx `,` $phase attr-dict `:` type(operands)"},
    {"nvws.consumer_release", "token idx", "", "", "$token `,` $idx attr-dict `:` type(operands)"},
    {"nvws.descriptor_load", "desc indices* result", "txCount:i32 cache:" CACHE " evict:" EVICT, "",
     "$desc `[` $indices `]` $txCount $result " OILIST_CE " attr-dict `:` type(operands)"},
    {"nvws.descriptor_gather", "desc x_offsets y_offset result", "txCount:i32", "",
     "$desc `[` $x_offsets `,` $y_offset `]` $txCount $result attr-dict `:` type(operands)"},

    // ==== tti (TritonInstrumentOps.td, Triton 3.9; sanitizer instrumentation, only in instrumented builds) ====
#define MEMTYPE "enum(shared_mem=0|tensor_mem=1)"
    {"tti.experimental_assert_uniform", "condition:i1", "message:any", "", "$condition `,` $message attr-dict-with-keyword"},
    {"tti.experimental_buffer_descriptors", "", "offsets:dense_i32 lengths:dense_i32 memType:" MEMTYPE, "result",
     "$offsets `,` $lengths `,` $memType attr-dict `:` type($result)"},
    {"tti.experimental_memdesc_to_i32", "memdesc!memdesc", "", "result:i32", "$memdesc attr-dict `:` type($memdesc)"},
    {"tti.experimental_memory_offset_to_i32", "", "offset:i32 memType:" MEMTYPE, "result:i32",
     "$offset `,` $memType attr-dict"},
    {"tti.experimental_cluster_cta_id", "", "", "result", "attr-dict `:` type($result)"},
    {"tti.experimental_local_gather", "src indices offsets*:i32", "", "result",
     "$src `[` $indices `]` `offsets` `=` `[` $offsets `]` attr-dict `:` qualified(type($src)) `,` type($indices) `->` "
     "type($result)"},
    {"tti.experimental_gsan_init", "", "", "", "attr-dict"},
    {"tti.experimental_gsan_kernel_exit", "", "", "", "attr-dict"},
    {"tti.experimental_gsan_grid_dependency_wait", "", "", "", "attr-dict"},
    {"tti.experimental_gsan_cluster_barrier_init", "scratch!ptr", "", "", "$scratch attr-dict `:` type($scratch)"},
    {"tti.experimental_gsan_cluster_barrier_sync", "scratch!ptr", "", "", "$scratch attr-dict `:` type($scratch)"},
    {"tti.experimental_gsan_mbarrier_table_init", "scratch!ptr", "capacity:i32", "",
     "$scratch `,` $capacity attr-dict `:` type($scratch)"},
    {"tti.experimental_gsan_mbarrier_init", "scratch!ptr barrier", "expectedCount:i32", "",
     "$scratch `,` $barrier `,` $expectedCount attr-dict `:` type($scratch) `,` qualified(type($barrier))"},
    {"tti.experimental_gsan_mbarrier_arrive", "scratch!ptr barrier pred:i1", "count:i32", "",
     "$scratch `,` $barrier `,` $pred `,` $count attr-dict `:` type($scratch) `,` qualified(type($barrier))"},
    {"tti.experimental_gsan_mbarrier_wait", "scratch!ptr barrier phase:i32 pred:i1", "", "",
     "$scratch `,` $barrier `,` $phase `,` $pred attr-dict `:` type($scratch) `,` qualified(type($barrier))"},
    {"tti.experimental_gsan_tensordesc_access", "desc coords*:i32 pred?:i1", "isStore:any", "",
     "$desc `[` $coords `]` `,` $isStore (`,` $pred^)? attr-dict `:` qualified(type($desc))"},
    {"tti.experimental_gsan_indexed_tensordesc_access", "desc indices offset:i32 pred?:i1", "isStore:any", "",
     "$desc `[` $indices `,` $offset `]` `,` $isStore (`,` $pred^)? attr-dict `:` qualified(type($desc)) `,` "
     "type($indices)"},
    {"tti.experimental_gsan_atomic_tensordesc_access", "desc coords*:i32", "sem:" SEM " scope:" SCOPE, "",
     "$desc `[` $coords `]` `,` $sem `,` $scope attr-dict `:` qualified(type($desc))"},
    {"tti.experimental_gsan_tensor_access", "ptr mask?=ptr~i1", "isStore:any", "",
     "$ptr `,` $isStore (`,` $mask^)? attr-dict `:` type($ptr)"},
    {"tti.experimental_gsan_atomic_load", "ptr mask?", "sem:" SEM " scope:" SCOPE, "result",
     "$sem `,` $scope `,` $ptr (`,` $mask^)? attr-dict `:` functional-type(operands, $result)"},
    {"tti.experimental_gsan_atomic_store", "ptr value=ptr~pointee mask?=ptr~i1", "sem:" SEM " scope:" SCOPE, "",
     "$sem `,` $scope `,` $ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)"},
    {"tti.experimental_gsan_atomic_poll", "ptr!ptr matched=ptr~i1", "sem:" SEM " scope:" SCOPE, "",
     "$sem `,` $scope `,` $ptr `,` $matched attr-dict `:` qualified(type($ptr))"},
    {"tti.experimental_gsan_atomic_rmw", "ptr val mask?", "atomic_rmw_op:" RMW " sem:" SEM " scope:" SCOPE, "result",
     "$atomic_rmw_op `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:` "
     "functional-type(operands, $result)"},
    {"tti.experimental_gsan_atomic_cas", "ptr cmp val", "sem:" SEM " scope:" SCOPE, "result",
     "$sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` functional-type(operands, $result)"},
    {"tti.experimental_lock_acquire", "lock pred?:i1", "", "", "$lock (`,` $pred^)? attr-dict `:` type($lock)"},
    {"tti.experimental_lock_release", "lock pred?:i1", "", "", "$lock (`,` $pred^)? attr-dict `:` type($lock)"},
    {"tti.dot_i8", "a b c=d", "aSigned:any bSigned:any", "d",
     "$a `,` $b `,` $c `,` `aSigned` `=` $aSigned `,` `bSigned` `=` $bSigned attr-dict `:` type($a) `*` type($b) `->` "
     "type($d)"},
    {"tti.experimental_fpsan_embed", "val", "", "result", "$val attr-dict `:` functional-type(operands, $result)"},
    {"tti.experimental_fpsan_unembed", "val", "", "result", "$val attr-dict `:` functional-type(operands, $result)"},
#undef MEMTYPE

    // ==== proton (ProtonOps.td) ==========================================================
    // `proton.record start "name"`: an optional group with an else branch, parsed by hand.
    {"proton.record", "", "", "", nullptr, parseProtonRecordOp},

    // ==== nvg (third_party/nvidia NVGPUOps.td, dialect `nvg`; TLX emits nvg.cluster_id for cluster_cta_rank) ==
    {"nvg.cluster_id", "", "", "result:i32", "attr-dict"},
    {"nvg.warp_id", "", "", "result:i32", "attr-dict"},
    // Older spelling kept (never printed by 3.6, 3.7 or 3.9).
    {"nvgpu.cluster_id", "", "", "result:i32", "attr-dict"},
    {"nvgpu.canonical_warp_id", "", "", "result:i32", "attr-dict"},

    // ==== gluon (GluonOps.td; 3.6+, resolved before TTGIR but kept for TTIR-level dumps) ==========
    {"gluon.set_auto_layout", "src", "", "result", UNARY},
};

#undef CACHE
#undef EVICT
#undef SEM
#undef SCOPE
#undef RMW
#undef REDUCE
#undef REDUCE_CASES
#undef SCALE_ELEM
#undef PRECISION
#undef UNARY
#undef MD_VIEW
#undef OILIST_CE

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
