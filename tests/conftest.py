"""Makes tests/ importable (op_db, opinfo, gradcheck) and seeds NumPy per test."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture
def rng():
    return np.random.default_rng(0)
