"""TF's answer at edge values (0, -0, +-inf, NaN, huge arguments, empty tensors): each expected value
below was read from TensorFlow 2.21 on x86 CPU and is written here as a literal.

Differences from TF left on purpose (not asserted here):
- subnormals: TF's CPU kernels flush them to zero (sqrt(1e-45) = 0, log(1e-45) = -inf,
  floor(-1e-45) = -0, relu's gradient at 1e-45 = 0); tapegrad keeps IEEE arithmetic.
- which zero max/min(-0, +0) give: TF's answer depends on the tensor's size (vector or scalar path).
- the gradient of norm / reduce_euclidean_norm / global_norm at an all-zero slice is 0 (TF: NaN).
- float64 erf(+-inf) and erf(+-1e308) are +-1 (TF: NaN); float64 gelu uses the exact constants
  (TF rounds 1/sqrt(2) to float32, an error of 5e-9).
- floor, ceil, round, sign have a zero gradient (TF: None for floor/ceil/round).
"""
import numpy as np
import pytest

import tapegrad as tf

NAN, INF = float("nan"), float("inf")
FLOATS = [tf.float32, tf.float64]


def _eq(got, want):
    """Exact comparison that treats NaN as equal to NaN and tells -0 from +0."""
    got, want = np.asarray(got.numpy() if hasattr(got, "numpy") else got), np.asarray(want, dtype=np.float64)
    np.testing.assert_array_equal(got, want.astype(got.dtype) if got.dtype.kind == "f" else want)
    if got.dtype.kind == "f":
        zero = want == 0
        np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


def _grad(fn, x, dtype=tf.float32):
    x = tf.constant(x, dtype=dtype)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


# --- sin, cos, tan of large arguments -------------------------------------------------------------

BIG_F32 = [1e10, 1e30, -1e30, 3e38, 1e6, 6000.0, 7000.0, 1e5]
SIN_F32 = [-0.48750603, -0.79116344, 0.79116344, 0.8749049, -0.34999353, -0.4277195, 0.5068854, 0.0357488]
COS_F32 = [0.8731196, -0.61160475, -0.61160475, -0.48429477, 0.93675214, 0.90391153, 0.86201346, -0.9993608]
TAN_F32 = [-0.5583496, 1.2935861, -1.2935861, -1.8065544, -0.37362444, -0.4731874, 0.588025, -0.03577166]
BIG_F64 = [1e20, 1e300, 1e6, 2e6, 1e10]
SIN_F64 = [-0.64525129, -0.81788191, -0.3499935, -0.65571432, -0.48750603]
COS_F64 = [0.7639704, -0.57538611, 0.93675213, 0.7550091, 0.87311962]


@pytest.mark.parametrize("n", [8, 70_000])  # 70_000 takes the multi-threaded path
def test_sin_cos_tan_of_large_float32_arguments(n, isa):
    x = tf.constant(np.resize(np.array(BIG_F32, np.float32), n))
    np.testing.assert_allclose(tf.sin(x).numpy(), np.resize(SIN_F32, n), atol=2e-6)
    np.testing.assert_allclose(tf.cos(x).numpy(), np.resize(COS_F32, n), atol=2e-6)
    np.testing.assert_allclose(tf.tan(x).numpy(), np.resize(TAN_F32, n), rtol=2e-6)


def test_sin_cos_of_large_float64_arguments(isa):
    x = tf.constant(BIG_F64, tf.float64)
    np.testing.assert_allclose(tf.sin(x).numpy(), SIN_F64, atol=1e-8)
    np.testing.assert_allclose(tf.cos(x).numpy(), COS_F64, atol=1e-8)


