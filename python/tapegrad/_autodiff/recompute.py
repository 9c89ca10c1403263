"""recompute_grad: keep only a function's inputs on the tape and re-run it in the backward sweep."""
import functools

from tapegrad._autodiff.custom_gradient import custom_gradient
from tapegrad._nest import flatten as _flat
from tapegrad._autodiff.tape import GradientTape

__all__ = ["recompute_grad"]


def recompute_grad(f):
    """Wraps ``f`` so its intermediate values are recomputed during backprop instead of stored.

    The forward pass runs ``f`` unrecorded: the tape holds one entry with ``f``'s inputs (and the
    variables it reads) and outputs. The gradient re-runs ``f`` under a fresh tape inside the
    backward sweep and differentiates that, trading one extra forward pass for the memory of
    every intermediate. Gradients equal those of ``f``, including nested tapes (higher order),
    variables read by ``f``, and forward mode. ``f`` must compute the same values when re-run
    (no fresh randomness), as in TensorFlow.

    >>> layer = tf.recompute_grad(lambda x: tf.tanh(x @ w + b))
    """

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        @custom_gradient
        def inner(*xs):
            y = f(*xs, **kwargs)

            def grad_fn(*dy, variables=None):
                with GradientTape() as tape:
                    tape.watch(list(xs))
                    y2 = f(*xs, **kwargs)
                sources = list(xs) + list(variables or [])
                grads = tape.gradient(_flat(y2), sources, output_gradients=list(dy))
                n = len(xs)
                if variables is None:
                    return grads[:n]
                return grads[:n], grads[n:]

            return y, grad_fn

        return inner(*args)

    return wrapped
