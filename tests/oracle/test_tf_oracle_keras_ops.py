"""tapegrad.keras.ops beside Keras 3's keras.ops (on TensorFlow): every name tapegrad implements, run by both
on the same NumPy inputs (keras_ops_cases.py), gives the same values (1e-6 relative), shapes and dtypes, and
has the same parameters and defaults. Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1."""
import inspect

import numpy as np
import pytest

from tapegrad.keras import ops as tops
from tf_oracle import import_tensorflow

ref = import_tensorflow()
import keras as rk  # noqa: E402 -- Keras 3, which TensorFlow 2.16+ brings

import keras_ops_cases as CASES_INPUTS  # noqa: E402
from keras_ops_cases import CASES  # noqa: E402

# name -> (rtol, atol) where float32 kernels legitimately differ by more than 1e-6 relative
TOLERANCE = {"pinv": (1e-4, 1e-5), "lstsq": (1e-4, 1e-5), "inv": (1e-5, 1e-6), "cholesky_inverse": (1e-5, 1e-6),
             "solve": (1e-5, 1e-6), "solve_triangular": (1e-5, 1e-6), "det": (1e-5, 1e-6), "logdet": (1e-5, 1e-6),
             "slogdet": (1e-5, 1e-6), "eigh": (1e-5, 1e-6), "svd": (1e-5, 1e-6), "norm": (1e-5, 1e-6),
             "conv": (1e-5, 1e-5), "depthwise_conv": (1e-5, 1e-5), "separable_conv": (1e-5, 1e-5),
             "conv_transpose": (1e-5, 1e-5), "dot_product_attention": (1e-5, 1e-6), "resize": (1e-5, 1e-6),
             "rgb_to_hsv": (1e-5, 1e-6), "ssim": (1e-5, 1e-6), "sobel_edges": (1e-6, 1e-6), "hsv_to_rgb": (1e-5, 1e-6),
             "gelu": (1e-6, 1e-7),
             "erfinv": (1e-5, 1e-7), "psnr": (1e-5, 1e-6), "geomspace": (1e-6, 1e-5), "logspace": (1e-6, 1e-5)}


# Where Keras 3 on TensorFlow answers otherwise than NumPy and the op's definition, tapegrad follows NumPy:
# name -> the reference it is checked on instead.
def _sparsemax_reference(x):
    z = -np.sort(-x, axis=-1)
    k = np.arange(1, x.shape[-1] + 1)
    cumulative = np.cumsum(z, axis=-1)
    support = (1 + k * z > cumulative)
    tau = (np.sum(z * support, axis=-1, keepdims=True) - 1) / support.sum(-1, keepdims=True)
    return np.maximum(x - tau, 0).astype(x.dtype)


KERAS_ON_TF_DIFFERS = {
    # keras.ops.sparsemax on TF gives rows that do not sum to 1 ([1, 1, 1] -> [0, 0, 0])
    "sparsemax": lambda: _sparsemax_reference(CASES["sparsemax"][0][0]),
    # keras.ops.unravel_index on TF gives row indices one less than np.unravel_index for the last row
    "unravel_index": lambda: tuple(np.asarray(i, "int32") for i in np.unravel_index(*CASES["unravel_index"][0])),
}


def _keras_function(name):
    return getattr(rk.ops, name, None) or getattr(rk.ops.image, name)


def _ours(name):
    return tops.OPS[name]


def _call(case, fn, ops_module):
    if callable(case):
        return case(ops_module)
    args, kwargs = case
    return fn(*args, **kwargs)


def _plain(value):
    """A result as nested tuples of NumPy arrays (Python scalars and strings kept)."""
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return np.asarray(value)


def assert_same(got, want, rtol=1e-6, atol=1e-7, where="result"):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{where}: {got!r} vs {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, rtol, atol, f"{where}[{i}]")
        return
    if not isinstance(want, np.ndarray):
        assert got == want and type(got) is type(want), f"{where}: {got!r} vs Keras's {want!r}"
        return
    assert isinstance(got, np.ndarray), f"{where}: {type(got).__name__} vs Keras's array"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} vs Keras's {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape} vs Keras's {want.shape}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def test_every_implemented_name_has_a_case():
    assert set(tops.OPS) == set(CASES), (sorted(set(tops.OPS) - set(CASES)), sorted(set(CASES) - set(tops.OPS)))


def test_the_namespaces_hold_keras_names():
    for ours, theirs in ((tops, rk.ops), (tops.numpy, rk.ops.numpy), (tops.nn, rk.ops.nn),
                         (tops.linalg, rk.ops.linalg), (tops.image, rk.ops.image)):
        mine = {n for n in dir(ours) if not n.startswith("_")} - {"ALL", "OPS", "KERAS_NAMES", "UNIMPLEMENTED"}
        keras_names = {n for n in dir(theirs) if not n.startswith("_")}
        assert set(ours.__all__) <= keras_names
        assert keras_names <= mine, sorted(keras_names - mine)


