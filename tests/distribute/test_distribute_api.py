"""tapegrad.distribute without MPI: what must raise before init, and argument checks."""
import importlib.util

import numpy as np
import pytest

import tapegrad as tf
import tapegrad.distribute as hvd


@pytest.mark.parametrize("call", [
    hvd.rank, hvd.size, hvd.local_rank, hvd.local_size, hvd.cross_rank, hvd.cross_size,
    lambda: hvd.allreduce(tf.constant(1.0)), lambda: hvd.grouped_allreduce([tf.constant(1.0)]),
    lambda: hvd.allgather(tf.ones([2])), lambda: hvd.broadcast(tf.constant(1.0), 0),
    lambda: hvd.broadcast_variables([tf.Variable(1.0)], 0), lambda: hvd.DistributedGradientTape(tf.GradientTape()),
    lambda: hvd.DistributedOptimizer(tf.keras.optimizers.SGD()), hvd.stats, lambda: hvd.set_timeout(3),
    lambda: hvd.broadcast_object(1), lambda: hvd.allgather_object(1), hvd.barrier,
    lambda: __import__("tapegrad.distribute.keras").distribute.keras.load_model("m.keras")])
def test_everything_raises_before_init(call):
    assert not hvd.is_initialized()
    with pytest.raises(ValueError, match="has not been initialized"):
        call()


def test_horovod_names_exist():
    import tapegrad.distribute.keras as hk
    for name in ["init", "shutdown", "rank", "size", "local_rank", "local_size", "allreduce", "grouped_allreduce",
                 "allgather", "broadcast", "broadcast_variables", "DistributedGradientTape", "DistributedOptimizer",
                 "Average", "Sum", "Compression", "broadcast_object", "allgather_object", "barrier"]:
        assert hasattr(hvd, name) and hasattr(hk, name), name
    assert hasattr(hk, "load_model")
    for name in ["BroadcastGlobalVariablesCallback", "MetricAverageCallback", "LearningRateScheduleCallback",
                 "LearningRateWarmupCallback"]:
        assert hasattr(hvd.callbacks, name) and hasattr(hk.callbacks, name)


@pytest.mark.skipif(importlib.util.find_spec("mpi4py") is not None, reason="mpi4py is installed")
def test_init_without_the_extra_says_how_to_install_it():
    with pytest.raises(ImportError, match=r"tapegrad\[mpi\]"):
        hvd.init()


def test_warmup_callback_checks_its_epochs():
    with pytest.raises(ValueError, match="warmup_epochs must be > 0"):
        hvd.callbacks.LearningRateWarmupCallback(0.1, warmup_epochs=0)


def _fit_lrs(callback, epochs=4, run_eagerly=False, momentum=0.0):
    """The learning rate in effect at each batch of a fit with `callback` (3 batches an epoch), to 6
    digits (a float32 Variable, as in Keras)."""
    seen = []
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.5, momentum=momentum), loss="mse", run_eagerly=run_eagerly)
    spy = tf.keras.callbacks.LambdaCallback(
        on_train_batch_begin=lambda b, logs: seen.append(round(float(model.optimizer.learning_rate), 6)))
    x = np.ones((6, 2), np.float32)
    history = model.fit(x, x[:, :1], batch_size=2, epochs=epochs, verbose=0, callbacks=[callback, spy])
    return seen, history.history["lr"]


def test_learning_rate_schedule_callback():
    # A function of the epoch, epochs 1 and 2 only, at epoch starts (staircase).
    seen, logged = _fit_lrs(hvd.callbacks.LearningRateScheduleCallback(0.1, lambda e: 0.5 ** e, start_epoch=1,
                                                                       end_epoch=3))
    assert seen == [0.5] * 3 + [0.05] * 3 + [0.025] * 6, seen
    assert logged == pytest.approx([0.5, 0.05, 0.025, 0.025])
    # A constant scales initial_lr from start_epoch on, staircase whatever was asked.
    seen, _ = _fit_lrs(hvd.callbacks.LearningRateScheduleCallback(0.2, 0.1, start_epoch=2, staircase=False))
    assert seen == [0.5] * 6 + [0.02] * 6, seen
    # Batch by batch, with the fractional epoch.
    seen, _ = _fit_lrs(hvd.callbacks.LearningRateScheduleCallback(1.0, lambda e: e / 10, staircase=False), epochs=2)
    assert seen == [round(k / 30, 6) for k in range(6)], seen


def test_learning_rate_schedule_momentum_correction():
    # Eager: the momentum is scaled by new / old lr for the batch where the rate changes, then restored.
    momenta = []

    class Spy(tf.keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            momenta.append(round(self.model.optimizer.momentum, 9))
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.5, momentum=0.9), loss="mse", run_eagerly=True)
    x = np.ones((6, 2), np.float32)
    cb = hvd.callbacks.LearningRateScheduleCallback(0.5, lambda e: 0.5 ** e, start_epoch=1)
    model.fit(x, x[:, :1], batch_size=2, epochs=2, verbose=0, callbacks=[cb, Spy()])
    assert momenta == [0.9] * 3 + [0.45, 0.9, 0.9], momenta
    assert model.optimizer.momentum == 0.9
    # Traced: skipped, with a warning.
    with pytest.warns(UserWarning, match="momentum_correction needs compile"):
        _fit_lrs(hvd.callbacks.LearningRateScheduleCallback(0.5, lambda e: 0.5 ** e, start_epoch=1), momentum=0.9)
