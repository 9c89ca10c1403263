"""Adamax, Ftrl, Lion and Adafactor against values read from Keras 3.15 on TF 2.21 (literals, so no TF is
needed); Keras 2's constructor arguments and None gradients handled as Keras 3 handles them.
tests/oracle/test_tf_oracle_keras_optimizers.py runs the same against TF itself."""
import json

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

NEW = {"Adamax": keras.optimizers.Adamax, "Ftrl": keras.optimizers.Ftrl, "Lion": keras.optimizers.Lion,
       "Adafactor": keras.optimizers.Adafactor}
ALL = ["SGD", "Adam", "AdamW", "Nadam", "RMSprop", "Adagrad", *NEW]

# A variable of rank 1, [1, -2], or rank 2 (Adafactor factors its second moment), 3 steps of the gradients
# below; the values Keras 3.15 / TF 2.21 gives eagerly, per dtype.
W0 = {1: [1.0, -2.0], 2: [[1.0, -2.0, 0.5], [0.25, 3.0, -1.5]]}


def _grad(i, rank):
    g = [0.3 * (i + 1), -0.7 / (i + 1)]
    return g if rank == 1 else [g + [0.1 * i], [-g[1], -g[0], 0.2]]


KERAS = {  # name: (optimizer, rank, float64 result, float32 result)
    "adamax": (lambda: keras.optimizers.Adamax(0.1), 1,
               [0.754680626384812, -1.7673297606592828], [0.7546806335449219, -1.7673299312591553]),
    "adamax_betas": (lambda: keras.optimizers.Adamax(0.05, beta_1=0.8, beta_2=0.95, epsilon=1e-3), 1,
                     [0.8755892978913977, -1.8809836216213605], [0.8755892515182495, -1.880983591079712]),
    "ftrl": (lambda: keras.optimizers.Ftrl(0.1), 1,
             [0.047620677399377614, -1.0173726457506813], [0.04762068763375282, -1.017372727394104]),
    "ftrl_regularized": (lambda: keras.optimizers.Ftrl(0.2, learning_rate_power=-0.7, initial_accumulator_value=0.3,
                                                       l1_regularization_strength=0.05, l2_regularization_strength=0.1,
                                                       l2_shrinkage_regularization_strength=0.02, beta=0.5), 1,
                         [-0.15959812289352635, -0.39883233568273746], [-0.15959811210632324, -0.3988322913646698]),
    "lion": (lambda: keras.optimizers.Lion(0.1), 1,
             [0.6999999955296516, -1.6999999955296516], [0.6999999284744263, -1.6999999284744263]),
    "lion_weight_decay": (lambda: keras.optimizers.Lion(0.2, beta_1=0.7, beta_2=0.95, weight_decay=0.1), 1,
                          [0.3531119898724556, -1.2943039881551266], [0.35311204195022583, -1.2943038940429688]),
    "adafactor": (lambda: keras.optimizers.Adafactor(0.1), 1,
                  [0.49645211118914967, -1.675372625753659], [0.49645209312438965, -1.6753727197647095]),
    "adafactor_factored": (lambda: keras.optimizers.Adafactor(0.1), 2,
                           [[0.468801262070745, -1.602457875089823, 0.21157476051991933],
                            [-0.13587138967599216, 3.518564413443398, -2.122513463303478]],
                           [[0.46880125999450684, -1.602457880973816, 0.2115747481584549],
                            [-0.13587139546871185, 3.518564462661743, -2.12251353263855]]),
    "adafactor_options": (lambda: keras.optimizers.Adafactor(0.01, beta_2_decay=-0.5, epsilon_2=1e-2,
                                                             clip_threshold=0.5), 2,
                          [[0.9737023683643576, -1.9800875378515626, 0.48607633085904],
                           [0.2306562681202322, 3.0257292777274714, -1.5306870350870312]],
                          [[0.9737024307250977, -1.9800876379013062, 0.48607632517814636],
                           [0.23065626621246338, 3.025729179382324, -1.5306869745254517]]),
}


