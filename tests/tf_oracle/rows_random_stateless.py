"""Oracle rows of tf.random's stateless ops, seed helpers (split, fold_in, create_rng_state) and the
stateful gamma and poisson: values differ by design (NumPy's Philox, not TF's kernels), so shapes,
dtypes, error classes and the statistics of 20000 draws are compared."""
import numpy as np

from tf_oracle.rows import EXCLUDED, Row
from tf_oracle.samples import DT, FLOAT, INT, NUMERIC, Sample, fixed

S = [1, 2]
N = 20000


def _s(*args, **kwargs):
    return lambda rng, dt: Sample(list(args), dict(kwargs), grad=False)


def _typed(*args, **kwargs):
    """A sample whose dtype= is the case's dtype."""
    return lambda rng, dt: Sample(list(args), {**kwargs, "dtype": DT(dt)}, grad=False)


def _f(values, dt):
    return np.array(values, dt)


def _seed_errors(*args, **kwargs):
    """The seed refused as TF refuses it: shapes other than [2], floats, None."""
    return [(f"seed_{label}", _s(*args, seed=seed, **kwargs))
            for label, seed in (("3", [1, 2, 3]), ("scalar", 1), ("2x2", [[1, 2], [3, 4]]), ("float", [1.0, 2.0]),
                                ("none", None), ("ftensor", np.array([1.0, 2.0], np.float32)))]


_UNIFORM = fixed(
    ("shape", _typed([2, 3], seed=S, maxval=7)), ("empty", _typed([0, 2], seed=S, maxval=7)),
    ("stats", _typed([N], seed=S, minval=-3, maxval=9)), ("scalar", _typed([], seed=S, maxval=5)),
    ("i64seed", _typed([4], seed=np.array([5, -7], np.int64), maxval=5)),
    ("tshape", _typed(np.array([2, 2], np.int32), seed=S, maxval=5)),
    ("int_nomax", lambda rng, dt: Sample([[3]], {"seed": S, "dtype": DT(dt)}, grad=False) if dt in INT else None),
    ("full", lambda rng, dt: Sample([[N]], {"seed": S, "minval": None, "maxval": None, "dtype": DT(dt)},
                                    grad=False) if dt in INT else None),
    ("empty_range", _typed([3], seed=S, minval=3, maxval=3)),
    ("vec_bounds", lambda rng, dt: Sample([[3]], {"seed": S, "minval": _f([0, 1, 2], dt), "maxval": _f([5, 6, 7], dt),
                                                  "dtype": DT(dt)}, grad=False)),
    ("neg", _typed([-1], seed=S)), ("float_shape", _typed([2.5], seed=S)), ("int_shape", _typed(3, seed=S)),
    ("bool", _s([2], seed=S, dtype=DT("bool"))), ("alg", _typed([3], seed=S, maxval=4, alg="philox")),
    ("alg_num", _typed([3], seed=S, maxval=4, alg=3)), ("bad_alg", _typed([3], seed=S, maxval=4, alg="foo")),
    *_seed_errors([2]))


def _normal(rng, dt):
    yield "shape", Sample([[2, 3]], {"seed": S, "dtype": DT(dt)}, grad=False)
    yield "stats", Sample([[N]], {"seed": S, "mean": 2.0, "stddev": 3.0, "dtype": DT(dt)}, grad=False)
    yield "tensor_mean", Sample([[3]], {"seed": S, "mean": _f([0.0, 10.0, 20.0], dt), "dtype": DT(dt)}, grad=False)
    yield "bad_mean", Sample([[3]], {"seed": S, "mean": _f([0.0, 10.0], dt), "dtype": DT(dt)}, grad=False)
    yield "big_mean", Sample([[3]], {"seed": S, "mean": np.zeros((2, 3), dt), "dtype": DT(dt)}, grad=False)
    yield "int", Sample([[3]], {"seed": S, "dtype": DT("int32")}, grad=False)
    yield "empty", Sample([[0]], {"seed": S, "dtype": DT(dt)}, grad=False)
    yield "neg", Sample([[2, -1]], {"seed": S, "dtype": DT(dt)}, grad=False)
    for label, sample in _seed_errors([2]):
        yield label, sample(rng, dt)


def _categorical(rng, dt):
    yield "stats", Sample([np.log(np.array([[0.2, 0.3, 0.5]], dt)), N, S], grad=False)
    yield "shape", Sample([rng.uniform(-2, 2, (2, 4)).astype(dt), 5, S], grad=False)
    yield "int32", Sample([rng.uniform(-2, 2, (2, 4)).astype(dt), 3, S], {"dtype": DT("int32")}, grad=False)
    yield "float_dtype", Sample([rng.uniform(-2, 2, (2, 4)).astype(dt), 3, S], {"dtype": DT("float32")}, grad=False)
    yield "rank1", Sample([np.zeros(3, dt), 2, S], grad=False)
    yield "neg", Sample([np.zeros((2, 3), dt), -1, S], grad=False)
    yield "noclass", Sample([np.zeros((2, 0), dt), 2, S], grad=False)
    yield "nobatch", Sample([np.zeros((0, 3), dt), 2, S], grad=False)
    yield "bad_seed", Sample([np.zeros((2, 3), dt), 2, [1, 2, 3]], grad=False)


