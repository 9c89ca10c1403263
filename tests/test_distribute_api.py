"""tapegrad.distribute without MPI: what must raise before init, and argument checks."""
import importlib.util

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
                 "Average", "Sum", "Compression"]:
        assert hasattr(hvd, name) and hasattr(hk, name), name
    for name in ["BroadcastGlobalVariablesCallback", "MetricAverageCallback", "LearningRateWarmupCallback"]:
        assert hasattr(hvd.callbacks, name) and hasattr(hk.callbacks, name)


@pytest.mark.skipif(importlib.util.find_spec("mpi4py") is not None, reason="mpi4py is installed")
def test_init_without_the_extra_says_how_to_install_it():
    with pytest.raises(ImportError, match=r"tapegrad\[mpi\]"):
        hvd.init()


def test_warmup_callback_checks_its_epochs():
    with pytest.raises(ValueError, match="warmup_epochs must be > 0"):
        hvd.callbacks.LearningRateWarmupCallback(0.1, warmup_epochs=0)
