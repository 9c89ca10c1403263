"""Python inside graphs and questions about them: py_function, numpy_function, identity_n,
get_static_value, no_gradient, executing_eagerly.

Eagerly py_function just calls func under the current tapes, so gradients flow through the ops it
runs. Inside a tf.function it becomes a host call whose results later ops read (Note [Host calls
with results] in cpp/graph/trace.h): func runs at every call of the graph. While tracing, func runs
on a worker thread, which no tracer watches, so its ops are not recorded beside the node.
"""
import concurrent.futures

import numpy as np

from tapegrad import _core, errors
from tapegrad._autodiff.register_gradient import _unbound_rules
from tapegrad._function.host_call import fresh
from tapegrad._function.trace_context import current_trace
from tapegrad._tensor.tensor import Tensor, convert_to_tensor, identity
from tapegrad.dtypes import as_dtype
from tapegrad.errors import InvalidArgumentError

__all__ = ["py_function", "numpy_function", "identity_n", "get_static_value", "no_gradient", "executing_eagerly"]

_worker = None  # made on first use: a thread with no trace


def _untraced(fn, *args):
    global _worker
    if _worker is None:
        _worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="tapegrad-py-function")
    return _worker.submit(fn, *args).result()


def executing_eagerly():
    """False while a tf.function is being traced (its Python runs to build a graph), else True."""
    return not _core._tracing()


def _missing_tout(api):
    return TypeError(f"Missing required argument: 'Tout'\n  If using tf.{api} as a decorator, set `Tout`\n"
                     f"  **by name** above the function:\n  `@tf.{api}(Tout=tout)`")


def _calling(func, args, api):
    """func(*args), with an exception raised in it as TF gives it: InvalidArgumentError "ValueError: ..."
    (an OpError stays as it is; StopIteration is OutOfRangeError, the end of a dataset's generator)."""
    try:
        return func(*args)
    except errors.OpError:
        raise
    except StopIteration as e:
        raise errors.OutOfRangeError(None, None, f"{api}: StopIteration: {e}") from e
    except Exception as e:  # noqa: BLE001 -- re-raised as TF's class, the original as its cause
        raise InvalidArgumentError(f"{type(e).__name__}: {e}") from e


def _results(out, Tout, convert):
    """func's result as Tout says: one tensor for a dtype, a list for a list of dtypes."""
    if isinstance(Tout, (list, tuple)):
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        return [convert(v, as_dtype(d)) for v, d in zip(out, Tout)]
    return convert(out, as_dtype(Tout))


def _graph_call(fn, inp, Tout, api):
    """fn(list of tensors) -> results as Tout says, recorded as a host call of the graph being traced."""
    trace = current_trace()
    if api == "EagerPyFunc" and _core.should_record(list(inp)):
        # A host call is not differentiable in a graph: a tape would silently get no gradient.
        raise errors.UnimplementedError(None, None, "py_function inside tf.function: a gradient through it is not "
                                                    "supported (its inputs are watched by a GradientTape); call it "
                                                    "outside the tf.function or compute the gradient in func itself")
    # A dry trace holds made-up values: fn runs on them only to learn the results' shapes.
    outs = _untraced(fn, inp)
    flat = list(outs) if isinstance(Tout, (list, tuple)) else [outs]
    if trace is not None and trace.dry:
        flat = [fresh(t.shape, t.dtype.code) for t in flat]

    def run(values):
        got = fn(values)
        return list(got) if isinstance(Tout, (list, tuple)) else [got]

    _core._record_host_call(run, inp, api, flat)
    return flat if isinstance(Tout, (list, tuple)) else flat[0]


def _decorator(api, Tout, **kwargs):
    if Tout is None:
        raise _missing_tout(api)
    call = py_function if api == "py_function" else numpy_function
    return lambda func: lambda *args: call(func, list(args), Tout, **kwargs)