def _binomial(rng, dt):
    out = {"output_dtype": DT(dt)}
    yield "shape", Sample([[3], S], {"counts": [10.0, 20.0, 30.0], "probs": 0.5, **out}, grad=False)
    yield "stats", Sample([[N], S], {"counts": 20.0, "probs": 0.3, **out}, grad=False)
    yield "bcast", Sample([[2, 3], S], {"counts": [[10.0], [20.0]], "probs": [0.1, 0.5, 0.9], **out}, grad=False)
    yield "int_counts", Sample([[3], S], {"counts": [10, 20, 30], "probs": 0.5, **out}, grad=False)
    yield "clipped", Sample([[2000], S], {"counts": 10.0, "probs": 1.5, **out}, grad=False)
    yield "negative", Sample([[2000], S], {"counts": -10.0, "probs": 0.5, **out}, grad=False)
    yield "badshape", Sample([[3], S], {"counts": [10.0, 20.0], "probs": 0.5, **out}, grad=False)
    yield "mixed", Sample([[3], S], {"counts": np.array(10.0), "probs": 0.5, **out}, grad=False)
    yield "bool", Sample([[3], S], {"counts": 10.0, "probs": 0.5, "output_dtype": DT("bool")}, grad=False)
    yield "bad_seed", Sample([[3], [1, 2, 3]], {"counts": 10.0, "probs": 0.5}, grad=False)


def _gamma(rng, dt):
    yield "shape", Sample([[3], S], {"alpha": _f([1.0, 2.0, 3.0], dt), "dtype": DT(dt)}, grad=False)
    yield "stats", Sample([[N], S], {"alpha": 2.5, "beta": 2.0, "dtype": DT(dt)}, grad=False)
    yield "small_alpha", Sample([[N], S], {"alpha": 0.3, "dtype": DT(dt)}, grad=False)
    yield "bcast", Sample([[2, 3], S], {"alpha": _f([1.0, 2.0, 3.0], dt), "dtype": DT(dt)}, grad=False)
    yield "int_alpha", Sample([[3], S], {"alpha": [1, 2, 3], "dtype": DT(dt)}, grad=False)
    yield "empty", Sample([[2, 0], S], {"alpha": np.zeros(0, dt), "dtype": DT(dt)}, grad=False)
    yield "badshape", Sample([[3], S], {"alpha": [1.0, 2.0], "dtype": DT(dt)}, grad=False)
    yield "suffix1", Sample([[3], S], {"alpha": [2.0], "dtype": DT(dt)}, grad=False)
    yield "beta_bcast", Sample([[3], S], {"alpha": [[1.0], [2.0]], "beta": [1.0, 2.0, 3.0], "dtype": DT(dt)},
                               grad=False)
    yield "int", Sample([[3], S], {"alpha": 2.0, "dtype": DT("int32")}, grad=False)
    yield "other_float", Sample([[3], S], {"alpha": np.array(2.0, "float64" if dt == "float32" else "float32"),
                                           "dtype": DT(dt)}, grad=False)


def _poisson(rng, dt):
    yield "shape", Sample([[3], S], {"lam": [1.0, 5.0, 100.0], "dtype": DT(dt)}, grad=False)
    yield "stats", Sample([[N], S], {"lam": 4.0, "dtype": DT(dt)}, grad=False)
    yield "int_lam", Sample([[2, 3], S], {"lam": [1, 5, 100], "dtype": DT(dt)}, grad=False)
    yield "f64_lam", Sample([[3], S], {"lam": np.array(3.0), "dtype": DT(dt)}, grad=False)
    yield "nonpositive", Sample([[2000], S], {"lam": -1.0, "dtype": DT(dt)}, grad=False)
    yield "badshape", Sample([[3], S], {"lam": [1.0, 2.0], "dtype": DT(dt)}, grad=False)
    yield "bool", Sample([[3], S], {"lam": 3.0, "dtype": DT("bool")}, grad=False)


def _truncated(rng, dt):
    p = lambda v: _f(v, dt)  # noqa: E731
    yield "default", Sample([[3], S, p(0.0), p(1.0), p(-2.0), p(2.0)], grad=False)
    yield "stats", Sample([[N], S, p(1.0), p(2.0), p(-1.0), p(4.0)], grad=False)
    yield "tail", Sample([[N], S, p(0.0), p(1.0), p(3.0), p(5.0)], grad=False)
    yield "lower_tail", Sample([[N], S, p(0.0), p(1.0), p(-np.inf), p(-1.0)], grad=False)
    yield "bcast", Sample([[2, 3], S, p([0.0, 1.0, 2.0]), p(1.0), p(-1.0), p([1.0, 2.0, 3.0])], grad=False)
    yield "python_floats", Sample([[3], S], grad=False)
    yield "mixed", Sample([[3], S, np.array(0.0)], grad=False)
    yield "badshape", Sample([[3], S, p([0.0, 1.0])], grad=False)
    yield "min_above_max", Sample([[3], S, p(0.0), p(1.0), p(2.0), p(1.0)], grad=False)
    yield "zero_std", Sample([[3], S, p(0.0), p(0.0), p(-1.0), p(1.0)], grad=False)
    yield "both_infinite", Sample([[3], S, p(0.0), p(1.0), p(-np.inf), p(np.inf)], grad=False)
    yield "int", Sample([[3], S, 1], grad=False)


