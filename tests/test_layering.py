"""The layering of DESIGN.md and ARCHITECTURE.md, read from the sources. C++: the engine knows neither
the tracer nor the bindings, the op definition holds no kernel tables, the argument binder lives in
the bindings (skipped without the source tree). Python: every module and subpackage of tapegrad has a
rank, and imports point down the ranks."""
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


# Kernels that still see the op definition (they take an OpDef where a kernel-side view would do).
KERNELS_SEEING_THE_REGISTRY = {"elementwise.h", "kernel_table.h"}


def test_kernels_do_not_include_the_registry():
    seeing = {p.name for p in CPP.glob("kernels/*") if "engine/registry.h" in includes(p)}
    assert seeing <= KERNELS_SEEING_THE_REGISTRY, f"kernels newly including engine/registry.h: {seeing - KERNELS_SEEING_THE_REGISTRY}"
    assert seeing == KERNELS_SEEING_THE_REGISTRY, f"stale entries: {KERNELS_SEEING_THE_REGISTRY - seeing}"


def test_the_argument_binder_lives_in_the_bindings():
    assert not list(CPP.glob("engine/signature.*")) and (CPP / "bindings" / "signature.h").is_file()


def test_bindings_hold_no_jacobian_or_pruning():
    tape = (CPP / "bindings" / "tape.cpp").read_text()
    for engine_logic in ("identity_rows", "is_connected", "jacobian_rows"):
        assert engine_logic not in tape


# -- Python: the package's units and the arrows between them -------------------------------------
# Read from the sources of the installed package (the same files in a checkout, a wheel or a venv).
# A unit is a top-level module or subpackage of tapegrad ("_ops", "keras", "math", ...); an arrow
# is an import at module level (imports inside functions run later, when every module is loaded).
# Units sit in ranks; a unit imports units of its own rank or below. ARCHITECTURE.md's table of
# allowed imports is generated from RANKS (.ci/gen_docs).
import ast  # noqa: E402

import tapegrad  # noqa: E402

PY = pathlib.Path(tapegrad.__file__).resolve().parent

RANKS = [
    ("the extension and the names every layer uses", ["_core", "dtypes", "errors", "_protos"]),
    ("tensors and nested structures", ["_tensor", "_nest", "_name_scope"]),
    ("ops written in Python over the registry ops", ["_ops"]),
    ("tf.function, autodiff, debugging, tf.Module", ["_function", "_autodiff", "_debugging", "_module"]),
    ("the public op namespaces", ["math", "nn", "linalg", "image", "random", "strings", "raw_ops", "nest",
                                  "debugging", "autodiff", "config", "test", "version", "io", "sparse", "sets", "ragged", "bitwise", "types",
                                  "_utilities"]),
    ("the subsystems on the public API", ["autograph", "data", "summary", "train", "saved_model", "datasets"]),
    ("the package's namespace and its install step", ["tapegrad", "_install"]),
    ("Keras, on the public API", ["keras"]),
    ("what runs on Keras", ["distribute", "demo"]),
]
RANK = {unit: i for i, (_, units) in enumerate(RANKS) for unit in units}

# Upward arrows that remain, each with where and why; the Python ops' bottom layer removes them.
UPWARD = {
    ("_tensor", "_function"): "_tensor/tensor.py asks trace_context whether a trace runs",
    ("_tensor", "_ops"): "_tensor/tensor.py converts arguments with _ops/_wrap.py's convert_arg",
    ("_ops", "_function"): "ops built on control flow, host calls and trace state (image/geometry, nn/sampled_losses, "
                           "random/host, image/_common, array/getitem)",
    ("_ops", "random"): "_ops/image/random_adjust.py draws with tf.random.uniform, defined in random.py",
    ("train", "tapegrad"): "train/ walks the objects the public API makes (import tapegrad as tf)",
    ("saved_model", "tapegrad"): "saved_model/_import_ops.py runs a loaded graph's TF ops on the public API",
}


def _unit(module):
    parts = module.split(".")
    return None if parts[0] != "tapegrad" else (parts[1] if len(parts) > 1 else "tapegrad")


