"""Rows for the ops composed in Python (tapegrad/_ops/math/aggregates.py, _ops/nn/statistics_losses.py, _ops/linalg/diag_cross.py):
no registry op of their own, so their gradients are those of the ops they are built from, checked
here against finite differences (to second order where the formula is smooth)."""
import math

import numpy as np

import tapegrad as tf
from opinfo import composites_edges, composites_errors
from opinfo.core import OpInfo, SampleInput, attach_edge_samples, attach_error_inputs, uniform


def _shapes(*shape_lists, lo=-2.0, hi=2.0, **kwargs):
    """Samples of random inputs, one shape tuple per argument in each case."""
    def samples(rng, dtype):
        for shapes in shape_lists:
            yield SampleInput([uniform(rng, s, dtype, lo, hi) for s in shapes], dict(kwargs))
    return samples


def _xlog1py_samples(rng, dtype):
    for sx, sy in [((2, 3), (2, 3)), ((2, 1), (3,)), ((), (4,))]:
        yield SampleInput([uniform(rng, sx, dtype), uniform(rng, sy, dtype, -0.8, 2.0)])


def _cumlse_samples(rng, dtype):
    # exclusive sums start at -inf, where finite differences give NaN: the TF oracle checks those gradients
    for shape, kwargs in [((5,), {}), ((2, 4), {"axis": 1}), ((3, 2), {"reverse": True}), ((6,), {"axis": -1}),
                          ((0,), {})]:
        yield SampleInput([uniform(rng, shape, dtype, -3.0, 3.0)], kwargs)


def _segment_samples(rng, dtype):
    yield SampleInput([uniform(rng, (5, 2), dtype), np.array([0, 0, 1, 3, 3], np.int32)])
    yield SampleInput([uniform(rng, (3,), dtype), np.array([2, 2, 2], np.int64)])


def _moments_samples(rng, dtype):
    yield SampleInput([uniform(rng, (), dtype, 1.0, 4.0), uniform(rng, (3,), dtype), uniform(rng, (3,), dtype),
                       uniform(rng, (3,), dtype)])


def _weighted_samples(rng, dtype):
    yield SampleInput([uniform(rng, (3, 4), dtype), [0], uniform(rng, (3, 1), dtype, 0.2, 2.0)])
    yield SampleInput([uniform(rng, (3, 4), dtype), [0, 1], uniform(rng, (3, 4), dtype, 0.2, 2.0)],
                      {"keepdims": True})


def _average_samples(rng, dtype):
    yield SampleInput([uniform(rng, (4,), dtype)])
    yield SampleInput([uniform(rng, (2, 3), dtype)], {"global_batch_size": 5})


def _lpl_samples(rng, dtype):
    yield SampleInput([uniform(rng, (2, 3), dtype, 1.5, 3.0), uniform(rng, (2, 3), dtype)])
    yield SampleInput([uniform(rng, (2, 3), dtype, 1.5, 3.0), uniform(rng, (2, 3), dtype)], {"compute_full_loss": True})


def _wce_samples(rng, dtype):
    yield SampleInput([uniform(rng, (2, 3), dtype, 0.0, 1.0), uniform(rng, (2, 3), dtype), uniform(rng, (), dtype, 0.5, 3.0)])


def _blocks(shape, b):
    return lambda rng, dtype: [SampleInput([uniform(rng, shape, dtype), b])]


def _diag_samples(rng, dtype):
    yield SampleInput([uniform(rng, (3,), dtype)])
    yield SampleInput([uniform(rng, (2, 2), dtype)], {"k": -1})
    yield SampleInput([uniform(rng, (2,), dtype)], {"num_rows": 3, "padding_value": 1.5})


def _eye_samples(rng, dtype):
    dt = tf.as_dtype(dtype)
    for n, kw in [(3, {}), (2, {"num_columns": 4}), (3, {"num_columns": 2, "batch_shape": [2]})]:
        yield SampleInput([n], dict(kw, dtype=dt))


def _np_eye(n, num_columns=None, batch_shape=(), dtype=None):
    m = np.eye(n, num_columns, dtype=dtype.as_numpy_dtype)
    return np.broadcast_to(m, tuple(batch_shape) + m.shape)


def _linspace_samples(rng, dtype):
    # Python bounds: under a ForwardAccumulator alone (no tape) tf.linspace has no JVP, so no tensor bounds here
    yield SampleInput([-1.5, 2.0, 5])
    yield SampleInput([[0.0, 1.0], 3.0, 4], {"axis": 1})
    yield SampleInput([2.0, 2.0, 1])


def _np_crelu(x, axis=-1):
    return np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], axis)