@pytest.mark.parametrize("name", sorted(tops.OPS))
def test_parameters_and_defaults_match_keras(name):
    def params(fn):
        return [(n, p.default, p.kind) for n, p in inspect.signature(fn).parameters.items()]
    assert params(_ours(name)) == params(_keras_function(name))


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_shapes_and_dtypes_match_keras(name):
    case = CASES[name]
    if name in KERAS_ON_TF_DIFFERS:
        want = KERAS_ON_TF_DIFFERS[name]()
    else:
        want = _plain(_call(case, _keras_function(name), rk.ops))
    got = _plain(_call(case, _ours(name), tops))
    rtol, atol = TOLERANCE.get(name, (1e-6, 1e-7))
    assert_same(got, want, rtol, atol, name)


@pytest.mark.parametrize("name", sorted(KERAS_ON_TF_DIFFERS))
def test_the_listed_differences_from_keras_on_tf_are_real(name):
    keras_answer = _plain(_call(CASES[name], _keras_function(name), rk.ops))
    with pytest.raises(AssertionError):
        assert_same(keras_answer, KERAS_ON_TF_DIFFERS[name]())


def test_a_wrong_mapping_fails_the_comparison():
    want = _plain(rk.ops.gelu(CASES["gelu"][0][0]))
    with pytest.raises(AssertionError):
        assert_same(_plain(tops.gelu(CASES["gelu"][0][0], approximate=False)), want)  # TF's default, not Keras's
    with pytest.raises(AssertionError):
        assert_same(_plain(tops.add(np.int32(1), np.float32(1))), _plain(rk.ops.add(1, 1)))  # dtypes differ


# Keras's dtype rules: each op over each pair of argument kinds (tensors of each dtype, Python scalars)
_KINDS = {"bool": CASES_INPUTS.B, "int32": CASES_INPUTS.I2, "int64": CASES_INPUTS.L, "float32": CASES_INPUTS.P,
          "float64": CASES_INPUTS.D, "int": 2, "float": 1.5}
_PAIRS = [(a, b) for a in _KINDS for b in _KINDS if not (a in ("int", "float") and b in ("int", "float"))]
_RAISE_ON_TF = (ValueError, TypeError, NotImplementedError, ref.errors.OpError)


def _keras_or_error(fn, *args):
    try:
        return _plain(fn(*args))
    except _RAISE_ON_TF:  # Keras on TF has no kernel for this dtype (power of bools, ...): not compared
        return None


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "minimum", "floor_divide",
                                  "mod", "arctan2", "equal", "less", "logaddexp", "hypot", "fmax"])
def test_binary_dtype_promotion_matches_keras(name):
    compared = 0
    for a, b in _PAIRS:
        want = _keras_or_error(getattr(rk.ops, name), _KINDS[a], _KINDS[b])
        if want is None:
            continue
        assert_same(_plain(getattr(tops, name)(_KINDS[a], _KINDS[b])), want, 1e-6, 1e-7, f"{name}({a}, {b})")
        compared += 1
    assert compared >= len(_PAIRS) // 2


@pytest.mark.parametrize("name", ["sqrt", "abs", "square", "exp", "floor", "ceil", "sign", "negative", "mean",
                                  "sum", "prod", "max", "argmax", "var", "cumsum", "trunc", "relu", "sigmoid",
                                  "softmax", "isnan", "logsumexp", "round", "reciprocal", "tanh", "erf",
                                  "count_nonzero", "sort", "zeros_like", "log1p", "arctan", "cbrt", "fabs"])
def test_unary_dtype_rules_match_keras(name):
    for kind in ("bool", "int32", "int64", "float32", "float64"):
        want = _keras_or_error(getattr(rk.ops, name), _KINDS[kind])
        if want is not None:
            assert_same(_plain(getattr(tops, name)(_KINDS[kind])), want, 1e-6, 1e-7, f"{name}({kind})")


_FLOAT64_ROWS = {name: (CASES_INPUTS.D,) for name in CASES_INPUTS._UNARY + CASES_INPUTS._REDUCTIONS}
_FLOAT64_ROWS.update({name: (CASES_INPUTS.D, CASES_INPUTS.D[::-1]) for name in CASES_INPUTS._BINARY})


@pytest.mark.parametrize("name", sorted(_FLOAT64_ROWS))
def test_float64_inputs_keep_float64_as_in_keras(name):
    args = _FLOAT64_ROWS[name]
    if name in KERAS_ON_TF_DIFFERS:
        pytest.skip(f"{name}: Keras on TF differs from NumPy (KERAS_ON_TF_DIFFERS)")
    want = _keras_or_error(_keras_function(name), *args)
    if want is None:
        pytest.skip(f"Keras on TF has no float64 {name}")
    assert_same(_plain(_ours(name)(*args)), want, 1e-12, 1e-14, name)


