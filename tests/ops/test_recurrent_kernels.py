"""Edge cases of the fused recurrent time loops (LSTMSequence, GRUSequence, RNNSequence)."""
import numpy as np
import pytest

import tapegrad as tf

B, F, U = 2, 3, 2
# op, gate count, bias shape, whether it carries a cell state c0
FAMILIES = [
    ("LSTMSequence", 4, (4 * U,), True),
    ("GRUSequence", 3, (2, 3 * U), False),
    ("RNNSequence", 1, (U,), False),
]


@pytest.mark.parametrize("name,gates,bias_shape,has_c0", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_no_timesteps_gives_zero_gradients(name, gates, bias_shape, has_c0):
    args = {"x": np.zeros((B, 0, F)), "h0": np.ones((B, U)), "kernel": np.ones((F, gates * U)),
            "recurrent_kernel": np.ones((U, gates * U)), "bias": np.ones(bias_shape)}
    if has_c0:
        args["c0"] = np.ones((B, U))
    args = {k: tf.constant(v) for k, v in args.items()}
    with tf.GradientTape() as tape:
        tape.watch(list(args.values()))
        out = getattr(tf.raw_ops, name)(**args)
        y = tf.reduce_sum(out)
    assert out.shape[:2] == (B, 0)
    grads = tape.gradient(y, list(args.values()))
    for (k, v), g in zip(args.items(), grads):
        assert g is not None, k
        assert g.shape == v.shape, k
        np.testing.assert_array_equal(g.numpy(), np.zeros(v.shape), err_msg=k)
