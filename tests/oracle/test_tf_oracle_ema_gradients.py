"""tf.train.ExponentialMovingAverage and tf.gradients against TensorFlow. EMA: shadows after sequences
of applies bit for bit (float32 and float64 variables, float and Variable decays, int and Variable
num_updates, eagerly and inside tf.function), names, variables_to_restore and errors. tf.gradients:
TF's eager RuntimeError, and inside tf.function the values on several calls, with grad_ys,
unconnected_gradients, variables, intermediates, a while_loop and second order, and the errors.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import inspect

import numpy as np
import pytest

import tapegrad as tg
from tapegrad._autodiff import gradients as grads_module
from tapegrad._function import function as function_module
from tf_oracle import import_tensorflow

ref = import_tensorflow()


def _np(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


# ---- ExponentialMovingAverage

EMA_CASES = {
    "f32": dict(decay=0.9, dtype="float32"),
    "f64": dict(decay=0.9, dtype="float64"),
    "odd_decay": dict(decay=0.731, dtype="float32"),
    "num_updates_int": dict(decay=0.99, num_updates=4, dtype="float32"),
    "num_updates_var": dict(decay=0.999, num_updates="var", dtype="float64"),
    "decay_var": dict(decay="var", dtype="float32"),
}


def _ema_run(tf, case, traced):
    rng = np.random.default_rng(0)
    values = rng.normal(size=(6, 2, 3)).astype(case["dtype"])
    v = tf.Variable(values[0], name="w")
    decay = tf.Variable(0.8) if case["decay"] == "var" else case["decay"]
    step = None
    if case.get("num_updates") == "var":
        step = tf.Variable(0, dtype=tf.int64)
    elif case.get("num_updates") is not None:
        step = case["num_updates"]
    ema = tf.train.ExponentialMovingAverage(decay, num_updates=step)
    ema.apply([v])

    def update(x):
        v.assign(x)
        ema.apply([v])
        if isinstance(step, tf.Variable):
            step.assign_add(1)
        if isinstance(decay, tf.Variable):
            decay.assign(decay * 0.9)

    update = tf.function(update) if traced else update
    out = []
    for x in values[1:]:
        update(tf.constant(x))
        out.append(_np(ema.average(v)))
    return out, ema.average(v).name, ema.average_name(v)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("label", list(EMA_CASES))
def test_ema_values_are_tfs(label, traced):
    mine, theirs = _ema_run(tg, EMA_CASES[label], traced), _ema_run(ref, EMA_CASES[label], traced)
    for a, b in zip(mine[0], theirs[0]):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    assert mine[1:] == theirs[1:]


def test_ema_names_and_variables_to_restore_as_tf():
    for tf in (tg, ref):
        x, y = tf.Variable(1.0, name="x"), tf.Variable(1.0, name="a/b")
        ema = tf.train.ExponentialMovingAverage(0.5, name="avg")
        ema.apply([y, y])
        got = (ema.name, ema.average_name(x), ema.average(y).name, ema.average(x),
               {k: v.name for k, v in ema.variables_to_restore([x, y]).items()},
               ema.variables_to_restore()["a/b/avg"] is y, float(_np(ema.average(y))))
        if tf is tg:
            mine = got
    assert mine == got


ERRORS = [
    ("int_variable", lambda tf: [tf.Variable(1, name="u")]),
    ("tensor", lambda tf: [tf.constant(1.0)]),
    ("iterated_variable", lambda tf: tf.Variable([1.0, 2.0])),
]


@pytest.mark.parametrize("label,var_list", ERRORS, ids=[e[0] for e in ERRORS])
def test_ema_errors_as_tf(label, var_list):
    with pytest.raises(Exception) as theirs:
        ref.train.ExponentialMovingAverage(0.5).apply(var_list(ref))
    with pytest.raises(type(theirs.value)) as mine:
        tg.train.ExponentialMovingAverage(0.5).apply(var_list(tg))
    assert str(mine.value) == str(theirs.value)


# ---- tf.gradients

@pytest.fixture
def recording(monkeypatch):
    """tf.function records its traces for tf.gradients (see tests/autodiff/test_gradients_fn.py)."""
    if "recording_for_gradients" in inspect.getsource(function_module):
        return
    original = function_module.Function._traced_function

    def traced_function(self):
        body = original(self)

        def run(*args, **kwargs):
            with grads_module.recording_for_gradients(self.python_function, args, kwargs):
                return body(*args, **kwargs)
        return run

    monkeypatch.setattr(function_module.Function, "_traced_function", traced_function)


def _cases(tf):
    w = tf.Variable([1.0, -2.0, 0.5])
    return {
        "cube": lambda x: tf.gradients(x * x * x, x),
        "summed_ys": lambda x: tf.gradients([x * x, tf.sin(x)], [x]),
        "grad_ys": lambda x: tf.gradients([x * x, 2.0 * x], [x], grad_ys=[tf.constant(3.0), None]),
        "variable": lambda x: tf.gradients(tf.reduce_sum(tf.tanh(w * x)), [w, x]),
        "intermediate": lambda x: (lambda h: tf.gradients(h * h + tf.exp(x), [h, x]))(x * 3.0),
        "unconnected": lambda x: tf.gradients(x * x, [x, tf.constant(1.0)]),
        "unconnected_zero": lambda x: tf.gradients(x * x, [tf.constant([1.0, 2.0])], unconnected_gradients="zero"),
        "unconnected_enum": lambda x: tf.gradients(x * x, [tf.constant(1.0)],
                                                   unconnected_gradients=tf.UnconnectedGradients.ZERO),
        "integer": lambda x: tf.gradients([tf.cast(x * 2.0, tf.int32)], [x, 1.0]),
        "empty": lambda x: tf.gradients(x * x, []),
        "second": lambda x: tf.gradients(tf.gradients(x * x * x, x)[0], x),
        "while": lambda x: tf.gradients(tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x])[1], x),
        "softmax": lambda x: tf.gradients(tf.nn.softmax(w * x)[0], [w]),
    }


CASE_NAMES = list(_cases(tg))


@pytest.mark.parametrize("label", CASE_NAMES)
def test_gradients_as_tf(recording, label):
    mine, theirs = tg.function(_cases(tg)[label]), ref.function(_cases(ref)[label])
    for x in (1.5, -0.5, 2.0):
        a, b = mine(tg.constant(x)), theirs(ref.constant(x))
        assert len(a) == len(b)
        for ga, gb in zip(a, b):
            assert (ga is None) == (gb is None)
            if ga is not None:
                np.testing.assert_allclose(_np(ga), _np(gb), rtol=2e-6, atol=1e-6)  # tanh' = 1 - tanh^2 cancels


def test_gradients_eagerly_as_tf():
    with pytest.raises(RuntimeError) as theirs:
        ref.gradients(ref.constant(1.0), ref.constant(1.0))
    with pytest.raises(RuntimeError) as mine:
        tg.gradients(tg.constant(1.0), tg.constant(1.0))
    assert str(mine.value) == str(theirs.value)


ARG_ERRORS = [
    ("unconnected_foo", dict(unconnected_gradients="foo")),
    ("grad_ys_length", dict(grad_ys=[1.0, 2.0])),
    ("grad_ys_dtype", dict(grad_ys="int")),
    ("grad_ys_shape", dict(grad_ys="vector")),
    ("unknown_keyword", dict(foo=1)),
]


@pytest.mark.parametrize("label,kwargs", ARG_ERRORS, ids=[e[0] for e in ARG_ERRORS])
def test_gradients_argument_errors_are_tfs_classes(recording, label, kwargs):
    def run(tf):
        kw = dict(kwargs)
        if kw.get("grad_ys") == "int":
            kw["grad_ys"] = tf.constant(1, tf.int32)
        elif kw.get("grad_ys") == "vector":
            kw["grad_ys"] = tf.constant([1.0, 2.0])
        return tf.function(lambda x: tf.gradients(x * tf.constant([1.0, 3.0, 2.0]), x, **kw))(tf.constant(1.0))

    with pytest.raises(Exception) as theirs:
        run(ref)
    with pytest.raises(type(theirs.value)):
        run(tg)
