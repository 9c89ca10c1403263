"""The layering of DESIGN.md, read from the C++ sources: the engine knows neither the tracer nor
the bindings, and the op definition holds no kernel tables (skipped without the source tree)."""
import pathlib
import re

import pytest

CPP = pathlib.Path(__file__).resolve().parents[1] / "cpp"
pytestmark = pytest.mark.skipif(not CPP.is_dir(), reason="no C++ source tree")


def includes(path):
    return re.findall(r'^#include [<"]([^>"]+)[>"]', path.read_text(), re.M)


@pytest.mark.parametrize("path", sorted(CPP.glob("engine/*.[hc]*")), ids=lambda p: p.name)
def test_engine_includes_no_tracer_or_bindings(path):
    bad = [i for i in includes(path) if i.startswith(("graph/", "bindings/", "pybind11"))]
    assert not bad, f"{path.name} includes {bad}"


def test_op_definition_holds_no_kernel_tables():
    registry = CPP / "engine" / "registry.h"
    assert not [i for i in includes(registry) if i.startswith("kernels/")]
    assert not re.search(r"\b(ew|block)\[kIsaLevels\]", registry.read_text())


def test_bindings_hold_no_jacobian_or_pruning():
    tape = (CPP / "bindings" / "tape.cpp").read_text()
    for engine_logic in ("identity_rows", "is_connected", "jacobian_rows"):
        assert engine_logic not in tape
