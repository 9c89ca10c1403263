"""tf.distribute's one-replica strategies without TF or MPI (Note [One-replica strategies]); the oracle's
tests/oracle/test_tf_oracle_distribute_strategy.py checks training under them against TF."""
import numpy as np
import pytest

import tapegrad as tf


def test_run_reduce_and_contexts():
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == 1 and tf.distribute.get_strategy() is not strategy
    with strategy.scope():
        assert tf.distribute.get_strategy() is strategy and tf.distribute.get_replica_context() is None
        doubled = strategy.run(lambda x: x * 2.0, args=(tf.constant([1.0, 2.0]),))
    np.testing.assert_allclose(doubled.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(strategy.reduce(tf.distribute.ReduceOp.SUM, doubled, axis=0).numpy(), 6.0)
    np.testing.assert_allclose(strategy.reduce("MEAN", doubled, axis=None).numpy(), [2.0, 4.0])
    ds = tf.data.Dataset.range(4).batch(2)
    assert strategy.experimental_distribute_dataset(ds) is ds
    made = strategy.distribute_datasets_from_function(lambda ctx: ctx.get_per_replica_batch_size(8))
    assert made == 8


def test_refusals():
    with pytest.raises(ValueError, match="one replica on the CPU"):
        tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
    with pytest.raises(ValueError, match="reduce_op"):
        tf.distribute.MirroredStrategy().reduce("MAX", tf.constant(1.0), axis=None)
    with tf.distribute.OneDeviceStrategy("/cpu:0").scope():
        with pytest.raises(RuntimeError, match="Mixing different"):
            with tf.distribute.MirroredStrategy().scope():
                pass
