"""Every op's forward value against its NumPy reference, in float32 and float64."""
import numpy as np
import pytest

import tapegrad as tf
from op_db import op_db

CASES = [(o, d) for o in op_db if o.ref is not None for d in o.dtypes]


@pytest.mark.parametrize("op,dtype", CASES, ids=[f"{o.name}-{d}" for o, d in CASES])
def test_forward_matches_numpy(op, dtype, rng):
    np_dtype = np.dtype(dtype).type
    for s in op.sample_inputs(rng, np_dtype):
        tensors = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in s.args]
        got = op.fn(*tensors, **s.kwargs)
        want = op.ref(*s.args, **s.kwargs)
        got_np = got.numpy()
        assert got_np.shape == np.shape(want), f"shape {got_np.shape} != {np.shape(want)}"
        if dtype == "float32":
            want64 = op.ref(*[a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype == np.float32 else a
                              for a in s.args], **s.kwargs)
            np.testing.assert_allclose(got_np, want64, rtol=op.fwd_rtol32 * 10, atol=1e-6)
            assert got.dtype == np.asarray(want).dtype or np.asarray(want).dtype == np.float64
        elif np.dtype(dtype).kind in "iub":  # integers exactly (NumPy's reference may be wider: sums)
            np.testing.assert_array_equal(got_np, want)
        else:
            np.testing.assert_allclose(got_np, want, rtol=1e-12, atol=1e-12)
