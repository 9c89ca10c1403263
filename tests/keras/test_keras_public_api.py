"""keras is a user of tapegrad's public API: no `_core`, no private module, no private tensor attribute.

An AST scan of every module under python/tapegrad/keras. Flagged:
  * any mention of `_core` (import, name or attribute);
  * importing a private tapegrad module (`tapegrad._x`, `from tapegrad import _x`), or reading
    `tf._x` / `tapegrad._x`;
  * `obj._x` (or getattr/hasattr/setattr(obj, "_x")) on anything but self/cls, unless `_x` is
    keras's own (assigned or defined somewhere in keras) and not a private name of tf.Tensor or
    tf.Variable (so `layer._losses` between layers is fine, `t._shape` is not).
"""
import ast
import pathlib

import tapegrad as tf

KERAS = pathlib.Path(tf.__file__).parent / "keras"

# (file relative to keras/, enclosing function, the flagged source text) -> why it stays.
ALLOWED = {("_functional.py", "", "from tapegrad._ops import"):
           "ops on Keras tensors reach keras through the op binding's hook (Note [Symbolic dispatch])",
           **{(f, "", "from tapegrad.io._atomic import"):
              "the package's one atomic file replacement (io/_atomic.py), which TF has no public name for"
              for f in ("saving/_weights_file.py", "saving/_h5_file.py", "saving/_model_file.py", "saving/_legacy_h5.py")},
           ("__init__.py", "", "from tapegrad._install import"):
           "keras.mixed_precision loads at its first use with the package's lazy loader, as tf.keras does in "
           "tapegrad/__init__.py (it holds LossScaleOptimizer, and the optimizers import the layers' policies)",
           ("layers/normalization.py", "", "from tapegrad._ops import"):
           "LayerNormalization over the last axis runs the registry's fused LayerNorm op (one pass each way), "
           "which TF has no public name for",
           ("initializers.py", "_rng", "tf.random._numpy_generator"):
           "initializers draw from the NumPy generator tf.random.set_seed seeds (TF's public "
           "get_global_generator is a tf.random.Generator)"}

_TENSOR_PRIVATE = {n for cls in (tf.Tensor, tf.Variable) for n in dir(cls)
                   if n.startswith("_") and not n.startswith("__")}
_ATTR_FUNCS = ("getattr", "hasattr", "setattr", "delattr")


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def _owned_names(trees):
    """Private names keras defines: attributes it assigns, functions, classes and variables it binds."""
    owned = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                owned.add(node.attr)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                owned.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                owned.add(node.id)
            elif isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                owned.add(node.args[1].value)  # _set(obj, "_x", value), object.__setattr__(obj, "_x", value)
    return {n for n in owned if isinstance(n, str) and _private(n)}


def _parents(tree):
    """node -> name of its innermost enclosing function ("" at module level)."""
    where = {}

    def visit(node, fn):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else fn
            where[child] = inner
            visit(child, inner)
    visit(tree, "")
    return where


def _is_self(node):
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _is_tapegrad(node):
    return isinstance(node, ast.Name) and node.id in ("tf", "tapegrad")


def violations(source, owned, path="<string>"):
    """[(path, function, flagged text, line)] for one module's source."""
    tree = ast.parse(source)
    where = _parents(tree)
    found = []

    def flag(node, text):
        found.append((path, where.get(node, ""), text, node.lineno))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            private_module = any(_private(part) for part in module.split(".")) and not module.startswith(
                "tapegrad.keras")
            if module.startswith("tapegrad") and private_module:
                flag(node, f"from {module} import")
            for alias in node.names:
                if module == "tapegrad" and _private(alias.name):
                    flag(node, f"from tapegrad import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "tapegrad" and parts[1:2] != ["keras"] and any(_private(p) for p in parts):
                    flag(node, f"import {alias.name}")
        elif isinstance(node, ast.Name) and node.id == "_core":
            flag(node, "_core")
        elif isinstance(node, ast.Attribute) and _private(node.attr) and not _is_self(node.value):
            text = ast.unparse(node)
            if node.attr == "_core" or _is_tapegrad(node.value):
                flag(node, text)
            elif node.attr in _TENSOR_PRIVATE or node.attr not in owned:
                flag(node, text)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _ATTR_FUNCS
              and len(node.args) >= 2 and not _is_self(node.args[0])):
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and _private(name.value) and (
                    name.value in _TENSOR_PRIVATE or name.value not in owned):
                flag(node, ast.unparse(node))
    return found


def _keras_sources():
    return {str(p.relative_to(KERAS)): p.read_text() for p in sorted(KERAS.rglob("*.py"))}


