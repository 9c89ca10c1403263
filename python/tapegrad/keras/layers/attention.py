"""keras.layers.MultiHeadAttention: scaled dot-product attention over several heads (Vaswani et al., 2017).

Shapes follow Keras: query (B, *T, dq), value (B, *S, dv), key (B, *S, dk) (default: value). Each
input is projected per head (kernels (d, heads, key_dim) and (dv, heads, value_dim), biases
(heads, key_dim) / (heads, value_dim)), scores are softmax(q k / sqrt(key_dim)) over the attention
axes of the key, and the heads' outputs are projected back to output_shape (default dq) by a
(heads, value_dim, output) kernel. Attention axes default to every axis between the batch and the
feature axis; the others are batch axes.

Note [Attention masks, as Keras]: Keras 3 computes attention in one of two ways, and they differ
where a query may attend to nothing (its mask row all False):
  - fused, as ops.dot_product_attention (inputs of rank 3, dropout == 0, scores not returned):
    masked logits are replaced by -0.7 * 3.38953e38; a row with nothing to attend is the uniform
    average over the keys;
  - explicit, as the Softmax layer (otherwise; dropout > 0 counts even when not training): masked
    logits are replaced by -1e9 and the probabilities of masked keys are then set to 0; such a
    row's scores are all 0, its output the output bias.
Either way a masked logit is replaced (tf.where), not offset, so no gradient reaches it.
"""
import math
import string

import tapegrad as tf

from tapegrad.keras import _masking, constraints, initializers, regularizers
from tapegrad.keras.layers.base import Layer

__all__ = ["MultiHeadAttention"]

# the value a masked logit becomes, by path (Note [Attention masks, as Keras])
_FUSED_NEGATIVE, _EXPLICIT_NEGATIVE = -0.7 * 3.38953e38, -1e9


def _equations(rank, attention_axes):
    """einsum equations for projected tensors of this rank (B, ..., heads, dim): scores from (key,
    query), and the output from (scores, value); as Keras lays them out: batch axes, heads, the
    query's attention axes, the key's attention axes."""
    letters = string.ascii_lowercase
    heads, dim = rank - 2, rank - 1
    q = list(letters[:rank])
    k = list(q)
    for i, a in enumerate(attention_axes):
        k[a] = letters[rank + i]
    batch = [q[i] for i in range(rank - 2) if i not in attention_axes]
    scores = batch + [q[heads]] + [q[a] for a in attention_axes] + [k[a] for a in attention_axes]
    value = k[:dim] + [letters[rank + len(attention_axes)]]
    out = q[:dim] + [value[dim]]
    j = "".join
    return f"{j(k)},{j(q)}->{j(scores)}", f"{j(scores)},{j(value)}->{j(out)}"