@pytest.mark.parametrize("row", range(len(CASES_INPUTS.VARIANTS)),
                         ids=[f"{r[0]}-{i}" for i, r in enumerate(CASES_INPUTS.VARIANTS)])
def test_more_argument_forms_match_keras(row):
    name, args, kwargs = CASES_INPUTS.VARIANTS[row]
    want = _plain(_keras_function(name)(*args, **kwargs))
    got = _plain(_ours(name)(*args, **kwargs))
    rtol, atol = TOLERANCE.get(name, (1e-6, 1e-7))
    assert_same(got, want, rtol, atol, name)


_DIFFERENTIABLE = sorted(set(CASES_INPUTS._UNARY_FLOAT + CASES_INPUTS._UNARY_POSITIVE + CASES_INPUTS._UNARY
                             + CASES_INPUTS._REDUCTIONS + CASES_INPUTS._BINARY)
                         - {"ndim", "size", "dtype", "shape", "is_tensor", "argsort", "argmax", "argmin", "isreal",
                            "signbit", "logical_not", "all", "any", "equal", "not_equal", "greater", "greater_equal",
                            "less", "less_equal", "logical_and", "logical_or", "logical_xor", "isclose",
                            "count_nonzero",
                            "imag", "nextafter", "sign", "floor", "ceil", "round", "trunc", "mod", "floor_divide",
                            "fmod", "heaviside", "median"}
                         - {"diff"}  # Keras's diff fails on a tf.Variable (AttributeError in Diff.call)
                         - set(KERAS_ON_TF_DIFFERS))


def _gradient(lib, tape_class, fn, args):
    xs = [lib.Variable(a) for a in args]
    with tape_class() as tape:
        out = fn(*xs)
        out = out[0] if isinstance(out, (list, tuple)) else out
        total = lib.reduce_sum(lib.cast(out, "float32") * lib.cast(lib.reshape(lib.range(lib.size(out)), out.shape) + 1,
                                                                "float32"))
    return [np.asarray(g) if g is not None else None for g in tape.gradient(total, xs)]


@pytest.mark.parametrize("name", _DIFFERENTIABLE)
def test_gradients_match_keras_on_tf(name):
    args = [a for a in CASES[name][0] if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    if not args or len(args) != len(CASES[name][0]) or CASES[name][1]:
        args = [CASES_INPUTS.P if name in CASES_INPUTS._UNARY_POSITIVE else CASES_INPUTS.U] * (
            2 if name in CASES_INPUTS._BINARY else 1)
    import tapegrad as tg
    want = _gradient(ref, ref.GradientTape, _keras_function(name), args)
    got = _gradient(tg, tg.GradientTape, _ours(name), args)
    for g, w in zip(got, want):
        if w is None:
            assert g is None or not np.any(g), name
        else:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=name)


# (slice_update is left out: Keras on TF has no gradient for its XlaDynamicUpdateSlice)
_DIFFERENTIABLE_STRUCTURED = ["matmul", "einsum", "tensordot", "conv", "depthwise_conv", "separable_conv",
                              "conv_transpose", "max_pool", "average_pool", "batch_normalization",
                              "layer_normalization", "rms_normalization", "dot_product_attention",
                              "categorical_crossentropy", "binary_crossentropy", "sparse_categorical_crossentropy",
                              "take", "take_along_axis", "where", "clip", "moveaxis", "pad", "tile", "repeat",
                              "cumsum", "cumprod", "inv", "det", "solve", "cholesky", "norm", "resize",
                              "extract_patches", "outer", "kron", "trace", "diagonal", "tril",
                              "stack", "split", "average", "normalize", "moments", "glu", "psnr", "quantile"]


@pytest.mark.parametrize("name", _DIFFERENTIABLE_STRUCTURED)
def test_gradients_of_structured_ops_match_keras_on_tf(name):
    import tapegrad as tg
    args, kwargs = CASES[name]
    grads = []
    for lib, fn in ((ref, _keras_function(name)), (tg, _ours(name))):
        variables = {i: lib.constant(a) for i, a in enumerate(args)
                     if isinstance(a, np.ndarray) and a.dtype.kind == "f"}
        if name in ("stack", "split"):
            variables = {}
        with lib.GradientTape() as tape:
            for v in variables.values():
                tape.watch(v)
            out = fn(*[variables.get(i, a) for i, a in enumerate(args)], **kwargs)
            out = out[0] if isinstance(out, (list, tuple)) else out
            total = lib.reduce_sum(out * lib.cast(lib.reshape(lib.range(lib.size(out)), out.shape) % 7 + 1, out.dtype))
        grads.append([np.asarray(g) for g in tape.gradient(total, list(variables.values()))])
    want, got = grads
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=name)
