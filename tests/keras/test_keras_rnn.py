"""Recurrent layers: values against NumPy loops of Keras's formulas and against values TF-Keras gave
for the same weights; shapes of return_sequences / return_state / go_backwards; gradients of the
fused LSTMSequence op in float64; errors that name the layer and the shapes."""
import numpy as np
import pytest

import tapegrad as tf
from gradcheck import check_grads
from opinfo.recurrent import gru_inputs, lstm_inputs, lstm_sequence_ref, positional, rnn_inputs

keras = tf.keras

X = np.cos(np.arange(2 * 4 * 3) * 0.3).reshape(2, 4, 3).astype(np.float32)


def _weights(shapes):
    """Deterministic weights; the same formula produced the TF-Keras values below."""
    return [(np.sin(np.arange(int(np.prod(s))) * 0.7 + k) * 0.5).reshape(s).astype(np.float32)
            for k, s in enumerate(shapes)]


LSTM_W, GRU_W, GRU_V1_W, SIMPLE_W = [(3, 8), (2, 8), (8,)], [(3, 6), (2, 6), (2, 6)], [(3, 6), (2, 6), (6,)], \
    [(3, 2), (2, 2), (2,)]

# keras.layers.X(2, return_sequences=True, ...)(X) from TF 2.21 / Keras 3 with _weights(...) set.
KERAS = {
    "lstm": np.array([[[0.072368, -0.004801], [-0.006137, -0.106869], [-0.276657, -0.263765], [-0.440598, -0.245673]], [[-0.32128, -0.183328], [-0.194693, -0.040268], [-0.008534, 0.017995], [0.067256, 0.004418]]]),
    "gru": np.array([[[-0.119579, -0.139065], [-0.153758, -0.221095], [-0.192627, -0.282364], [-0.271199, -0.333325]], [[-0.181471, -0.164983], [-0.312084, -0.262845], [-0.370191, -0.304194], [-0.346222, -0.313184]]]),
    "gru_ra_false": np.array([[[-0.160439, -0.135885], [-0.221293, -0.200237], [-0.26898, -0.245535], [-0.343969, -0.287366]], [[-0.206826, -0.17175], [-0.34889, -0.257725], [-0.418135, -0.278456], [-0.407851, -0.265752]]]),
    "simple": np.array([[[0.78704, 0.665916], [0.833982, 0.745163], [0.594722, 0.447006], [0.199917, -0.027427]], [[0.014847, -0.293592], [0.436713, 0.117967], [0.848378, 0.679928], [0.928314, 0.844768]]]),
    "lstm_back": np.array([[[-0.363971, -0.273661], [-0.375049, -0.212831], [-0.198102, -0.105093], [-0.031554, -0.030169]], [[0.071725, -0.005696], [0.118206, 0.003914], [-0.02743, -0.0557], [-0.331074, -0.187403]]]),
    "bi_lstm": np.array([[[0.072368, -0.004801, -0.031554, -0.030169], [-0.006137, -0.106869, -0.198102, -0.105093], [-0.276657, -0.263765, -0.375049, -0.212831], [-0.440598, -0.245673, -0.363971, -0.273661]], [[-0.32128, -0.183328, -0.331074, -0.187403], [-0.194693, -0.040268, -0.02743, -0.0557], [-0.008534, 0.017995, 0.118206, 0.003914], [0.067256, 0.004418, 0.071725, -0.005696]]]),
}

CASES = [
    ("lstm", lambda: keras.layers.LSTM(2, return_sequences=True), LSTM_W),
    ("gru", lambda: keras.layers.GRU(2, return_sequences=True), GRU_W),
    ("gru_ra_false", lambda: keras.layers.GRU(2, return_sequences=True, reset_after=False), GRU_V1_W),
    ("simple", lambda: keras.layers.SimpleRNN(2, return_sequences=True), SIMPLE_W),
    ("lstm_back", lambda: keras.layers.LSTM(2, return_sequences=True, go_backwards=True), LSTM_W),
    ("bi_lstm", lambda: keras.layers.Bidirectional(keras.layers.LSTM(2, return_sequences=True)), LSTM_W),
]


