"""FunctionType: a concrete function's signature as TF shows it, an ``inspect.Signature`` whose parameters'
annotations are their TraceTypes and whose return annotation is the output's; and ``inference_fn``.

str() is the one-line form ``(x: TensorSpec(...), n: Literal[3]) -> TensorSpec(...)``; repr() is TF's
``pretty_printed_signature()`` text (Input Parameters, Output Type, Captures).
"""
import inspect

from tapegrad._function.trace_type import Dict, List, Literal, NamedTuple, Tuple, TraceType, trace_type_of
from tapegrad._tensor.tensor import Tensor, TensorSpec, convert_to_tensor

__all__ = ["FunctionType", "Parameter", "InferenceFunction", "VariableCapture"]


class Parameter(inspect.Parameter):
    """One parameter: ``name``, ``kind``, ``optional`` and ``type_constraint`` (its TraceType)."""

    def __init__(self, name, kind, optional, type_constraint):
        super().__init__(name, kind, default=None if optional else inspect.Parameter.empty,
                         annotation=inspect.Parameter.empty if type_constraint is None else type_constraint)

    @property
    def optional(self):
        return self.default is not inspect.Parameter.empty

    @property
    def type_constraint(self):
        return None if self.annotation is inspect.Parameter.empty else self.annotation

    def __repr__(self):
        return (f"Parameter(name={self.name}, kind={self.kind.name}, optional={self.optional}, "
                f"type_constraint={self.type_constraint!r})")


class VariableCapture(TraceType):
    """A variable the graph reads or assigns: a resource handle, as TF lists it under Captures."""

    def __init__(self, variable):
        self.id = id(variable)

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context):
        raise NotImplementedError("a captured variable has no placeholder value")

    def __eq__(self, other):
        return type(other) is VariableCapture and other.id == self.id

    def __hash__(self):
        return self.id

    def __repr__(self):
        return "TensorSpec(shape=(), dtype=tf.resource, name=None)"


class FunctionType(inspect.Signature):
    """The parameters (with TraceTypes), the output's TraceType (``output``) and ``captures`` (id -> type)."""

    def __init__(self, parameters, captures=None, **kwargs):
        super().__init__(parameters, **kwargs)
        self._captures = dict(captures or {})

    @property
    def output(self):
        return self.return_annotation

    @property
    def captures(self):
        return dict(self._captures)

    def __repr__(self):
        lines = ["Input Parameters:"]
        lines.extend(f"  {p.name} ({p.kind.name}): {p.type_constraint!r}" for p in self.parameters.values())
        lines += ["Output Type:", f"  {self.output!r}", "Captures:"]
        lines.extend(f"  {k}: {v!r}" for k, v in self._captures.items())
        if not self._captures:
            lines.append("  None")
        return "\n".join(lines)


def parameters_of(structured):
    """FunctionType parameters from [(name, kind name, TraceType)]: as TF, a ``*args`` parameter becomes one
    positional-only parameter per value ("args_0", ...), every positional one positional-only with it, and
    a ``**kwargs`` parameter one keyword-only parameter per key."""
    var_positional = any(kind == "VAR_POSITIONAL" for _, kind, _ in structured)
    out = []
    for name, kind, t in structured:
        if kind == "VAR_POSITIONAL":
            out.extend(Parameter(f"{name}_{i}", Parameter.POSITIONAL_ONLY, False, c)
                       for i, c in enumerate(t.components))
        elif kind == "VAR_KEYWORD":
            out.extend(Parameter(k, Parameter.KEYWORD_ONLY, False, c) for k, c in zip(t.keys, t.components))
        elif var_positional and kind == "POSITIONAL_OR_KEYWORD":
            out.append(Parameter(name, Parameter.POSITIONAL_ONLY, False, t))
        else:
            out.append(Parameter(name, getattr(Parameter, kind), False, t))
    return out


def flatten_to_type(value, t, where):
    """The tensors of ``value`` where ``t`` has a TensorSpec, checking that its Python values equal t's."""
    if isinstance(t, TensorSpec):
        return [value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=t.dtype)]
    if isinstance(t, Literal):
        if Literal(value) != t:
            raise TypeError(f"{where}: expected {t!r}, got {value!r}")
        return []
    if isinstance(t, Dict):
        if not isinstance(value, dict) or set(value) != set(t.keys):
            raise TypeError(f"{where}: expected a dict with keys {list(t.keys)}, got {value!r}")
        types = dict(zip(t.keys, t.components))
        return [x for k in _sorted(types) for x in flatten_to_type(value[k], types[k], f"{where}[{k!r}]")]
    if isinstance(t, (List, Tuple, NamedTuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(t.components):
            raise TypeError(f"{where}: expected {len(t.components)} items ({t!r}), got {value!r}")
        return [x for i, (v, c) in enumerate(zip(value, t.components)) for x in flatten_to_type(v, c, f"{where}[{i}]")]
    if trace_type_of(value) != t:
        raise TypeError(f"{where}: expected a value of {t!r}, got {value!r}")
    return []


def _sorted(d):
    """The order the placeholders of a dict's tensors were made in (signature._sorted_keys)."""
    try:
        return sorted(d)
    except TypeError:
        return list(d)


class InferenceFunction:
    """``ConcreteFunction.inference_fn``: the traced graph called with every parameter of its FunctionType
    (Python ones must equal the traced values); ``call_flat`` takes the tensor inputs alone."""

    def __init__(self, cf):
        self._cf = cf

    @property
    def name(self):
        return self.cached_definition.signature.name.encode()

    @property
    def function_type(self):
        return self._cf.function_type

    @property
    def cached_definition(self):
        return self._cf.function_def

    @property
    def definition(self):
        return self._cf.function_def

    @property
    def graph(self):
        return self._cf.graph

    def call_flat(self, *tensors):
        return self._cf(*tensors)

    def __call__(self, *args, **kwargs):
        ft = self.function_type
        bound = ft.bind(*args, **kwargs)
        flat = [x for name, value in bound.arguments.items()
                for x in flatten_to_type(value, ft.parameters[name].type_constraint, name)]
        return self._cf(*flat)

    def __repr__(self):
        return f"<AtomicFunction> {self.cached_definition.signature.name}{self.function_type}"
