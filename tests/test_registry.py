"""The C++ registry and the test op table must list the same ops."""
import pytest

import tapegrad as tf
from op_db import op_db


def test_an_unknown_op_is_refused_naming_it():
    with pytest.raises(tf.errors.InvalidArgumentError, match="NoSuchOp"):
        tf._core.op("NoSuchOp")


def test_every_registered_op_has_a_row():
    covered = {o.registry_op for o in op_db}
    missing = sorted(set(tf._core.registered_ops()) - covered - {"Identity", "StopGradient"})
    assert not missing, f"ops with no row in tests/opinfo: {missing}"


def test_every_row_names_a_registered_op():
    registered = set(tf._core.registered_ops())
    unknown = sorted({o.registry_op for o in op_db if o.registry_op is not None} - registered)
    assert not unknown, f"rows naming ops the registry does not have: {unknown}"


def test_differentiability_matches_registry():
    for o in op_db:
        if o.registry_op is not None:
            assert tf._core.is_differentiable(o.registry_op) == o.differentiable, o.name


def test_raw_ops_module_is_current():
    """_ops/_raw.py holds one handle per registry op, as .ci/gen_raw_ops writes it."""
    import importlib.machinery
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", ".ci", "gen_raw_ops")
    loader = importlib.machinery.SourceFileLoader("gen_raw_ops", path)
    gen = importlib.util.module_from_spec(importlib.util.spec_from_loader("gen_raw_ops", loader))
    loader.exec_module(gen)
    from tapegrad._ops import _raw
    with open(_raw.__file__) as f:
        assert f.read() == gen.text(), "python/tapegrad/_ops/_raw.py is stale: run python .ci/gen_raw_ops"
