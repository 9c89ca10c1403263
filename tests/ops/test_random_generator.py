"""tf.random.Generator, the global generator, and the stateful random.gamma / random.poisson: draws are
reproducible from a seed, advance the state, and draw anew at every call of a tf.function (a graph's
host call reads and advances the Python-side state), also in dry traces and loop bodies."""
import copy

import numpy as np
import pytest

import tapegrad as tf

G = tf.random.Generator


def _draws(g):
    return [g.normal([3]), g.uniform([2], maxval=10, dtype=tf.int64), g.truncated_normal([2], dtype=tf.float64),
            g.uniform_full_int([2], dtype=tf.int32), g.binomial([2], counts=10.0, probs=0.5), g.make_seeds(2),
            g.uniform([2], minval=2.0, maxval=3.0)]


def test_from_seed_is_reproducible_and_draws_advance_the_state():
    a, b = G.from_seed(7), G.from_seed(7)
    for x, y in zip(_draws(a), _draws(b)):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a.normal([3]).numpy(), a.normal([3]).numpy())
    assert not np.array_equal(G.from_seed(1).normal([4]).numpy(), G.from_seed(2).normal([4]).numpy())
    s = a.state
    assert s.dtype == tf.int64 and s.shape == (3,) and a.algorithm == 1 and int(a.key) == int(s[2])
    first = a.normal([5]).numpy()
    assert not np.array_equal(a.state.numpy(), s.numpy())
    a.reset(s)
    np.testing.assert_array_equal(a.normal([5]), first)
    a.reset_from_seed(7)
    np.testing.assert_array_equal(a.normal([3]), G.from_seed(7).normal([3]))
    np.testing.assert_array_equal(G.from_state(s, "philox").normal([5]), first)
    np.testing.assert_array_equal(G(state=s, alg=1).normal([5]), first)
    c = G.from_key_counter(s[2], s[:2], "philox")
    np.testing.assert_array_equal(c.normal([5]), first)


def test_shapes_dtypes_and_statistics():
    g = G.from_seed(3)
    seeds = g.make_seeds(4)
    assert seeds.shape == (2, 4) and seeds.dtype == tf.int64
    assert g.uniform_full_int([3]).dtype == tf.int64
    assert g.binomial([2, 3], [[5.0], [10.0]], [0.1, 0.5, 0.9]).shape == (2, 3)
    z = g.normal([100000], mean=1.0, stddev=2.0).numpy()
    assert abs(z.mean() - 1) < 0.03 and abs(z.std() - 2) < 0.03
    k = g.uniform([100000], minval=None, maxval=None, dtype=tf.int32).numpy()
    assert k.min() < -(2 ** 30) and k.max() > 2 ** 30
    b = g.binomial([100000], counts=30.0, probs=0.2, dtype=tf.float64).numpy()
    assert abs(b.mean() - 6) < 0.05
    np.testing.assert_allclose(tf.random.stateless_uniform([3], g.make_seeds(1)[:, 0]).shape, [3])


def test_split_gives_independent_reproducible_generators():
    kids = G.from_seed(5).split(3)
    again = G.from_seed(5).split(3)
    assert len(kids) == 3 and all(isinstance(k, G) for k in kids)
    values = [k.normal([4]).numpy() for k in kids]
    for k, v in zip(again, values):
        np.testing.assert_array_equal(k.normal([4]), v)
    assert len({v.tobytes() for v in values}) == 3
    assert G.from_seed(5).split(0) == []


def test_algorithms_copies_and_non_deterministic_state():
    assert [a.value for a in tf.random.Algorithm] == [1, 2, 3]
    assert G.from_seed(1, alg="auto_select").algorithm == 3
    assert G.from_seed(1, alg=tf.random.Algorithm.THREEFRY).algorithm == 2
    a, b = G.from_non_deterministic_state(), G.from_non_deterministic_state()
    assert not np.array_equal(a.normal([4]).numpy(), b.normal([4]).numpy())
    c, d = G(copy_from=a), copy.deepcopy(a)
    want = a.normal([4]).numpy()
    np.testing.assert_array_equal(c.normal([4]), want)
    np.testing.assert_array_equal(d.normal([4]), want)
    state = tf.random.create_rng_state(9, "philox")
    assert state.dtype == tf.int64 and state.shape == (3,)
    np.testing.assert_array_equal(G.from_state(state, 1).normal([2]), G.from_seed(9).normal([2]))


