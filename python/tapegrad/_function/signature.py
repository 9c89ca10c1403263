"""Call signatures of a tf.function: cache keys, readable descriptions and why a call retraced."""
import inspect

import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._function.trace_type import PlaceholderContext, tracing_type
from tapegrad._nest import sequence_like
from tapegrad._ops.array.creation import ones, zeros
from tapegrad._tensor.string_tensor import StringTensor
from tapegrad._tensor.tensor import Tensor, TensorShape, convert_to_tensor

_SIMPLE = (type(None), bool, int, float, str)

# Note [String arguments]: TF makes a string tensor argument a graph input, so a new string does not
# trace again. tapegrad's string tensors live in Python (_tensor/string_tensor.py) and the C++ tracer
# records only C++ tensors: a placeholder cannot hold strings and the tf.strings ops are not graph
# nodes, so a trace bakes the string in. The key therefore holds the string's value: an equal string
# reuses the graph, another one traces again (the report names it), and no graph ever serves a string
# it was not traced with.


class Call:
    """One call, canonicalised: the arguments bound to parameter names and flattened.

    ``key`` identifies the graph to use (tensor dtypes and shapes, variables by identity,
    Python values by value, an object whose class defines ``__tf_tracing_type__`` by the TraceType
    it returns, string tensors by value: Note [String arguments]); ``erased`` is the key with tensor
    shapes reduced to ranks (calls that could share a relaxed graph); ``tensors`` are the
    placeholders in order, ``paths`` their argument names; ``desc`` maps each argument path to a
    descriptor for reports; ``trace_types`` maps id(argument) to its TraceType.
    """

    __slots__ = ("args", "kwargs", "bound", "key", "erased", "tensors", "paths", "desc", "simple", "trace_types")

    def __init__(self, args, kwargs):
        self.args, self.kwargs = args, kwargs
        self.tensors, self.paths, self.desc, self.trace_types = [], [], {}, {}
        self.simple = not kwargs


def bind(pyfunc_signature, args, kwargs):
    """Names each argument as the Python function's parameters do: (BoundArguments, [(name, value)])."""
    if pyfunc_signature is None:
        return None, [(f"arg{i}", a) for i, a in enumerate(args)] + sorted(kwargs.items())
    bound = pyfunc_signature.bind(*args, **kwargs)
    bound.apply_defaults()
    named = []
    for name, value in bound.arguments.items():
        kind = pyfunc_signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            named.extend((f"{name}[{i}]", v) for i, v in enumerate(value))
        elif kind is inspect.Parameter.VAR_KEYWORD:
            named.extend((f"{name}[{k!r}]", v) for k, v in sorted(value.items()))
        else:
            named.append((name, value))
    return bound, named


def make_call(pyfunc_signature, args, kwargs, input_signature=None):
    """Canonicalises a call into a Call (converting arguments to the input_signature's specs)."""
    if input_signature is not None:
        args = _apply_input_signature(pyfunc_signature, input_signature, args, kwargs)
        kwargs = {}
    call = Call(args, kwargs)
    call.bound, named = bind(pyfunc_signature, args, kwargs)
    key = tuple((name, _key(value, name, call)) for name, value in named)
    call.key = key
    call.erased = _erase(key)
    return call