@pytest.mark.parametrize("name,make,shapes", CASES, ids=[c[0] for c in CASES])
def test_values_match_tf_keras(name, make, shapes):
    layer = make()
    layer(X)
    weights = _weights(shapes) * (2 if name.startswith("bi_") else 1)   # both directions get the same weights
    assert [w.shape for w in layer.get_weights()] == [w.shape for w in weights]
    layer.set_weights(weights)
    np.testing.assert_allclose(layer(X).numpy(), KERAS[name], atol=2e-6)


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _gru_ref(x, kernel, recurrent_kernel, bias, reset_after=True):
    u = recurrent_kernel.shape[0]
    h, out = np.zeros((x.shape[0], u)), []
    for t in range(x.shape[1]):
        xp = x[:, t] @ kernel + (bias[0] if reset_after else bias)
        if reset_after:
            rec = h @ recurrent_kernel + bias[1]
            z, r = _sigmoid(xp[:, :u] + rec[:, :u]), _sigmoid(xp[:, u:2 * u] + rec[:, u:2 * u])
            hh = np.tanh(xp[:, 2 * u:] + r * rec[:, 2 * u:])
        else:
            rec = h @ recurrent_kernel[:, :2 * u]
            z, r = _sigmoid(xp[:, :u] + rec[:, :u]), _sigmoid(xp[:, u:2 * u] + rec[:, u:])
            hh = np.tanh(xp[:, 2 * u:] + (r * h) @ recurrent_kernel[:, 2 * u:])
        h = z * h + (1 - z) * hh
        out.append(h)
    return np.stack(out, 1)


def _simple_ref(x, kernel, recurrent_kernel, bias):
    h, out = np.zeros((x.shape[0], kernel.shape[1])), []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ kernel + h @ recurrent_kernel + bias)
        out.append(h)
    return np.stack(out, 1)


def _lstm_ref(x, kernel, recurrent_kernel, bias):
    u = recurrent_kernel.shape[0]
    zeros = np.zeros((x.shape[0], u))
    return lstm_sequence_ref(x, zeros, zeros, kernel, recurrent_kernel, bias)[..., :u]


@pytest.mark.parametrize("layer_cls,ref,kwargs", [
    (keras.layers.LSTM, _lstm_ref, {}),
    (keras.layers.GRU, _gru_ref, {}),
    (keras.layers.GRU, lambda *a: _gru_ref(*a, reset_after=False), {"reset_after": False}),
    (keras.layers.SimpleRNN, _simple_ref, {}),
], ids=["lstm", "gru", "gru_reset_before", "simple_rnn"])
def test_values_match_numpy_loop_float64(layer_cls, ref, kwargs, rng):
    x = rng.uniform(-1, 1, (3, 5, 4))
    layer = layer_cls(3, return_sequences=True, dtype="float64", bias_initializer="random_normal", **kwargs)
    got = layer(x).numpy()
    np.testing.assert_allclose(got, ref(x, *layer.get_weights()), rtol=1e-12, atol=1e-12)


def test_lstm_defaults_follow_keras():
    layer = keras.layers.LSTM(3)
    layer(np.zeros((1, 2, 4), np.float32))
    kernel, recurrent, bias = layer.get_weights()
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(3), atol=1e-5)   # orthogonal
    np.testing.assert_array_equal(bias, [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0])   # unit_forget_bias
    assert kernel.shape == (4, 12)


@pytest.mark.parametrize("layer_cls", [keras.layers.LSTM, keras.layers.GRU, keras.layers.SimpleRNN],
                         ids=["lstm", "gru", "simple_rnn"])
@pytest.mark.parametrize("go_backwards", [False, True])
def test_fused_and_stepwise_agree(layer_cls, go_backwards, rng):
    """The fused op and the cell stepped in Python (a non-default activation object equal to tanh)."""
    x = rng.uniform(-1, 1, (2, 6, 3)).astype(np.float32)
    kw = dict(return_sequences=True, return_state=True, go_backwards=go_backwards, bias_initializer="random_normal")
    fused = layer_cls(4, **kw)
    stepped = layer_cls(4, activation=lambda v: tf.tanh(v), **kw)
    fused(x), stepped(x)
    stepped.set_weights(fused.get_weights())
    assert fused.cell.fused and not stepped.cell.fused
    for a, b in zip(fused(x), stepped(x)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-6)


@pytest.mark.parametrize("layer_cls,n_states", [(keras.layers.LSTM, 2), (keras.layers.GRU, 1),
                                                (keras.layers.SimpleRNN, 1)])
@pytest.mark.parametrize("go_backwards", [False, True])
def test_return_sequences_state_shapes(layer_cls, n_states, go_backwards):
    x = np.ones((2, 5, 3), np.float32)
    last = layer_cls(4, go_backwards=go_backwards)(x)
    assert last.shape == (2, 4)
    seq = layer_cls(4, return_sequences=True, go_backwards=go_backwards)
    out = seq(x)
    assert out.shape == (2, 5, 4)
    layer = layer_cls(4, return_sequences=True, return_state=True, go_backwards=go_backwards)
    res = layer(x)
    assert len(res) == 1 + n_states and res[0].shape == (2, 5, 4)
    assert all(s.shape == (2, 4) for s in res[1:])
    np.testing.assert_allclose(res[1].numpy(), res[0].numpy()[:, -1])   # the final h is the last output