@pytest.mark.parametrize("call,error", [
    (lambda: G(), ValueError), (lambda: G.from_state([1, 2], "philox"), ValueError),
    (lambda: G.from_state([1, 2, 3], None), ValueError), (lambda: G.from_seed(1, alg="bogus"), ValueError),
    (lambda: G.from_seed(None), ValueError), (lambda: G.from_seed("a"), TypeError),
    (lambda: G.from_seed(1).reset([1, 2]), ValueError),
    (lambda: G.from_seed(1).normal([2], dtype=tf.int32), TypeError),
    (lambda: G.from_seed(1).uniform([2], dtype=tf.int32), ValueError),
    (lambda: G.from_seed(1).uniform([2], minval=[1, 2], maxval=5, dtype=tf.int32), tf.errors.InvalidArgumentError),
    (lambda: G.from_seed(1).uniform_full_int([2], dtype=tf.float32), tf.errors.InvalidArgumentError),
    (lambda: G.from_seed(1).binomial([3], counts=[1.0, 2.0], probs=0.5), tf.errors.InvalidArgumentError),
    (lambda: G.from_seed(1).make_seeds(-1), tf.errors.InvalidArgumentError),
    (lambda: G.from_seed(1).split(-1), tf.errors.InvalidArgumentError),
    (lambda: G.from_seed(1).normal([-1]), tf.errors.InvalidArgumentError),
    (lambda: tf.random.set_global_generator(3), TypeError),
])
def test_errors(call, error):
    with pytest.raises(error, match=r"Generator|set_global_generator"):
        call()


def test_graphs_draw_anew_at_every_call():
    g = G.from_seed(11)
    f = tf.function(lambda: (g.normal([3]), g.make_seeds(1), g.uniform([2], maxval=100, dtype=tf.int32)))
    first, second = f(), f()
    assert f.experimental_get_tracing_count() == 1
    for x, y in zip(first, second):
        assert not np.array_equal(x.numpy(), y.numpy())
    ref = G.from_seed(11)  # the graph's draws are the eager sequence: the trace's run is the first call
    for got in (first, second):
        want = (ref.normal([3]), ref.make_seeds(1), ref.uniform([2], maxval=100, dtype=tf.int32))
        for x, y in zip(got, want):
            np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(g.state, ref.state)


def test_dry_traces_loops_and_gradients_in_graphs():
    g = G.from_seed(2)

    @tf.function
    def loop(n):
        acc = tf.zeros([2])
        for _ in tf.range(n):  # a loop body is traced dry: it draws at every iteration
            acc = acc + g.normal([2])
        return acc
    ref = G.from_seed(2)
    np.testing.assert_allclose(loop(tf.constant(3)), sum(ref.normal([2]).numpy() for _ in range(3)), rtol=1e-6)
    np.testing.assert_array_equal(g.state, ref.state)
    cf = tf.function(lambda: g.uniform([4])).get_concrete_function()  # a dry trace: nothing drawn yet
    assert not np.array_equal(cf().numpy(), cf().numpy())
    mean = tf.Variable(0.5)
    f = tf.function(lambda: g.normal([3], mean=mean, stddev=2.0))
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(f())
    assert float(tape.gradient(total, mean)) == 3.0


def test_the_global_generator():
    g = tf.random.get_global_generator()
    assert isinstance(g, G) and tf.random.get_global_generator() is g
    assert tf.random.experimental.get_global_generator is tf.random.get_global_generator
    mine = G.from_seed(4)
    try:
        tf.random.set_global_generator(mine)
        assert tf.random.get_global_generator() is mine
    finally:
        tf.random.set_global_generator(g)
    assert tf.random.experimental.Generator is G


def test_stateful_gamma_and_poisson_follow_set_seed():
    def draws():
        return [tf.random.gamma([3], 2.0).numpy(), tf.random.poisson([3], 4.0, seed=1).numpy(),
                tf.random.gamma([3], 2.0).numpy()]
    tf.random.set_seed(21)
    a = draws()
    tf.random.set_seed(21)
    b = draws()
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[2])
    f = tf.function(lambda: (tf.random.gamma([4], [1.0, 3.0]), tf.random.poisson([4], 3.0, dtype=tf.int32)))
    tf.random.set_seed(5)
    first = [f() for _ in range(2)]
    assert not np.array_equal(first[0][0].numpy(), first[1][0].numpy())
    tf.random.set_seed(5)
    for x, y in zip(first, [f() for _ in range(2)]):
        np.testing.assert_array_equal(x[0], y[0])
        np.testing.assert_array_equal(x[1], y[1])


def test_stateful_gamma_shapes_statistics_and_gradients():
    x = tf.random.gamma([2], alpha=[1.0, 2.0], beta=[[1.0], [2.0]])
    assert x.shape == (2, 2, 2) and x.dtype == tf.float32
    assert tf.random.poisson([3], tf.constant([2, 3])).shape == (3, 2)
    p = tf.random.poisson([100000], 7.0, dtype=tf.float64).numpy()
    assert abs(p.mean() - 7) < 0.05 and abs(p.var() - 7) < 0.15
    alpha, beta = tf.constant(3.0), tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([alpha, beta])
        y = tf.reduce_mean(tf.random.gamma([100000], alpha, beta))
    ga, gb = tape.gradient(y, [alpha, beta])
    assert abs(float(y) - 1.5) < 0.02 and abs(float(ga) - 0.5) < 0.01 and abs(float(gb) + 0.75) < 0.02
    with pytest.raises(TypeError, match="random.gamma"):
        tf.random.gamma([2], 1.0, dtype=tf.int32)
    with pytest.raises(TypeError, match="random.poisson"):
        tf.random.poisson([2], 1.0, seed="a")
