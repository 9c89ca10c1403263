"""Every op row's edge samples (OpInfo.edge_samples): at 0, -0.0, +-inf, NaN, huge, subnormal and empty
inputs the op gives the expected value (from NumPy or a formula), dtype and, where given, gradient."""
import numpy as np
import pytest

import tapegrad as tf
from op_db import op_db
from opinfo.core import Check

CASES = [(op, i, edge) for op in op_db if op.edge_samples is not None for i, edge in enumerate(op.edge_samples())]


def _numpy(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def assert_matches(got, want, rtol, atol, where="output"):
    """got (a tensor, or a structure of them) against want, as EdgeSample describes."""
    if isinstance(want, Check):
        assert np.all(want.holds(_numpy(got))), f"{where}: not {want.what}: {_numpy(got)}"
    elif want is None:
        assert got is None, f"{where}: {got} is not None"
    elif isinstance(want, tuple):
        assert len(got) == len(want), f"{where}: {len(got)} outputs, expected {len(want)}"
        for k, (g, w) in enumerate(zip(got, want)):
            assert_matches(g, w, rtol, atol, f"{where}[{k}]")
    else:
        g, w = _numpy(got), np.asarray(want)
        assert g.shape == w.shape, f"{where}: shape {g.shape} != {w.shape}"
        g, w = g.astype(np.float64), w.astype(np.float64)
        with np.errstate(invalid="ignore"):
            same = (g == w) | (np.isnan(g) & np.isnan(w))
            near = np.isfinite(w) & (np.abs(g - w) <= np.maximum(atol, rtol * np.abs(w)))
        assert np.all(same | near), f"{where}: got {g}, expected {w} (rtol {rtol}, atol {atol})"


@pytest.mark.parametrize("op,edge", [(op, edge) for op, _, edge in CASES], ids=[f"{op.name}-{i}" for op, i, _ in CASES])
def test_edge_sample(op, edge):
    fn = edge.fn or op.fn
    args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in edge.sample.args]
    out = fn(*args, **edge.sample.kwargs)
    assert_matches(out, edge.value, edge.rtol, edge.atol)
    if edge.dtype is not None:
        assert out.dtype.name == edge.dtype, f"dtype {out.dtype.name} != {edge.dtype}"
    if edge.grad is None:
        return
    wrt = edge.wrt if edge.wrt is not None else [
        i for i, a in enumerate(edge.sample.args) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    with tf.GradientTape() as tape:  # the value again, as a taped call computes it, and its gradient
        tape.watch([args[i] for i in wrt])
        out = fn(*args, **edge.sample.kwargs)
    assert_matches(out, edge.value, edge.rtol, edge.atol, "output under a tape")
    grads = tape.gradient(out, [args[i] for i in wrt])
    assert_matches(grads[0] if len(wrt) == 1 else tuple(grads), edge.grad, edge.grad_rtol, edge.grad_atol, "gradient")
