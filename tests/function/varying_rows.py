"""The harness of the tests of ops given, inside a tf.function, a tensor whose rows change in number from
call to call (tf.boolean_mask's result; Note [Varying dimensions] in cpp/graph/varying_dims.cpp): a body
is traced once and called with masks keeping 1, 3, 4 and 0 rows, and compared with the same body run
eagerly, with the gradient of the sum of squares of its result."""
import numpy as np
import pytest

import tapegrad as tf

X = np.arange(12, dtype=np.float32).reshape(4, 3) * 0.5 - 2.0
MASKS = {n: np.array(m) for n, m in [(1, [False, True, False, False]), (3, [True, True, False, True]),
                                     (4, [True] * 4), (0, [False] * 4)]}
SPEC = [tf.TensorSpec([4], tf.bool)]


def eager(body, mask):
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = body(tf.boolean_mask(x, mask))
        loss = tf.reduce_sum(out * out)
    return out.numpy(), tape.gradient(loss, x).numpy()


def traced(body):
    x = tf.constant(X)

    @tf.function(input_signature=SPEC)
    def f(mask):
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = body(tf.boolean_mask(x, mask))
            loss = tf.reduce_sum(out * out)
        return out, tape.gradient(loss, x)
    return f


def check_one_trace(name, body, order, tol, needs_rows=False, equal_nan=False):
    """Calls one trace of body with the row counts in order; needs_rows: no rows is TF's error."""
    f = traced(body)
    for rows in order:
        if rows == 0 and needs_rows:
            with pytest.raises(tf.errors.InvalidArgumentError):
                f(tf.constant(MASKS[rows]))
            continue
        want, want_grad = eager(body, MASKS[rows])
        got, grad = f(tf.constant(MASKS[rows]))
        assert got.shape == want.shape, (name, rows)
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol, equal_nan=equal_nan,
                                   err_msg=f"{name} with {rows} rows")
        np.testing.assert_allclose(grad.numpy(), want_grad, rtol=tol, atol=tol, equal_nan=equal_nan,
                                   err_msg=f"{name}'s gradient with {rows} rows")
    assert f.experimental_get_tracing_count() == 1


def check_refused(body):
    """body, traced over a tensor whose rows vary, refuses with UnimplementedError rather than keep a size."""
    @tf.function(input_signature=SPEC)
    def f(mask):
        return body(tf.boolean_mask(tf.constant(X), mask))
    with pytest.raises(tf.errors.UnimplementedError, match="changes from call to call"):
        f(tf.constant(MASKS[3]))
