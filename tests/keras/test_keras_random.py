"""keras.random without TensorFlow: how seeds repeat and advance (ints, SeedGenerators, None, inside
tf.function), the shapes, dtypes and errors of every function, and the distributions of 20000 draws
(the values are tapegrad's stateless ops', not TF's; tests/oracle/test_tf_oracle_keras_random.py
compares the rest with Keras)."""
import numpy as np
import pytest

import tapegrad as tf
import tapegrad.keras.random as kr
from tapegrad.keras import backend as K
from tapegrad.keras.random import seed_generator as sg

N = 20000


def test_an_int_seed_repeats_and_a_generator_advances():
    np.testing.assert_array_equal(kr.normal((4,), seed=7).numpy(), kr.normal((4,), seed=7).numpy())
    assert not np.array_equal(kr.normal((4,), seed=7).numpy(), kr.normal((4,), seed=8).numpy())
    gen = kr.SeedGenerator(7)
    first, second = kr.normal((4,), seed=gen).numpy(), kr.normal((4,), seed=gen).numpy()
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(gen.state.numpy(), [7, 2])
    # a generator's first draw is the int seed's draw: both use the seed [7, 0]
    np.testing.assert_array_equal(first, kr.normal((4,), seed=7).numpy())
    again = kr.SeedGenerator(7)
    np.testing.assert_array_equal(kr.normal((4,), seed=again).numpy(), first)


def test_none_draws_new_values_from_the_global_generator():
    a, b = kr.uniform((5,)).numpy(), kr.uniform((5,)).numpy()
    assert not np.array_equal(a, b)
    state = sg.global_seed_generator().state.numpy()
    kr.uniform((1,))
    np.testing.assert_array_equal(sg.global_seed_generator().state.numpy(),
                                  (state + 1) * 5387 % 933199)


def test_the_global_generator_repeats_after_a_python_seed_and_reset():
    import random
    draws = []
    for _ in range(2):
        random.seed(3)
        sg.reset_global_seed_generator()
        draws.append(kr.normal((3,)).numpy())
    np.testing.assert_array_equal(*draws)


def test_a_traced_function_advances_the_generator_at_every_call():
    gen = kr.SeedGenerator(11)

    @tf.function
    def draw():
        return kr.normal((3,), seed=gen)

    a, b, c = draw().numpy(), draw().numpy(), draw().numpy()
    assert not np.array_equal(a, b) and not np.array_equal(b, c)
    np.testing.assert_array_equal(gen.state.numpy(), [11, 3])
    eager = kr.SeedGenerator(11)
    np.testing.assert_array_equal([kr.normal((3,), seed=eager).numpy() for _ in range(3)], [a, b, c])


def test_an_int_seed_inside_a_traced_function_repeats():
    f = tf.function(lambda: kr.uniform((3,), seed=5))
    np.testing.assert_array_equal(f().numpy(), f().numpy())
    np.testing.assert_array_equal(f().numpy(), kr.uniform((3,), seed=5).numpy())


def test_generator_config_name_and_state():
    gen = kr.SeedGenerator(3, name="noise")
    assert gen.get_config() == {"seed": 3, "name": "noise"}
    assert gen.state.path == "noise/seed_generator_state" and not gen.state.trainable
    assert gen.state.dtype == tf.int64
    clone = kr.SeedGenerator.from_config(gen.get_config())
    np.testing.assert_array_equal(clone.state.numpy(), [3, 0])
    assert kr.SeedGenerator().get_config()["seed"] is None


@pytest.mark.parametrize("bad", [1.5, "3", np.int64(3)])
def test_generator_seed_must_be_an_int(bad):
    with pytest.raises(ValueError, match="Argument `seed` must be an integer"):
        kr.SeedGenerator(bad)


def test_generator_refuses_unknown_keywords():
    with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
        kr.SeedGenerator(1, foo=2)


def test_a_bad_seed_is_a_value_error():
    with pytest.raises(ValueError, match="either an integer or an instance of `SeedGenerator`"):
        kr.normal((2,), seed=1.5)


def test_the_next_state_ordered_and_not():
    gen = kr.SeedGenerator(10)
    np.testing.assert_array_equal(gen.next().numpy(), [10, 0])
    np.testing.assert_array_equal(gen.next(ordered=False).numpy(), [10, 1])
    np.testing.assert_array_equal(gen.state.numpy(), [11 * 5387 % 933199, 2 * 5387 % 933199])


