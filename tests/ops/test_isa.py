"""Every ISA level (baseline, AVX2, AVX-512) computes the same elementwise results as NumPy."""
import numpy as np
import pytest

import tapegrad as tf
from opinfo import elementwise

ROWS = [o for o in elementwise.rows if o.ref is not None and o.dtypes == ("float32", "float64")]



@pytest.mark.parametrize("n", [1000, 70_000])  # 70_000 takes the multi-threaded path
@pytest.mark.parametrize("op", ROWS, ids=lambda o: o.name)
def test_levels_agree_with_numpy(op, n, isa):
    rng = np.random.default_rng(1)
    for dtype, rtol in ((np.float32, 2e-6), (np.float64, 1e-13)):
        samples = list(op.sample_inputs(rng, dtype))
        # Tile the first sample's values out to n elements per argument.
        args = [np.resize(a, n).astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else
                (np.resize(a, n) if isinstance(a, np.ndarray) else a) for a in samples[0].args]
        got = op.fn(*[tf.constant(a) if isinstance(a, np.ndarray) else a for a in args], **samples[0].kwargs)
        want = op.ref(*[a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
                        for a in args], **samples[0].kwargs)
        np.testing.assert_allclose(got.numpy(), want, rtol=rtol * 10, atol=1e-6 if dtype == np.float32 else 1e-13)