def _key(value, path, call):
    if isinstance(value, np.ndarray):
        value = convert_to_tensor(value)
    if isinstance(value, Tensor):
        if value._is_variable:
            call.desc[path] = ("variable", getattr(value, "name", "?"), id(value))
            return ("V", id(value))
        call.tensors.append(value)
        call.paths.append(path)
        call.desc[path] = ("tensor", value.dtype.name, tuple(value._shape))
        return ("T", value._dtype, tuple(value._shape))
    if isinstance(value, StringTensor):
        call.simple = False
        call.desc[path] = ("string", tuple(value._shape), _short_repr(value.numpy()))
        return ("S", tuple(value._shape), tuple(value._value.reshape(-1).tolist()))
    traced_as = tracing_type(value)
    if traced_as is not None:
        call.simple = False
        call.trace_types[id(value)] = traced_as
        call.desc[path] = ("traced type", type(value).__name__, _short_repr(traced_as))
        return ("TT", traced_as)
    if isinstance(value, (list, tuple)):
        call.simple = False
        items = tuple(_key(v, f"{path}[{i}]", call) for i, v in enumerate(value))
        return (type(value).__name__, items)
    if isinstance(value, dict):
        call.simple = False
        return ("dict", tuple((k, _key(value[k], f"{path}[{k!r}]", call)) for k in _sorted_keys(value)))
    if isinstance(value, _SIMPLE) or isinstance(value, dtypes.DType):
        call.desc[path] = ("python", type(value).__name__, repr(value))
        return ("P", type(value).__name__, value)
    call.simple = False
    try:
        hash(value)
    except TypeError:
        call.desc[path] = ("object", type(value).__name__, id(value))
        return ("O", id(value))
    call.desc[path] = ("python", type(value).__name__, _short_repr(value))
    return ("P", type(value).__name__, value)


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _short_repr(v):
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def _erase(key):
    """The key with every tensor's shape replaced by its rank."""
    if isinstance(key, tuple):
        if len(key) == 3 and key[0] == "T":
            return ("T", key[1], len(key[2]))
        return tuple(_erase(k) for k in key)
    return key


def example_tensor(shape, spec):
    """What get_concrete_function traces a TensorSpec with: ones (zeros for integers) of shape. A string
    spec is refused: a string is traced by its value (Note [String arguments]), so no graph serves them all."""
    if spec.dtype == dtypes.string:
        raise errors.UnimplementedError(None, None, f"get_concrete_function: {spec}: a string tensor argument is "
                                                    "traced with its value, so no graph serves every string; pass "
                                                    "the string itself")
    return ones(shape, spec.dtype) if spec.dtype.is_floating else zeros(shape, spec.dtype)


def _apply_input_signature(pyfunc_signature, specs, args, kwargs):
    """The call's arguments as tensors in the order of ``specs``; a call that does not fit raises
    TypeError in TF's words ("Binding inputs to tf.function failed due to ...")."""
    names = _spec_names(pyfunc_signature, specs)
    try:
        values = _bind_to_specs(names, specs, args, kwargs)
        return tuple(_cast_to_spec(v, spec) for v, spec in zip(values, specs))
    except TypeError as e:
        listed = ", ".join(f"{n}: {spec}" for n, spec in zip(names, specs))
        raise TypeError(f"Binding inputs to tf.function failed due to `{e}`. Received args: {args!r} and "
                        f"kwargs: {kwargs!r} for signature: ({listed}).") from None


