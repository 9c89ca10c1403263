"""custom_gradient: a Python function recorded as one tape entry with a Python gradient rule."""
import functools
import inspect

from tapegrad import _core
from tapegrad._nest import flatten, pack_sequence_as
from tapegrad._tensor.tensor import Tensor, convert_to_tensor
from tapegrad._ops import _raw

__all__ = ["custom_gradient"]


def _accepts_variables(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind == p.VAR_KEYWORD for p in params)


def custom_gradient(f=None):
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``grad_fn(*dy)`` returns the gradients of x.

    If ``f`` reads trainable variables, ``grad_fn(*dy, variables=None)`` must return
    ``(grads_of_x, grads_of_variables)``. ``f`` runs once, unrecorded; the tape records a single
    entry whose gradient is ``grad_fn``, so nested tapes differentiate ``grad_fn`` itself.

    >>> @tf.custom_gradient
    ... def log1pexp(x):
    ...     e = tf.exp(x)
    ...     def grad(dy):
    ...         return dy * (1 - 1 / (1 + e))
    ...     return tf.math.log(1 + e), grad
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if kwargs:
            raise TypeError(f"custom_gradient: {f.__name__} got keyword arguments {sorted(kwargs)}; "
                            "pass tensors positionally (TF's custom_gradient does not support keyword arguments)")
        inputs = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in args]
        with _core._PauseAllTapes(), _core._PauseAccumulators(), _Watch() as watch:
            result = f(*inputs)
        if not isinstance(result, tuple) or len(result) != 2 or not callable(result[1]):
            raise TypeError(f"custom_gradient: {f.__name__} must return (outputs, grad_fn)")
        y, grad_fn = result
        variables = [v for v in watch.variables if not any(v is i for i in inputs)]
        if variables and not _accepts_variables(grad_fn):
            raise TypeError(f"custom_gradient: {f.__name__} reads variables "
                            f"{[getattr(v, 'name', '?') for v in variables]} but its grad_fn does not accept "
                            "a `variables` keyword argument")
        outputs = [_raw.Identity(t) for t in flatten(y)]
        n_in = len(inputs)

        def rule(out_grads):
            if variables:
                grads, var_grads = grad_fn(*out_grads, variables=variables)
            else:
                grads, var_grads = grad_fn(*out_grads), []
            grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
            if len(grads) != n_in:
                raise _core.InvalidArgumentError(
                    f"custom_gradient: the grad_fn of {f.__name__} returned {len(grads)} gradients for "
                    f"{n_in} inputs")
            return grads + list(var_grads or [None] * len(variables))

        _core.record_custom(inputs + variables, outputs, rule)
        _core.forward_custom(inputs + variables, outputs, rule)  # forward mode: tangents through grad_fn
        return pack_sequence_as(y, outputs)

    return wrapped


class _Watch:
    """Collects the trainable variables read while active."""

    def __enter__(self):
        self._watcher = _core._VariableWatcher()
        self._watcher.__enter__()
        return self

    def __exit__(self, *exc):
        self.variables = self._watcher.variables()
        self._watcher.__exit__(*exc)
