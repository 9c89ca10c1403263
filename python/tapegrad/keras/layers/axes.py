"""keras.layers.Permute and RepeatVector: moving and repeating axes after the batch axis."""
import tapegrad as tf

from tapegrad.keras.layers.base import Layer

__all__ = ["Permute", "RepeatVector"]


class Permute(Layer):
    """Permutes the non-batch axes: ``dims`` is a permutation of 1..rank-1 (axis 0 stays first)."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Permute: invalid permutation argument `dims` {dims}: it must hold 1..{len(self.dims)}")

    def call(self, inputs):
        if len(inputs.shape) != len(self.dims) + 1:
            raise ValueError(f"{self.name} (Permute): dims {self.dims} do not fit inputs of shape {tuple(inputs.shape)}")
        return tf.transpose(inputs, (0,) + self.dims)


class RepeatVector(Layer):
    """[batch, features] -> [batch, n, features]: each row repeated ``n`` times."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"RepeatVector: n must be an int, got {type(n).__name__} {n!r}")
        self.n = n

    def call(self, inputs):
        if len(inputs.shape) != 2:
            raise ValueError(f"{self.name} (RepeatVector): expected inputs of rank 2, got shape {tuple(inputs.shape)}")
        return tf.tile(tf.expand_dims(inputs, 1), [1, self.n, 1])