def _spec_names(pyfunc_signature, specs):
    params = [] if pyfunc_signature is None else [
        p.name for p in pyfunc_signature.parameters.values()
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    return [params[i] if i < len(params) else f"arg{i}" for i in range(len(specs))]


def _bind_to_specs(names, specs, args, kwargs):
    if len(args) > len(specs):
        raise TypeError("too many positional arguments")
    values = list(args) + [None] * (len(specs) - len(args))
    given = [True] * len(args) + [False] * (len(specs) - len(args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"got an unexpected keyword argument '{k}'")
        i = names.index(k)
        if given[i]:
            raise TypeError(f"multiple values for argument '{k}'")
        values[i], given[i] = v, True
    missing = [n for n, g in zip(names, given) if not g]
    if missing:
        raise TypeError(f"missing a required argument: '{missing[0]}'")
    return values


def _cast_to_spec(value, spec):
    if isinstance(value, Tensor):
        t = value
    else:
        try:
            t = convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Can not cast {value!r} to {spec}: {e}") from None
    if t.dtype != spec.dtype or not spec.shape.is_compatible_with(t.shape):
        raise TypeError(f"Can not cast {type(spec)(t.shape, t.dtype)} to {spec}")
    return t


def _show(d):
    kind = d[0]
    if kind == "tensor":
        return f"tensor {d[1]}{_shape_text(d[2])}"
    if kind == "variable":
        return f"variable {d[1]}"
    if kind == "python":
        return f"Python {d[1]} {d[2]}"
    if kind == "string":
        return f"string tensor {d[2]}"
    if kind == "traced type":
        return f"{d[1]} of TraceType {d[2]}"
    return f"{d[1]} object at {hex(d[2])}"


def _shape_text(shape):
    return str(TensorShape(shape))


def differences(old, new):
    """How call descriptor ``new`` differs from ``old``: [(path, category, text)]."""
    out = []
    for path, b in new.items():
        a = old.get(path)
        if a is None:
            out.append((path, "structure", f"{path}: new argument ({_show(b)})"))
        elif a != b:
            if a[0] == b[0] == "tensor":
                if a[1] != b[1]:
                    out.append((path, "dtype", f"{path}: dtype {a[1]} -> {b[1]}"))
                if a[2] != b[2]:
                    cat = "rank" if len(a[2]) != len(b[2]) else "shape"
                    out.append((path, cat, f"{path}: shape {_shape_text(a[2])} -> {_shape_text(b[2])}"))
            elif a[0] == b[0] == "python" and a[1] == b[1]:
                out.append((path, "Python value", f"{path}: Python value {a[2]} -> {b[2]}"))
            elif a[0] == b[0] == "string":
                out.append((path, "string value", f"{path}: string value {a[2]} -> {b[2]}"))
            elif a[0] == b[0] == "traced type" and a[1] == b[1]:
                out.append((path, "TraceType", f"{path}: TraceType {a[2]} -> {b[2]}"))
            elif a[0] == b[0] == "variable":
                out.append((path, "variable", f"{path}: a different variable ({a[1]} -> {b[1]})"))
            else:
                out.append((path, "type", f"{path}: {_show(a)} -> {_show(b)}"))
    for path, a in old.items():
        if path not in new:
            out.append((path, "structure", f"{path}: no longer passed (was {_show(a)})"))
    return out


def describe(desc):
    """``x=tensor float32(2,), n=Python int 3``."""
    return ", ".join(f"{p}={_show(d)}" for p, d in desc.items()) or "no arguments"


def merge_shapes(old_shapes, new_shapes):
    """Per placeholder, the dims on which old and new agree (None where they differ)."""
    return [tuple(a if a == b else None for a, b in zip(o, n)) for o, n in zip(old_shapes, new_shapes)]


def shapes_fit(relaxed, shapes):
    return all(len(r) == len(s) and all(a is None or a == b for a, b in zip(r, s)) for r, s in zip(relaxed, shapes))


def traced_arguments(call):
    """The arguments the traced function receives: each tensor replaced by a new view of it.

    A view has its own id, so the tracer tells an argument apart from a captured tensor that
    happens to be the same object, and two arguments that are the same tensor from each other.
    Returns (args, kwargs, views) with views in placeholder order.
    """
    views = [_core._fresh_view(t) for t in call.tensors]
    it, types = iter(views), call.trace_types
    if call.bound is None:
        args = tuple(_subst(a, it, types) for a in call.args)
        kwargs = {k: _subst(call.kwargs[k], it, types) for k in sorted(call.kwargs)}
        return args, kwargs, views
    bound = call.bound
    params = bound.signature.parameters
    for name, value in list(bound.arguments.items()):
        kind = params[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            bound.arguments[name] = tuple(_subst(v, it, types) for v in value)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            bound.arguments[name] = {k: _subst(value[k], it, types) for k in sorted(value)}
        else:
            bound.arguments[name] = _subst(value, it, types)
    return bound.args, bound.kwargs, views


def _subst(value, it, trace_types):
    """Mirrors _key's traversal order, handing out the next view for each tensor and the placeholder
    value of its TraceType for an argument keyed by ``__tf_tracing_type__`` (what TF traces with)."""
    if isinstance(value, np.ndarray) or (isinstance(value, Tensor) and not value._is_variable):
        return next(it)
    if id(value) in trace_types:
        traced_as = trace_types[id(value)]
        placeholder = traced_as.placeholder_value(PlaceholderContext())
        if not isinstance(placeholder, (*_SIMPLE, bytes, tuple)):  # (shared objects: an id says nothing)
            trace_types[id(placeholder)] = traced_as  # the concrete function shows the TraceType for it
        return placeholder
    if isinstance(value, (list, tuple)):
        return sequence_like(value, [_subst(v, it, trace_types) for v in value])
    if isinstance(value, dict):
        return {k: _subst(value[k], it, trace_types) for k in _sorted_keys(value)}
    return value
