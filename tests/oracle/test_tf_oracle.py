"""TensorFlow as a differential oracle: every row of tests/tf_oracle on both libraries, with the same
inputs; values, dtypes, shapes, error classes and first-order gradients must agree.

Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import functools

import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow
from tf_oracle.cases import all_cases, gradient_cases, params
from tf_oracle.samples import DT

ref = import_tensorflow()

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-14)}
GRAD_TOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-11)}


def _resolve(lib, path):
    """lib.<path>; TF keeps some of tapegrad's top-level names only under tf.math."""
    try:
        return functools.reduce(getattr, path.split("."), lib)
    except AttributeError:
        if lib is tg or "." in path:
            raise
        return getattr(lib.math, path)


def _convert(lib, value, floats):
    """The sample's value for `lib`: arrays become constants (float ones are recorded in `floats`)."""
    if isinstance(value, np.ndarray):
        t = lib.constant(value)
        if value.dtype.kind == "f":
            floats.append(t)
        return t
    if isinstance(value, DT):
        return getattr(lib, value.name)
    if isinstance(value, (list, tuple)):
        return type(value)(_convert(lib, v, floats) for v in value)
    return value


def _leaves(out):
    if isinstance(out, (list, tuple)):
        return [leaf for o in out for leaf in _leaves(o)]
    return [out]


def _weights(shape, k):
    n = int(np.prod(shape))
    return (1.0 + 0.5 * np.sin(np.arange(n) + 0.7 * k)).reshape(shape)


def _run(lib, path, sample, with_grad):
    """(error, None) or (None, (outputs, gradients)); gradients of sum(w * y) over the float outputs."""
    floats = []
    args = _convert(lib, sample.args, floats)
    kwargs = {k: _convert(lib, v, floats) for k, v in sample.kwargs.items()}
    fn = _resolve(lib, path)
    try:
        if not with_grad:
            return None, (_leaves(fn(*args, **kwargs)), None)
        with lib.GradientTape() as tape:
            for t in floats:
                tape.watch(t)
            outs = _leaves(fn(*args, **kwargs))
            terms = [lib.reduce_sum(o * lib.constant(_weights(tuple(o.shape), k), o.dtype))
                     for k, o in enumerate(outs) if o.dtype.is_floating]
            target = lib.add_n(terms)
        return None, (outs, tape.gradient(target, floats))
    except Exception as e:  # compared with the other library's error below
        return e, None


def _array(lib, value):
    if value is None:
        return None
    if hasattr(value, "indices") and hasattr(value, "dense_shape"):  # TF's IndexedSlices
        value = lib.convert_to_tensor(value)
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def _dtype_name(value):
    return value.dtype.name if hasattr(value, "dtype") else type(value).__name__


def _expected_class(error):
    """tapegrad's class for TF's error: tapegrad.errors.<same name> for TF's error classes, else the
    builtin class itself. TF's AttributeError comes from its argument handling tripping over an argument
    of the wrong type (einsum(3, x), bool_tensor | 1.5): tapegrad's contract there is a TypeError."""
    cls = type(error)
    if isinstance(error, ref.errors.OpError):
        return getattr(tg.errors, cls.__name__, None)
    if isinstance(error, AttributeError):
        return TypeError
    for c in cls.__mro__:
        if c.__module__ == "builtins":
            return c
    return None


def _check_errors(got, want):
    if got is None or want is None:
        raise AssertionError(f"tapegrad {'raised ' + repr(got) if got else 'returned'}, "
                             f"TF {'raised ' + repr(want) if want else 'returned'}")
    expected = _expected_class(want)
    assert expected is not None, f"tapegrad has no class for TF's {type(want).__name__}: {want!r}"
    assert isinstance(got, expected), f"tapegrad raised {got!r}, TF raised {want!r}"


def _assert_close(got, want, dtype, tol, signed_zeros, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape} != TF's {want.shape}"
    if want.dtype.kind in "fc":
        rtol, atol = tol["float64" if want.dtype == np.float64 else "float32"]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
        if signed_zeros:
            zeros = (got == 0) & (want == 0)
            np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]),
                                          err_msg=f"{what}: signs of zeros")
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _assert_same_statistics(got, want, what):
    """Random draws: mean, standard deviation and the fraction of zeros agree (within sampling error)."""
    got, want = got.astype(np.float64), want.astype(np.float64)
    scale = want.std() + 1e-12
    assert abs(got.mean() - want.mean()) <= 0.05 * scale, f"{what}: mean {got.mean()}, TF {want.mean()}"
    assert abs(got.std() - want.std()) <= 0.05 * scale, f"{what}: std {got.std()}, TF {want.std()}"
    assert abs((got == 0).mean() - (want == 0).mean()) <= 0.03, f"{what}: fraction of zeros"


def _compare(row, dtype, sample, with_grad):
    got_err, got = _run(tg, row.name, sample, with_grad)
    want_err, want = _run(ref, row.tf_path, sample, with_grad)
    if got_err is not None or want_err is not None:
        _check_errors(got_err, want_err)
        return
    (got_out, got_grads), (want_out, want_grads) = got, want
    assert len(got_out) == len(want_out), f"{len(got_out)} outputs, TF {len(want_out)}"
    for i, (g, w) in enumerate(zip(got_out, want_out)):
        assert _dtype_name(g) == _dtype_name(w), f"output {i}: dtype {_dtype_name(g)}, TF {_dtype_name(w)}"
        g, w = _array(tg, g), _array(ref, w)
        if row.shape_only:
            assert g.shape == w.shape, f"output {i}: shape {g.shape} != TF's {w.shape}"
            if g.size >= 1000:
                _assert_same_statistics(g, w, f"output {i}")
        elif not with_grad:
            _assert_close(g, w, dtype, TOL, row.signed_zeros, f"output {i}")
    if with_grad:
        for i, (g, w) in enumerate(zip(got_grads, want_grads)):
            g, w = _array(tg, g), _array(ref, w)
            assert (g is None) == (w is None), f"gradient {i}: tapegrad {g}, TF {w}"
            if g is not None:
                assert g.dtype == w.dtype, f"gradient {i}: dtype {g.dtype}, TF {w.dtype}"
                _assert_close(g, w, dtype, GRAD_TOL, False, f"gradient {i}")


@pytest.mark.parametrize("row,dtype,sample", params("fwd", all_cases()))
def test_forward(row, dtype, sample):
    _compare(row, dtype, sample, with_grad=False)


@pytest.mark.parametrize("row,dtype,sample", params("grad", gradient_cases()))
def test_gradient(row, dtype, sample):
    _compare(row, dtype, sample, with_grad=True)
