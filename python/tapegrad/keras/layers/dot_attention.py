"""keras.layers.Attention: Luong-style attention of a query sequence over a value sequence.

scores = query @ key^T (score_mode "dot", times a trainable scalar ``scale`` with use_scale) or
concat_score_weight * sum(tanh(scale * (q + k)), -1) ("concat"); value positions where the value mask
is False (and, with use_causal_mask, later positions) get the score less 1e9 (65504 in float16);
weights = softmax(scores), dropped out in training; output = weights @ value, zero where the query
mask is False. AdditiveAttention (additive_attention.py) extends it with Bahdanau scores.
"""
import tapegrad as tf

from tapegrad.keras.layers.base import Layer

__all__ = ["Attention"]


class Attention(Layer):
    """``layer([query, value])`` or ``layer([query, value, key])``: (batch, Tq, dim) and (batch, Tv, dim)
    -> (batch, Tq, dim); ``return_attention_scores`` also returns the (batch, Tq, Tv) weights."""

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError("Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. "
                             f"Received: score_mode={score_mode}")
        self.use_scale, self.score_mode, self.dropout, self.seed = use_scale, score_mode, dropout, seed
        self.supports_masking = True

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(), initializer="ones") if self.use_scale else None
        self.concat_score_weight = (self.add_weight(name="concat_score_weight", shape=(), initializer="ones")
                                    if self.score_mode == "concat" else None)
        self.built = True

    def _check(self, inputs, mask):
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely [query, value] or "
                             f"[query, value, key]. Received: inputs={inputs}.")
        if not 2 <= len(inputs) <= 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely [query, value] or "
                             f"[query, value, key]. Received length: {len(inputs)}.")
        if mask is not None and not isinstance(mask, list):
            raise ValueError(f"{name} layer mask must be a list, namely [query_mask, value_mask]. Received: "
                             f"mask={mask}.")
        if mask is not None and not 2 <= len(mask) <= 3:
            raise ValueError(f"{name} layer accepts mask list of length 2 or 3. Received: inputs={inputs}, "
                             f"mask={mask}.")

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = tf.matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        pairs = query[..., :, None, :] + key[..., None, :, :]
        if self.scale is not None:
            pairs = self.scale * pairs
        return self.concat_score_weight * tf.reduce_sum(tf.tanh(pairs), axis=-1)

    def _scores_mask(self, scores, value_mask, use_causal_mask):
        keep = None if value_mask is None else tf.cast(value_mask, tf.bool)[..., None, :]
        if use_causal_mask:
            tq, tv = tf.shape(scores)[-2], tf.shape(scores)[-1]
            causal = tf.range(tq)[:, None] >= tf.range(tv)[None, :]
            keep = causal[None] if keep is None else tf.logical_and(keep, causal[None])
        return keep

    def call(self, inputs, mask=None, training=False, return_attention_scores=False, use_causal_mask=False):
        self._check(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask, value_mask = (mask[0], mask[1]) if mask else (None, None)
        scores = self._scores(query, key)
        keep = self._scores_mask(scores, value_mask, use_causal_mask)
        if keep is not None:
            big = 65504.0 if scores.dtype == tf.float16 else 1.0e9
            scores = tf.where(keep, scores, scores - tf.cast(big, scores.dtype))
        weights = tf.nn.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = tf.nn.dropout(weights, self.dropout, seed=self.seed)
        out = tf.matmul(weights, value)
        if query_mask is not None:
            out = tf.where(tf.cast(query_mask, tf.bool)[..., None], out, tf.zeros_like(out))
        return (out, weights) if return_attention_scores else out

    def compute_mask(self, inputs, mask=None):
        return None if mask is None or mask[0] is None else tf.convert_to_tensor(mask[0])

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0][:-1]) + (input_shape[1][-1],)