class MultiHeadAttention(Layer):
    """Multi-head attention: ``layer(query, value, key=None, attention_mask=None, ...)``.

    Args:
      num_heads, key_dim: heads and the size of each head's query and key.
      value_dim: each head's value size (default key_dim).
      dropout: dropout rate on the attention probabilities (training only).
      use_bias, output_shape (default: the query's last axis), attention_axes (default: all axes
      between batch and features), kernel_/bias_ initializer, regularizer and constraint, seed.

    call(query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
    return_attention_scores=False, training=None, use_causal_mask=False): attention_mask is boolean,
    shape (B, *T, *S) (or broadcastable), True where a query may attend; value_mask / key_mask (B, *S)
    mask keys; a query row with nothing to attend gets Keras's answer (the mean of the values for rank-3
    inputs without dropout or returned scores, else zero scores: Note [Attention masks, as Keras]). As
    in Keras 3, the query_mask argument is not used: the query tensor's own mask is (an
    Embedding(mask_zero=True) output). Returns the output (B, *T, output) and, when asked, the scores
    (B, heads, *T, *S).
    """

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None,
                 attention_axes=None, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, seed=None, use_gate=False, sliding_window=None, flash_attention=None,
                 **kwargs):
        super().__init__(**kwargs)
        for arg, v in (("num_heads", num_heads), ("key_dim", key_dim)) + ((("value_dim", value_dim),)
                                                                         if value_dim is not None else ()):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"MultiHeadAttention: {arg} must be a positive int, got {v!r}")
        if not 0 <= dropout < 1:
            raise ValueError(f"MultiHeadAttention: dropout must be in [0, 1), got {dropout}")
        if use_gate or sliding_window is not None:
            raise tf.errors.UnimplementedError(None, None, "MultiHeadAttention: use_gate and sliding_window are not "
                                               "supported")
        self.num_heads, self.key_dim = num_heads, key_dim
        self.value_dim = value_dim or key_dim
        self.dropout, self.use_bias, self.seed = float(dropout), use_bias, seed
        self._output_dim = output_shape
        if isinstance(output_shape, (list, tuple)):
            if len(output_shape) != 1:
                raise tf.errors.UnimplementedError(None, None, "MultiHeadAttention: output_shape must be an int or a "
                                                   f"1-element tuple, got {output_shape!r}")
            self._output_dim = output_shape[0]
        self.attention_axes = (attention_axes,) if isinstance(attention_axes, int) else attention_axes
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self._heads_built = False

    def build(self, input_shape):
        pass  # the weights need the value's and key's shapes too: built at the first call

    def _weight(self, name, shape, bias):
        return self.add_weight(name=name, shape=shape,
                               initializer=self.bias_initializer if bias else self.kernel_initializer,
                               regularizer=self.bias_regularizer if bias else self.kernel_regularizer,
                               constraint=self.bias_constraint if bias else self.kernel_constraint)

    def _build_heads(self, query_shape, value_shape, key_shape):
        rank = len(query_shape)
        if rank < 3 or len(value_shape) != rank or len(key_shape) != rank:
            raise ValueError(f"{self.name}: query, value and key must have the same rank, at least 3 (batch, "
                             f"attention axes, features); got shapes {tuple(query_shape)}, {tuple(value_shape)}, "
                             f"{tuple(key_shape)}")
        axes = tuple(range(1, rank - 1)) if self.attention_axes is None else tuple(
            a % rank for a in self.attention_axes)
        if not axes or any(not 0 < a < rank - 1 for a in axes):
            raise ValueError(f"{self.name}: attention_axes must be axes between the batch and the feature axis of "
                             f"rank-{rank} inputs, got {self.attention_axes}")
        self._axes = tuple(sorted(axes))
        self._dot, self._combine = _equations(rank + 1, self._axes)
        n, kd, vd = self.num_heads, self.key_dim, self.value_dim
        out = self._output_dim or query_shape[-1]
        with tf.name_scope(self.name):
            self.query_kernel = self._weight("query/kernel", (query_shape[-1], n, kd), False)
            self.query_bias = self._weight("query/bias", (n, kd), True) if self.use_bias else None
            self.key_kernel = self._weight("key/kernel", (key_shape[-1], n, kd), False)
            self.key_bias = self._weight("key/bias", (n, kd), True) if self.use_bias else None
            self.value_kernel = self._weight("value/kernel", (value_shape[-1], n, vd), False)
            self.value_bias = self._weight("value/bias", (n, vd), True) if self.use_bias else None
            self.output_kernel = self._weight("attention_output/kernel", (n, vd, out), False)
            self.output_bias = self._weight("attention_output/bias", (out,), True) if self.use_bias else None
        self._heads_built = True

    def _project(self, x, kernel, bias):
        """x (..., d) @ kernel (d, heads, size) + bias: (..., heads, size)."""
        d, n, size = kernel.shape
        if kernel.dtype != x.dtype:  # the heads' weights made in this call are not cast yet (Note [Mixed precision])
            kernel, bias = tf.cast(kernel, x.dtype), None if bias is None else tf.cast(bias, x.dtype)
        shape = tf.shape(x)
        flat = tf.reshape(x, [-1, d]) @ tf.reshape(kernel, [d, n * size])
        y = tf.reshape(flat, tf.concat([shape[:-1], [n, size]], 0))
        return y + bias if bias is not None else y

    def _mask(self, query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask):
        """The boolean mask over (B, *T, *S), or None (Keras's rules for combining the masks)."""
        mask = None
        t_rank = len(self._axes)

        def add(m):
            nonlocal mask
            m = tf.cast(m, tf.bool)
            mask = m if mask is None else tf.logical_and(mask, m)

        if query_mask is not None:
            add(tf.reshape(tf.cast(query_mask, tf.bool), tf.concat([tf.shape(query_mask), [1] * t_rank], 0)))
        for m in (value_mask, key_mask):
            if m is not None:
                m = tf.cast(m, tf.bool)
                add(tf.reshape(m, tf.concat([tf.shape(m)[:1], [1] * t_rank, tf.shape(m)[1:]], 0)))
        if use_causal_mask:
            if t_rank != 1:
                raise ValueError(f"{self.name}: use_causal_mask needs one attention axis, got {self._axes}")
            tq, tv = tf.shape(query)[self._axes[0]], tf.shape(value)[self._axes[0]]
            add(tf.reshape(tf.range(tf.cast(tv, tf.int32))[None, :] <= tf.range(tf.cast(tq, tf.int32))[:, None],
                           [1, tq, tv]))
        if attention_mask is not None:
            add(attention_mask)
        return mask

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores=False, training=None, use_causal_mask=False):
        query = tf.convert_to_tensor(query, self._compute_dtype)
        value = tf.convert_to_tensor(value, self._compute_dtype)
        key = value if key is None else tf.convert_to_tensor(key, self._compute_dtype)
        if not self._heads_built:
            self._build_heads(query.shape, value.shape, key.shape)
        q = self._project(query, self.query_kernel, self.query_bias) * (1.0 / math.sqrt(self.key_dim))
        k = self._project(key, self.key_kernel, self.key_bias)
        v = self._project(value, self.value_kernel, self.value_bias)
        scores = tf.einsum(self._dot, k, q)
        # As Keras 3: the query's mask is the query tensor's own (Note [Keras masks]), not the argument.
        query_mask = _masking.get_keras_mask(query)
        mask = self._mask(query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask)
        fused = len(query.shape) == 3 and self.dropout == 0 and not return_attention_scores
        probs = self._softmax(scores, mask, fused)
        dropped = probs
        if training and self.dropout > 0:
            dropped = tf.nn.dropout(probs, self.dropout, seed=self.seed)
        heads = tf.einsum(self._combine, dropped, v)  # (B, *T, heads, value_dim)
        kernel, bias = self.output_kernel, self.output_bias
        if kernel.dtype != heads.dtype:  # made in this call, not cast yet (as in _project)
            kernel, bias = tf.cast(kernel, heads.dtype), None if bias is None else tf.cast(bias, heads.dtype)
        n, vd, out_dim = kernel.shape
        shape = tf.shape(heads)
        out = tf.reshape(tf.reshape(heads, [-1, n * vd]) @ tf.reshape(kernel, [n * vd, out_dim]),
                         tf.concat([shape[:-2], [out_dim]], 0))
        if bias is not None:
            out = out + bias
        return (out, probs) if return_attention_scores else out

    def _softmax(self, scores, mask, fused):
        """Softmax over the key's attention axes (the last len(axes)), masked by Keras's fused or
        explicit rule (Note [Attention masks, as Keras])."""
        k = len(self._axes)
        if mask is not None:
            mask = tf.cast(mask, tf.bool)
            while mask.shape.rank < scores.shape.rank:  # the heads axis (and batch axes Keras leaves out)
                mask = tf.expand_dims(mask, axis=-2 * k - 1)
            fill = tf.constant(_FUSED_NEGATIVE if fused else _EXPLICIT_NEGATIVE, scores.dtype)
            scores = tf.where(mask, scores, fill)
        shape = tf.shape(scores)
        flat = tf.reshape(scores, tf.concat([shape[:-k], [-1]], 0))
        probs = tf.reshape(tf.nn.softmax(flat, axis=-1), shape)
        if mask is not None and not fused:
            probs = probs * tf.cast(mask, probs.dtype)
        return probs

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        return tuple(query_shape[:-1]) + (self._output_dim or query_shape[-1],)