def test_go_backwards_reads_reversed_inputs(rng):
    x = rng.uniform(-1, 1, (2, 4, 3)).astype(np.float32)
    fw = keras.layers.LSTM(2, return_sequences=True)
    bw = keras.layers.LSTM(2, return_sequences=True, go_backwards=True)
    fw(x), bw(x)
    bw.set_weights(fw.get_weights())
    np.testing.assert_allclose(bw(x).numpy(), fw(x[:, ::-1]).numpy(), atol=1e-6)


def test_initial_state_and_stateful(rng):
    x = rng.uniform(-1, 1, (2, 6, 3)).astype(np.float32)
    whole = keras.layers.LSTM(2, return_state=True)
    out, h, c = whole(x)
    first = keras.layers.LSTM(2, return_state=True)
    first(x)
    first.set_weights(whole.get_weights())
    _, h1, c1 = first(x[:, :3])
    out2, _, _ = first(x[:, 3:], initial_state=[h1, c1])
    np.testing.assert_allclose(out2.numpy(), out.numpy(), atol=1e-6)
    stateful = keras.layers.LSTM(2, stateful=True)
    stateful(x)
    stateful.set_weights(whole.get_weights())
    stateful.reset_states()
    stateful(x[:, :3])
    np.testing.assert_allclose(stateful(x[:, 3:]).numpy(), out.numpy(), atol=1e-6)


@pytest.mark.parametrize("merge_mode,width", [("concat", 6), ("sum", 3), ("mul", 3), ("ave", 3)])
def test_bidirectional_merge_modes(merge_mode, width):
    x = np.ones((2, 4, 5), np.float32)
    layer = keras.layers.Bidirectional(keras.layers.GRU(3, return_sequences=True), merge_mode=merge_mode)
    assert layer(x).shape == (2, 4, width)
    assert len(layer.trainable_weights) == 6
    both = keras.layers.Bidirectional(keras.layers.LSTM(3, return_state=True), merge_mode=None)
    res = both(x)
    assert len(res) == 6 and [t.shape for t in res[:2]] == [(2, 3), (2, 3)]


def test_generic_rnn_with_a_cell_matches_layer():
    x = np.linspace(-1, 1, 2 * 3 * 4).reshape(2, 3, 4).astype(np.float32)
    generic = keras.layers.RNN(keras.layers.GRUCell(3), return_sequences=True)
    layer = keras.layers.GRU(3, return_sequences=True)
    generic(x), layer(x)
    generic.set_weights(layer.get_weights())
    np.testing.assert_allclose(generic(x).numpy(), layer(x).numpy(), atol=1e-6)


def test_lstm_trains_in_a_traced_step():
    model = keras.Sequential([keras.layers.LSTM(4), keras.layers.Dense(1)])
    opt = keras.optimizers.Adam(0.01)
    x = np.linspace(-1, 1, 4 * 5 * 2).reshape(4, 5, 2).astype(np.float32)
    y = np.ones((4, 1), np.float32)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = [float(step()) for _ in range(30)]
    assert losses[-1] < 0.5 * losses[0]


SEQUENCE_OPS = [("LSTMSequence", lstm_inputs), ("GRUSequence", gru_inputs), ("RNNSequence", rnn_inputs)]


def _call(op, *args):
    """The raw op with its inputs in order (TF's raw ops take keywords only)."""
    return positional(op)(*args)


@pytest.mark.parametrize("op,inputs", SEQUENCE_OPS, ids=[o[0] for o in SEQUENCE_OPS])
def test_sequence_op_gradients_float64(op, inputs, rng):
    args = inputs(rng, np.float64, b=2, t=4, f=3, u=2)
    check_grads(lambda *a: _call(op, *a), args, {}, list(range(len(args))), rng)


@pytest.mark.parametrize("op,inputs", SEQUENCE_OPS, ids=[o[0] for o in SEQUENCE_OPS])
def test_second_derivative_raises_unimplemented(op, inputs, rng):
    args = [tf.constant(a) for a in inputs(rng, np.float64)]
    with tf.GradientTape() as outer:
        outer.watch(args[0])
        with tf.GradientTape() as inner:
            inner.watch(args[0])
            y = tf.reduce_sum(_call(op, *args) ** 2)
        with pytest.raises(tf.errors.UnimplementedError, match=op):
            inner.gradient(y, args[0])
    # a tangent a tape would differentiate (forward-over-reverse) is refused as the op runs
    with tf.autodiff.ForwardAccumulator(args[0], tf.ones_like(args[0])):
        with tf.GradientTape() as tape:
            tape.watch(args[0])
            with pytest.raises(tf.errors.UnimplementedError, match=op):
                _call(op, *args)


