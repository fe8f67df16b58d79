"""What Triton's launch binder specialized, by argument name.

Triton's binder reports argument attributes and constexprs keyed by argument *position* (tuples whose first item
is the index into the kernel's signature). ``kernel_module.Specialization`` and ``launch_capture.Launch`` both turn
them into launch.json's by-name dictionaries with these two functions.
"""


def attribute_by_name(signature, attrs: dict, attr: str) -> dict:
    """One argument attribute (``tt.divisibility``, ``tt.pointer_range``) by argument name, where present."""
    names = list(signature)
    out = {}
    for (index, *_), pairs in attrs.items():
        for key, value in pairs:
            if key == attr:
                out[names[index]] = value
    return out


def constexprs_by_name(signature, constexprs: dict) -> dict:
    """Every constexpr by argument name (the config's, defaults, and what the JIT specialized)."""
    names = list(signature)
    return {names[index]: value for (index, *_), value in constexprs.items()}
