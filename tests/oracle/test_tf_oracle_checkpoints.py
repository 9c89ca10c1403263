"""tf.train.Checkpoint files crossing between tapegrad and TensorFlow 2 + Keras 3, both ways: TF restores
what tapegrad saved (``assert_consumed`` on the same object structure) and tapegrad restores what TF
saved, every value compared. Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1."""
import numpy as np
import pytest

import tapegrad as tg
from tapegrad.train import _files
from tf_oracle import import_tensorflow

ref = import_tensorflow()
X = np.arange(6, dtype=np.float32).reshape(2, 3) / 6
KINDS = ["sequential_adam", "functional_sgd_momentum", "subclassed_adam", "batchnorm_sgd", "sequential_sgd_momentum"]


@pytest.fixture(autouse=True)
def tf_format(monkeypatch):
    monkeypatch.setattr(_files, "WRITE_FORMAT", "tf")


def keras_model(lib, kind):
    """The same model and optimizer with TF's Keras (lib=ref) or tapegrad's (lib=tg)."""
    keras = lib.keras
    if kind in ("sequential_adam", "sequential_sgd_momentum"):
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(2)])
        return model, keras.optimizers.Adam() if kind == "sequential_adam" else keras.optimizers.SGD(momentum=0.5)
    if kind == "functional_sgd_momentum":
        i = keras.Input((3,))
        h = keras.layers.Dense(4, activation="relu")(i)
        return keras.Model(i, keras.layers.Dense(2)(h)), keras.optimizers.SGD(momentum=0.9)
    if kind == "batchnorm_sgd":
        return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.BatchNormalization(),
                                 keras.layers.Dense(2)]), keras.optimizers.SGD()
    if kind == "subclassed_adam":
        class Sub(keras.Model):
            def __init__(self):
                super().__init__()
                self.d1 = keras.layers.Dense(4)
                self.d2 = keras.layers.Dense(2)

            def call(self, x):
                return self.d2(self.d1(x))
        model = Sub()
        model(X)
        return model, keras.optimizers.Adam()
    raise ValueError(kind)


def train(lib, model, opt, steps=2):
    for _ in range(steps):
        with lib.GradientTape() as tape:
            loss = lib.reduce_sum(model(X, training=True) ** 2)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


def values(model, opt, keras3):
    """Weights, then the optimizer's iterations, learning rate and slots (Keras 3 lists the rate second)."""
    opt_vars = list(opt.variables)
    if not keras3:
        opt_vars = opt_vars[:1] + [opt._lr_var] + opt_vars[1:]
    return [np.asarray(v.numpy()) for v in list(model.weights) + opt_vars]


@pytest.mark.parametrize("kind", KINDS)
def test_tf_restores_what_tapegrad_saved(tmp_path, kind):
    model, opt = keras_model(tg, kind)
    train(tg, model, opt)
    tg.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    theirs, topt = keras_model(ref, kind)
    topt.build(theirs.trainable_variables)
    path = ref.train.latest_checkpoint(str(tmp_path))
    assert path == str(tmp_path / "ckpt-1")
    ref.train.Checkpoint(model=theirs, optimizer=topt).restore(path).assert_consumed()
    for a, b in zip(values(model, opt, False), values(theirs, topt, True), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", KINDS)
def test_tapegrad_restores_what_tf_saved(tmp_path, kind):
    model, opt = keras_model(ref, kind)
    train(ref, model, opt)
    ref.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    ours, oopt = keras_model(tg, kind)
    oopt.build(ours.trainable_variables)
    path = tg.train.latest_checkpoint(str(tmp_path))
    tg.train.Checkpoint(model=ours, optimizer=oopt).restore(path).assert_consumed()
    for a, b in zip(values(model, opt, True), values(ours, oopt, False), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", KINDS)
def test_same_keys_as_tf(tmp_path, kind):
    model, opt = keras_model(tg, kind)
    train(tg, model, opt)
    ours = tg.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "tg" / "ckpt"))
    model, opt = keras_model(ref, kind)
    train(ref, model, opt)
    theirs = ref.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "tf" / "ckpt"))
    assert ref.train.list_variables(ours) == ref.train.list_variables(theirs)
    assert [(k, s) for k, s in tg.train.list_variables(theirs)] == [tuple(x) for x in ref.train.list_variables(theirs)]


