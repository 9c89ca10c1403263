"""tf.random's stateless ops and seed helpers, and tf.image's stateless augmentations: the same seed gives
the same values (eagerly and in every call of a tf.function, which reads a traced seed at run time),
shapes, dtypes, statistics, TF's error classes and gradients (TF's, to mean/stddev, bounds, alpha, beta).
The Generator API and random.gamma/poisson: tests/ops/test_random_generator.py."""
import math

import numpy as np
import pytest

import tapegrad as tf

S = [1, 2]
N = 200000


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


OPS = {
    "uniform": lambda seed: tf.random.stateless_uniform([3, 4], seed),
    "uniform_int": lambda seed: tf.random.stateless_uniform([7], seed, minval=-3, maxval=9, dtype=tf.int64),
    "full_int": lambda seed: tf.random.stateless_uniform([5], seed, minval=None, maxval=None, dtype=tf.int32),
    "normal": lambda seed: tf.random.stateless_normal([4], seed, dtype=tf.float64),
    "truncated": lambda seed: tf.random.stateless_truncated_normal([2, 2], seed),
    "categorical": lambda seed: tf.random.stateless_categorical([[0.0, 1.0, 2.0]], 6, seed),
    "binomial": lambda seed: tf.random.stateless_binomial([3], seed, counts=[5.0, 50.0, 500.0], probs=0.3),
    "gamma": lambda seed: tf.random.stateless_gamma([2, 3], seed, alpha=[0.5, 2.0, 9.0]),
    "poisson": lambda seed: tf.random.stateless_poisson([4], seed, lam=3.0),
    "ptn": lambda seed: tf.random.stateless_parameterized_truncated_normal([3], seed, minvals=0.5, maxvals=3.0),
    "split": lambda seed: tf.random.split(seed, 3),
    "fold_in": lambda seed: tf.random.fold_in(seed, 7),
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_the_same_seed_draws_the_same_values(op):
    f = OPS[op]
    _same(f(S), f(S))
    if op != "split":  # split's seeds take the seed's dtype
        _same(f(S), f(tf.constant(S, tf.int64)))  # the seed's value counts, not its dtype
    assert not np.array_equal(f(S).numpy(), f([1, 3]).numpy())
    traced = tf.function(f)
    for seed in ([1, 2], [1, 3], [-5, 2 ** 40]):  # a traced seed is read at every call
        _same(traced(tf.constant(seed, tf.int64)), f(tf.constant(seed, tf.int64)))
    assert traced.experimental_get_tracing_count() == 1


def test_shapes_and_dtypes():
    cases = [(tf.random.stateless_uniform([2, 3], S), (2, 3), tf.float32),
             (tf.random.stateless_uniform(tf.constant([4]), S, dtype=tf.float64), (4,), tf.float64),
             (tf.random.stateless_uniform([], S, maxval=5, dtype=tf.int32), (), tf.int32),
             (tf.random.stateless_normal([0, 2], S), (0, 2), tf.float32),
             (tf.random.stateless_normal([3], S, mean=tf.zeros([2, 3])), (2, 3), tf.float32),  # mean broadcasts
             (tf.random.stateless_categorical(tf.zeros([2, 3]), 4, S, dtype=tf.int32), (2, 4), tf.int32),
             (tf.random.stateless_binomial([2], S, counts=3.0, probs=0.5, output_dtype=tf.float64), (2,), tf.float64),
             (tf.random.stateless_gamma([5, 2], S, alpha=[1.0, 2.0], dtype=tf.float64), (5, 2), tf.float64),
             (tf.random.stateless_poisson([3], S, lam=[1, 2, 3], dtype=tf.int64), (3,), tf.int64),
             (tf.random.split(S), (2, 2), tf.int32), (tf.random.split(tf.constant(S, tf.int64), 0), (0, 2), tf.int64),
             (tf.random.fold_in(S, tf.constant(3, tf.int64)), (2,), tf.int64)]
    for got, shape, dtype in cases:
        assert tuple(got.shape) == shape and got.dtype == dtype, (got.shape, got.dtype, shape, dtype)
    assert int(tf.random.fold_in(S, 9)[1]) == 9  # TF's layout: [a draw from seed, data]
    assert tf.random.experimental.stateless_split is tf.random.split
    assert tf.random.experimental.stateless_fold_in is tf.random.fold_in


def test_statistics():
    u = tf.random.stateless_uniform([N], S, minval=-1.0, maxval=3.0).numpy()
    assert u.min() >= -1 and u.max() < 3 and abs(u.mean() - 1) < 0.01 and abs(u.var() - 16 / 12) < 0.01
    k = tf.random.stateless_uniform([N], S, minval=-3, maxval=4, dtype=tf.int32).numpy()
    assert set(np.unique(k)) == set(range(-3, 4)) and abs(np.bincount(k + 3).min() / N - 1 / 7) < 0.005
    full = tf.random.stateless_uniform([N], S, minval=None, maxval=None, dtype=tf.int64).numpy()
    assert full.min() < -(2 ** 62) and full.max() > 2 ** 62
    z = tf.random.stateless_normal([N], S, mean=2.0, stddev=3.0).numpy()
    assert abs(z.mean() - 2) < 0.03 and abs(z.std() - 3) < 0.03
    t = tf.random.stateless_truncated_normal([N], S, mean=1.0, stddev=2.0, dtype=tf.float64).numpy()
    assert t.min() >= -3 and t.max() <= 5 and abs(t.mean() - 1) < 0.02 and abs(t.std() - 2 * 0.87962566) < 0.02
    g = tf.random.stateless_gamma([N], S, alpha=2.5, beta=2.0).numpy()
    assert abs(g.mean() - 1.25) < 0.01 and abs(g.var() - 2.5 / 4) < 0.02
    p = tf.random.stateless_poisson([N], S, lam=4.0).numpy()
    assert abs(p.mean() - 4) < 0.03 and abs(p.var() - 4) < 0.06
    b = tf.random.stateless_binomial([N], S, counts=20.0, probs=0.3).numpy()
    assert b.min() >= 0 and b.max() <= 20 and abs(b.mean() - 6) < 0.03 and abs(b.var() - 4.2) < 0.06
    c = tf.random.stateless_categorical(np.log([[0.2, 0.3, 0.5]]), N, S).numpy()
    np.testing.assert_allclose(np.bincount(c[0]) / N, [0.2, 0.3, 0.5], atol=0.005)
    m, s, lo, hi = 0.3, 1.2, -1.0, 2.0
    x = tf.random.stateless_parameterized_truncated_normal([N], S, m, s, lo, hi).numpy()
    a, b_ = (lo - m) / s, (hi - m) / s
    mean = m + s * (_pdf(a) - _pdf(b_)) / (_cdf(b_) - _cdf(a))
    assert x.min() >= lo and x.max() <= hi and abs(x.mean() - mean) < 0.01
    tail = tf.random.stateless_parameterized_truncated_normal([1000], S, 0.0, 1.0, 8.0, np.inf).numpy()
    assert tail.min() >= 8 and tail.mean() < 8.2  # far in a tail, where a CDF near 1 would lose the digits


def _pdf(t):
    return math.exp(-t * t / 2) / math.sqrt(2 * math.pi)


def _cdf(t):
    return 0.5 * math.erfc(-t / math.sqrt(2))


def test_invalid_parameters_give_tfs_answers():
    np.testing.assert_array_equal(tf.random.stateless_binomial([3], S, counts=10.0, probs=1.5), [10, 10, 10])
    np.testing.assert_array_equal(tf.random.stateless_binomial([3], S, counts=-4.0, probs=0.5), [0, 0, 0])
    np.testing.assert_array_equal(tf.random.stateless_poisson([3], S, lam=-1.0), [0, 0, 0])
    g = tf.random.stateless_gamma([3], S, alpha=[-1.0, 0.0, 1.0], beta=[1.0, 1.0, 0.0]).numpy()
    assert np.isnan(g[0]) and g[1] == np.finfo(np.float32).tiny and g[2] == np.inf


@pytest.mark.parametrize("call,error", [
    (lambda: tf.random.stateless_uniform([2], [1, 2, 3]), tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_uniform([2], 1), tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_uniform([2], [1.0, 2.0]), tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_uniform([2], tf.constant([True, False])), tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_uniform([2], None), ValueError),
    (lambda: tf.random.stateless_uniform([2], S, dtype=tf.bool), ValueError),
    (lambda: tf.random.stateless_uniform([2], S, dtype=tf.int32), ValueError),  # no maxval
    (lambda: tf.random.stateless_uniform([2], S, minval=5, maxval=5, dtype=tf.int32), tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_uniform([2], S, minval=[0, 1], maxval=5, dtype=tf.int32),
     tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_uniform([-1], S), tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_uniform([2], S, alg="mersenne"), ValueError),
    (lambda: tf.random.stateless_uniform([2 ** 40], S), tf.errors.ResourceExhaustedError),
    (lambda: tf.random.stateless_normal([2], S, dtype=tf.int32), TypeError),
    (lambda: tf.random.stateless_normal([2], S, mean=tf.constant(1.0, tf.float64)), ValueError),
    (lambda: tf.random.stateless_gamma([3], S, alpha=[1.0, 2.0]), tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_poisson([3], S, lam=[1.0], dtype=tf.bool), tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_binomial([3], S, counts=tf.constant(3.0, tf.float64), probs=0.5),
     tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_parameterized_truncated_normal([3], S, minvals=2.0, maxvals=1.0),
     tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_parameterized_truncated_normal([3], S, stddevs=0.0), tf.errors.InvalidArgumentError),
    (lambda: tf.random.stateless_categorical([0.0, 1.0], 2, S), tf.errors.InvalidArgumentError),
    (lambda: tf.random.split(S, -1), tf.errors.InvalidArgumentError),
    (lambda: tf.random.fold_in(S, [1, 2]), tf.errors.InvalidArgumentError),
])
def test_errors_are_tfs_classes_naming_the_function(call, error):
    with pytest.raises(error, match=r"stateless_|split|fold_in"):
        call()


def test_a_run_time_check_fails_at_the_graph_call_that_breaks_it():
    f = tf.function(lambda lo: tf.random.stateless_uniform([2], S, minval=lo, maxval=5, dtype=tf.int32))
    assert f(tf.constant(1)).numpy().min() >= 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval, got 7 >= 5"):
        f(tf.constant(7))


def test_relaxed_graphs_draw_at_the_run_time_size():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x + tf.random.stateless_uniform(tf.shape(x), S)
    for n in (3, 5, 0):
        _same(f(tf.zeros([n])), tf.random.stateless_uniform([n], S))


def test_dry_traces_and_loop_bodies_draw_when_the_graph_runs():
    f = tf.function(lambda seed: tf.random.stateless_normal([3], seed))
    cf = f.get_concrete_function(tf.TensorSpec([2], tf.int32))
    _same(cf(tf.constant([4, 5])), tf.random.stateless_normal([3], [4, 5]))

    @tf.function
    def folded(n):
        seed = tf.constant([1, 2])
        acc = tf.zeros([2])
        for i in tf.range(n):
            acc = acc + tf.random.stateless_uniform([2], tf.random.fold_in(seed, i))
        return acc
    want = sum(tf.random.stateless_uniform([2], tf.random.fold_in([1, 2], i)).numpy() for i in range(3))
    np.testing.assert_allclose(folded(tf.constant(3)), want, rtol=1e-6)


def _grads(f, *values):
    xs = [tf.constant(v) for v in values]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
        total = tf.reduce_sum(y)
    return y, [g.numpy() for g in tape.gradient(total, xs)]


def test_gradients_to_location_and_scale_are_tfs():
    z = tf.random.stateless_normal([5], S).numpy()
    _, g = _grads(lambda m, s: tf.random.stateless_normal([5], S, mean=m, stddev=s), 1.0, 3.0)
    np.testing.assert_allclose(g, [5.0, z.sum()], rtol=1e-5)
    u = tf.random.stateless_uniform([5], S).numpy()
    _, g = _grads(lambda lo, hi: tf.random.stateless_uniform([5], S, minval=lo, maxval=hi), 1.0, 3.0)
    np.testing.assert_allclose(g, [(1 - u).sum(), u.sum()], rtol=1e-5)
    t = tf.random.stateless_truncated_normal([5], S).numpy()
    _, g = _grads(lambda m, s: tf.random.stateless_truncated_normal([5], S, mean=m, stddev=s), 1.0, 3.0)
    np.testing.assert_allclose(g, [5.0, t.sum()], rtol=1e-5)


def test_truncated_normal_gradients_are_tfs():
    # TF holds z's standardised bounds fixed for means and stddevs: d/dmeans = 1, d/dstddevs = z;
    # a bound's gradient is d x / d bound at a fixed CDF value u.
    m, s, lo, hi = 0.3, 1.2, -1.0, 2.0
    for seed in ([0, 7], [1, 7], [2, 7]):
        f = lambda *p: tf.random.stateless_parameterized_truncated_normal([1], seed, *p)  # noqa: E731
        y, g = _grads(f, m, s, lo, hi)
        x = float(y[0])
        zz, a, b = (x - m) / s, (lo - m) / s, (hi - m) / s
        u = (_cdf(zz) - _cdf(a)) / (_cdf(b) - _cdf(a))
        np.testing.assert_allclose(g, [1.0, zz, (1 - u) * _pdf(a) / _pdf(zz), u * _pdf(b) / _pdf(zz)], rtol=1e-4)


def test_gamma_gradients_are_unbiased():
    # E[x] = alpha / beta, so the mean gradient is 1 / beta to alpha and -alpha / beta**2 to beta
    _, (ga, gb) = _grads(lambda a, b: tf.random.stateless_gamma([N], S, alpha=a, beta=b, dtype=tf.float64),
                          np.float64(2.5), np.float64(2.0))
    assert abs(ga / N - 0.5) < 0.005 and abs(gb / N + 2.5 / 4) < 0.005
    _, (ga,) = _grads(lambda a: tf.random.stateless_gamma([N // 4, 2], S, alpha=a), [0.2, 40.0])
    np.testing.assert_allclose(ga / (N // 4), [1.0, 1.0], atol=0.03)

    @tf.function
    def traced(a):
        return tf.random.stateless_gamma([N], S, alpha=a)
    alpha = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_mean(traced(alpha))
    assert abs(float(tape.gradient(y, alpha)) - 1.0) < 0.01


def test_no_gradient_where_tf_has_none():
    for f in (lambda lam: tf.random.stateless_poisson([3], S, lam=lam, dtype=tf.float32),
              lambda p: tf.random.stateless_binomial([3], S, counts=10.0, probs=p, output_dtype=tf.float32)):
        x = tf.constant(0.5)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert tape.gradient(y, x) is None


IMAGE = np.random.default_rng(0).random((4, 5, 6, 3)).astype(np.float32)
IMAGE_OPS = {"flip_left_right": (), "flip_up_down": (), "brightness": (0.2,), "contrast": (0.5, 1.5),
             "saturation": (0.5, 1.5), "hue": (0.2,), "crop": ([2, 3, 4, 3],)}


@pytest.mark.parametrize("name", sorted(IMAGE_OPS))
def test_image_ops_are_functions_of_the_seed(name):
    f = getattr(tf.image, f"stateless_random_{name}")
    args = IMAGE_OPS[name]
    a, b = f(IMAGE, *args, seed=S), f(IMAGE, *args, seed=S)
    _same(a, b)
    assert a.dtype == tf.float32 and (a.shape == IMAGE.shape or name == "crop")
    traced = tf.function(lambda seed: f(IMAGE, *args, seed=seed))
    _same(traced(tf.constant(S)), a)
    outs = {f(IMAGE, *args, seed=[k, 0]).numpy().tobytes() for k in range(6)}
    assert len(outs) > 1
    x = tf.constant(IMAGE)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x, *args, seed=S)
    assert tape.gradient(y, x) is not None


def test_image_flips_choose_per_image():
    batch = np.repeat(IMAGE[:1], 16, axis=0)
    out = tf.image.stateless_random_flip_left_right(batch, S).numpy()
    flipped = [not np.array_equal(o, IMAGE[0]) for o in out]
    assert 0 < sum(flipped) < 16
    for o, f in zip(out, flipped):
        _same(o, IMAGE[0, :, ::-1] if f else IMAGE[0])


def test_image_ops_match_tf_signatures_and_shapes():
    import inspect

    from tf_oracle import import_tensorflow
    ref = import_tensorflow()  # skipped without TensorFlow, unless TAPEGRAD_REQUIRE_TF is set
    for name, args in IMAGE_OPS.items():
        n = f"stateless_random_{name}"
        mine, theirs = inspect.signature(getattr(tf.image, n)), inspect.signature(getattr(ref.image, n))
        assert [(p.name, p.default) for p in mine.parameters.values()] == \
               [(p.name, p.default) for p in theirs.parameters.values()], n
        got, want = getattr(tf.image, n)(IMAGE, *args, S), getattr(ref.image, n)(IMAGE, *args, S)
        assert tuple(got.shape) == tuple(want.shape) and got.dtype.name == want.dtype.name
