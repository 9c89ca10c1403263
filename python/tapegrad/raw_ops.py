"""``tf.raw_ops``: fused ops of the op table that have no higher-level TF name, called by keyword."""
from tapegrad import _core
from tapegrad._tensor import convert_to_tensor as _convert

_lstm_sequence = _core.op("LSTMSequence")


def LSTMSequence(x, h0, c0, kernel, recurrent_kernel, bias, name=None):  # noqa: N802 -- TF's raw op naming
    """The whole LSTM time loop in one op (gate order i, f, c, o, as Keras lays out its weights).

    x [batch, timesteps, features], h0 and c0 [batch, units], kernel [features, 4 * units],
    recurrent_kernel [units, 4 * units], bias [4 * units]. Returns [batch, timesteps, 6 * units]:
    per step the hidden state h_t, the cell state c_t and the activated gates i, f, c~, o (kept for
    the backward), units columns each in that order.
    """
    args = [_convert(a) for a in (x, h0, c0, kernel, recurrent_kernel, bias)]
    return _lstm_sequence(*args)


_gru_sequence = _core.op("GRUSequence")


def GRUSequence(x, h0, kernel, recurrent_kernel, bias, name=None):  # noqa: N802 -- TF's raw op naming
    """The whole GRU time loop in one op (Keras's reset_after=True GRU, gate order z, r, h).

    x [batch, timesteps, features], h0 [batch, units], kernel [features, 3 * units],
    recurrent_kernel [units, 3 * units], bias [2, 3 * units] (input bias, recurrent bias).
    Returns the hidden states of every step, [batch, timesteps, units].
    """
    args = [_convert(a) for a in (x, h0, kernel, recurrent_kernel, bias)]
    return _gru_sequence(*args)


_rnn_sequence = _core.op("RNNSequence")


def RNNSequence(x, h0, kernel, recurrent_kernel, bias, name=None):  # noqa: N802 -- TF's raw op naming
    """The whole SimpleRNN (tanh) time loop in one op: h_t = tanh(x_t kernel + h_{t-1} recurrent_kernel + bias).

    x [batch, timesteps, features], h0 [batch, units], kernel [features, units], recurrent_kernel
    [units, units], bias [units]. Returns the hidden states of every step, [batch, timesteps, units].
    """
    args = [_convert(a) for a in (x, h0, kernel, recurrent_kernel, bias)]
    return _rnn_sequence(*args)
