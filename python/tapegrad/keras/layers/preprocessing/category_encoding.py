"""keras.layers.CategoryEncoding: integer category ids as one-hot, multi-hot or count vectors."""
import tapegrad as tf

from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.preprocessing._encoding import encode_ids

__all__ = ["CategoryEncoding"]


class CategoryEncoding(Layer):
    """Encodes ids in [0, num_tokens) as vectors of length ``num_tokens``.

    output_mode: "multi_hot" (1 where an id of the row occurs; a rank-1 input is one row), "one_hot"
    (one vector per id) or "count" (how often each id occurs in the row). ``count_weights`` passed to
    the call weigh each id in "count" mode. sparse=True is not supported (tapegrad has no SparseTensor
    output here).
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of tokens is not known "
                             "beforehand, use the IntegerLookup layer instead.")
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        if output_mode not in ("multi_hot", "one_hot", "count"):
            raise ValueError("Unknown arg for output_mode: " + repr(output_mode) +
                             ". Accepted values are: ('count', 'one_hot', 'multi_hot')")
        if sparse:
            raise NotImplementedError("CategoryEncoding(sparse=True): tapegrad has no sparse outputs here")
        self.num_tokens, self.output_mode, self.sparse = int(num_tokens), output_mode, sparse

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype.name,
                "num_tokens": self.num_tokens, "output_mode": self.output_mode}

    def call(self, inputs, count_weights=None):
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError("`count_weights` is not used when `output_mode` is not `'count'`. "
                                 f"Received `count_weights={count_weights}`.")
            ids = tf.reshape(tf.cast(inputs, tf.int32), [-1, inputs.shape[-1]] if len(inputs.shape) > 1 else [1, -1])
            hot = tf.one_hot(ids, self.num_tokens, dtype=self.dtype)
            weights = tf.reshape(tf.cast(count_weights, self.dtype), tf.shape(ids))
            out = tf.reduce_sum(hot * tf.expand_dims(weights, -1), axis=1)
            return out if len(inputs.shape) > 1 else tf.reshape(out, [self.num_tokens])
        return encode_ids(inputs, self.num_tokens, self.output_mode, self.dtype)
