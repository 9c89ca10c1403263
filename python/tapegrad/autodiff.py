"""tf.autodiff: forward-mode differentiation (ForwardAccumulator) over the C++ accumulator."""
from tapegrad import _core
from tapegrad._nest import sequence_like
from tapegrad._autodiff.tape import GradientTape, UnconnectedGradients  # noqa: F401  (tf.autodiff.GradientTape)
from tapegrad._tensor.tensor import Tensor, convert_to_tensor

__all__ = ["ForwardAccumulator", "GradientTape"]


def _flatten(obj, out):
    if isinstance(obj, (list, tuple)):
        for item in obj:
            _flatten(item, out)
    elif isinstance(obj, dict):
        for key in obj:
            _flatten(obj[key], out)
    else:
        out.append(obj)
    return out


def _rebuild(like, it):
    if isinstance(like, (list, tuple)):
        return sequence_like(like, [_rebuild(item, it) for item in like])
    if isinstance(like, dict):
        return {key: _rebuild(like[key], it) for key in like}
    return next(it)


def _same_structure(a, b):
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b) and \
            all(_same_structure(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and \
            all(_same_structure(a[k], b[k]) for k in a)
    return True


class ForwardAccumulator:
    """Computes Jacobian-vector products by forward-mode autodiff (TF's ``tf.autodiff.ForwardAccumulator``).

    ``primals`` (a tensor, variable, or nested structure of them) are watched with the matching
    ``tangents``; every op run inside the ``with`` block whose inputs have tangents gets an output
    tangent at once, so ``jvp(y)`` is a lookup: ``J v`` for ``y = f(primals)``, ``v = tangents``.

    Accumulators nest with each other and with ``GradientTape`` in either order: the ops that
    compute tangents are recorded by tapes and pushed forward by outer accumulators. A
    forward-over-reverse Hessian-vector product:

    >>> x, v = tf.constant([1.0, 2.0]), tf.constant([1.0, 0.0])
    >>> with tf.autodiff.ForwardAccumulator(x, v) as acc:
    ...     with tf.GradientTape() as tape:
    ...         tape.watch(x)
    ...         y = tf.reduce_sum(x ** 3)
    ...     g = tape.gradient(y, x)
    >>> acc.jvp(g).numpy()          # H v = 6 x * v
    array([6., 0.], dtype=float32)

    Functions wrapped in ``custom_gradient`` (and ``recompute_grad``) are pushed forward through
    their gradient function, so a custom gradient is honoured in forward mode too.
    """

    def __init__(self, primals, tangents):
        if not _same_structure(primals, tangents):
            raise ValueError("ForwardAccumulator: primals and tangents must have the same nested structure")
        flat_p, flat_t = _flatten(primals, []), _flatten(tangents, [])
        self._acc = _core._Accumulator()
        for p, t in zip(flat_p, flat_t):
            if not isinstance(p, Tensor):
                raise TypeError("ForwardAccumulator: primals must be Tensors or Variables, got "
                                f"{type(p).__name__}")
            if not isinstance(t, Tensor):
                t = convert_to_tensor(t, dtype=p.dtype)
            self._acc.watch(p, t)

    def __enter__(self):
        self._acc.push()
        return self

    def __exit__(self, *exc):
        self._acc.pop()

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The tangent of each tensor in ``primals`` (same nested structure).

        A tensor that does not depend on the watched primals gets None, or zeros with
        ``unconnected_gradients=tf.UnconnectedGradients.ZERO``.
        """
        zero = _wants_zero(unconnected_gradients)
        out = []
        for p in _flatten(primals, []):
            if not isinstance(p, Tensor):
                raise TypeError(f"ForwardAccumulator.jvp: expected Tensors, got {type(p).__name__}")
            t = self._acc.tangent(p)
            if t is None and zero:
                t = _core.fill(list(p._shape), 0.0, p._dtype)
            out.append(t)
        return _rebuild(primals, iter(out))


def _wants_zero(u):
    value = getattr(u, "value", u)
    if value in ("none", None):
        return False
    if value == "zero":
        return True
    raise ValueError(f"unconnected_gradients must be UnconnectedGradients.NONE or ZERO, got {u!r}")
