"""The C++ registry and the test op table must list the same ops."""
import tapegrad as tf
from op_db import op_db


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