def _run(make, rank, dtype, traced=False, steps=3):
    var, opt = tf.Variable(np.array(W0[rank], dtype)), make()
    step = lambda g: opt.apply_gradients([(g, var)])  # noqa: E731
    step = tf.function(step) if traced else step
    for i in range(steps):
        step(tf.constant(np.array(_grad(i, rank), dtype)))
    return var.numpy(), opt


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", list(KERAS))
def test_matches_keras_bit_for_bit(name, dtype, traced):
    make, rank, want64, want32 = KERAS[name]
    got, opt = _run(make, rank, dtype, traced)
    np.testing.assert_array_equal(got, np.array(want64 if dtype == np.float64 else want32, dtype))
    assert int(opt.iterations) == 3


def test_update_rules_in_numpy_float64():
    """The docstrings' rules, written out (loosely: NumPy keeps the hyperparameters in float64)."""
    w, g = np.array([1.0, -2.0]), [np.array(_grad(i, 1)) for i in range(3)]
    m, u = np.zeros(2), np.zeros(2)
    ref = w.copy()
    for t, gt in enumerate(g, start=1):
        m = m + (gt - m) * 0.1
        u = np.maximum(0.999 * u, np.abs(gt))
        ref = ref - 0.1 * m / ((1 - 0.9 ** t) * (u + 1e-7))
    np.testing.assert_allclose(_run(lambda: keras.optimizers.Adamax(0.1), 1, np.float64)[0], ref, rtol=1e-6)
    n, z, ref = np.full(2, 0.1), np.zeros(2), w.copy()
    for gt in g:
        n2 = n + gt * gt
        z = z + gt - (np.sqrt(n2) - np.sqrt(n)) / 0.1 * ref
        ref, n = -z / (np.sqrt(n2) / 0.1), n2
    np.testing.assert_allclose(_run(lambda: keras.optimizers.Ftrl(0.1), 1, np.float64)[0], ref, rtol=1e-6)
    m, ref = np.zeros(2), w.copy()
    for gt in g:
        ref = ref - 0.1 * np.sign(0.9 * m + 0.1 * gt)
        m = 0.99 * m + 0.01 * gt
    np.testing.assert_allclose(_run(lambda: keras.optimizers.Lion(0.1), 1, np.float64)[0], ref, rtol=1e-6)


def test_adafactor_factors_the_last_two_axes():
    opt = keras.optimizers.Adafactor()
    big, vec, scalar = tf.Variable(np.ones((2, 3, 4))), tf.Variable(np.ones(5)), tf.Variable(1.0)
    opt.build([big, vec, scalar])
    assert [tuple(s.shape) for s in opt.slots(big)] == [(2, 3), (2, 4), (2, 3, 4)]
    assert [tuple(s.shape) for s in opt.slots(vec)] == [(5,)]
    assert [tuple(s.shape) for s in opt.slots(scalar)] == [()]


def test_defaults_and_config_round_trip():
    defaults = {"Adamax": dict(learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7),
                "Ftrl": dict(learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                             l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                             l2_shrinkage_regularization_strength=0.0, beta=0.0),
                "Lion": dict(learning_rate=0.001, beta_1=0.9, beta_2=0.99),
                "Adafactor": dict(learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3,
                                  clip_threshold=1.0, relative_step=True)}
    for name, want in defaults.items():
        config = NEW[name]().get_config()
        assert {k: config[k] for k in want} == pytest.approx(want), name  # the rate through float32, as Keras
        assert config["name"] == name and config["weight_decay"] is None
        assert isinstance(keras.optimizers.get(name.lower()), NEW[name])
    opt = keras.optimizers.Ftrl(0.25, learning_rate_power=-0.3, l1_regularization_strength=0.01, clipnorm=1.0,
                                name="f")
    clone = keras.optimizers.Ftrl.from_config(json.loads(json.dumps(opt.get_config())))
    assert clone.get_config() == opt.get_config()
    assert clone.learning_rate_power == -0.3 and clone.clipnorm == 1.0 and clone.name == "f"


