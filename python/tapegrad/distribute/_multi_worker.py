"""tf.distribute.MultiWorkerMirroredStrategy over tapegrad.distribute's MPI job: one replica per rank.

Note [Ranks as workers]: started under mpiexec (or after tapegrad.distribute.init()), the strategy has
``num_replicas_in_sync`` = the number of ranks and this process is replica ``rank``; without an MPI
launch it is one replica, as TF's strategy without TF_CONFIG (a TF_CONFIG naming several workers
outside MPI is refused rather than run as one). ``run`` calls the step in a replica context whose
``all_reduce`` and the strategy's ``reduce`` combine the ranks' values with MPI (MEAN along an axis
is the mean over every rank's elements). A Keras optimizer's ``apply_gradients`` called inside
``run`` first sums the gradients over the ranks, as Keras does under a strategy (so a loss scaled
by the global batch size, tf.nn.compute_average_loss, trains as one process on the whole batch).
``experimental_distribute_dataset`` gives each rank its slice of every global batch: the batch of B
elements split in rank order into slices of ceil(B / n) or floor(B / n) elements (the first
B mod n ranks get the larger), a short last batch filled rank by rank, so later ranks may get
empty slices, as TF's rebatching. Keras's fit and evaluate step on this rank's slice of each batch
once the scope of a strategy of several ranks was opened (Note [Sharded Keras steps] in _keras_steps.py).
"""
import contextlib
import json
import os

import tapegrad as tf
from tapegrad.distribute import _keras_steps, _runtime, _strategy
from tapegrad.distribute._collectives import allgather, grouped_allreduce
from tapegrad.distribute._keras_steps import slice_bounds
from tapegrad.distribute._reduce import Average, Sum
from tapegrad.errors import UnimplementedError
from tapegrad.keras._training import TrainingMixin
from tapegrad.keras.optimizers.base import Optimizer

__all__ = ["MultiWorkerMirroredStrategy", "slice_bounds"]

# set by MPI launchers (MPICH's and Intel's hydra, Open MPI, PMIx)
_LAUNCHER_VARIABLES = ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")


def _world():
    """(rank, size): the MPI job's, initializing tapegrad.distribute under an MPI launch; (0, 1) otherwise."""
    if not _runtime.is_initialized() and any(v in os.environ for v in _LAUNCHER_VARIABLES):
        _runtime.init()
    if _runtime.is_initialized():
        return _runtime.rank(), _runtime.size()
    workers = json.loads(os.environ.get("TF_CONFIG") or "{}").get("cluster", {}).get("worker", [])
    if len(workers) > 1:
        raise UnimplementedError(None, None, "MultiWorkerMirroredStrategy: TF_CONFIG names several workers, but "
                                 "tapegrad's workers are MPI ranks: start the script with mpiexec -n N instead")
    return 0, 1


class _WorkerReplicaContext(_strategy.ReplicaContext):
    def all_reduce(self, reduce_op, value, options=None):
        op = _strategy._reduce_op(reduce_op, "ReplicaContext.all_reduce")
        return self._strategy._all_reduce(op, value)


class _WorkerExtended(_strategy.StrategyExtended):
    worker_devices = property(lambda self: (self._container_strategy._device,))
    parameter_devices = worker_devices