def module_pair(lib):
    module = lib.Module()
    module.v = lib.Variable([1.5, -2.0], dtype=lib.float32)
    module.table = {"w": lib.Variable(np.arange(6.0).reshape(2, 3), dtype=lib.float64),
                    "ints": [lib.Variable(np.int32(-7)), lib.Variable(np.array([2**40, 3], np.int64))]}
    return module, lib.Variable(np.int64(4))


def module_values(module, step):
    return [module.v.numpy(), module.table["w"].numpy(), module.table["ints"][0].numpy(),
            module.table["ints"][1].numpy(), step.numpy()]


def test_modules_cross_both_ways(tmp_path):
    ours, ostep = module_pair(tg)
    ours.v.assign([3.0, 4.0])
    ostep.assign(9)
    path = tg.train.Checkpoint(module=ours, step=ostep).save(str(tmp_path / "a" / "ckpt"))
    theirs, tstep = module_pair(ref)
    for v in [theirs.v, theirs.table["w"], tstep]:
        v.assign(v * 0)
    ref.train.Checkpoint(module=theirs, step=tstep).restore(path).assert_consumed()
    for a, b in zip(module_values(ours, ostep), module_values(theirs, tstep), strict=True):
        np.testing.assert_array_equal(a, b)
        assert np.asarray(a).dtype == np.asarray(b).dtype

    theirs.table["ints"][1].assign([5, -(2**45)])
    back = ref.train.Checkpoint(module=theirs, step=tstep).save(str(tmp_path / "b" / "ckpt"))
    again, astep = module_pair(tg)
    tg.train.Checkpoint(module=again, step=astep).restore(tg.train.latest_checkpoint(str(tmp_path / "b")))\
        .assert_consumed()
    assert back == tg.train.latest_checkpoint(str(tmp_path / "b"))
    for a, b in zip(module_values(theirs, tstep), module_values(again, astep), strict=True):
        np.testing.assert_array_equal(a, b)


def test_tf_reads_a_manager_directory_tapegrad_wrote(tmp_path):
    v = tg.Variable([1.0, 2.0])
    manager = tg.train.CheckpointManager(tg.train.Checkpoint(v=v), str(tmp_path), max_to_keep=2)
    for i in range(3):
        v.assign_add([1.0, 1.0])
        manager.save()
    state = ref.train.get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == manager.checkpoints
    target = ref.Variable([0.0, 0.0])
    ref.train.Checkpoint(v=target).restore(ref.train.latest_checkpoint(str(tmp_path))).assert_consumed()
    np.testing.assert_array_equal(target.numpy(), [4.0, 5.0])


def layer_model(lib, kind):
    keras = lib.keras
    if kind == "conv":
        return keras.Sequential([keras.Input((6, 6, 2)), keras.layers.Conv2D(3, 3), keras.layers.Flatten(),
                                 keras.layers.Dense(2)])
    return keras.Sequential([keras.Input((4,), dtype="int32"), keras.layers.Embedding(10, 3), keras.layers.LSTM(2),
                             keras.layers.LayerNormalization()])


