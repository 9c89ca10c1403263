"""File sizes, gated as tinygrad gates its line count: a product Python module (python/tapegrad/**/*.py) has at
most 400 lines and a C++ engine core file (cpp/engine/*) at most 600, lines as `wc -l` counts them. The files
over a cap today are listed below with their size as their own cap, so they cannot grow (each test is skipped
without its source tree, as in an installed wheel's test run)."""
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "tapegrad"
ENGINE = ROOT / "cpp" / "engine"
MODULE_CAP = 400
ENGINE_CAP = 600

# Path relative to python/tapegrad -> (its lines today, the cap; why it is over 400 for now).
MODULES_OVER_CAP = {
    "keras/models.py": (401, "Model, Functional, Sequential and clone_model; Sequential can have its own file"),
    "data/_dataset.py": (402, "the public Dataset class, one short method per transformation (as TF's dataset_ops.py)"),
    "keras/_training.py": (425, "compile/fit/evaluate/predict and their steps; the array and batch helpers can move"),
    "_tensor/tensor.py": (489, "Tensor's surface, Variable, TensorSpec, constant/cast/shape; Variable can move out"),
    "keras/layers/recurrent.py": (522, "three cells, RNN, three layers, Bidirectional (elsewhere one layer per file)"),
    "keras/_functional.py": (534, "KerasTensor, Node, TFOpLambda and Graph (Note [Functional graphs]); Graph can move"),
}
# Path relative to cpp/engine -> (its lines today, the cap; why); no engine file is over 600 lines today.
ENGINE_OVER_CAP = {}


def lines(path):
    return path.read_bytes().count(b"\n")


def over_caps(root, files, cap, allowed):
    """One message per file over its cap, saying what to do."""
    found = []
    for path in files:
        name = path.relative_to(root).as_posix()
        n, limit = lines(path), allowed.get(name, (cap,))[0]
        if n > limit:
            whose = f"its own cap of {limit} (its row in test_size.py)" if name in allowed else f"the cap of {cap}"
            found.append(f"{root.relative_to(ROOT)}/{name}: {n} lines, over {whose}: split it by subject or "
                         f"shorten it; the caps do not go up")
    return found


def stale_rows(root, cap, allowed):
    """One message per allow-list row naming a file that is gone or no longer over the cap."""
    found = []
    for name in sorted(allowed):
        path, where = root / name, f"{root.relative_to(ROOT)}/{name}"
        if not path.is_file():
            found.append(f"{where} is listed in tests/test_size.py but does not exist: if it moved, make its new "
                         f"path, relative to {root.relative_to(ROOT)}, the key; if it was split, drop the row")
        elif lines(path) <= cap:
            found.append(f"{where} has {lines(path)} lines, within the cap of {cap}: drop its row from "
                         f"tests/test_size.py")
    return found


@pytest.mark.skipif(not PACKAGE.is_dir(), reason="no Python source tree")
def test_product_modules_are_at_most_400_lines():
    found = over_caps(PACKAGE, sorted(PACKAGE.rglob("*.py")), MODULE_CAP, MODULES_OVER_CAP)
    assert not found, "\n".join(found)


@pytest.mark.skipif(not ENGINE.is_dir(), reason="no C++ source tree")
def test_engine_core_files_are_at_most_600_lines():
    found = over_caps(ENGINE, sorted(p for p in ENGINE.iterdir() if p.is_file()), ENGINE_CAP, ENGINE_OVER_CAP)
    assert not found, "\n".join(found)


@pytest.mark.skipif(not (PACKAGE.is_dir() and ENGINE.is_dir()), reason="no source tree")
def test_every_listed_file_exists_and_is_over_its_cap():
    found = stale_rows(PACKAGE, MODULE_CAP, MODULES_OVER_CAP) + stale_rows(ENGINE, ENGINE_CAP, ENGINE_OVER_CAP)
    assert not found, "\n".join(found)