def _module_name(path):
    parts = list(path.relative_to(PY.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """(target module, line, inside a function) of every import of a tapegrad module in path."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inner = {id(s) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             for s in ast.walk(f) if isinstance(s, (ast.Import, ast.ImportFrom))}
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" for a in node.names] if base == "tapegrad" else [base]
        else:
            continue
        for t in targets:
            if t.startswith("tapegrad"):
                yield t, node.lineno, id(node) in inner


def _arrows():
    found = {}
    for path in sorted(PY.rglob("*.py")):
        source = _unit(_module_name(path))
        for target, line, inside in _imports(path):
            if not inside and _unit(target) != source:
                found.setdefault((source, _unit(target)), f"{path.relative_to(PY)}:{line}")
    return found


def test_every_python_unit_has_a_rank():
    units = {_unit(_module_name(p)) for p in PY.rglob("*.py")}
    assert not units - set(RANK), f"add these to RANKS in tests/test_layering.py: {sorted(units - set(RANK))}"


def test_python_imports_point_down_the_ranks():
    arrows = _arrows()
    up = {a: where for a, where in arrows.items() if RANK.get(a[1], -1) > RANK.get(a[0], -1)}
    new = {a: where for a, where in up.items() if a not in UPWARD}
    assert not new, "imports up the ranks (tests/test_layering.py RANKS):\n" + "\n".join(
        f"  {a[0]} -> {a[1]} at {where}" for a, where in sorted(new.items()))
    assert not set(UPWARD) - set(up), f"stale UPWARD entries: {sorted(set(UPWARD) - set(up))}"


# Imports inside functions hide the arrows above (most break a cycle). Their count may only fall.
IMPORTS_INSIDE_FUNCTIONS = 29


def test_imports_inside_functions_do_not_grow():
    n = sum(inside for p in PY.rglob("*.py") for _, _, inside in _imports(p))
    assert n <= IMPORTS_INSIDE_FUNCTIONS, (
        f"{n} imports of tapegrad modules inside functions (cap {IMPORTS_INSIDE_FUNCTIONS}): import at "
        "module level, from a lower unit")
    assert n > IMPORTS_INSIDE_FUNCTIONS - 10, f"{n} imports inside functions: lower IMPORTS_INSIDE_FUNCTIONS to {n}"


# -- Python: the layers of the ops composed in Python (Note [Composed-op layers] in _ops/_lib) -----
# A module of _ops is in the bottom (_raw, _wrap, _dispatch), a binding module (public ops that are
# registry ops bound to TF's signatures, no @dispatch), a helper (no public op) or composed (declares
# ops with @dispatch). Every module imports only the bottom, bindings and helpers: a composed op never
# calls another composed module (Note [Composed-op layers] in _ops/_lib/__init__.py).
OPS = PY / "_ops"
BOTTOM = {"_raw", "_wrap", "_dispatch"}


def _ops_module(path):
    return ".".join(path.relative_to(OPS).with_suffix("").parts).removesuffix(".__init__").removesuffix("__init__")


def _ops_layer(path):
    name, text = _ops_module(path), path.read_text(encoding="utf-8")
    if name in BOTTOM:
        return "bottom"
    if "@dispatch" in text:
        return "composed"
    return "binding" if re.search(r"\b(public_op|unary|binary|export)\(", text) else "helper"


def _ops_imports(path):
    """The _ops modules path imports (anywhere in it), as names relative to _ops."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("tapegrad._ops"):
            base = node.module.removeprefix("tapegrad._ops").lstrip(".")
            for a in node.names:
                sub = f"{base}.{a.name}".lstrip(".")
                yield sub if (OPS / (sub.replace(".", "/") + ".py")).is_file() or (OPS / sub.replace(".", "/")).is_dir() else base


def test_composed_ops_import_only_the_layers_below():
    layers = {_ops_module(p): _ops_layer(p) for p in OPS.rglob("*.py")}
    found = set()
    for path in sorted(OPS.rglob("*.py")):
        here = _ops_module(path)
        for target in _ops_imports(path):
            if target in layers and target != here and layers[target] == "composed":
                found.add((here, target))
    assert not found, "imports of composed modules (call _raw, a binding or _lib instead): " + \
        ", ".join(f"{a} -> {b}" for a, b in sorted(found))
