"""Trace types: how tf.function sees each argument of a trace (tf.types.experimental.TraceType).

A tensor argument is its TensorSpec; a Python value is a Literal; lists, tuples, namedtuples and
dicts are types of their items; any other object is a Weakref (known by identity) unless its class
defines ``__tf_tracing_type__(self, context)``, whose TraceType then stands for it: calls whose
TraceTypes are equal share a trace, and the trace runs on that TraceType's ``placeholder_value``.
"""
import abc
import weakref

from tapegrad._tensor.string_tensor import StringTensor
from tapegrad._tensor.tensor import TensorSpec

__all__ = ["TraceType", "Literal", "List", "Tuple", "NamedTuple", "Dict", "Weakref", "TracingContext",
           "PlaceholderContext", "trace_type_of", "tracing_type"]


class TraceType(abc.ABC):
    """What a tf.function's trace knows of one argument. Subclasses define equality (equal types share a
    trace), is_subtype_of, most_specific_common_supertype and placeholder_value (what the trace runs on)."""

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """Whether every value of this type is also a value of ``other``."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type that self and each of ``others`` are subtypes of, or None."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context):
        """The value a trace for this type receives in place of the argument."""

    def to_tensors(self, value):
        """The tensors of ``value`` that become graph inputs (none by default)."""
        return []

    def from_tensors(self, tensors):
        """A value of this type rebuilt from its graph inputs (by default, the placeholder value)."""
        return self.placeholder_value(PlaceholderContext(unnest_only=True))

    def flatten(self):
        """The TraceTypes of the tensors to_tensors gives (none by default)."""
        return []

    def cast(self, value, cast_context):
        """``value`` converted to this type; by default nothing converts."""
        raise AssertionError(f"Can not cast {value!r} to type {self!r}")

    @abc.abstractmethod
    def __eq__(self, other):
        ...

    @abc.abstractmethod
    def __hash__(self):
        ...


class TracingContext:
    """Passed to ``__tf_tracing_type__``: the call being keyed."""


class PlaceholderContext:
    """Passed to ``placeholder_value``: the trace being built."""

    def __init__(self, unnest_only=False):
        self.unnest_only = unnest_only


class Literal(TraceType):
    """A Python value (None, bool, int, float, str, ...): only an equal value shares the trace. A string
    tensor is one too (Note [String arguments] in signature.py)."""

    def __init__(self, value):
        self.value = value

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context):
        return self.value

    def cast(self, value, cast_context):
        if Literal(value) == self:
            return value
        return super().cast(value, cast_context)

    def _identity(self):
        v = self.value
        return (tuple(v._shape), tuple(v._value.reshape(-1).tolist())) if isinstance(v, StringTensor) else v

    def __eq__(self, other):
        return (type(other) is Literal and type(other.value) is type(self.value)
                and other._identity() == self._identity())

    def __hash__(self):
        return hash((type(self.value), self._identity()))

    def __repr__(self):
        return f"Literal[{self.value!r}]"


class _Components(TraceType):
    """A container's type: the types of its items, equal when they are all equal."""

    def __init__(self, *components):
        self.components = tuple(components)

    def is_subtype_of(self, other):
        return (type(other) is type(self) and len(other.components) == len(self.components)
                and all(_is_subtype(a, b) for a, b in zip(self.components, other.components)))

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context):
        return self._build([_placeholder(c, placeholder_context) for c in self.components])

    def __eq__(self, other):
        return type(other) is type(self) and other._identity() == self._identity()

    def __hash__(self):
        return hash((type(self).__name__, self._identity()))

    def _identity(self):
        return self.components

    def __repr__(self):
        return f"{type(self).__name__}[{', '.join(map(repr, self.components))}]"


class List(_Components):
    def _build(self, items):
        return list(items)


class Tuple(_Components):
    def _build(self, items):
        return tuple(items)


class NamedTuple(_Components):
    """A namedtuple's type: its class and its fields' types, shown as ``P[['a', ...], ['b', ...]]``."""

    def __init__(self, cls, components):
        super().__init__(*components)
        self.cls = cls

    def _identity(self):
        return self.cls, self.components

    def _build(self, items):
        return self.cls(*items)

    def __repr__(self):
        fields = ", ".join(f"[{f!r}, {c!r}]" for f, c in zip(self.cls._fields, self.components))
        return f"{self.cls.__name__}[{fields}]"


class Dict(_Components):
    """A dict's type: its keys and their values' types, in the dict's order."""

    def __init__(self, mapping):
        super().__init__(*mapping.values())
        self.keys = tuple(mapping)

    def _identity(self):
        return tuple(sorted(zip(self.keys, self.components), key=lambda kv: repr(kv[0])))

    def _build(self, items):
        return dict(zip(self.keys, items))

    def __repr__(self):
        return "Dict[" + ", ".join(f"[{k!r}, {c!r}]" for k, c in zip(self.keys, self.components)) + "]"


class Weakref(TraceType):
    """Any other object: known by identity (a weak reference where the object allows one)."""

    def __init__(self, obj):
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.ref = None
            self._obj = obj
        self.id = id(obj)

    def _value(self):
        return self._obj if self.ref is None else self.ref()

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context):
        return self._value()

    def __eq__(self, other):
        return type(other) is Weakref and other.id == self.id and other._value() is self._value()

    def __hash__(self):
        return self.id

    def __repr__(self):
        return f"Weakref[{self.ref!r}]" if self.ref is not None else f"Weakref[{type(self._obj).__name__}]"


def _is_subtype(a, b):
    if isinstance(a, TensorSpec):
        return isinstance(b, TensorSpec) and a.dtype == b.dtype and b.shape.is_compatible_with(a.shape) and (
            b.shape.rank is None or all(d2 is None or d1 == d2 for d1, d2 in zip(a.shape, b.shape)))
    return a.is_subtype_of(b)


def _placeholder(t, context):
    return t if isinstance(t, TensorSpec) else t.placeholder_value(context)


def tracing_type(value):
    """The TraceType ``value``'s ``__tf_tracing_type__`` gives, or None when its class has none; TF's
    TypeError when the protocol returns something else."""
    protocol = getattr(type(value), "__tf_tracing_type__", None)
    if protocol is None:
        return None
    result = value.__tf_tracing_type__(TracingContext())
    if not isinstance(result, TraceType):
        raise TypeError(f"Expected an instance of TraceType for Tracing Protocol call to {value!r} but got {result!r}")
    return result


def trace_type_of(value):
    """The TraceType shown for a bound argument whose tensors are TensorSpecs already (TensorSpecs stay
    themselves, unnamed, as TF prints them)."""
    if isinstance(value, TensorSpec):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, TraceType):
        return value
    custom = tracing_type(value)
    if custom is not None:
        return custom
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return NamedTuple(type(value), [trace_type_of(v) for v in value])
    if isinstance(value, list):
        return List(*[trace_type_of(v) for v in value])
    if isinstance(value, tuple):
        return Tuple(*[trace_type_of(v) for v in value])
    if isinstance(value, dict):
        return Dict({k: trace_type_of(v) for k, v in value.items()})
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, StringTensor)):
        return Literal(value)
    return Weakref(value)
