"""Edge samples of the tf.nn rows (opinfo/nn.py): at extreme logits and inputs the values stay finite and
the gradients exact (the formulas in the comments)."""
import numpy as np

from opinfo.core import Check, Edge

FLOATS = (np.float32, np.float64)
HUGE = [[1e4, -1e4, 0.0], [-1e4, 1e4, 0.0]]


def _log_softmax():
    # d/dx sum(log_softmax) = 1 - n softmax(x)
    return [Edge(np.array([1000.0, 0.0, -1000.0], dt)).gives([0.0, -1000.0, -2000.0], rtol=1e-7)
            .and_grad([-2.0, 1.0, 1.0], rtol=1e-7) for dt in FLOATS]


def _rows_sum_to_one_keeping_argmax(logits):
    return Check("finite, rows summing to 1 (rtol 1e-6), argmax kept",
                 lambda y: np.all(np.isfinite(y)) and np.allclose(y.sum(axis=-1), 1.0, rtol=1e-6, atol=0)
                 and np.all(y.argmax(axis=-1) == logits.argmax(axis=-1)))


def _softmax():
    cases = []
    for dt in FLOATS:
        for scale in (1e4, 1e30):
            logits = np.random.default_rng(0).uniform(-1, 1, (4, 7)) * scale
            cases.append(Edge(logits.astype(dt)).gives(_rows_sum_to_one_keeping_argmax(logits)))
    return cases


def _dense_cross_entropy():
    labels = np.array([[1.0, 0.0, 0.0], [0.5, 0.0, 0.5]], np.float32)
    # d/dx = softmax(x) sum(labels) - labels
    return [Edge(labels, np.array(HUGE, np.float32)).gives([0.0, 0.5 * 2e4 + 0.5 * 1e4], rtol=1e-7)
            .and_grad([[0.0, 0.0, 0.0], [-0.5, 1.0, -0.5]], rtol=1e-7, wrt=[1])]


def _sigmoid_cross_entropy():
    labels = np.array([1.0, 0.0, 1.0, 0.0, 0.25], np.float32)
    logits = np.array([1e4, 1e4, -1e4, -1e4, 0.0], np.float32)
    return [
        # d/dx = sigmoid(x) - z
        Edge(labels, logits).gives([0.0, 1e4, 1e4, 0.0, np.log(2.0)], rtol=1e-6)
        .and_grad([0.0, 1.0, -1.0, 0.0, 0.25], rtol=1e-7, wrt=[1]),
        Edge(np.array([1.0], np.float32), np.array([30.0], np.float32)).gives([np.log1p(np.exp(-30.0))], rtol=1e-5),
    ]


def _gated():
    """gelu, its tanh form and silu at large inputs: the identity or 0, gradient 1 or 0."""
    return [Edge(np.array([1e4, -1e4, 80.0, -80.0], np.float32)).gives([1e4, 0.0, 80.0, 0.0], rtol=1e-7, atol=1e-20)
            .and_grad([1.0, 0.0, 1.0, 0.0], rtol=1e-7, atol=1e-20)]


EDGE_SAMPLES = {
    "LogSoftmax": _log_softmax, "Softmax": _softmax,
    "SparseSoftmaxCrossEntropyWithLogits": lambda: [
        Edge(np.array([0, 0], np.int32), np.array(HUGE, np.float32)).gives([0.0, 2e4], rtol=1e-7)
        .and_grad([[0.0, 0.0, 0.0], [-1.0, 1.0, 0.0]], rtol=1e-7)],
    "softmax_cross_entropy_with_logits": _dense_cross_entropy,
    "SigmoidCrossEntropyWithLogits": _sigmoid_cross_entropy,
    "Gelu": _gated, "GeluTanh": _gated, "Silu": _gated,
}