rows = [
    OpInfo("math.reciprocal_no_nan", tf.math.reciprocal_no_nan, lambda x: 1 / x, domain=(0.5, 2.0), order=2, op=None),
    OpInfo("math.scalar_mul", lambda s, x: tf.math.scalar_mul(s, x), lambda s, x: s * x,
           samples=_shapes(((), (2, 3))), order=2, op=None),
    OpInfo("math.accumulate_n", lambda a, b: tf.math.accumulate_n([a, b]), np.add,
           samples=_shapes(((2, 3), (2, 3))), op=None),
    OpInfo("math.xlog1py", tf.math.xlog1py, lambda x, y: x * np.log1p(y), samples=_xlog1py_samples,
           domain=(0.2, 2.0), order=2, op=None),
    OpInfo("math.polyval", lambda a, b, c, x: tf.math.polyval([a, b, c], x), lambda a, b, c, x: (a * x + b) * x + c,
           samples=_shapes(((), (3,), (), (3,)), ((), (), (), (2, 2))), order=2, op=None),
    OpInfo("math.cumulative_logsumexp", tf.math.cumulative_logsumexp, samples=_cumlse_samples, order=2, op=None),
    OpInfo("math.segment_sum", tf.math.segment_sum, samples=_segment_samples, op=None),
    OpInfo("math.segment_mean", tf.math.segment_mean, samples=_segment_samples, order=2, op=None),
    OpInfo("nn.normalize_moments", lambda c, m, v, s: sum(tf.nn.normalize_moments(c, m, v, s)),
           samples=_moments_samples, order=2, op=None),
    OpInfo("nn.sufficient_statistics", lambda x, s: sum(tf.nn.sufficient_statistics(x, [0], s)[1:3]),
           samples=_shapes(((3, 4), (4,))), order=2, op=None),
    OpInfo("nn.weighted_moments", lambda x, axes, w, **kw: sum(tf.nn.weighted_moments(x, axes, w, **kw)),
           samples=_weighted_samples, order=2, op=None),
    OpInfo("nn.compute_average_loss", tf.nn.compute_average_loss, samples=_average_samples, op=None),
    OpInfo("nn.scale_regularization_loss", tf.nn.scale_regularization_loss, np.sum, samples=_shapes(((3,),)), op=None),
    OpInfo("nn.log_poisson_loss", tf.nn.log_poisson_loss, samples=_lpl_samples, order=2, op=None),
    OpInfo("nn.weighted_cross_entropy_with_logits", tf.nn.weighted_cross_entropy_with_logits, samples=_wce_samples,
           order=2, op=None),
    OpInfo("nn.crelu", tf.nn.crelu, _np_crelu, samples=_shapes(((2, 3),), axis=0), op=None),
    OpInfo("nn.space_to_depth", tf.nn.space_to_depth, samples=_blocks((1, 4, 2, 3), 2), op=None),
    OpInfo("nn.depth_to_space", tf.nn.depth_to_space, samples=_blocks((1, 2, 1, 8), 2), op=None),
    OpInfo("linalg.diag", tf.linalg.diag, samples=_diag_samples, op=None),
    OpInfo("linalg.set_diag", tf.linalg.set_diag, samples=_shapes(((3, 2), (2,)), ((2, 2, 3), (2, 2))), op=None),
    OpInfo("linalg.tensor_diag", tf.linalg.tensor_diag, samples=_shapes(((2, 2),)), op=None),
    OpInfo("linalg.tensor_diag_part", tf.linalg.tensor_diag_part, samples=_shapes(((2, 3, 2, 3),)), op=None),
    OpInfo("linalg.normalize", lambda x, **kw: tf.linalg.normalize(x, **kw)[0],
           samples=_shapes(((2, 3),), axis=1), order=2, op=None),
    OpInfo("linalg.cross", tf.linalg.cross, np.cross, samples=_shapes(((3,), (3,)), ((2, 4, 3), (2, 4, 3))),
           order=2, op=None),
    OpInfo("linalg.diag_part", tf.linalg.diag_part, lambda x: np.diagonal(x, axis1=-2, axis2=-1),
           samples=_shapes(((3, 3),), ((2, 3, 4),)), order=2, op=None),
    OpInfo("math.erfc", tf.math.erfc, np.vectorize(math.erfc, otypes=[float]), domain=(-3.0, 3.0), order=2, op=None),
    OpInfo("add_n", lambda *xs: tf.add_n(list(xs)), lambda *xs: sum(xs),
           samples=_shapes(((2, 3), (2, 3)), ((4,), (4,), (4,))), order=2, op=None),
    OpInfo("eye", tf.eye, _np_eye, samples=_eye_samples, differentiable=False, op=None),
    OpInfo("linspace", tf.linspace, lambda start, stop, num, axis=0: np.linspace(start, stop, num, axis=axis),
           samples=_linspace_samples, differentiable=False, dtypes=("float32",), op=None),
]

attach_error_inputs(rows, composites_errors.ERROR_INPUTS)  # the rows' bad calls, in opinfo/composites_errors.py
attach_edge_samples(rows, composites_edges.EDGE_SAMPLES)  # their edge values, in opinfo/composites_edges.py
