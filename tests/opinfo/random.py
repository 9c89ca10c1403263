"""Rows for the random ops: no NumPy reference (values are checked statistically in tests/ops/test_random.py)."""
import tapegrad as tf
from opinfo import random_errors
from opinfo.core import OpInfo, SampleInput, attach_error_inputs


def _samples(rng, dtype):
    code = (tf.float64 if dtype is None or dtype.__name__ == "float64" else tf.float32).code
    for shape in ([], [3], [2, 5]):
        yield SampleInput([], dict(shape=shape, dtype=code, seed=-1))


rows = [
    OpInfo("RandomUniform", tf._core.op("RandomUniform"), None, samples=_samples, differentiable=False,
           draws_random=True),
    OpInfo("RandomStandardNormal", tf._core.op("RandomStandardNormal"), None, samples=_samples,
           differentiable=False, draws_random=True),
]

attach_error_inputs(rows, random_errors.ERROR_INPUTS)  # the rows' bad calls, in opinfo/random_errors.py