@pytest.mark.parametrize("layer_cls", [keras.layers.LSTM, keras.layers.GRU, keras.layers.SimpleRNN])
def test_bad_input_shapes_name_the_layer(layer_cls):
    layer = layer_cls(2, name="my_rnn")
    with pytest.raises(ValueError, match=r"my_rnn.*rank 3.*\(2, 3\)"):
        layer(np.ones((2, 3), np.float32))
    layer(np.ones((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match=r"my_rnn.*last axis 4.*\(2, 3, 5\)"):
        layer(np.ones((2, 3, 5), np.float32))
    with pytest.raises(ValueError, match="my_rnn.*initial state"):
        layer(np.ones((2, 3, 4), np.float32), initial_state=[np.ones((3, 2), np.float32)] * (2 if layer_cls is keras.layers.LSTM else 1))


def test_sequence_op_errors_name_the_op_and_shapes():
    x = tf.ones([2, 3, 4])
    h = tf.zeros([2, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"LSTMSequence.*kernel.*\(4, 20\).*\(3, 20\)"):
        tf.raw_ops.LSTMSequence(x=x, h0=h, c0=h, kernel=tf.zeros([3, 20]), recurrent_kernel=tf.zeros([5, 20]),
                                bias=tf.zeros([20]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="LSTMSequence.*dtype"):
        tf.raw_ops.LSTMSequence(x=x, h0=h, c0=h, kernel=tf.zeros([4, 20], tf.float64),
                                recurrent_kernel=tf.zeros([5, 20]), bias=tf.zeros([20]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"GRUSequence.*bias.*\(2, 15\).*\(15,\)"):
        tf.raw_ops.GRUSequence(x=x, h0=h, kernel=tf.zeros([4, 15]), recurrent_kernel=tf.zeros([5, 15]),
                               bias=tf.zeros([15]))


def test_recurrent_dropout_is_refused_and_bad_rates_raise():
    with pytest.raises(tf.errors.UnimplementedError, match="LSTMCell.*recurrent_dropout"):
        keras.layers.LSTM(2, recurrent_dropout=0.5)
    with pytest.raises(ValueError, match="GRUCell.*dropout"):
        keras.layers.GRU(2, dropout=1.5)


@pytest.mark.parametrize("layer_cls", [keras.layers.LSTM, keras.layers.GRU, keras.layers.SimpleRNN])
def test_input_dropout_one_mask_per_sequence(layer_cls, rng):
    """Inputs equal at every step and no recurrence: the outputs of a step-independent mask are equal
    at every step; inference ignores dropout."""
    x = np.repeat(rng.uniform(0.5, 1, (4, 1, 6)), 5, axis=1).astype(np.float32)
    layer = layer_cls(3, dropout=0.5, return_sequences=True, recurrent_initializer="zeros",
                      bias_initializer="random_normal")
    plain = layer_cls(3, return_sequences=True)
    plain(x)
    plain.set_weights(layer(x).shape and layer.get_weights())
    np.testing.assert_allclose(layer(x, training=False).numpy(), plain(x).numpy(), atol=1e-6)
    y = layer(x, training=True).numpy()
    assert not np.allclose(y, plain(x).numpy(), atol=1e-4)
    if layer_cls is keras.layers.SimpleRNN:   # no state carried: every step sees the same dropped input
        np.testing.assert_allclose(y, np.repeat(y[:, :1], 5, axis=1), atol=1e-6)


@pytest.mark.parametrize("layer_cls", [keras.layers.LSTM, keras.layers.GRU, keras.layers.SimpleRNN])
def test_config_round_trip_and_output_shape(layer_cls):
    layer = layer_cls(3, return_sequences=True, return_state=True, go_backwards=True, name="rec")
    again = layer_cls(**layer.get_config())
    assert (again.units, again.return_sequences, again.return_state, again.go_backwards, again.name) == \
        (3, True, True, True, "rec")
    shapes = layer.compute_output_shape((None, 5, 2))
    assert shapes[0] == (None, 5, 3) and all(s == (None, 3) for s in shapes[1:])


@pytest.mark.parametrize("layer_cls", [keras.layers.LSTM, keras.layers.GRU, keras.layers.SimpleRNN],
                         ids=["lstm", "gru", "simple_rnn"])
def test_fused_without_bias_agrees_and_empty_time_raises(layer_cls, rng):
    x = rng.uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    fused = layer_cls(4, use_bias=False, return_sequences=True, go_backwards=True)
    stepped = layer_cls(4, use_bias=False, return_sequences=True, go_backwards=True, activation=lambda v: tf.tanh(v))
    fused(x), stepped(x)
    stepped.set_weights(fused.get_weights())
    assert fused.cell.fused and not stepped.cell.fused
    np.testing.assert_allclose(fused(x).numpy(), stepped(x).numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="the inputs have no timesteps, got shape \\(2, 0, 3\\)"):
        fused(np.zeros((2, 0, 3), np.float32))
