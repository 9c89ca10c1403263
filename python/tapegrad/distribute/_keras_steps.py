"""Keras fit and evaluate under a multi-rank MultiWorkerMirroredStrategy: each rank steps on its shard.

Note [Sharded Keras steps]: once a MultiWorkerMirroredStrategy of several ranks has opened its scope,
Keras's train and test steps (fit, evaluate, train_on_batch, test_on_batch) run on this rank's slice of
every global batch, as TF's fit does through experimental_distribute_dataset. Each batch of B elements
is cut in rank order into slices of ceil(B / n) or floor(B / n) elements (slice_bounds; a short last
batch too, where TF fills the ranks in order: the weights below make both the same gradient), and
the step runs in the strategy's replica context, so the optimizer's apply_gradients combines the
ranks' gradients (_multi_worker._sum_over_ranks): rank r's gradient of its slice's mean loss is
weighted by n_r / B before the sum, which gives the gradient of the mean loss over the global batch,
the one a single process fitting the global batches computes (TF weighs every replica 1 / n, which
is the same when the slices are equal). The weight is a variable the traced step reads, so a slice
of one size from batches of different sizes (a short last batch) is weighted right without a new
trace. A rank whose slice is empty steps on it too (every rank must join each all-reduce); its
gradients count 0 and its metrics are left as they were. After a training step the non-trainable
float weights (BatchNormalization's moving statistics) are replaced by their n_r / B-weighted mean
over the ranks, so every rank holds the same weights. The logs are global: a compiled metric's result
is computed from its state variables summed over the ranks (what TF reads from its SyncOnRead metric
variables); any other value a custom train_step returns is the ranks' n_r / B-weighted mean.
"""
import contextlib

import numpy as np

import tapegrad as tf
from tapegrad.distribute import _strategy
from tapegrad.distribute._collectives import grouped_allreduce
from tapegrad.distribute._reduce import Sum

__all__ = ["replica_step", "slice_bounds", "ShardedReplicaContext", "SHARE", "ENTERED"]

SHARE = [None]    # the weight of this rank's gradients in a Keras step: a variable its traces read
ENTERED = [None]  # the last MultiWorkerMirroredStrategy of several ranks whose scope was opened


def slice_bounds(global_size, batch, rank, size):
    """[start, stop) of rank's slice of a batch of ``batch`` elements from batches of ``global_size``."""
    low, extra = divmod(global_size, size)
    sizes = [low + (1 if r < extra else 0) for r in range(size)]
    start = min(sum(sizes[:rank]), batch)
    return start, min(start + sizes[rank], batch)


class ShardedReplicaContext(_strategy.ReplicaContext):
    """A Keras step's replica context: the optimizer sums the ranks' gradients, each weighted by its rank's
    share of the batch (_multi_worker._sum_over_ranks)."""

    def all_reduce(self, reduce_op, value, options=None):
        return self._strategy._all_reduce(_strategy._reduce_op(reduce_op, "ReplicaContext.all_reduce"), value)


def _strategy_for_keras():
    """The multi-rank strategy Keras's steps shard their batches for, or None (another strategy's scope)."""
    current = _strategy._state["strategy"]
    return None if current is not None and current is not ENTERED[0] else ENTERED[0]


@contextlib.contextmanager
def _sharded_replica(strategy, share):
    if SHARE[0] is None:
        SHARE[0] = tf.Variable(share, trainable=False, dtype=tf.float32, name="replica_share")
    SHARE[0].assign(share)
    saved = _strategy._state["strategy"], _strategy._state["replica"]
    _strategy._state["strategy"] = strategy
    _strategy._state["replica"] = ShardedReplicaContext(strategy, strategy._rank)
    try:
        yield
    finally:
        _strategy._state["strategy"], _strategy._state["replica"] = saved

_cache_key = "_sharded_step_functions"  # the model's traced steps for shards (apart from its own cache)


def _slice(data, start, stop):
    def one(t):
        return t[start:stop] if isinstance(t, tf.Tensor) and t.shape.rank else t
    return tf.nest.map_structure(one, data)


def _traced(model, step):
    """A step as the model runs it (a tf.function unless run_eagerly), traced apart from the model's own
    cache: its trace holds the all-reduce of the gradients."""
    python_step = getattr(step, "python_function", None)
    if python_step is None:
        return step
    cache = model.__dict__.setdefault(_cache_key, {})
    traced = cache.get(python_step)
    if traced is None:
        traced = cache[python_step] = tf.function(python_step)
    return traced


def _metric_states(model):
    return [v for m in model.metrics for v in m.variables]


def _global_logs(model, logs, weight):
    """The step's logs over every rank's slice (Note [Sharded Keras steps])."""
    metrics = {m.name: m for m in model.metrics}
    states = _metric_states(model)
    local = [v.numpy() for v in states]
    others = [k for k in logs if k not in metrics]
    values = [tf.convert_to_tensor(v) for v in states]
    values += [tf.cast(logs[k], tf.float32) * weight for k in others]
    summed = grouped_allreduce(values, op=Sum) if values else []
    for v, s in zip(states, summed):
        v.assign(s)
    try:
        out = {k: float(metrics[k].result()) if k in metrics else None for k in logs}
    finally:
        for v, saved in zip(states, local):
            v.assign(saved)
    for k, s in zip(others, summed[len(states):]):
        out[k] = float(s)
    return out


def _mean_of_state(model, weight):
    """Every rank's non-trainable float weights replaced by their weighted mean over the ranks."""
    state = [v for v in model.non_trainable_variables if v.dtype.is_floating]
    if state:
        for v, s in zip(state, grouped_allreduce([v * tf.cast(weight, v.dtype) for v in state], op=Sum)):
            v.assign(s)


def replica_step(model, step, data):
    """Keras's step on this rank's slice of the global batch ``data``; the global logs."""
    strategy = _strategy_for_keras()
    if strategy is None:
        return step(data)
    batch = int(tf.nest.flatten(data)[0].shape[0])
    start, stop = slice_bounds(batch, batch, strategy._rank, strategy._size)
    weight = (stop - start) / batch
    saved = [v.numpy() for v in _metric_states(model)] if stop == start else None
    with _sharded_replica(strategy, weight):
        logs = _traced(model, step)(_slice(data, start, stop))
    if saved is not None:  # an empty slice: its NaN means are not counted
        for v, s in zip(_metric_states(model), saved):
            v.assign(s)
    if getattr(step, "python_function", step).__name__ == "train_step":
        _mean_of_state(model, np.float32(weight))
    return _global_logs(model, logs, np.float32(weight))
