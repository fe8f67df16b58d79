// Scalar semantics: integer arith (exact, in the op's width), compares, selects, casts, program ids, and ops
// without semantics (reported once, a scalar op each).
#include "sim/EngineState.h"

namespace tlxsim::sim {

using namespace engine;

/// Const, Binary, Cmp, Select, Cast, ProgramId, NumPrograms, Unknown: exact integer semantics (arith dialect).
Step Engine::Impl::execScalar(Agent &a, const Instr &in, Cycle now) {
  Cta &cta = *a.cta;
  int64_t x = 0;
  int64_t y = 0;
  switch (in.op) {
  case Op::Const: // sub 1, a thread id: thread 32 w in the agent of warp w (AgentInfo::warp)
    if (in.sub == 2) { // a device-made descriptor: imm names its tensor (lowering/Tma.cpp deviceDescriptorSource)
      a.frame[in.result] = Value{Value::Desc, static_cast<int32_t>(in.imm), 0};
      return next(a);
    }
    a.frame[in.result] = Value::integer(
        truncateTo(in.sub == 1 && a.info.warp > 0 ? in.imm + int64_t(a.info.warp) * program.threadsPerWarp : in.imm,
                   in.bits));
    return next(a);
  case Op::Binary: {
    const Value &l = a.frame[in.args[0]], &r = a.frame[in.args[1]];
    Value out = Value::unknown(Value::originOf(l, r));
    if (l.kind == Value::Int && r.kind == Value::Int) {
      x = l.i;
      y = r.i;
      uint64_t ux = asUnsigned(x, in.bits), uy = asUnsigned(y, in.bits);
      bool ok = true;
      int64_t v = 0;
      switch (static_cast<BinaryKind>(in.sub)) {
      case Add: v = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y)); break;
      case Sub: v = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y)); break;
      case Mul: v = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y)); break;
      case DivS: ok = y != 0; v = !ok ? 0 : y == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : x / y; break;
      case DivU: ok = uy != 0; v = ok ? static_cast<int64_t>(ux / uy) : 0; break;
      case RemS: ok = y != 0; v = !ok || y == -1 ? 0 : x % y; break;
      case RemU: ok = uy != 0; v = ok ? static_cast<int64_t>(ux % uy) : 0; break;
      case And: v = x & y; break;
      case Or: v = x | y; break;
      case Xor: v = x ^ y; break;
      case Shl: v = static_cast<int64_t>(static_cast<uint64_t>(x) << (y & 63)); break;
      case ShrS: v = x >> (y & 63); break;
      case ShrU: v = static_cast<int64_t>(ux >> (y & 63)); break;
      case MinS: v = std::min(x, y); break;
      case MaxS: v = std::max(x, y); break;
      case MinU: v = static_cast<int64_t>(std::min(ux, uy)); break;
      case MaxU: v = static_cast<int64_t>(std::max(ux, uy)); break;
      case CeilDivS:
      case FloorDivS:
        ok = y != 0;
        if (ok && y == -1)
          v = static_cast<int64_t>(0 - static_cast<uint64_t>(x)); // exact: no rounding, wraps like arith
        else if (ok)
          v = x / y + (in.sub == CeilDivS ? ((x % y != 0) && ((x < 0) == (y < 0)))
                                          : -static_cast<int64_t>((x % y != 0) && ((x < 0) != (y < 0))));
        break;
      }
      if (!ok)
        return err(in, "integer division by zero in CTA (" + std::to_string(cta.pid[0]) + ", " +
                   std::to_string(cta.pid[1]) + ", " + std::to_string(cta.pid[2]) +
                   "); is the launch (grid, arguments) the one the kernel expects?");
      out = Value::integer(truncateTo(v, in.bits));
    }
    out.readyAt = scalarReady(a.time, in.imm);
    a.frame[in.result] = out;
    busyCycles(a, in, scalarCycles);
    return next(a);
  }
  case Op::Cmp: {
    const Value &l = a.frame[in.args[0]], &r = a.frame[in.args[1]];
    Value out = Value::unknown(Value::originOf(l, r));
    if (l.kind == Value::Int && r.kind == Value::Int) {
      unsigned bits = static_cast<unsigned>(in.imm ? in.imm : 64);
      uint64_t ux = asUnsigned(l.i, bits), uy = asUnsigned(r.i, bits);
      bool v = false;
      switch (in.sub) {
      case 0: v = l.i == r.i; break;
      case 1: v = l.i != r.i; break;
      case 2: v = l.i < r.i; break;
      case 3: v = l.i <= r.i; break;
      case 4: v = l.i > r.i; break;
      case 5: v = l.i >= r.i; break;
      case 6: v = ux < uy; break;
      case 7: v = ux <= uy; break;
      case 8: v = ux > uy; break;
      case 9: v = ux >= uy; break;
      }
      out = Value::integer(v ? 1 : 0);
    }
    out.readyAt = scalarReady(a.time, 1);
    a.frame[in.result] = out;
    busyCycles(a, in, scalarCycles);
    return next(a);
  }
  case Op::Select: {
    const Value &cond = a.frame[in.args[0]];
    a.frame[in.result] =
        cond.kind != Value::Int ? Value::unknown(Value::originOf(cond)) : a.frame[in.args[cond.i ? 1 : 2]];
    if (a.frame[in.result].kind == Value::Int || a.frame[in.result].kind == Value::Unknown)
      a.frame[in.result].readyAt = scalarReady(a.time, 1);
    busyCycles(a, in, scalarCycles);
    return next(a);
  }
  case Op::Cast: {
    const Value &src = a.frame[in.args[0]];
    Value out = Value::unknown(Value::originOf(src));
    if (src.kind == Value::Int)
      // sub 0: sign-extend from the source width, 1: zero-extend, 2: truncate.
      out = Value::integer(truncateTo(in.sub == 1   ? static_cast<int64_t>(asUnsigned(src.i, static_cast<unsigned>(in.imm)))
                                      : in.sub == 0 ? signExtend(src.i, static_cast<unsigned>(in.imm))
                                                    : src.i,
                                      in.bits));
    // A sign extension is one instruction; a zero extension or truncation none: the source's register, ready when
    // it is (Engine::awaitScalars lets it pass without a wait).
    out.readyAt = in.sub == 0 ? scalarReady(a.time, 1) : src.readyAt;
    a.frame[in.result] = out;
    busyCycles(a, in, scalarCycles);
    return next(a);
  }
  case Op::ProgramId:
    a.frame[in.result] = Value::integer(cta.pid[in.sub % 3]);
    busyCycles(a, in, scalarCycles);
    return next(a);
  case Op::NumPrograms:
    a.frame[in.result] = Value::integer(launch.grid[in.sub % 3]);
    busyCycles(a, in, scalarCycles);
    return next(a);
  case Op::ProtonRecord: // a clock read and a record store per warp (Program.h)
    a.work.protonRecord(static_cast<int32_t>(in.imm), in.sub == 1, a.time);
    busy(a, in, costs.protonRecord > 0 ? costs.protonRecord : 0.0);
    return next(a);
  case Op::MembarSync: // Triton's Membar barrier (Program.h): a cost, as electedSync
    electedSync(a, in);
    return next(a);
  case Op::Unknown:
    if (reportedUnknown.insert(&in).second)
      emit<EvUnknownOp>([&](Listener &l) { l.onUnknownOp(program.unknownOps[in.imm], in.loc); });
    for (int32_t i = 0; i < in.numResults; ++i)
      a.frame[in.result + i] = Value::unknown(static_cast<int32_t>(in.imm));
    busyCycles(a, in, scalarCycles);
    return next(a);
  default:
    break;
  }
  return err(in, "internal: execScalar reached with another op family's op");
}

} // namespace tlxsim::sim
