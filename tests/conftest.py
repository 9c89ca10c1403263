"""Makes tests/ importable (op_db, opinfo, gradcheck) and seeds NumPy per test."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
# TensorFlow, where a test imports it as the oracle, answers with its own kernels: its oneDNN kernels
# (chosen on CPUs that have them) abort on a rank-0 softmax and give [nan, 0, 0] for a row holding
# NaN or +inf, so with them the oracle's answer would depend on the CPU
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(params=["baseline", "avx2", "avx512"])
def isa(request):
    """Runs a test at each kernel ISA level the CPU supports."""
    import tapegrad as tf

    before = tf._core.active_isa()
    tf._core.set_isa(request.param)
    if tf._core.active_isa() != request.param:
        tf._core.set_isa(before)
        pytest.skip(f"this CPU does not support {request.param}")
    yield request.param
    tf._core.set_isa(before)
