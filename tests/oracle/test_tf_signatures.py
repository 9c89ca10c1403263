"""Every public op takes TF's arguments: names and order as inspect.signature shows them for TF.

Needs TensorFlow (the oracle venv of .ci/run); skipped without it, or fails when TAPEGRAD_REQUIRE_TF is set.
"""
import inspect

import pytest

import tapegrad
from tf_oracle import import_tensorflow

tf = import_tensorflow()

NAMESPACES = ["", "math", "nn", "linalg", "random"]

# TF arguments tapegrad does not take, each with its reason. A call passing one fails with TypeError
# naming it (never silently ignored).
NOT_TAKEN = {
    "layout": "DTensor layouts: no distributed tensors here",
    "experimental_implements": "tf.function options for TF's graph rewriters",
    "experimental_autograph_options": "tf.function options for TF's graph rewriters",
    "experimental_attributes": "tf.function options for TF's graph rewriters",
    "experimental_compile": "deprecated alias of jit_compile",
    "experimental_follow_type_hints": "tf.function option not implemented",
    "begin_mask": "strided_slice masks: not implemented yet (use Python slicing)",
    "end_mask": "strided_slice masks: not implemented yet (use Python slicing)",
    "ellipsis_mask": "strided_slice masks: not implemented yet (use Python slicing)",
    "new_axis_mask": "strided_slice masks: not implemented yet (use Python slicing)",
    "shrink_axis_mask": "strided_slice masks: not implemented yet (use Python slicing)",
    "var": "strided_slice's variable slice assignment: not implemented",
}
# Where tapegrad's names differ from TF's on purpose.
RENAMED = {
    "function": "tapegrad's function also takes name= (for the graph's name); TF's signature lists only options",
    "print": "tf.print takes *inputs and **kwargs; tapegrad spells out TF's keywords (same calls accepted)",
}


def _pairs():
    for ns in NAMESPACES:
        ours, theirs = (getattr(m, ns) if ns else m for m in (tapegrad, tf))
        for n in sorted(getattr(ours, "__all__", None) or dir(ours)):
            f, g = getattr(ours, n, None), getattr(theirs, n, None)
            if n.startswith("_") or g is None or not callable(f) or inspect.isclass(f) or inspect.isclass(g):
                continue
            yield (f"{ns}.{n}" if ns else n), f, g


PAIRS = list(_pairs())


@pytest.mark.parametrize("qualname,ours,theirs", PAIRS, ids=[p[0] for p in PAIRS])
def test_argument_names_are_tfs(qualname, ours, theirs):
    if qualname in RENAMED:
        pytest.skip(RENAMED[qualname])
    mine = [p for p in inspect.signature(ours).parameters if p not in NOT_TAKEN and p != "kwargs"]
    tfs = [p for p in inspect.signature(theirs).parameters if p not in NOT_TAKEN and p != "kwargs"]
    assert mine == tfs, f"tapegrad.{qualname}{mine} vs tf.{qualname}{tfs}"
