// Operand groups by Triton's ODS names (OpSyntax.h: getOperandGroup), from the table
// entry and the op's operandSegmentSizes.
#include "ir/OpSyntaxCompiled.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace tlxsim::ir {

using namespace syntax;

std::optional<OperandRange> getOperandGroup(Operation *op, llvm::StringRef group) {
  const OpSpec *spec = lookupOpSpec(op->getName().getStringRef());
  if (!spec)
    return std::nullopt;
  const CompiledSpec &compiled = compile(*spec);
  if (!compiled.error.empty())
    return std::nullopt;
  auto segments = op->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
  if (!segments)
    if (auto props = op->getPropertiesAsAttribute())
      if (auto dict = dyn_cast<DictionaryAttr>(props))
        segments = dict.getAs<DenseI32ArrayAttr>("operandSegmentSizes");
  if (segments && static_cast<size_t>(segments.size()) != compiled.operands.size())
    return std::nullopt;
  size_t singles = 0, open = 0, variadic = 0;
  for (const Decl &decl : compiled.operands) {
    singles += decl.kind == Decl::One;
    open += decl.kind != Decl::One;
    variadic += decl.kind == Decl::Variadic;
  }
  // Without segment sizes the printing ODS had one non-single group (or SameVariadicOperandSize): an optional group
  // next to a variadic one was added later (e.g. TLX's multicast mask on a Triton 3.6 TMA copy) and is absent.
  // The same holds for a variadic group a later version added (3.9's im2col `offsets` after `coord`): without
  // segment sizes the first variadic group takes every non-single operand and the later groups are absent.
  bool optionalAbsent = !segments && !compiled.sameVariadicSize && variadic > 0 && open > variadic;
  bool laterAbsent = !segments && !compiled.sameVariadicSize && variadic > 1;
  const Decl *firstVariadic = nullptr;
  for (const Decl &decl : compiled.operands)
    if (!firstVariadic && decl.kind == Decl::Variadic)
      firstVariadic = &decl;
  if (optionalAbsent)
    open = variadic;
  if (laterAbsent)
    open = 1;
  unsigned start = 0;
  for (size_t i = 0; i < compiled.operands.size(); ++i) {
    const Decl &decl = compiled.operands[i];
    unsigned size = 1;
    if (segments)
      size = segments[i];
    else if (decl.kind == Decl::Optional && optionalAbsent)
      size = 0;
    else if (decl.kind == Decl::Variadic && laterAbsent && &decl != firstVariadic)
      size = 0;
    else if (decl.kind != Decl::One) // the only non-single group, or equal groups (SameVariadicOperandSize)
      size = op->getNumOperands() >= singles ? (op->getNumOperands() - singles) / std::max<size_t>(open, 1) : 0;
    if (decl.name == group) {
      if (start + size > op->getNumOperands())
        return std::nullopt;
      return op->getOperands().slice(start, size);
    }
    start += size;
  }
  return std::nullopt;
}

} // namespace tlxsim::ir