def test_sin_cos_blocks_mixing_large_and_normal_arguments_and_specials(isa):
    # a large argument sends its block to the exact path; the other elements must not change
    rng = np.random.default_rng(0)
    x = rng.uniform(-10, 10, 1000)
    x[[3, 500, 999]] = [1e20, -1e15, 2e6]
    x[[7, 8, 9]] = [INF, -INF, NAN]
    got_s, got_c = tf.sin(tf.constant(x)).numpy(), tf.cos(tf.constant(x)).numpy()
    with np.errstate(invalid="ignore"):
        want_s, want_c = np.sin(x), np.cos(x)
    np.testing.assert_allclose(got_s, want_s, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(got_c, want_c, rtol=1e-13, atol=1e-15)
    _eq(tf.sin(tf.constant([-0.0])), [-0.0])


def test_sin_cos_large_arguments_in_a_function_and_gradient():
    f = tf.function(lambda x: tf.sin(x) * 2.0 + tf.cos(x))  # one fused program
    x = tf.constant([1e10, 1e30, 0.5], tf.float32)
    want = 2.0 * np.array([-0.48750603, -0.79116344, np.sin(0.5)]) + np.array([0.8731196, -0.61160475, np.cos(0.5)])
    np.testing.assert_allclose(f(x).numpy(), want, atol=1e-5)
    # d/dx sin x = cos x at 1e30: TF gives -0.61160475
    np.testing.assert_allclose(_grad(tf.sin, [1e30]).numpy(), [-0.61160475], atol=2e-6)


# --- cast -----------------------------------------------------------------------------------------

CAST_IN = [NAN, INF, -INF, 0.0, -0.0, 3e9, -3e9, 1e20, 2.5, -2.5, 2147483648.0, -2147483649.0]
LO32, LO64 = -2147483648, -9223372036854775808


def test_cast_float_to_bool_is_nonzero_and_nan_is_true():
    want = [True, True, True, False, False, True, True, True, True, True, True, True]
    for dt in FLOATS:
        assert tf.cast(tf.constant(CAST_IN, dt), tf.bool).numpy().tolist() == want
    assert tf.cast(tf.constant([-0.5, 0.25]), tf.bool).numpy().tolist() == [True, True]


def test_cast_float_to_int_of_nan_inf_and_out_of_range_gives_the_lowest_value():
    got32 = tf.cast(tf.constant(CAST_IN, tf.float32), tf.int32).numpy().tolist()
    assert got32 == [LO32, LO32, LO32, 0, 0, LO32, LO32, LO32, 2, -2, LO32, LO32]
    got64 = tf.cast(tf.constant(CAST_IN, tf.float32), tf.int64).numpy().tolist()
    assert got64 == [LO64, LO64, LO64, 0, 0, 3000000000, -3000000000, LO64, 2, -2, 2147483648, -2147483648]
    d = [NAN, INF, -INF, 0.0, -0.0, 3e9, -3e9, 1e20, 9.3e18, -9.3e18, 2147483647.5, -2147483648.5]
    assert tf.cast(tf.constant(d, tf.float64), tf.int32).numpy().tolist() == \
        [LO32, LO32, LO32, 0, 0, LO32, LO32, LO32, LO32, LO32, 2147483647, -2147483648]
    assert tf.cast(tf.constant(d, tf.float64), tf.int64).numpy().tolist() == \
        [LO64, LO64, LO64, 0, 0, 3000000000, -3000000000, LO64, LO64, LO64, 2147483647, -2147483648]


def test_cast_between_integers_and_to_bool():
    assert tf.cast(tf.constant([2**31 - 1, -2**31, 2**40], tf.int64), tf.int32).numpy().tolist() == \
        [2147483647, -2147483648, 0]
    assert tf.cast(tf.constant([2, 0, -1]), tf.bool).numpy().tolist() == [True, False, True]


# --- NaN through activations and elementwise ops ----------------------------------------------------

EDGE = [NAN, 1.0, -1.0, 0.0, -0.0, INF, -INF, 7.0]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name, fn, want", [
    ("relu", tf.nn.relu, [NAN, 1, 0, 0, 0, INF, 0, 7]),
    ("relu6", tf.nn.relu6, [NAN, 1, 0, 0, 0, 6, 0, 6]),
    ("sign", tf.sign, [NAN, 1, -1, 0, 0, 1, -1, 1]),
    ("abs", tf.abs, [NAN, 1, 1, 0, 0, INF, INF, 7]),
    ("leaky_relu", tf.nn.leaky_relu, [NAN, 1, -0.2, 0, -0.0, INF, -INF, 7]),
    ("floor", tf.floor, [NAN, 1, -1, 0, -0.0, INF, -INF, 7]),
    ("ceil", tf.math.ceil, [NAN, 1, -1, 0, -0.0, INF, -INF, 7]),
    ("round", tf.round, [NAN, 1, -1, 0, -0.0, INF, -INF, 7]),
    ("negative", tf.negative, [NAN, -1, 1, -0.0, 0, -INF, INF, -7]),
    ("square", tf.square, [NAN, 1, 1, 0, 0, INF, INF, 49]),
])
def test_edge_values_through_elementwise_ops(name, fn, want, dtype):
    got = fn(tf.constant(EDGE, dtype))
    if name == "leaky_relu":
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-7)
        _eq(got[4:5], [-0.0])
    else:
        _eq(got, want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_elu_selu_of_nan_and_signed_zero(dtype):
    x = tf.constant([NAN, -0.0, -INF], dtype)
    _eq(tf.nn.elu(x), [NAN, -0.0, -1.0])
    got = tf.nn.selu(x).numpy()
    assert np.isnan(got[0]) and got[1] == 0 and np.signbit(got[1])
    np.testing.assert_allclose(got[2], -1.7580993408473766, rtol=1e-7)


@pytest.mark.parametrize("dtype", FLOATS)
def test_maximum_minimum_and_clip_propagate_nan_from_either_side(dtype):
    # (which zero max(-0, +0) gives is not asserted: TF's answer depends on the tensor's size)
    x = tf.constant([NAN, 1.0, 2.0, NAN], dtype)
    y = tf.constant([1.0, NAN, -3.0, NAN], dtype)
    for fn in (tf.maximum, tf.minimum):
        _eq(fn(x, y)[:2], [NAN, NAN])
        _eq(fn(y, x)[:2], [NAN, NAN])
        _eq(fn(x, y)[3:], [NAN])
    _eq(tf.maximum(x, y)[2:3], [2.0])
    _eq(tf.minimum(y, x)[2:3], [-3.0])
    _eq(tf.clip_by_value(tf.constant([NAN, 5.0, -5.0, -0.0], dtype), -1.0, 1.0), [NAN, 1.0, -1.0, -0.0])


def test_integer_ops_wrap_as_tf():
    lo = tf.constant([-2**31], tf.int32)
    _eq(tf.abs(lo), [-2**31])
    _eq(tf.negative(lo), [-2**31])
    _eq(tf.square(tf.constant([2**20], tf.int32)), [0])
    _eq(tf.constant([2**31 - 1], tf.int32) + 1, [-2**31])
    _eq(tf.constant([2**31 - 1], tf.int32) * 3, [2147483645])
    _eq(tf.constant([-2**31], tf.int32) - 1, [2**31 - 1])
    _eq(tf.math.squared_difference(tf.constant([2**20], tf.int32), tf.constant([0], tf.int32)), [0])
    _eq(tf.sign(tf.constant([-5, 0, 7])), [-1, 0, 1])


# --- gradients at edge points ---------------------------------------------------------------------

GRAD_AT = [NAN, -0.0, 0.0, INF, -INF, 6.0, 1e30, -1e30]


@pytest.mark.parametrize("name, fn, want", [
    ("relu", tf.nn.relu, [0, 0, 0, 1, 0, 1, 1, 0]),
    ("relu6", tf.nn.relu6, [0, 0, 0, 0, 0, 0, 0, 0]),
    ("leaky_relu", tf.nn.leaky_relu, [0.2, 0.2, 0.2, 1, 0.2, 1, 1, 0.2]),
    ("elu", tf.nn.elu, [1, 1, 1, 1, 0, 1, 1, 0]),
    ("selu", tf.nn.selu, [1.050701, 1.050701, 1.050701, 1.050701, 0, 1.050701, 1.050701, 0]),
    ("abs", tf.abs, [NAN, 0, 0, 1, -1, 1, 1, -1]),
    ("sign", tf.sign, [0, 0, 0, 0, 0, 0, 0, 0]),
    ("maximum(x, 1)", lambda x: tf.maximum(x, 1.0), [0, 0, 0, 1, 0, 1, 1, 0]),
    ("maximum(1, x)", lambda x: tf.maximum(1.0, x), [1, 0, 0, 1, 0, 1, 1, 0]),
    ("minimum(x, 1)", lambda x: tf.minimum(x, 1.0), [0, 1, 1, 0, 1, 0, 0, 1]),
    ("minimum(1, x)", lambda x: tf.minimum(1.0, x), [1, 1, 1, 0, 1, 0, 0, 1]),
    ("clip_by_value", lambda x: tf.clip_by_value(x, -1.0, 1.0), [0, 1, 1, 0, 0, 0, 0, 0]),
])
def test_gradients_at_edge_points(name, fn, want):
    np.testing.assert_allclose(_grad(fn, GRAD_AT).numpy(), want, rtol=1e-6)


# --- norms, trace, diag_part ------------------------------------------------------------------------

def test_norms_of_a_vector_holding_nan_are_nan():
    v = tf.constant([1.0, NAN, 2.0])
    assert np.isnan(tf.norm(v).numpy())
    assert np.isnan(tf.math.reduce_euclidean_norm(v).numpy())
    assert np.isnan(tf.linalg.global_norm([v]).numpy())
    clipped, n = tf.clip_by_global_norm([v], 1.0)
    assert np.isnan(n.numpy()) and np.isnan(clipped[0].numpy()).all()
    assert np.isnan(tf.clip_by_norm(tf.constant([NAN, 1.0]), 1.0).numpy()).all()
    assert np.isnan(_grad(tf.norm, [NAN, 1.0]).numpy()).all()


def test_norms_at_zero_inf_and_empty():
    _eq(tf.norm(tf.constant([INF, 1.0])), INF)
    _eq(tf.norm(tf.constant([0.0, 0.0])), 0.0)
    _eq(tf.math.reduce_euclidean_norm(tf.zeros([0])), 0.0)
    _eq(tf.linalg.global_norm([]), 0.0)
    _eq(tf.clip_by_norm(tf.constant([0.0, 0.0]), 1.0), [0.0, 0.0])


def test_trace_and_diag_part_read_only_the_diagonal():
    m = tf.constant([[1.0, NAN], [INF, 2.0]])
    _eq(tf.linalg.trace(m), 3.0)
    _eq(tf.linalg.diag_part(m), [1.0, 2.0])
    _eq(_grad(tf.linalg.trace, [[1.0, NAN], [INF, 2.0]]), [[1.0, 0.0], [0.0, 1.0]])


def test_diag_part_and_trace_of_non_square_batched_and_empty_matrices():
    x = tf.reshape(tf.range(6.0), [2, 3])
    _eq(tf.linalg.diag_part(x), [0.0, 4.0])
    _eq(tf.linalg.trace(x), 4.0)
    _eq(tf.linalg.diag_part(tf.reshape(tf.range(8.0), [2, 2, 2])), [[0.0, 3.0], [4.0, 7.0]])
    assert tf.linalg.diag_part(tf.zeros([0, 3])).shape == (0,)
    _eq(tf.linalg.trace(tf.constant([[1, 2], [3, 4]])), 5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="MatrixDiagPart"):
        tf.linalg.diag_part(tf.ones([3]))


# --- softmax and cross-entropy ----------------------------------------------------------------------

def test_softmax_and_log_softmax_rows_with_infinities_follow_tf():
    s = tf.constant([[1.0, INF, 2.0], [INF, INF, 1.0], [-INF, 0.0, 1.0], [NAN, 1.0, 2.0], [-INF, -INF, -INF]])
    sm, lsm = tf.nn.softmax(s).numpy(), tf.nn.log_softmax(s).numpy()
    for r in (0, 1, 3, 4):
        assert np.isnan(sm[r]).all() and np.isnan(lsm[r]).all()
    np.testing.assert_allclose(sm[2], [0.0, 0.26894143, 0.7310586], rtol=1e-6)
    np.testing.assert_allclose(lsm[2], [-INF, -1.3132616, -0.31326166], rtol=1e-6)


def test_softmax_cross_entropy_axis_none_is_the_last_axis():
    labels, logits = tf.constant([[0.0, 1.0], [1.0, 0.0]]), tf.constant([[1.0, 2.0], [3.0, 4.0]])
    got = tf.nn.softmax_cross_entropy_with_logits(labels, logits, axis=None)
    np.testing.assert_allclose(got.numpy(), [0.31326166, 1.3132616], rtol=1e-6)


def test_softmax_cross_entropy_broadcasts_labels_and_logits_as_tf():
    # TF flattens each to [rows, classes] and broadcasts the two matrices: logits [[4.]] is [[4., 4.]]
    # here (the unbroadcast log_softmax gave 0, so -0.0).
    _eq(tf.nn.softmax_cross_entropy_with_logits(labels=[[0.5, 0.5]], logits=[[4.0]]), [0.6931472])
    logits = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    got = tf.nn.softmax_cross_entropy_with_logits(labels=[0.2, 0.3, 0.5], logits=logits)
    want = -np.sum(np.array([0.2, 0.3, 0.5]) * (logits.numpy() - np.log(np.exp(logits.numpy()).sum(1, keepdims=True))), 1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    got = tf.nn.softmax_cross_entropy_with_logits(labels=[[1.0], [0.5]], logits=logits)  # labels [2, 1]
    np.testing.assert_allclose(got.numpy(), [4.2228179, 2.6119671], rtol=1e-6)  # TF 2.21's
    got = tf.nn.softmax_cross_entropy_with_logits(labels=[[0.1, 0.9]], logits=tf.transpose(logits), axis=0)
    np.testing.assert_allclose(got.numpy(), [0.42228177, 4.7015405], rtol=1e-6)  # TF 2.21's
    for labels, logits_ in (([[0.5, 0.5]] * 2, [[1.0, 2.0]]), (tf.ones([2, 2, 3]), tf.ones([2, 1, 3])),
                            (tf.ones([2, 3]), tf.ones([2, 4]))):
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be broadcastable"):
            tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits_)


# --- pad, reductions, clip_by_norm, jacobians -----------------------------------------------------

def test_pad_takes_paddings_past_int32_as_tf():
    # The paddings were converted to int32, so 2**32 + 1 padded 1 and 2**40 / -2**40 padded nothing.
    assert tf.pad(tf.zeros([0, 2]), [[0, 0], [2**32 + 1, 0]]).shape == (0, 2**32 + 3)
    assert tf.pad(tf.zeros([2, 0]), [[2**40, 0], [0, 0]]).shape == (2**40 + 2, 0)
    with pytest.raises(tf.errors.ResourceExhaustedError, match="Pad"):
        tf.pad(tf.zeros([2]), [[2**40, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        tf.pad(tf.zeros([2]), [[-2**40, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="size"):
        tf.pad(tf.zeros([2]), [[2**62, 2**62]])


@pytest.mark.parametrize("fn", [tf.reduce_sum, tf.reduce_max, tf.reduce_mean, tf.reduce_prod,
                                lambda x, axis: tf.reduce_any(x > 0, axis)])
def test_a_reduction_axis_named_twice_raises_as_tf(fn):
    for axis in ([0, 0], [0, -2], [0, 1, 0]):
        with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate dimension: 0"):
            fn(tf.ones([2, 3]), axis)
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate"):
        tf.function(lambda x: tf.reduce_sum(x, [1, 1]))(tf.ones([2, 3]))


def test_clip_by_norm_with_a_negative_clip_norm_gives_zeros_as_tf():
    # t * c / max(norm, c) flipped the sign for c < 0; TF clamps c at 0. Values from TF 2.21.
    x = tf.constant([3.0, 4.0])
    _eq(tf.clip_by_norm(x, -1.0), [0.0, 0.0])
    _eq(tf.clip_by_norm(x, -INF), [0.0, 0.0])
    _eq(tf.clip_by_norm(tf.constant([1.0, INF]), -1.0), [0.0, NAN])
    _eq(tf.clip_by_norm(tf.constant([0.0, 0.0]), -1.0), [NAN, NAN])
    _eq(tf.clip_by_norm(x, NAN), [NAN, NAN])
    _eq(_grad(lambda t: tf.reduce_sum(tf.clip_by_norm(t, -1.0) * [1.0, 2.0]), [3.0, 4.0]), [0.0, 0.0])


def test_jacobian_of_an_empty_target_is_an_empty_tensor_as_tf():
    x = tf.Variable(tf.ones([3]))
    with tf.GradientTape(persistent=True) as tape:
        y = x[:0] * 2.0
        unconnected = tf.zeros([0, 2])
        wide = tf.zeros([0, 2]) + x[0]
    assert tape.jacobian(y, x).shape == (0, 3)  # was None
    assert tape.jacobian(unconnected, x) is None
    assert tape.jacobian(unconnected, x, unconnected_gradients="zero").shape == (0, 2, 3)
    assert tape.jacobian(wide, x).shape == (0, 2, 3)
    assert tape.jacobian(y, x, experimental_use_pfor=False).shape == (0, 3)
    batch = tf.Variable(tf.ones([0, 3]))
    with tf.GradientTape() as tape:
        z = tf.matmul(batch, tf.ones([3, 2]))
    assert tape.batch_jacobian(z, batch).shape == (0, 2, 3)  # a division by the batch size 0 before


# --- indexing, concat, squeeze, constant ------------------------------------------------------------

def test_a_list_index_is_a_tuple_of_indices():
    x = tf.reshape(tf.range(12.0), [3, 4])
    _eq(x[[1, 2]], 6.0)
    _eq(x[[0]], [0.0, 1.0, 2.0, 3.0])
    _eq(x[[None, 1]], [[4.0, 5.0, 6.0, 7.0]])
    _eq(x[[Ellipsis, 1]], [1.0, 5.0, 9.0])
    _eq(x[[]], x.numpy())
    with pytest.raises(tf.errors.InvalidArgumentError):
        x[[0, 1, 2]]


def test_concat_of_one_tensor_returns_it():
    x = tf.reshape(tf.range(12.0), [3, 4])
    _eq(tf.concat(x, 0), x.numpy())
    _eq(tf.concat(x, 1), x.numpy())
    _eq(tf.concat(tf.constant(1.0), 0), 1.0)
    _eq(tf.concat([[1, 2], [3, 4]], 0), [1, 2, 3, 4])


def test_squeeze_with_an_empty_axis_list_squeezes_every_size_one_axis():
    assert tf.squeeze(tf.zeros([1, 2, 1]), axis=[]).shape == (2,)
    assert tf.squeeze(tf.zeros([1, 2, 1]), axis=()).shape == (2,)
    assert tf.squeeze(tf.zeros([2, 3]), axis=[]).shape == (2, 3)
    assert tf.squeeze(tf.zeros([1, 2, 1]), axis=[0, 0]).shape == (2, 1)
    assert tf.squeeze(tf.zeros([1, 2, 1]), axis=np.int64(2)).shape == (1, 2)


@pytest.mark.parametrize("value, dtype", [(3.7, tf.int32), (3.0, tf.int32), ([1, 2.5], tf.int32),
                                          (3.0, tf.int64), (INF, tf.int32), ([1, 0], tf.bool),
                                          (1.0, tf.bool), ([np.float64(1.5)], tf.int32)])
def test_constant_refuses_python_floats_for_integer_dtypes(value, dtype):
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.constant(value, dtype)


def test_constant_converts_what_tf_converts():
    _eq(tf.constant(np.float64(3.0), tf.int32), 3)
    _eq(tf.constant(np.array([1.5, 2.0], np.float32), tf.int32), [1, 2])
    _eq(tf.constant([True, 1], tf.int32), [1, 1])
    _eq(tf.constant(True, tf.int32), 1)
    _eq(tf.constant(3, tf.float64), 3.0)
    assert tf.constant(np.array([1, 0]), tf.bool).numpy().tolist() == [True, False]
    assert tf.constant([], tf.int32).shape == (0,)


# --- integer division by zero -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
@pytest.mark.parametrize("op, name", [(lambda a, b: a // b, "FloorDiv"), (lambda a, b: a % b, "FloorMod"),
                                      (tf.math.floordiv, "FloorDiv"), (tf.math.floormod, "FloorMod")])
def test_integer_division_by_zero_raises(op, name, dtype):
    a, z = tf.constant([7, -7, 5], dtype), tf.constant([0, 2, 0], dtype)
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"{name}.*Integer division by zero"):
        op(a, z)
    f = tf.function(lambda a, b: op(a, b))
    _eq(f(a, tf.constant([1, 2, 3], dtype)), op(a, tf.constant([1, 2, 3], dtype)).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        f(a, z)  # the traced graph checks too


@pytest.mark.parametrize("op", [tf.math.floordiv, tf.math.floormod, tf.truncatediv, tf.truncatemod])
def test_an_empty_integer_division_raises_nothing(op):
    # the divisor holds zeros but the broadcast result is empty: nothing is divided (as TF)
    assert op(tf.zeros([0], tf.int32), tf.zeros([5, 1], tf.int32)).shape == (5, 0)


def test_integer_divide_by_zero_is_float_and_int_min_by_minus_one_wraps():
    _eq(tf.divide(tf.constant([7, -7, 5]), tf.constant([0, 2, 0])), [INF, -3.5, INF])
    lo, m1 = tf.constant([-2**31], tf.int32), tf.constant([-1], tf.int32)
    _eq(lo // m1, [-2**31])
    _eq(lo % m1, [0])
    _eq(tf.math.floordiv(tf.constant([1.0, -1.0, 0.0]), tf.constant([0.0, 0.0, 0.0])), [INF, -INF, NAN])


# --- reductions -------------------------------------------------------------------------------------

def test_argmax_argmin_skip_nan():
    assert tf.argmax(tf.constant([[NAN, 1.0], [2.0, NAN], [NAN, NAN]]), axis=0).numpy().tolist() == [1, 0]
    assert tf.argmin(tf.constant([[NAN, 1.0], [2.0, NAN], [NAN, 3.0]]), axis=1).numpy().tolist() == [1, 0, 1]
    assert int(tf.argmax(tf.constant([1.0, 2.0, NAN]))) == 1
    assert int(tf.argmin(tf.constant([NAN, 5.0, 1.0]))) == 2
    assert int(tf.argmax(tf.constant([3.0, NAN, 3.0]))) == 0


def test_integer_mean_sums_int32_without_overflow_and_int64_wraps():
    _eq(tf.reduce_mean(tf.constant([2**31 - 1, 5])), 1073741826)
    _eq(tf.reduce_mean(tf.constant([[2**31 - 1] * 3, [-7, 0, 0]]), axis=1), [2**31 - 1, -2])
    _eq(tf.reduce_mean(tf.constant([2**62, 2**62], tf.int64)), -2**62)
    _eq(tf.reduce_mean(tf.zeros([0], tf.int32)), 0)


def test_log_softmax_and_cross_entropies_of_huge_equal_logits():
    big = tf.constant([[1e38, 1e38, 1e38]])
    np.testing.assert_allclose(tf.nn.log_softmax(big).numpy(), [[-1.0986123] * 3], rtol=1e-6)
    np.testing.assert_allclose(tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([0]), big).numpy(),
                               [1.0986123], rtol=1e-6)
    np.testing.assert_allclose(tf.nn.softmax_cross_entropy_with_logits(tf.constant([[1.0, 0.0, 0.0]]), big).numpy(),
                               [1.0986123], rtol=1e-6)
    got = tf.nn.log_softmax(tf.constant([[1e38, 1e38], [3e38, -3e38]]), axis=0).numpy()
    np.testing.assert_allclose(got, [[-2e38, 0.0], [0.0, -INF]], rtol=1e-6)


def test_expm1_gradient_deep_in_the_left_tail_and_leaky_relu_slope_is_float32():
    np.testing.assert_allclose(_grad(tf.math.expm1, [-20.0]).numpy(), [2.0611537e-09], rtol=1e-6)
    assert tf.nn.leaky_relu(tf.constant([-1.0], tf.float64)).numpy()[0] == -0.20000000298023224


def test_clip_by_value_applies_the_max_first_as_tf():
    _eq(tf.clip_by_value(tf.constant([0.0, 5.0, -5.0]), 3.0, 1.0), [3.0, 3.0, 3.0])
    _eq(tf.clip_by_value(tf.constant([0, 5, -5]), -1, 1), [0, 1, -1])


def test_einsum_diagonals_read_only_the_diagonal():
    m = tf.constant([[1.0, NAN], [INF, 2.0]])
    _eq(tf.einsum("ii->", m), 3.0)
    _eq(tf.einsum("ii->i", m), [1.0, 2.0])
    _eq(tf.einsum("iji->j", tf.reshape(tf.range(8.0), [2, 2, 2])), [5.0, 9.0])
    _eq(tf.einsum("bii->b", tf.constant([[[1.0, NAN], [INF, 2.0]]] * 2)), [3.0, 3.0])
    _eq(_grad(lambda x: tf.einsum("ii->", x), [[1.0, NAN], [INF, 2.0]]), [[1.0, 0.0], [0.0, 1.0]])


def test_integer_sums_products_and_cumsums_wrap_as_tf():
    big = tf.constant([2**62, 2**62], tf.int64)
    _eq(tf.reduce_sum(big), -2**63)
    _eq(tf.reduce_sum(tf.reshape(big, [2, 1]), axis=0), [-2**63])
    _eq(tf.reduce_prod(tf.constant([2**40, 2**40], tf.int64)), 0)
    _eq(tf.reduce_prod(tf.constant([2**16, 2**16, 3])), 0)
    _eq(tf.cumsum(tf.constant([2**31 - 1, 1])), [2**31 - 1, -2**31])
    _eq(tf.cumsum(big), [2**62, -2**63])
    _eq(tf.reduce_sum(tf.constant([2**31 - 1, 5])), -2147483644)


def test_squared_difference_gradient_in_y_is_minus_the_one_in_x():
    x, y = tf.constant([1.0, 2.0]), tf.constant([1.0, 5.0])
    with tf.GradientTape() as tape:
        tape.watch(y)
        z = tf.math.squared_difference(x, y)
    _eq(tape.gradient(z, y), [-0.0, 6.0])  # -0 at x == y, as TF


def test_transpose_takes_negative_perm_entries():
    x = tf.reshape(tf.range(6.0), [2, 3])
    _eq(tf.transpose(x, [-1, 0]), [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]])
    assert tf.transpose(tf.zeros([2, 3, 4]), [-1, 0, 1]).shape == (4, 2, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Transpose"):
        tf.transpose(tf.zeros([2, 3, 4]), [2, -1, 1])


def test_one_hot_of_strings_and_histogram_bins_past_int32_as_tf():
    _ = tf.one_hot([0, 1], 3, on_value="a", off_value="b")
    np.testing.assert_array_equal(_.numpy(), [[b"a", b"b", b"b"], [b"b", b"a", b"b"]])
    assert _.dtype == tf.string
    with pytest.raises(TypeError, match="Cannot convert 0 to EagerTensor of dtype string"):
        tf.one_hot([0, 1], 3, on_value="a")  # AttributeError before
    with pytest.raises(tf.errors.InvalidArgumentError, match="nbins should be a positive number"):
        tf.histogram_fixed_width([1.0, 2.0], [0.0, 3.0], nbins=2**31)  # allocated 2**31 bins (the process was killed)
