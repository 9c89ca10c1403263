"""keras.random's functions: each draws one seed (seed_generator.draw_seed) and calls tf.random's
stateless op with it, as Keras on TensorFlow does.

tapegrad's stateless ops draw from NumPy's Philox, not TF's kernels, so the values are not Keras's;
the seed handling (which calls repeat, which advance), shapes, dtypes, errors and distributions are.
"""
import tapegrad as tf
from tapegrad.keras import backend as _backend
from tapegrad.keras.random.seed_generator import stateless_seed

__all__ = ["normal", "uniform", "truncated_normal", "categorical", "randint", "dropout", "shuffle", "gamma", "beta",
           "binomial"]

_SEED_OFFSET_OF_BETA = 12  # beta's second gamma draw uses the first seed plus this (as Keras)


def _dtype(dtype):
    return tf.as_dtype(dtype or _backend.floatx())


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal values of mean ``mean`` and standard deviation ``stddev`` (dtype defaults to floatx)."""
    return tf.random.stateless_normal(shape, seed=stateless_seed(seed), mean=mean, stddev=stddev,
                                      dtype=_dtype(dtype))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Uniform values in ``[minval, maxval)``; the dtype must be a float (use randint for integers)."""
    if dtype and not tf.as_dtype(dtype).is_floating:
        raise ValueError(f"`keras.random.uniform` requires a floating point `dtype`. Received: dtype={dtype} ")
    dt = _dtype(dtype)
    return tf.random.stateless_uniform(shape, seed=stateless_seed(seed), minval=tf.cast(minval, dt),
                                       maxval=tf.cast(maxval, dt), dtype=dt)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal values with those more than two standard deviations from the mean drawn again."""
    return tf.random.stateless_truncated_normal(shape, seed=stateless_seed(seed), mean=mean, stddev=stddev,
                                                dtype=_dtype(dtype))


def categorical(logits, num_samples, dtype="int32", seed=None):
    """``num_samples`` class indices per row of the 2-D ``logits`` ([batch, classes])."""
    logits = tf.convert_to_tensor(logits)
    if logits.shape.rank != 2:
        raise ValueError("`logits` should be a 2-D tensor with shape [batch_size, num_classes]. "
                         f"Received: logits={logits}")
    drawn = tf.random.stateless_categorical(logits, num_samples, seed=stateless_seed(seed))
    return tf.cast(drawn, dtype)


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniform in ``[minval, maxval)`` (int32 or int64: tapegrad has no narrower integers)."""
    if dtype and not tf.as_dtype(dtype).is_integer:
        raise ValueError(f"`keras.random.randint` requires an integer `dtype`. Received: dtype={dtype} ")
    return tf.random.stateless_uniform(shape, seed=stateless_seed(seed), minval=minval, maxval=maxval,
                                       dtype=tf.as_dtype(dtype))


def _noise_shape(inputs, noise_shape):
    if noise_shape is None:
        return tf.shape(inputs)
    full = tf.shape(inputs)
    return [full[i] if n is None else n for i, n in enumerate(noise_shape)]


def dropout(inputs, rate, noise_shape=None, seed=None):
    """``inputs`` with each value (or each slice along the noise shape's 1-sized dims) zeroed with
    probability ``rate`` and the rest scaled by ``1 / (1 - rate)``; rate 0 returns the inputs, rate 1 zeros."""
    inputs = tf.convert_to_tensor(inputs)
    if rate == 1.0:
        return tf.zeros_like(inputs)
    if rate == 0.0:
        return inputs
    u = tf.random.stateless_uniform(_noise_shape(inputs, noise_shape), seed=stateless_seed(seed),
                                    dtype=inputs.dtype)
    keep = tf.cast(u >= rate, inputs.dtype)
    return inputs * (keep * (1.0 / (1.0 - rate)))


def shuffle(x, axis=0, seed=None):
    """``x`` with its slices along ``axis`` randomly permuted (argsort of uniform keys)."""
    x = tf.convert_to_tensor(x)
    keys = tf.random.stateless_uniform([tf.shape(x)[axis]], seed=stateless_seed(seed))
    return tf.gather(x, tf.argsort(keys), axis=axis)


def gamma(shape, alpha, dtype=None, seed=None):
    """Gamma(alpha, 1) values."""
    return tf.random.stateless_gamma(shape, seed=stateless_seed(seed), alpha=alpha, dtype=_dtype(dtype))


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Binomial(counts, probabilities) values, as floats by default (floatx)."""
    return tf.random.stateless_binomial(shape, seed=stateless_seed(seed), counts=counts, probs=probabilities,
                                        output_dtype=_dtype(dtype))


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Beta(alpha, beta) values as X / (X + Y) of two gamma draws, the second from seed + 12."""
    dt = _dtype(dtype)
    seed_a = stateless_seed(seed)
    seed_b = seed_a + _SEED_OFFSET_OF_BETA
    # Broadcast the parameters to the whole shape: stateless_gamma matches alpha against the
    # shape's trailing dims only, which refuses shapes such as (2, 3) with alpha of shape (1, 3).
    alpha = tf.broadcast_to(tf.convert_to_tensor(alpha, dt), shape)
    beta = tf.broadcast_to(tf.convert_to_tensor(beta, dt), shape)
    x = tf.random.stateless_gamma(shape, seed=seed_a, alpha=alpha, dtype=dt)
    y = tf.random.stateless_gamma(shape, seed=seed_b, alpha=beta, dtype=dt)
    return x / (x + y)