def test_keras_uses_only_the_public_api():
    sources = _keras_sources()
    assert len(sources) > 20  # the scan sees the whole package
    owned = _owned_names(ast.parse(s) for s in sources.values())
    found = [v for path, src in sources.items() for v in violations(src, owned, path)]
    unexpected = [v for v in found if v[:3] not in ALLOWED]
    assert not unexpected, "keras reaches below the public API:\n" + "\n".join(
        f"  {path}:{line} in {fn or '<module>'}: {text}" for path, fn, text, line in unexpected)


def test_the_allow_list_is_still_needed():
    sources = _keras_sources()
    owned = _owned_names(ast.parse(s) for s in sources.values())
    used = {v[:3] for path, src in sources.items() for v in violations(src, owned, path)}
    assert set(ALLOWED) <= used, f"stale allow-list entries: {sorted(set(ALLOWED) - used)}"


def test_the_scan_catches_private_access():
    owned = {"_losses", "_dtype", "_helper"}  # keras's own names; _dtype is also a Tensor's
    bad = {
        "from tapegrad import _core": "from tapegrad import _core",
        "from tapegrad._tensor.tensor import Tensor": "from tapegrad._tensor.tensor import",
        "import tapegrad._nest": "import tapegrad._nest",
        "op = tf._core.op('MatMul')": "tf._core",
        "n = tf._nest": "tf._nest",
        "def f(x):\n    return x._shape": "x._shape",
        "def f(v):\n    v._assign_add(1.0)": "v._assign_add",
        "def f(t):\n    return t._item()": "t._item",
        "def f(layer):\n    return layer._dtype": "layer._dtype",
        "def f(v):\n    return getattr(v, '_is_variable', False)": "getattr(v, '_is_variable', False)",
        "def f(x):\n    return x._unknown": "x._unknown",
        "def f():\n    return _core.op('Add')": "_core",
    }
    for source, text in bad.items():
        assert text in [v[2] for v in violations(source, owned)], source
    good = ["def f(self):\n    return self._shape", "def f(layer):\n    return layer._losses",
            "from tapegrad.keras import _training", "def f(m):\n    return m._helper(1)",
            "def f(x):\n    return x.shape, x.dtype, x.numpy(), x.__class__"]
    for source in good:
        assert violations(source, owned) == [], source


def test_inside_function():
    assert tf.inside_function() is False
    seen = []

    @tf.function
    def f(x):
        seen.append(tf.inside_function())
        return x + 1.0

    f(tf.constant(1.0))
    f(tf.constant(2.0))  # a graph call: the Python body does not run
    assert seen == [True]
    assert tf.inside_function() is False


def test_is_symbolic_tensor_as_tf():
    """TF's answers: every tensor the traced function makes is symbolic; captured eager tensors,
    Variables and non-tensors are not."""
    import numpy as np
    outside, v = tf.constant(1.0), tf.Variable(2.0)
    assert not any(tf.is_symbolic_tensor(x) for x in (outside, v, 1.0, [1.0], np.ones(2)))
    seen = {}

    @tf.function
    def f(x):
        c = tf.constant(3.0)
        seen.update(arg=x, const=c, const_op=c + 1.0, captured=outside, var=v, var_read=v.read_value(),
                    from_arg=x * 2.0, numpy=tf.convert_to_tensor(np.ones(2)), python=2.0)
        seen.update({k: tf.is_symbolic_tensor(t) for k, t in seen.items()})
        return x

    f(tf.constant(1.0))
    assert seen == dict(arg=True, const=True, const_op=True, captured=False, var=False, var_read=True,
                        from_arg=True, numpy=True, python=False)
    assert not tf.is_symbolic_tensor(f(tf.constant(5.0)))  # the result of a call is eager


def test_is_symbolic_tensor_in_a_nested_trace():
    made = {}

    @tf.function
    def inner(x):
        made["answers"] = [tf.is_symbolic_tensor(made["c"]), tf.is_symbolic_tensor(tf.constant(0.0))]
        return x

    @tf.function
    def outer(x):
        made["c"] = tf.constant(1.0)  # made by the outer function: symbolic in the inner one too
        return inner(x)

    outer(tf.constant(1.0))
    assert made["answers"] == [True, True]


def test_sparse_crossentropy_with_labels_made_inside_a_function():
    """Labels the traced function makes itself are symbolic: the loss is built from graph ops and
    matches the eager loss."""
    import numpy as np
    from tapegrad import keras
    logits = np.array([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]], np.float32)
    for kwargs in (dict(from_logits=True), dict(from_logits=True, ignore_class=2)):
        expected = keras.losses.sparse_categorical_crossentropy(np.array([1, 2]), logits, **kwargs).numpy()

        @tf.function
        def loss(x):
            return keras.losses.sparse_categorical_crossentropy(tf.constant([1, 2]), x, **kwargs)

        np.testing.assert_allclose(loss(tf.constant(logits)).numpy(), expected, rtol=1e-6)