def _stateful_gamma(rng, dt):
    yield "scalar", Sample([[3]], {"alpha": 2.0, "dtype": DT(dt)}, grad=False)
    yield "stats", Sample([[N]], {"alpha": 3.0, "beta": 0.5, "dtype": DT(dt), "seed": 4}, grad=False)
    yield "vec", Sample([[3]], {"alpha": [1.0, 2.0], "dtype": DT(dt)}, grad=False)
    yield "beta", Sample([[3]], {"alpha": [1.0, 2.0], "beta": [[1.0], [2.0]], "dtype": DT(dt)}, grad=False)
    yield "int_alpha", Sample([[2]], {"alpha": 2, "dtype": DT(dt)}, grad=False)
    yield "tshape", Sample([np.array([3], np.int32)], {"alpha": 2.0, "dtype": DT(dt)}, grad=False)
    yield "int", Sample([[3]], {"alpha": 2.0, "dtype": DT("int32")}, grad=False)
    yield "bad_bcast", Sample([[3]], {"alpha": [[1.0, 2.0]], "beta": [1.0, 2.0, 3.0], "dtype": DT(dt)}, grad=False)


def _stateful_poisson(rng, dt):
    yield "scalar", Sample([[3]], {"lam": 2.0, "dtype": DT(dt)}, grad=False)
    yield "stats", Sample([[N]], {"lam": 6.0, "dtype": DT(dt), "seed": 3}, grad=False)
    yield "vec", Sample([[3]], {"lam": [1.0, 2.0], "dtype": DT(dt)}, grad=False)
    yield "int_lam", Sample([[3]], {"lam": np.array([2, 3], np.int32), "dtype": DT(dt)}, grad=False)
    yield "f64_lam", Sample([[3]], {"lam": np.array(2.0), "dtype": DT(dt)}, grad=False)
    yield "bool", Sample([[3]], {"lam": 2.0, "dtype": DT("bool")}, grad=False)


def _split(rng, dt):
    yield "default", Sample([np.array(S, dt)], grad=False)
    yield "stats", Sample([np.array(S, dt), 5000], grad=False)
    yield "list", Sample([S], {"num": 3}, grad=False)
    yield "zero", Sample([np.array(S, dt), 0], grad=False)
    yield "neg", Sample([np.array(S, dt), -1], grad=False)
    yield "bad_seed", Sample([[1, 2, 3]], grad=False)
    yield "alg", Sample([S], {"alg": "philox"}, grad=False)


def _fold_in(rng, dt):
    yield "default", Sample([np.array(S, dt), 3], grad=False)
    yield "tensor_data", Sample([S, np.array(3, dt)], grad=False)
    yield "vec_data", Sample([S, [3, 4]], grad=False)
    yield "float_data", Sample([S, 3.5], grad=False)
    yield "bad_seed", Sample([[1, 2, 3], 3], grad=False)


def _rng_state(rng, dt):
    yield "int", Sample([5, "philox"], grad=False)
    yield "auto", Sample([5, 3], grad=False)
    yield "bad_alg", Sample([5, "foo"], grad=False)


def _row(name, samples, dtypes):
    return Row(f"random.{name}", samples, dtypes, grad=False, shape_only=True)


RANDOM_STATELESS = [
    _row("stateless_uniform", _UNIFORM, NUMERIC), _row("stateless_normal", _normal, FLOAT),
    _row("stateless_truncated_normal", _normal, FLOAT), _row("stateless_categorical", _categorical, FLOAT),
    _row("stateless_binomial", _binomial, NUMERIC), _row("stateless_gamma", _gamma, FLOAT),
    _row("stateless_poisson", _poisson, NUMERIC),
    _row("stateless_parameterized_truncated_normal", _truncated, FLOAT),
    _row("gamma", _stateful_gamma, FLOAT), _row("poisson", _stateful_poisson, NUMERIC),
    _row("split", _split, INT), _row("fold_in", _fold_in, INT), _row("create_rng_state", _rng_state, ("int64",)),
]

EXCLUDED.update({
    "random.get_global_generator": "returns the global tf.random.Generator (tests/ops/test_random_stateless.py)",
    "random.set_global_generator": "replaces the global Generator (tests/ops/test_random_stateless.py)",
    "random.Generator": "a generator class; its methods are tested in tests/ops/test_random_stateless.py",
    "random.Algorithm": "an enum of algorithm names (tests/ops/test_random_stateless.py)",
})
