"""keras.ops.numpy's integer number theory (gcd, lcm) as Euclid's algorithm over tapegrad's ops."""
import tapegrad as tf
from tapegrad.keras.ops._dtypes import promote


def _gcd(x1, x2):
    a, b = promote(x1, x2)
    if a.dtype.is_floating or a.dtype == tf.bool:
        raise TypeError(f"gcd: expected integer tensors, got {a.dtype.name}")
    shape = tf.broadcast_dynamic_shape(tf.shape(a), tf.shape(b))
    a, b = tf.abs(tf.broadcast_to(a, shape)), tf.abs(tf.broadcast_to(b, shape))

    def step(a, b):
        nonzero = tf.not_equal(b, 0)
        safe = tf.where(nonzero, b, tf.ones_like(b))
        return tf.where(nonzero, b, a), tf.where(nonzero, tf.math.floormod(a, safe), tf.zeros_like(b))
    a, _ = tf.while_loop(lambda a, b: tf.reduce_any(tf.not_equal(b, 0)), step, (a, b))
    return a


def _lcm(x1, x2):
    a, b = promote(x1, x2)
    divisor = _gcd(a, b)
    safe = tf.where(tf.equal(divisor, 0), tf.ones_like(divisor), divisor)
    return tf.where(tf.equal(divisor, 0), tf.zeros_like(divisor), tf.abs(a * b) // safe)


NUMPY_INTEGER = {"gcd": _gcd, "lcm": _lcm}