@pytest.mark.parametrize("make,error", [
    (lambda: keras.optimizers.Ftrl(initial_accumulator_value=-1.0),
     r"`initial_accumulator_value` needs to be positive or zero. Received: initial_accumulator_value=-1.0."),
    (lambda: keras.optimizers.Ftrl(learning_rate_power=0.5),
     r"`learning_rate_power` needs to be negative or zero. Received: learning_rate_power=0.5."),
    (lambda: keras.optimizers.Ftrl(l1_regularization_strength=-0.1), "`l1_regularization_strength` needs to be"),
    (lambda: keras.optimizers.Ftrl(l2_regularization_strength=-0.1), "`l2_regularization_strength` needs to be"),
    (lambda: keras.optimizers.Ftrl(l2_shrinkage_regularization_strength=-0.1),
     "Received: l2_shrinkage_regularization_strength=-0.1."),
    (lambda: keras.optimizers.Lion(beta_1=0.0), r"Argument `beta_1` must be in the \[0, 1\] range"),
    (lambda: keras.optimizers.Lion(beta_1=1.5), "degenerates to SignSGD. Received: beta_1=1.5."),
])
def test_constructor_checks_as_keras(make, error):
    with pytest.raises(ValueError, match=error):
        make()


# ---- Keras 2's constructor arguments (Keras 3.15: decay warns and is ignored, the rest are refused)
@pytest.mark.parametrize("name", ALL)
def test_decay_warns_and_is_ignored(name):
    cls = getattr(keras.optimizers, name)
    with pytest.warns(UserWarning, match=r"^Argument `decay` is no longer supported and will be ignored.$"):
        decayed = cls(decay=0.0)  # even its "off" value warns
    with pytest.warns(UserWarning, match="decay"):
        cls(learning_rate=0.1, decay=0.5)
    assert "decay" not in decayed.get_config()
    cls.from_config(decayed.get_config())  # the clone does not warn again (warnings are errors here)
    cls(decay=None)  # silent


def test_decay_does_not_change_the_steps():
    with pytest.warns(UserWarning, match="decay"):
        decayed = keras.optimizers.Adamax(0.1, decay=0.5)
    np.testing.assert_array_equal(_run(lambda: decayed, 1, np.float64)[0], KERAS["adamax"][2])
    with pytest.warns(UserWarning, match="decay"):
        sgd = keras.optimizers.SGD(0.1, decay=0.9)
    var = tf.Variable([1.0])
    for _ in range(3):
        sgd.apply_gradients([(tf.constant([1.0]), var)])
    np.testing.assert_allclose(var.numpy(), [1.0 - 3 * np.float32(0.1)])


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("kwargs", [dict(jit_compile=True), dict(is_legacy_optimizer=False), dict(nesterov_=1)],
                         ids=["jit_compile", "is_legacy_optimizer", "unknown"])
def test_other_unknown_arguments_raise_value_error(name, kwargs):
    with pytest.raises(ValueError, match=r"^Argument\(s\) not recognized: \{'" + list(kwargs)[0] + "': "):
        getattr(keras.optimizers, name)(**kwargs)


def test_lr_alias_is_kept_and_not_in_the_config():
    # Keras 3 refuses lr= (ValueError: Argument(s) not recognized); tapegrad keeps Keras 2's alias.
    opt = keras.optimizers.Lion(lr=0.5)
    assert float(opt.learning_rate) == 0.5 and "lr" not in opt.get_config()
    opt.learning_rate = 0.25
    assert float(keras.optimizers.Lion.from_config(opt.get_config()).learning_rate) == 0.25


# ---- None gradients (Keras 3.15: all None raises, some None warns and skips them)
def test_all_none_gradients_raise():
    a, b = tf.Variable([1.0, 2.0], name="alpha"), tf.Variable([3.0], name="beta")
    for pairs in ([(None, a)], [(None, a), (None, b)]):
        opt = keras.optimizers.Adam(0.5)
        with pytest.raises(ValueError, match=r"^No gradients provided for any variable.$"):
            opt.apply_gradients(pairs)
        assert int(opt.iterations) == 0 and opt.built  # built on the variables, as Keras
        assert len(opt.variables) == 1 + 2 * len(pairs)
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0])
    assert int(keras.optimizers.SGD().apply_gradients([])) == 0  # nothing to apply: a no-op