@pytest.mark.parametrize("kind", ["conv", "embedding_lstm_layernorm"])
def test_more_layers_cross_both_ways(tmp_path, kind):
    ours, theirs = layer_model(tg, kind), layer_model(ref, kind)
    assert len(ours.weights) == len(theirs.weights)
    rng = np.random.default_rng(0)
    for w in ours.weights:
        w.assign(rng.standard_normal(w.shape).astype(np.float32))
    path = tg.train.Checkpoint(model=ours).save(str(tmp_path / "a" / "ckpt"))
    ref.train.Checkpoint(model=theirs).restore(path).assert_consumed()
    for a, b in zip(ours.weights, theirs.weights, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for w in theirs.weights:
        w.assign(w * 2 + 1)
    back = ref.train.Checkpoint(model=theirs).save(str(tmp_path / "b" / "ckpt"))
    again = layer_model(tg, kind)
    tg.train.Checkpoint(model=again).restore(back).assert_consumed()
    for a, b in zip(theirs.weights, again.weights, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_tapegrad_reads_tfs_many_variable_table(tmp_path):
    theirs = ref.Module()
    theirs.vs = [ref.Variable(np.full((3,), i, np.float64)) for i in range(500)]
    path = ref.train.Checkpoint(m=theirs).save(str(tmp_path / "ckpt"))
    ours = tg.Module()
    ours.vs = [tg.Variable(np.zeros((3,))) for _ in range(500)]
    tg.train.Checkpoint(m=ours).restore(path).assert_consumed()
    assert [float(v.numpy()[0]) for v in ours.vs] == list(range(500))


# Every optimizer's state crosses in Keras's order (Note [Keras 3 optimizer slots]): two kernels of one
# shape, so slots in the wrong order would restore without an error, and LayerNormalization's rank-1
# weights (Adafactor's placeholders); a schedule keeps no learning-rate variable in Keras.
OPTIMIZERS = {
    "rmsprop_momentum_centered": lambda k: k.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "rmsprop_momentum": lambda k: k.optimizers.RMSprop(0.01, momentum=0.5),
    "adam_amsgrad": lambda k: k.optimizers.Adam(0.01, amsgrad=True), "nadam": lambda k: k.optimizers.Nadam(0.01),
    "adafactor": lambda k: k.optimizers.Adafactor(0.01), "adamax": lambda k: k.optimizers.Adamax(0.01),
    "ftrl": lambda k: k.optimizers.Ftrl(0.01), "adagrad": lambda k: k.optimizers.Adagrad(0.01),
    "lion": lambda k: k.optimizers.Lion(0.01), "adamw": lambda k: k.optimizers.AdamW(0.01),
    "adam_schedule": lambda k: k.optimizers.Adam(k.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)),
}


def _square_model(lib, optimizer):
    keras = lib.keras
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2, use_bias=False),
                              keras.layers.Dense(2, use_bias=False), keras.layers.LayerNormalization()])
    opt = OPTIMIZERS[optimizer](keras)
    model.compile(optimizer=opt, loss="mse")
    return model, opt


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
@pytest.mark.parametrize("direction", ["tapegrad_to_tf", "tf_to_tapegrad"])
def test_optimizer_state_crosses_in_kerass_order(tmp_path, optimizer, direction):
    x, y = np.arange(8, dtype=np.float32).reshape(4, 2) / 8, np.ones((4, 2), np.float32)
    src, dst = (tg, ref) if direction == "tapegrad_to_tf" else (ref, tg)
    model, opt = _square_model(src, optimizer)
    for _ in range(2):
        model.train_on_batch(x, y)
    path = src.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    other, other_opt = _square_model(dst, optimizer)
    other.train_on_batch(x, y)  # built, slots made: restore overwrites all of it
    status = dst.train.Checkpoint(model=other, optimizer=other_opt).restore(path)
    if dst is ref:
        status.assert_consumed()
    assert int(np.asarray(other_opt.iterations)) == 2
    model.train_on_batch(x, y)
    other.train_on_batch(x, y)
    for a, b in zip(model.weights, other.weights):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def test_tapegrad_restores_a_sharded_checkpoint_tf_wrote(tmp_path):
    def module(lib, seed):
        m = lib.Module()
        rng = np.random.default_rng(seed)
        m.a, m.b = lib.Variable(rng.normal(size=300).astype(np.float32)), lib.Variable(rng.normal(size=(300, 2)))
        m.c = lib.Variable(7, dtype=lib.int64)
        return m
    theirs = module(ref, 0)
    options = ref.train.CheckpointOptions(
        experimental_sharding_callback=ref.train.experimental.MaxShardSizePolicy(max_shard_size=1000))
    path = ref.train.Checkpoint(m=theirs).save(str(tmp_path / "ckpt"), options=options)
    assert len(list(tmp_path.glob("ckpt-1.data-*-of-*"))) > 1  # several shards
    ours = module(tg, 1)
    tg.train.Checkpoint(m=ours).restore(path).assert_consumed()
    for name in "abc":
        np.testing.assert_array_equal(getattr(ours, name).numpy(), getattr(theirs, name).numpy())
    assert sorted(k for k, _ in tg.train.list_variables(str(tmp_path))) == \
        sorted(k for k, _ in ref.train.list_variables(str(tmp_path)))