class MultiWorkerMirroredStrategy(_strategy.Strategy):
    """Synchronous training with one replica per MPI rank (Note [Ranks as workers])."""

    def __init__(self, cluster_resolver=None, communication_options=None):
        if cluster_resolver is not None:
            raise UnimplementedError(None, None, "MultiWorkerMirroredStrategy: cluster_resolver is not supported; "
                                     "the workers are the ranks of the MPI job (mpiexec -n N)")
        super().__init__(_WorkerExtended(self))
        self._rank, self._size = _world()
        job = "localhost" if self._size == 1 else "worker"
        self._device = f"/job:{job}/replica:0/task:{self._rank}/device:CPU:0"
        if self._size > 1:
            _install_gradient_sum()

    num_replicas_in_sync = property(lambda self: self._size)

    @contextlib.contextmanager
    def scope(self):
        if self._size > 1:
            _keras_steps.ENTERED[0] = self
        with super().scope() as strategy:
            yield strategy

    def run(self, fn, args=(), kwargs=None, options=None):
        """fn(*args, **kwargs) as this rank's replica, in its replica context."""
        saved = _strategy._state["strategy"], _strategy._state["replica"]
        _strategy._state["strategy"] = self
        _strategy._state["replica"] = _WorkerReplicaContext(self, self._rank)
        try:
            return fn(*args, **(kwargs or {}))
        finally:
            _strategy._state["strategy"], _strategy._state["replica"] = saved

    def _all_reduce(self, op, value):
        flat = tf.nest.flatten(value)
        if self._size == 1:
            return tf.nest.map_structure(tf.identity, value)
        reduced = grouped_allreduce([tf.convert_to_tensor(v) for v in flat], op=Sum if op is _strategy.ReduceOp.SUM
                                    else Average)
        return tf.nest.pack_sequence_as(value, reduced)

    def reduce(self, reduce_op, value, axis=None):
        """The ranks' values combined: summed or averaged, and along ``axis`` when given (MEAN then
        divides by the number of elements of all ranks)."""
        op = _strategy._reduce_op(reduce_op, "Strategy.reduce")
        if axis is None:
            return self._all_reduce(op, tf.nest.map_structure(tf.convert_to_tensor, value))

        def along(v):
            v = tf.convert_to_tensor(v)
            total = tf.reduce_sum(v, axis=axis)
            if op is _strategy.ReduceOp.MEAN:
                count = tf.cast(tf.shape(v)[axis], v.dtype)
                total, count = self._all_reduce(_strategy.ReduceOp.SUM, (total, count))
                return total / count if v.dtype.is_floating else total // count
            return self._all_reduce(op, total)
        return tf.nest.map_structure(along, value)

    def gather(self, value, axis):
        """Every rank's value concatenated along ``axis``, in rank order."""
        def one(v):
            v = tf.convert_to_tensor(v)
            if self._size == 1:
                return v
            rank = len(v.shape)
            order = [axis % rank] + [i for i in range(rank) if i != axis % rank]
            joined = allgather(tf.transpose(v, order))
            return tf.transpose(joined, [order.index(i) for i in range(rank)])
        return tf.nest.map_structure(one, value)

    def experimental_distribute_dataset(self, dataset, options=None):
        return dataset if self._size == 1 else _RankSlices(dataset, self._rank, self._size)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        return dataset_fn(_strategy.InputContext(self._size, self._rank, self._size))

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_distribute_values_from_function(self, value_fn):
        context = _strategy._ValueContext()
        context.replica_id_in_sync_group, context.num_replicas_in_sync = self._rank, self._size
        return value_fn(context)


class _RankSlices:
    """A dataset of global batches as this rank sees it: its slice of each (Note [Ranks as workers])."""

    def __init__(self, dataset, rank, size):
        self._dataset, self._rank, self._size = dataset, rank, size
        static = tf.nest.flatten(dataset.element_spec)[0].shape
        self._global = static[0] if len(static) and static[0] is not None else None

    element_spec = property(lambda self: self._dataset.element_spec)

    def __iter__(self):
        global_size = self._global
        for element in self._dataset:
            batch = int(tf.nest.flatten(element)[0].shape[0])
            global_size = batch if global_size is None else global_size  # the first batch is a whole one
            start, stop = slice_bounds(global_size, batch, self._rank, self._size)
            yield tf.nest.map_structure(lambda t, start=start, stop=stop: t[start:stop], element)


def _sum_over_ranks(grads_and_vars):
    """Keras's aggregation under a strategy: inside a multi-rank replica context the gradients are summed
    over the ranks before the optimizer applies them (Optimizer._cross_replica_sum; elsewhere unchanged)."""
    pairs = list(grads_and_vars)
    context = _strategy._state["replica"]
    if not isinstance(context, (_WorkerReplicaContext, _keras_steps.ShardedReplicaContext)):
        return pairs
    present = [i for i, (g, _) in enumerate(pairs) if g is not None]
    grads = [tf.convert_to_tensor(pairs[i][0]) for i in present]
    if isinstance(context, _keras_steps.ShardedReplicaContext):  # an empty slice's NaN means count 0
        share = _keras_steps.SHARE[0]
        grads = [tf.where(share > 0, g * tf.cast(share, g.dtype), tf.zeros_like(g)) for g in grads]
    summed = grouped_allreduce(grads, op=Sum)
    for i, g in zip(present, summed):
        pairs[i] = (g, pairs[i][1])
    return pairs


def _install_gradient_sum():
    Optimizer._cross_replica_sum = staticmethod(_sum_over_ranks)
    TrainingMixin._replica_step = staticmethod(_keras_steps.replica_step)
