"""tf.distribute.MirroredStrategy and OneDeviceStrategy on a CPU against TF (one replica each): a custom
training loop written as TF's distributed-training guide writes it, and Keras fit under a strategy's
scope, give TF's losses and weights. Skipped without TensorFlow, unless TAPEGRAD_REQUIRE_TF=1."""
import warnings

import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
rng = np.random.default_rng(0)
X = rng.normal(size=(32, 4)).astype("float32")
Y = rng.normal(size=(32, 1)).astype("float32")
W0 = [rng.normal(size=(4, 8)).astype("float32") * 0.5, np.zeros(8, "float32"),
      rng.normal(size=(8, 1)).astype("float32") * 0.5, np.zeros(1, "float32")]


def _model(lib):
    k = lib.keras
    model = k.Sequential([k.Input((4,)), k.layers.Dense(8, activation="relu"), k.layers.Dense(1)])
    model.set_weights(W0)
    return model


def _custom_loop(lib, strategy_name):
    strategy = getattr(lib.distribute, strategy_name)(*(["/cpu:0"] if strategy_name == "OneDeviceStrategy" else []))
    global_batch = 8
    with strategy.scope():
        model = _model(lib)
        optimizer = lib.keras.optimizers.SGD(0.1)
        loss_fn = lib.keras.losses.MeanSquaredError(reduction="none")
    dataset = lib.data.Dataset.from_tensor_slices((X, Y)).batch(global_batch)
    dist_dataset = strategy.experimental_distribute_dataset(dataset)

    def step_fn(inputs):
        x, y = inputs
        with lib.GradientTape() as tape:
            per_example = loss_fn(y, model(x, training=True))
            loss = lib.nn.compute_average_loss(per_example, global_batch_size=global_batch)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @lib.function
    def train_step(inputs):
        per_replica = strategy.run(step_fn, args=(inputs,))
        return strategy.reduce(lib.distribute.ReduceOp.SUM, per_replica, axis=None)

    losses = [float(train_step(batch)) for batch in dist_dataset]
    return losses, [np.asarray(w) for w in model.get_weights()], strategy.num_replicas_in_sync


@pytest.mark.parametrize("strategy", ["MirroredStrategy", "OneDeviceStrategy"])
def test_a_custom_training_loop_gives_tfs_numbers(strategy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _custom_loop(ref, strategy)
    ours = _custom_loop(tg, strategy)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert ours[2] == theirs[2] == 1


def test_keras_fit_under_a_scope_gives_tfs_weights():
    weights = []
    for lib in (ref, tg):
        with lib.distribute.MirroredStrategy().scope():
            model = _model(lib)
            model.compile(optimizer=lib.keras.optimizers.Adam(0.01), loss="mse")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        weights.append(model.get_weights())
    for a, b in zip(*weights):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_contexts_and_reductions_as_tf():
    for lib in (tg, ref):
        strategy = lib.distribute.MirroredStrategy()
        assert not lib.distribute.has_strategy() and lib.distribute.get_replica_context() is not None
        with strategy.scope():
            assert lib.distribute.get_strategy() is strategy and lib.distribute.has_strategy()
            assert lib.distribute.in_cross_replica_context() and lib.distribute.get_replica_context() is None
            inside = strategy.run(lambda: (lib.distribute.in_cross_replica_context(),
                                           lib.distribute.get_replica_context().num_replicas_in_sync))
            assert inside == (False, 1)
            with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy objects"):
                with lib.distribute.MirroredStrategy().scope():
                    pass
        v = lib.constant([[1.0, 2.0], [3.0, 4.0]])
        np.testing.assert_allclose(np.asarray(strategy.reduce("MEAN", v, axis=0)), [2.0, 3.0])
        np.testing.assert_allclose(np.asarray(strategy.reduce(lib.distribute.ReduceOp.SUM, v, axis=None)), v)
        ctx = lib.distribute.InputContext()
        assert ctx.get_per_replica_batch_size(16) == 16 and ctx.num_replicas_in_sync == 1
