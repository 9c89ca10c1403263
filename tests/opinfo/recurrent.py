"""Rows for the fused recurrent ops: LSTMSequence, GRUSequence and RNNSequence, their backward (...Grad) and tangent (...Jvp) ops."""
import inspect

import numpy as np

import tapegrad as tf
from opinfo.core import OpInfo, SampleInput


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def lstm_sequence_ref(x, h0, c0, kernel, recurrent_kernel, bias):
    """Keras's LSTM step formulas in a NumPy loop: [batch, timesteps, 6 * units] of (h_t, c_t, i, f, c~, o)."""
    u = h0.shape[-1]
    h, c, out = h0, c0, []
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ recurrent_kernel + bias
        i, f, g, o = _sigmoid(z[:, :u]), _sigmoid(z[:, u:2 * u]), np.tanh(z[:, 2 * u:3 * u]), _sigmoid(z[:, 3 * u:])
        c = f * c + i * g
        h = o * np.tanh(c)
        out.append(np.concatenate([h, c, i, f, g, o], -1))
    return np.stack(out, 1).astype(x.dtype)


def gru_sequence_ref(x, h0, kernel, recurrent_kernel, bias):
    """Keras's GRU (reset_after=True) step formulas in a NumPy loop: [batch, timesteps, units]."""
    u = h0.shape[-1]
    h, out = h0, []
    for t in range(x.shape[1]):
        xp = x[:, t] @ kernel + bias[0]
        rc = h @ recurrent_kernel + bias[1]
        z, r = _sigmoid(xp[:, :u] + rc[:, :u]), _sigmoid(xp[:, u:2 * u] + rc[:, u:2 * u])
        h = z * h + (1 - z) * np.tanh(xp[:, 2 * u:] + r * rc[:, 2 * u:])
        out.append(h)
    return np.stack(out, 1).astype(x.dtype)


def rnn_sequence_ref(x, h0, kernel, recurrent_kernel, bias):
    """SimpleRNN (tanh) in a NumPy loop: [batch, timesteps, units]."""
    h, out = h0, []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ kernel + h @ recurrent_kernel + bias)
        out.append(h)
    return np.stack(out, 1).astype(x.dtype)


def rnn_inputs(rng, dtype, b=2, t=3, f=2, u=2):
    shapes = [(b, t, f), (b, u), (f, u), (u, u), (u,)]
    return [rng.uniform(-0.8, 0.8, size=s).astype(dtype) for s in shapes]


def _one_state_samples(inputs):
    def samples(rng, dtype):
        yield SampleInput(inputs(rng, dtype))
        yield SampleInput(inputs(rng, dtype, b=1, t=1, f=3, u=1))
    return samples


def _one_state_with_output(inputs, ref, grad):
    def samples(rng, dtype):
        for s in _one_state_samples(inputs)(rng, dtype):
            out = ref(*s.args)
            extra = [rng.standard_normal(out.shape).astype(dtype)] if grad else \
                [rng.standard_normal(a.shape).astype(dtype) for a in s.args]
            yield SampleInput(s.args + [out] + extra)
    return samples


def gru_inputs(rng, dtype, b=2, t=3, f=2, u=2):
    shapes = [(b, t, f), (b, u), (f, 3 * u), (u, 3 * u), (2, 3 * u)]
    return [rng.uniform(-0.8, 0.8, size=s).astype(dtype) for s in shapes]


def lstm_inputs(rng, dtype, b=2, t=3, f=2, u=2):
    shapes = [(b, t, f), (b, u), (b, u), (f, 4 * u), (u, 4 * u), (4 * u,)]
    return [rng.uniform(-0.8, 0.8, size=s).astype(dtype) for s in shapes]


def _lstm_samples(rng, dtype):
    yield SampleInput(lstm_inputs(rng, dtype))
    yield SampleInput(lstm_inputs(rng, dtype, b=1, t=1, f=3, u=1))


def _with_output(rng, dtype, lam):
    for s in _lstm_samples(rng, dtype):
        out = lstm_sequence_ref(*s.args)
        yield SampleInput(s.args + [out] + lam(s.args, out))


def _grad_samples(rng, dtype):
    yield from _with_output(rng, dtype, lambda args, out: [rng.standard_normal(out.shape).astype(dtype)])


def _jvp_samples(rng, dtype):
    yield from _with_output(rng, dtype, lambda args, out: [rng.standard_normal(a.shape).astype(dtype) for a in args])


_grad_op, _jvp_op = tf._core.op("LSTMSequenceGrad"), tf._core.op("LSTMSequenceJvp")
_gru_grad_op, _gru_jvp_op = tf._core.op("GRUSequenceGrad"), tf._core.op("GRUSequenceJvp")
_rnn_grad_op, _rnn_jvp_op = tf._core.op("RNNSequenceGrad"), tf._core.op("RNNSequenceJvp")


def call_raw(op):
    """tf.raw_ops.<op> called with positional tensors, bound by keyword in its own argument order
    (TF's raw ops take no positional arguments)."""
    fn = getattr(tf.raw_ops, op)
    names = [n for n in inspect.signature(fn).parameters if n != "name"]
    return lambda *a: fn(**dict(zip(names, a)))


rows = [
    OpInfo("LSTMSequence", call_raw("LSTMSequence"), lstm_sequence_ref, samples=_lstm_samples,
           fwd_rtol32=1e-5),
    # The fused backward and tangent are checked through LSTMSequence's gradient and JVP rows; they
    # are not differentiable (see Note [Second derivatives of LSTMSequence] in cpp/ops/recurrent.cpp).
    OpInfo("LSTMSequenceGrad", _grad_op, samples=_grad_samples, differentiable=False),
    OpInfo("LSTMSequenceJvp", _jvp_op, samples=_jvp_samples, differentiable=False),
    OpInfo("GRUSequence", call_raw("GRUSequence"), gru_sequence_ref,
           samples=_one_state_samples(gru_inputs), fwd_rtol32=1e-5),
    OpInfo("GRUSequenceGrad", _gru_grad_op, samples=_one_state_with_output(gru_inputs, gru_sequence_ref, True),
           differentiable=False),
    OpInfo("GRUSequenceJvp", _gru_jvp_op, samples=_one_state_with_output(gru_inputs, gru_sequence_ref, False),
           differentiable=False),
    OpInfo("RNNSequence", call_raw("RNNSequence"), rnn_sequence_ref,
           samples=_one_state_samples(rnn_inputs), fwd_rtol32=1e-5),
    OpInfo("RNNSequenceGrad", _rnn_grad_op, samples=_one_state_with_output(rnn_inputs, rnn_sequence_ref, True),
           differentiable=False),
    OpInfo("RNNSequenceJvp", _rnn_jvp_op, samples=_one_state_with_output(rnn_inputs, rnn_sequence_ref, False),
           differentiable=False),
]
