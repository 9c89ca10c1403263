"""cpp/kernels/half.h through _core._float16: float32/float64 <-> float16 bits exactly as NumPy's
astype rounds them (nearest even, subnormals, overflow to inf, NaN), vector body and scalar tail."""
import warnings

import numpy as np
import pytest

from tapegrad import _core


def _values():
    rng = np.random.default_rng(0)
    scales = (1, 1e-3, 1e-5, 1e-7, 1e-9, 1e4, 7e4, 1e-40)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 65519.99, 65520, -65520, 2.0**-24, 2.0**-25,
             2.0**-25 * 1.0000001, 3 * 2.0**-26, 2.0**-14, 2.0**-14 * (1 - 2.0**-11), 1 + 2.0**-11, 1 + 3 * 2.0**-11]
    return np.concatenate([rng.normal(size=5000) * s for s in scales] + [np.array(edges)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cut", [slice(None), slice(0, 13), slice(3, 12)])
def test_bits_match_numpy(dtype, cut, isa):  # isa: F16C from the avx2 level, integer rounding below it
    x = _values().astype(dtype)[cut].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy warns about the overflowing values
        want = x.astype(np.float16)
    bits = np.empty(x.size, np.uint16)
    _core._float16(x, bits)
    nan = np.isnan(x)
    assert np.array_equal(bits[~nan], want.view(np.uint16)[~nan])
    assert np.isnan(bits[nan].view(np.float16)).all()
    back = np.empty(x.size, dtype)
    _core._float16(want.view(np.uint16).copy(), back)
    assert np.array_equal(back[~nan], want[~nan].astype(dtype)) and np.isnan(back[nan]).all()


def test_bad_arrays_are_refused():
    x = np.ones(4, np.float32)
    for src, dst in ((x, np.empty(3, np.uint16)), (x.astype(np.int32), np.empty(4, np.uint16)),
                     (np.ones(8, np.float32)[::2], np.empty(4, np.uint16)), (np.ones(4, np.uint16), np.empty(4, np.int64))):
        with pytest.raises(TypeError, match="_float16"):
            _core._float16(src, dst)
