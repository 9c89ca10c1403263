"""keras.layers.AdditiveAttention: Bahdanau-style attention of a query sequence over a value sequence.

scores = sum(scale * tanh(query[:, :, None] + key[:, None]), -1), ``scale`` a trainable vector over the
feature axis (glorot_uniform) with use_scale, else 1; masking, softmax, dropout, the output and its
mask are Attention's (the class it extends, as in Keras).
"""
import tapegrad as tf

from tapegrad.keras.layers.dot_attention import Attention

__all__ = ["AdditiveAttention"]


class AdditiveAttention(Attention):
    """``layer([query, value])`` or ``layer([query, value, key])``: (batch, Tq, dim) and (batch, Tv, dim)
    -> (batch, Tq, dim); ``return_attention_scores`` also returns the (batch, Tq, Tv) weights."""

    def __init__(self, use_scale=True, dropout=0.0, seed=None, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)

    def build(self, input_shape):
        # a single tensor's shape is a tuple of sizes; a list of inputs gives a tuple of shapes
        shapes = input_shape if input_shape and isinstance(input_shape[0], (tuple, list)) else None
        self._check(list(shapes) if shapes is not None else input_shape, None)
        self.scale = (self.add_weight(name="scale", shape=(shapes[0][-1],), initializer="glorot_uniform")
                      if self.use_scale else None)
        self.concat_score_weight = None
        self.built = True

    def _scores(self, query, key):
        pairs = tf.tanh(query[..., :, None, :] + key[..., None, :, :])
        return tf.reduce_sum(pairs * self.scale if self.scale is not None else pairs, axis=-1)
