"""keras.random and the losses' reductions against Keras 3 on TensorFlow. The values of keras.random
are not Keras's (tapegrad's stateless ops draw from NumPy's Philox, not TF's kernels), so what is
compared is everything else: the seed each call draws (SeedGenerator states, ordered and not, eagerly
and inside tf.function, and the int32 pair handed to the stateless ops), shapes, dtypes, errors, the
values that do not depend on the draw (dropout at rates 0 and 1, shuffles as permutations), and the
moments of 20000 draws. Reductions: every value, bit for bit within float32 rounding.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
import tapegrad.keras.random as tgr
from tapegrad import keras as tgk
from tapegrad.keras.random import seed_generator as tg_seeds
from tf_oracle import import_tensorflow

ref = import_tensorflow()
import keras as refk  # noqa: E402  (Keras 3, after TensorFlow imported)
from keras.src.backend.tensorflow.random import _cast_seed as ref_cast_seed  # noqa: E402
from keras.src.random.seed_generator import draw_seed as ref_draw_seed  # noqa: E402

N = 20000


def _np(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


@pytest.mark.parametrize("seed", [0, 5, 2 ** 31 + 7, 2 ** 40, 2 ** 62])
def test_an_int_seed_gives_keras_stateless_seed(seed):
    np.testing.assert_array_equal(_np(tg_seeds.stateless_seed(seed)), _np(ref_cast_seed(ref_draw_seed(seed))))


def test_generator_states_advance_as_keras():
    tgk.backend.clear_session(), refk.backend.clear_session()  # name counters: earlier tests made generators too
    mine, theirs = tgr.SeedGenerator(123), refk.random.SeedGenerator(123)
    for ordered in (True, True, False, True, False, False):
        np.testing.assert_array_equal(_np(mine.next(ordered=ordered)), _np(theirs.next(ordered=ordered)))
        np.testing.assert_array_equal(_np(mine.state), _np(theirs.state))
    np.testing.assert_array_equal(_np(tg_seeds.stateless_seed(mine)), _np(ref_cast_seed(ref_draw_seed(theirs))))
    assert mine.state.dtype.name == theirs.state.dtype == "int64"
    assert mine.state.path == theirs.state.path and mine.state.trainable == theirs.state.trainable


CALLS = [
    ("normal", lambda r, s: r.normal((2, 3), seed=s)),
    ("normal_f64", lambda r, s: r.normal((4,), mean=1.0, stddev=2.0, dtype="float64", seed=s)),
    ("uniform", lambda r, s: r.uniform((3, 2), minval=-1.0, maxval=2.0, seed=s)),
    ("truncated_normal", lambda r, s: r.truncated_normal((5,), seed=s)),
    ("categorical", lambda r, s: r.categorical(np.zeros((2, 4), "float32"), 6, seed=s)),
    ("categorical_i64", lambda r, s: r.categorical(np.zeros((1, 3), "float32"), 2, dtype="int64", seed=s)),
    ("randint", lambda r, s: r.randint((2, 2), 0, 9, seed=s)),
    ("randint_i64", lambda r, s: r.randint((3,), -5, 5, dtype="int64", seed=s)),
    ("dropout", lambda r, s: r.dropout(np.ones((2, 5), "float32"), 0.3, seed=s)),
    ("dropout_noise", lambda r, s: r.dropout(np.ones((2, 5), "float32"), 0.3, noise_shape=(None, 1), seed=s)),
    ("shuffle", lambda r, s: r.shuffle(np.arange(12).reshape(3, 4), axis=1, seed=s)),
    ("gamma", lambda r, s: r.gamma((2, 2), 2.5, seed=s)),
    ("binomial", lambda r, s: r.binomial((3,), 10.0, 0.4, seed=s)),
    ("beta", lambda r, s: r.beta((2, 3), [[1.0, 2.0, 3.0]], 2.0, seed=s)),
]


@pytest.mark.parametrize("label,call", CALLS, ids=[c[0] for c in CALLS])
def test_shapes_dtypes_and_the_generator_state_after(label, call):
    mine, theirs = tgr.SeedGenerator(7), refk.random.SeedGenerator(7)
    a, b = call(tgr, mine), call(refk.random, theirs)
    assert tuple(a.shape) == tuple(b.shape) and a.dtype.name == b.dtype.name
    np.testing.assert_array_equal(_np(mine.state), _np(theirs.state))
    a, b = call(tgr, 3), call(refk.random, 3)  # an int seed: the same, again
    assert tuple(a.shape) == tuple(b.shape) and a.dtype.name == b.dtype.name
    np.testing.assert_array_equal(_np(call(tgr, 3)), _np(a))


def test_traced_calls_advance_the_state_as_keras():
    mine, theirs = tgr.SeedGenerator(9), refk.random.SeedGenerator(9)
    f = tg.function(lambda: tgr.normal((2,), seed=mine))
    g = ref.function(lambda: refk.random.normal((2,), seed=theirs))
    for _ in range(3):
        a, b = f(), g()
        np.testing.assert_array_equal(_np(mine.state), _np(theirs.state))
    assert _np(mine.state).tolist() == [9, 3]


def test_values_that_do_not_depend_on_the_draw():
    x = np.arange(6, dtype="float32").reshape(2, 3)
    for rate in (0.0, 1.0):
        np.testing.assert_array_equal(_np(tgr.dropout(x, rate, seed=1)), _np(refk.random.dropout(x, rate, seed=1)))
    kept = _np(tgr.dropout(np.ones(N, "float32"), 0.4, seed=2))
    ref_kept = _np(refk.random.dropout(np.ones(N, "float32"), 0.4, seed=2))
    assert set(np.unique(kept)) == set(np.unique(ref_kept))
    assert abs((kept == 0).mean() - (ref_kept == 0).mean()) < 0.02
    np.testing.assert_array_equal(np.sort(_np(tgr.shuffle(np.arange(10), seed=4))),
                                  np.sort(_np(refk.random.shuffle(np.arange(10), seed=4))))


MOMENTS = [
    ("normal", lambda r: r.normal((N,), mean=1.0, stddev=2.0, seed=1), 0.06, 0.1),
    ("uniform", lambda r: r.uniform((N,), minval=-2.0, maxval=4.0, seed=1), 0.06, 0.1),
    ("truncated_normal", lambda r: r.truncated_normal((N,), stddev=3.0, seed=1), 0.06, 0.1),
    ("randint", lambda r: r.randint((N,), 0, 10, seed=1), 0.1, 0.25),
    ("gamma", lambda r: r.gamma((N,), 4.0, seed=1), 0.08, 0.3),
    ("binomial", lambda r: r.binomial((N,), 20.0, 0.25, seed=1), 0.06, 0.2),
    ("beta", lambda r: r.beta((N,), 2.0, 5.0, seed=1), 0.01, 0.01),
    ("categorical", lambda r: r.categorical(np.log([[0.1, 0.6, 0.3]]).astype("float32"), N, seed=1), 0.03, 0.03),
]


@pytest.mark.parametrize("label,call,mean_tol,var_tol", MOMENTS, ids=[m[0] for m in MOMENTS])
def test_moments_agree_with_keras(label, call, mean_tol, var_tol):
    a, b = _np(call(tgr)).astype("float64"), _np(call(refk.random)).astype("float64")
    assert abs(a.mean() - b.mean()) < mean_tol and abs(a.var() - b.var()) < var_tol
    if label != "normal":  # the other supports are bounded on at least one side: the same bounds are reached
        assert abs(a.min() - b.min()) <= var_tol + mean_tol


ERRORS = [
    ("uniform_int", lambda r: r.uniform((2,), dtype="int32")),
    ("randint_float", lambda r: r.randint((2,), 0, 3, dtype="float32")),
    ("categorical_1d", lambda r: r.categorical(np.zeros(3, "float32"), 2)),
    ("float_seed", lambda r: r.normal((2,), seed=1.5)),
    ("numpy_seed", lambda r: r.normal((2,), seed=np.int64(3))),
    ("generator_float_seed", lambda r: r.SeedGenerator(1.5)),
    ("generator_kwargs", lambda r: r.SeedGenerator(1, foo=2)),
]


@pytest.mark.parametrize("label,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_as_keras(label, call):
    with pytest.raises(Exception) as theirs:
        call(refk.random)
    with pytest.raises(type(theirs.value)) as mine:
        call(tgr)
    assert str(mine.value).split(" Received")[0] == str(theirs.value).split(" Received")[0]


Y_TRUE = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], "float32")
Y_PRED = np.array([[0.2, 0.7], [0.9, 0.1], [0.3, 0.8]], "float32")


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "mean", "mean_with_sample_weight", None, "none"])
@pytest.mark.parametrize("weight", [None, [1.0, 0.0, 3.0], [[0.5], [2.0], [1.0]]])
@pytest.mark.parametrize("loss", ["MeanSquaredError", "BinaryCrossentropy", "Huber"])
def test_reductions_as_keras(reduction, weight, loss):
    w = None if weight is None else np.array(weight, "float32")
    a = getattr(tgk.losses, loss)(reduction=reduction)(Y_TRUE, Y_PRED, sample_weight=w)
    b = getattr(refk.losses, loss)(reduction=reduction)(Y_TRUE, Y_PRED, sample_weight=w)
    np.testing.assert_allclose(_np(a), _np(b), rtol=2e-7)
    assert tuple(a.shape) == tuple(b.shape)


@pytest.mark.parametrize("bad", ["auto", "foo", "SUM"])
def test_refused_reductions_as_keras(bad):
    with pytest.raises(ValueError) as theirs:
        refk.losses.MeanSquaredError(reduction=bad)
    with pytest.raises(ValueError) as mine:
        tgk.losses.MeanSquaredError(reduction=bad)
    assert str(mine.value).split("Expected")[0] == str(theirs.value).split("Expected")[0]
    assert str(mine.value).endswith(f"Received: reduction={bad}")


def test_legacy_reduction_class_as_tf_keras():
    R, theirs = tgk.losses.Reduction, ref.keras.losses.Reduction
    for name in ("AUTO", "NONE", "SUM", "SUM_OVER_BATCH_SIZE"):
        assert getattr(R, name) == getattr(theirs, name)
    assert R.all() == theirs.all()
    with pytest.raises(ValueError) as a:
        R.validate("foo")
    with pytest.raises(ValueError) as b:
        theirs.validate("foo")
    assert str(a.value) == str(b.value)
    assert not hasattr(refk.losses, "Reduction")  # Keras 3's own namespace has none; tf.keras keeps it
