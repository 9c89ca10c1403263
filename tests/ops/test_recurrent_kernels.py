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


SPLIT = [("LSTMSequence", "lstm", True), ("GRUSequence", "gru", False), ("RNNSequence", "rnn", False)]


@pytest.mark.parametrize("name,ref,has_c0", SPLIT, ids=[s[0] for s in SPLIT])
def test_batch_split_into_row_blocks_matches_one_block(name, ref, has_c0):
    # a batch and width large enough for the time loop to run as row blocks on separate threads (Note
    # [Recurrent row blocks]); 33 rows split unevenly. Forward against NumPy, gradients against one thread.
    from opinfo import recurrent
    args = getattr(recurrent, f"{ref}_inputs")(np.random.default_rng(4), np.float64, b=33, t=5, f=3, u=64 if has_c0 else 128)
    names = ["x", "h0"] + (["c0"] if has_c0 else []) + ["kernel", "recurrent_kernel", "bias"]
    ts = [tf.constant(a) for a in args]
    want = getattr(recurrent, f"{ref}_sequence_ref")(*args)
    upstream = tf.constant(np.random.default_rng(5).standard_normal(want.shape))

    def run():
        with tf.GradientTape() as tape:
            tape.watch(ts)
            out = getattr(tf.raw_ops, name)(**dict(zip(names, ts)))
        return out.numpy(), [g.numpy() for g in tape.gradient(out, ts, output_gradients=upstream)]

    out, grads = run()
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-13)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    try:
        out1, grads1 = run()
    finally:
        tf.config.threading.set_intra_op_parallelism_threads(0)
    np.testing.assert_allclose(out, out1, rtol=1e-13, atol=1e-14)
    for g, g1 in zip(grads, grads1):
        np.testing.assert_allclose(g, g1, rtol=1e-12, atol=1e-13)