def test_all_none_gradients_raise_inside_a_function():
    a, opt = tf.Variable([1.0]), keras.optimizers.SGD(0.5)
    with pytest.raises(ValueError, match="No gradients provided"):
        tf.function(lambda: opt.apply_gradients([(None, a)]))()


def test_some_none_gradients_warn_with_keras_names_and_are_skipped():
    a, b, c = tf.Variable([1.0, 2.0], name="alpha"), tf.Variable([3.0], name="beta"), tf.Variable([4.0], name="gamma")
    opt = keras.optimizers.Adam(0.5)
    with pytest.warns(UserWarning, match=r"^Gradients do not exist for variables \['beta:0', 'gamma:0'\] when "
                                         r"minimizing the loss. If using `model.compile\(\)`, did you forget to "
                                         r"provide a `loss` argument\?$"):
        opt.apply_gradients([(None, b), (tf.constant([1.0, 1.0]), a), (None, c)])
    assert int(opt.iterations) == 1
    np.testing.assert_array_equal(b.numpy(), [3.0])
    np.testing.assert_array_equal(c.numpy(), [4.0])
    np.testing.assert_allclose(a.numpy(), [0.5, 1.5], rtol=1e-4)
    # as Keras: slots for every variable given, in their order
    assert [v.name for v in opt.variables[1:]] == ["beta_m:0", "beta_v:0", "alpha_m:0", "alpha_v:0",
                                                   "gamma_m:0", "gamma_v:0"]
    dense = keras.layers.Dense(1)
    dense.build((None, 2))
    with pytest.warns(UserWarning, match=r"\['dense.*/bias'\]"):  # a keras variable by its path
        keras.optimizers.SGD().apply_gradients([(tf.ones((2, 1)), dense.kernel), (None, dense.bias)])


def test_some_none_gradients_inside_a_function_warn_once_when_traced():
    a, b, opt = tf.Variable([1.0]), tf.Variable([2.0], name="beta"), keras.optimizers.SGD(0.5)
    step = tf.function(lambda g: opt.apply_gradients([(g, a), (None, b)]))
    with pytest.warns(UserWarning, match="beta"):
        step(tf.constant([1.0]))
    step(tf.constant([1.0]))  # the graph: no warning (warnings are errors here)
    np.testing.assert_array_equal(a.numpy(), [0.0])
    assert int(opt.iterations) == 2


@pytest.mark.parametrize("name", list(NEW))
def test_fit_with_the_new_optimizers(name):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4), keras.layers.Dense(1)])
    model.compile(optimizer=NEW[name](0.01), loss="mse")
    history = model.fit(x, y, epochs=3, batch_size=8, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    assert int(model.optimizer.iterations) == 12


@pytest.mark.parametrize("name", list(NEW))
def test_traced_steps_trace_once_and_continue_eager_ones(name):
    """State lives in Variables: one trace replays every step, and eager and traced steps interleave."""
    rng = np.random.default_rng(0)
    w0, grads = rng.normal(size=(3, 4)), [rng.normal(size=(3, 4)) for _ in range(6)]
    runs = []
    for mode in ("eager", "mixed"):
        var, opt = tf.Variable(w0), NEW[name](0.05)
        eager = lambda g: opt.apply_gradients([(g, var)])  # noqa: E731
        traced = tf.function(eager)
        for k, g in enumerate(grads):
            (traced if mode == "mixed" and k % 2 else eager)(tf.constant(g))
        runs.append(var.numpy())
        if mode == "mixed":
            assert traced.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(runs[1], runs[0])


@pytest.mark.parametrize("name", list(NEW))
def test_saved_model_restores_the_optimizer_state(name, tmp_path):
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2), keras.layers.Dense(1)])
    model.compile(optimizer=NEW[name](0.01), loss="mse")
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    model.save(str(tmp_path / "m.keras"))
    loaded = keras.models.load_model(str(tmp_path / "m.keras"))
    assert type(loaded.optimizer) is NEW[name]
    assert [tuple(v.shape) for v in loaded.optimizer.variables] == [tuple(v.shape) for v in model.optimizer.variables]
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for m in (model, loaded):
        m.fit(x, y, epochs=1, batch_size=8, shuffle=False, verbose=0)  # the same steps from the same state
    for a, b in zip(model.weights, loaded.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
