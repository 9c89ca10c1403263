"""The package ships type stubs for _core and the public modules, and they match the code (.ci/gen_stubs)."""
import importlib.machinery
import importlib.util
import os
import re

import pytest

import tapegrad
from tapegrad import _core

_PATH = os.path.join(os.path.dirname(__file__), "..", ".ci", "gen_stubs")
_loader = importlib.machinery.SourceFileLoader("gen_stubs", _PATH)
gen_stubs = importlib.util.module_from_spec(importlib.util.spec_from_loader("gen_stubs", _loader))
_loader.exec_module(gen_stubs)
PKG = os.path.dirname(tapegrad.__file__)


@pytest.mark.parametrize("module", gen_stubs.PUBLIC)
def test_public_module_stub_is_current(module):
    path = gen_stubs.stub_path(module, PKG)  # the imported package's stubs: also right for an installed wheel
    with open(path) as f:
        assert f.read() == gen_stubs.module_stub(module), f"{path} is stale: run python .ci/gen_stubs"


def test_core_stub_names_every_binding():
    with open(os.path.join(PKG, "_core.pyi")) as f:
        text = f.read()
    declared = re.compile(r"^\s*(?:def |class )?(\w+)|import (\w+)", re.M)
    names = {a or b for a, b in declared.findall(text)}
    missing = [n for n in dir(_core) if not n.startswith("__") and n not in names]
    assert not missing, f"_core.pyi lacks {missing}: run python .ci/gen_stubs"


def test_py_typed_marker_ships():
    assert os.path.exists(os.path.join(PKG, "py.typed"))
