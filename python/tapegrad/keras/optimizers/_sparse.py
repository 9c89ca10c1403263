"""Optimizer steps for an IndexedSlices gradient, as Keras 3 on TF computes them.

Note [Sparse updates]: Keras writes each update in ops, and its TF backend keeps an IndexedSlices
gradient sparse through elementwise functions of it alone (square, abs) and makes it dense where it
meets a dense tensor: the dense tensor sums the rows of a repeated index. So a term linear in the
gradient sees G, the rows summed, but ``square(gradient)`` sees S, the sum of each occurrence's row
squared (and Adamax's ``abs`` the sum of the rows' absolute values), which differs from G^2 when a
batch repeats an index (an embedding's token). ``Terms`` gives both; the optimizers whose update is
not linear in the gradient (Adam, AdamW, Nadam, Adamax, RMSprop, Adagrad, Ftrl) take their step from
them in ``sparse_update_step``; the others (SGD, Lion) take the dense G, which is Keras's result too.
"""
import math

import tapegrad as tf


class Terms:
    """An IndexedSlices gradient as the dense sums an update uses: ``dense`` (G) and ``rows(f)``, the sum
    of f of each occurrence's row (S for f = square), in the variable's dtype."""

    def __init__(self, grad, var):
        self._values, self._indices = tf.cast(grad.values, var.dtype), grad.indices
        self._rows = int(var.shape[0])
        self.dense = tf.math.unsorted_segment_sum(self._values, self._indices, self._rows)

    def rows(self, f):
        return tf.math.unsorted_segment_sum(f(self._values), self._indices, self._rows)


def divided(g, factor):
    """A gradient (a tensor, an IndexedSlices or None) divided by a loss scale."""
    if g is None:
        return None
    if isinstance(g, tf.IndexedSlices):
        return tf.IndexedSlices(g.values / tf.cast(factor, g.values.dtype), g.indices, g.dense_shape)
    g = tf.convert_to_tensor(g)
    return g / tf.cast(factor, g.dtype)


def _keras_float(value, dtype):
    """A Python hyperparameter as Keras's ops see it: through a float32 constant, in the variable's dtype."""
    return tf.cast(tf.constant(value, tf.float32), dtype)


def adam(opt, terms, var, lr):
    """Keras's Adam (and AdamW, whose decay the base applies first), amsgrad included."""
    dtype = var.dtype
    t = tf.cast(opt._step_tensor(), dtype)
    alpha = tf.cast(lr, dtype) * tf.sqrt(1 - tf.pow(_keras_float(opt.beta_2, dtype), t)) / (
        1 - tf.pow(_keras_float(opt.beta_1, dtype), t))
    slots = opt.slots(var)
    m, v = slots[0], slots[1]
    m.assign_add((terms.dense - m) * (1 - opt.beta_1))
    v.assign_add((terms.rows(tf.square) - v) * (1 - opt.beta_2))
    if opt.amsgrad:
        slots[2].assign(tf.maximum(slots[2], v))
        v = slots[2]
    var.assign_sub((m * alpha) / (tf.sqrt(v) + opt.epsilon))


def nadam(opt, terms, var, lr):
    """Keras's Nadam; its momentum schedule's product as the dense step computes it (ResourceApplyNadam)."""
    dtype, t = var.dtype, float(opt._step()) if not tf.inside_function() else None
    if t is None:
        raise tf.errors.UnimplementedError(None, None, "Nadam: an IndexedSlices gradient inside tf.function")
    u = lambda s: opt.beta_1 * (1 - 0.5 * 0.96 ** s)  # noqa: E731
    product = opt.beta_1 ** t * math.prod(1 - 0.5 * 0.96 ** i for i in range(1, min(int(t), 2048) + 1))
    c_m, c_g = u(t + 1) / (1 - product * u(t + 1)), (1 - u(t)) / (1 - product)
    m, v = opt.slots(var)
    m.assign_add((terms.dense - m) * (1 - opt.beta_1))
    v.assign_add((terms.rows(tf.square) - v) * (1 - opt.beta_2))
    m_hat = m * c_m + terms.dense * c_g
    v_hat = v / (1 - opt.beta_2 ** t)
    var.assign_sub(m_hat * tf.cast(lr, dtype) / (tf.sqrt(v_hat) + opt.epsilon))


def adamax(opt, terms, var, lr):
    m, u = opt.slots(var)
    lr, t = tf.cast(lr, var.dtype), tf.cast(opt._step_tensor(), var.dtype)
    beta_1_power = tf.pow(_keras_float(opt.beta_1, var.dtype), t)
    m.assign_add((terms.dense - m) * (1 - opt.beta_1))
    u.assign(tf.maximum(opt.beta_2 * u, terms.rows(tf.abs)))
    var.assign_sub(lr * m / ((1 - beta_1_power) * (u + opt.epsilon)))


def rmsprop(opt, terms, var, lr):
    velocity, momentum, *average = opt.slots(var)
    lr, g = tf.cast(lr, var.dtype), terms.dense
    velocity.assign(opt.rho * velocity + (1 - opt.rho) * terms.rows(tf.square))
    if opt.centered:
        average[0].assign(opt.rho * average[0] + (1 - opt.rho) * g)
        denominator = velocity - tf.square(average[0]) + opt.epsilon
    else:
        denominator = velocity + opt.epsilon
    increment = lr * g / tf.sqrt(denominator)
    momentum.assign(opt.momentum * momentum + increment if opt.momentum > 0 else increment)
    var.assign_sub(momentum)


def adagrad(opt, terms, var, lr):
    acc = opt.slots(var)[0]
    acc.assign_add(terms.rows(tf.square))
    var.assign_sub(tf.cast(lr, var.dtype) * terms.dense / tf.sqrt(acc + tf.cast(opt._values[0], var.dtype)))


def ftrl(opt, terms, var, lr):
    opt._ftrl_step(terms.dense, terms.rows(tf.square), var, lr)