@pytest.mark.parametrize("fn,args,dtype", [
    (kr.normal, ((2, 3),), "float32"), (kr.uniform, ((2, 3),), "float32"),
    (kr.truncated_normal, ((2, 3),), "float32"), (kr.randint, ((2, 3), 0, 5), "int32"),
    (kr.gamma, ((2, 3), 2.0), "float32"), (kr.binomial, ((2, 3), 5.0, 0.5), "float32"),
    (kr.beta, ((2, 3), 2.0, 3.0), "float32")])
def test_default_shapes_and_dtypes(fn, args, dtype):
    out = fn(*args, seed=1)
    assert tuple(out.shape) == (2, 3) and out.dtype.name == dtype


def test_the_float_default_follows_floatx():
    K.set_floatx("float64")
    try:
        assert kr.normal((2,), seed=1).dtype == tf.float64
        assert kr.beta((2,), 1.0, 1.0, seed=1).dtype == tf.float64
    finally:
        K.set_floatx("float32")


def test_dtype_arguments():
    assert kr.uniform((2,), dtype="float64", seed=1).dtype == tf.float64
    assert kr.randint((2,), 0, 3, dtype="int64", seed=1).dtype == tf.int64
    assert kr.categorical([[0.0, 1.0]], 3, dtype="int64", seed=1).dtype == tf.int64
    with pytest.raises(ValueError, match="requires a floating point `dtype`"):
        kr.uniform((2,), dtype="int32")
    with pytest.raises(ValueError, match="requires an integer `dtype`"):
        kr.randint((2,), 0, 3, dtype="float32")


def test_categorical_needs_2d_logits():
    assert tuple(kr.categorical([[0.0, 1.0, 2.0]] * 2, 4, seed=1).shape) == (2, 4)
    with pytest.raises(ValueError, match="2-D tensor"):
        kr.categorical([0.0, 1.0], 2, seed=1)


def test_moments_of_the_distributions():
    x = kr.normal((N,), mean=2.0, stddev=3.0, seed=1).numpy()
    assert abs(x.mean() - 2.0) < 0.1 and abs(x.std() - 3.0) < 0.1
    u = kr.uniform((N,), minval=-1.0, maxval=3.0, seed=2).numpy()
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.05
    t = kr.truncated_normal((N,), mean=1.0, stddev=2.0, seed=3).numpy()
    assert t.min() >= -3.0 and t.max() <= 5.0 and abs(t.mean() - 1.0) < 0.05
    i = kr.randint((N,), 3, 8, seed=4).numpy()
    assert set(np.unique(i)) == {3, 4, 5, 6, 7}
    g = kr.gamma((N,), 3.0, seed=5).numpy()
    assert abs(g.mean() - 3.0) < 0.1 and abs(g.var() - 3.0) < 0.25
    b = kr.binomial((N,), 10.0, 0.3, seed=6).numpy()
    assert abs(b.mean() - 3.0) < 0.06 and set(np.unique(b)) <= set(range(11))
    be = kr.beta((N,), 2.0, 6.0, seed=7).numpy()
    assert 0 < be.min() and be.max() < 1 and abs(be.mean() - 0.25) < 0.01
    c = kr.categorical(np.log([[0.2, 0.3, 0.5]]), N, seed=8).numpy()
    np.testing.assert_allclose(np.bincount(c[0], minlength=3) / N, [0.2, 0.3, 0.5], atol=0.015)


def test_dropout_zeroes_at_the_rate_and_scales_the_rest():
    x = tf.ones((N,))
    y = kr.dropout(x, 0.25, seed=1).numpy()
    assert set(np.unique(y)) == {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.015
    np.testing.assert_array_equal(kr.dropout(x, 0.0, seed=1).numpy(), x.numpy())
    np.testing.assert_array_equal(kr.dropout(x, 1.0, seed=1).numpy(), np.zeros(N))


def test_dropout_noise_shape_drops_whole_rows():
    y = kr.dropout(tf.ones((200, 5)), 0.5, noise_shape=(None, 1), seed=3).numpy()
    assert all(len(set(row)) == 1 for row in y) and 0 < (y[:, 0] == 0).sum() < 200


def test_shuffle_permutes_along_the_axis():
    x = np.arange(40).reshape(4, 10)
    y = kr.shuffle(x, axis=1, seed=2).numpy()
    np.testing.assert_array_equal(np.sort(y, axis=1), x)
    assert not np.array_equal(y, x)
    np.testing.assert_array_equal(y[1] - y[0], [10] * 10)  # every row permuted the same way
    np.testing.assert_array_equal(np.sort(kr.shuffle(np.arange(9), seed=2).numpy()), np.arange(9))
