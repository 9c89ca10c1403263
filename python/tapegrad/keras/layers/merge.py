"""keras.layers merging layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot.

Each takes a list of tensors. The elementwise ones broadcast as TF's ops do (Keras checks that the
shapes agree up to broadcasting and names the layer when they do not).
"""
import functools

import tapegrad as tf

from tapegrad.keras.layers.base import Layer

__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot"]


def _shapes(inputs):
    return [tuple(t.shape) for t in inputs]


def _l2_normalize(x, axis):
    return x * tf.math.rsqrt(tf.maximum(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True), 1e-12))


class _Merge(Layer):
    """A layer of a list of at least two tensors, combined elementwise by ``_combine``."""

    _count = None  # exactly this many inputs (Subtract: 2), else at least two

    def _check(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2 or (self._count and len(inputs) != self._count):
            need = f"exactly {self._count}" if self._count else "a list of at least 2"
            got = f"{len(inputs)} inputs" if isinstance(inputs, (list, tuple)) else f"a {type(inputs).__name__}"
            raise ValueError(f"{self.name} ({type(self).__name__}) needs {need} inputs, got {got}")
        shapes = _shapes(inputs)
        for s in shapes[1:]:
            if not self._compatible(shapes[0], s):
                raise ValueError(f"{self.name} ({type(self).__name__}): inputs must have the same shape (or broadcast), "
                                 f"got shapes {shapes}")

    @staticmethod
    def _compatible(a, b):
        return len(a) == len(b) and all(x == y or x == 1 or y == 1 for x, y in zip(a[1:], b[1:]))

    def build(self, input_shape):
        self.built = True

    def call(self, inputs):
        inputs = [tf.convert_to_tensor(t) for t in inputs]
        self._check(inputs)
        return self._combine(inputs)


class Add(_Merge):
    """The sum of the inputs."""

    def _combine(self, inputs):
        return tf.add_n(inputs) if all(t.shape == inputs[0].shape for t in inputs) else \
            functools.reduce(tf.add, inputs)


class Subtract(_Merge):
    """inputs[0] - inputs[1]."""
    _count = 2

    def _combine(self, inputs):
        return inputs[0] - inputs[1]


class Multiply(_Merge):
    """The product of the inputs."""

    def _combine(self, inputs):
        return functools.reduce(tf.multiply, inputs)


class Average(_Merge):
    """The mean of the inputs."""

    def _combine(self, inputs):
        return functools.reduce(tf.add, inputs) / float(len(inputs))


class Maximum(_Merge):
    """The elementwise maximum of the inputs."""

    def _combine(self, inputs):
        return functools.reduce(tf.maximum, inputs)


class Minimum(_Merge):
    """The elementwise minimum of the inputs."""

    def _combine(self, inputs):
        return functools.reduce(tf.minimum, inputs)


class Concatenate(_Merge):
    """The inputs joined along ``axis``; every other axis must agree."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def _check(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 1:
            raise ValueError(f"{self.name} (Concatenate) needs a list of inputs, got {type(inputs).__name__}")
        shapes = _shapes(inputs)
        rank = len(shapes[0])
        axis = self.axis % rank if rank and -rank <= self.axis < rank else None
        if axis is None or any(len(s) != rank or any(a != b for i, (a, b) in enumerate(zip(s, shapes[0]))
                                                     if i != axis and i != 0) for s in shapes):
            raise ValueError(f"{self.name} (Concatenate): a Concatenate layer requires inputs with matching shapes "
                             f"except for the concatenation axis {self.axis}, got shapes {shapes}")

    def _combine(self, inputs):
        return tf.concat(inputs, axis=self.axis)


class Dot(_Merge):
    """Dot products of two tensors along ``axes`` (an int or a pair), batched over axis 0; ``normalize``
    L2-normalizes both along those axes first (cosine proximity)."""
    _count = 2

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        self.axes, self.normalize = axes, normalize

    def _axes(self, shapes):
        axes = self.axes if isinstance(self.axes, (list, tuple)) else (self.axes, self.axes)
        return [a % len(s) for a, s in zip(axes, shapes)]

    def _check(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(f"{self.name} (Dot) needs exactly 2 inputs")
        shapes = _shapes(inputs)
        if any(len(s) < 2 for s in shapes):
            raise ValueError(f"{self.name} (Dot): inputs need a batch axis and at least one more, got shapes {shapes}")
        a, b = self._axes(shapes)
        if a == 0 or b == 0 or shapes[0][a] != shapes[1][b]:
            raise ValueError(f"{self.name} (Dot): dimension incompatibility along axes {self.axes} of shapes {shapes}")

    def _combine(self, inputs):
        x, y = inputs
        a, b = self._axes(_shapes(inputs))
        if self.normalize:
            x, y = _l2_normalize(x, a), _l2_normalize(y, b)
        # move the contracted axis last in x and first (after the batch) in y, then a batched matmul
        nx, ny = len(x.shape), len(y.shape)
        x = tf.transpose(x, [i for i in range(nx) if i != a] + [a])
        y = tf.transpose(y, [0, b] + [i for i in range(1, ny) if i != b])
        xs, ys = x.shape, y.shape
        x2 = tf.reshape(x, [xs[0], -1, xs[-1]])
        y2 = tf.reshape(y, [ys[0], ys[1], -1])
        out = tf.matmul(x2, y2)
        shape = [xs[0]] + list(xs[1:-1]) + list(ys[2:])
        if len(shape) == 1:
            shape = shape + [1]
        return tf.reshape(out, shape)