def _to_tensor(value, dtype):
    if isinstance(value, Tensor):
        if value.dtype != dtype:
            raise InvalidArgumentError(
                f"py_function: ValueError: Tensor conversion requested dtype {dtype.name} for Tensor with "
                f"dtype {value.dtype.name}: {value!r}")
        return value
    return convert_to_tensor(value, dtype=dtype)


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803 -- TF's argument name
    """Runs ``func`` (tensors in, tensors out) eagerly, also inside a tf.function at every call.

    Tout: a dtype (one tensor returned) or a list of dtypes (a list returned). Eager gradients flow
    through the ops func runs.

    >>> tf.py_function(lambda a: a * 2, [tf.constant(1.0)], tf.float32)
    """
    if func is None:
        return _decorator("py_function", Tout)
    if Tout is None:
        raise _missing_tout("py_function")
    inp = [convert_to_tensor(x) for x in (inp or [])]

    def fn(values):
        return _results(_calling(func, values, "py_function"), Tout, _to_tensor)

    return _graph_call(fn, inp, Tout, "EagerPyFunc") if _core._tracing() else fn(inp)


def _np_to_tensor(value, dtype, in_graph):
    a = np.asarray(value)
    if isinstance(value, np.ndarray) and a.dtype != dtype.as_numpy_dtype:
        if in_graph:  # the graph's later ops were traced for Tout's dtypes
            raise InvalidArgumentError(f"0-th value returned by pyfunc_0 is {a.dtype}, but expects {dtype.name}")
        return convert_to_tensor(a)  # eagerly TF returns an array of another dtype as it is
    return convert_to_tensor(a.astype(dtype.as_numpy_dtype, copy=False))


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803 -- TF's name
    """Like py_function, but ``func`` takes and returns NumPy arrays; no gradient flows through it.

    >>> tf.numpy_function(lambda a: np.sort(a), [tf.constant([3, 1, 2])], tf.int32)
    """
    if func is None:
        return _decorator("numpy_function", Tout, stateful=stateful)
    if Tout is None:
        raise _missing_tout("numpy_function")
    inp = [convert_to_tensor(x) for x in (inp or [])]
    tracing = _core._tracing()

    def fn(values):
        arrays = [v._numpy_unchecked() for v in values]
        return _results(_calling(func, arrays, "numpy_function"), Tout, lambda v, d: _np_to_tensor(v, d, tracing))

    return _graph_call(fn, inp, Tout, "PyFunc") if tracing else fn(inp)


def identity_n(input, name=None):  # noqa: A002 -- TF's argument name
    """A list with the identity of every tensor in ``input`` (gradients pass through each)."""
    if not isinstance(input, (list, tuple)):
        raise TypeError(f"identity_n(): argument 'input' must be a list of tensors, got {type(input).__name__}")
    return [identity(x) for x in input]


def get_static_value(tensor, partial=False):
    """The NumPy value of ``tensor`` if it is known without running a graph, else None: eager tensors
    and constants of a trace have one; values computed from a traced function's arguments do not."""
    if not isinstance(tensor, Tensor):
        return tensor
    if tensor._is_variable or _core._is_traced(tensor):
        return None
    return tensor.numpy()


_no_gradient_ops = set()  # op types declared to have no gradient (no op of ours runs under these names)


def no_gradient(op_type):
    """Declares that ops of type ``op_type`` have no gradient. An op type with a gradient already
    (every built-in op, a RegisterGradient name, an earlier no_gradient) raises KeyError, as TF."""
    if not isinstance(op_type, str):
        raise TypeError(f"no_gradient(): argument 'op_type' must be a string, got {type(op_type).__name__}")
    if op_type in _no_gradient_ops or op_type in _unbound_rules or op_type in _core.registered_ops():
        raise KeyError(f"Registering two gradient with name '{op_type}'! (Previous registration was in the "
                       "tapegrad gradient registry)")
    _no_gradient_ops.add(op_type)
