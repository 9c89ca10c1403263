"""tf.distribute's strategies on one CPU: MirroredStrategy and OneDeviceStrategy with one replica.

Note [One-replica strategies]: on a machine without accelerators TF's MirroredStrategy has one replica
(the CPU), so a script written for it runs its step once per batch: ``run`` calls the step function in a
replica context, ``reduce`` and a replica context's ``all_reduce`` combine the one replica's value with
itself (SUM and MEAN are the value; with an axis, the value summed or averaged along it, as TF reduces
along the axis too), a distributed dataset is the dataset, ``num_replicas_in_sync`` is 1. ``scope()``
makes the strategy current (``tf.distribute.get_strategy()``), and a different strategy's scope inside it
raises TF's RuntimeError. Data parallelism over several processes is tapegrad.distribute's MPI API (with
Horovod's names), which a multi-worker script uses instead.
"""
import contextlib
import enum

import tapegrad as tf

__all__ = ["Strategy", "MirroredStrategy", "OneDeviceStrategy", "ReduceOp", "InputContext", "ReplicaContext",
           "get_strategy", "has_strategy", "in_cross_replica_context", "get_replica_context",
           "experimental_set_strategy"]

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


class ReduceOp(enum.Enum):
    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        return {"sum": ReduceOp.SUM, "mean": ReduceOp.MEAN}[str(getattr(aggregation, "value", aggregation)).lower()]


def _reduce_op(op, fn):
    if isinstance(op, str):
        op = ReduceOp[op.upper()] if op.upper() in ReduceOp.__members__ else op
    if not isinstance(op, ReduceOp):
        raise ValueError(f"{fn}: reduce_op must be tf.distribute.ReduceOp.SUM or MEAN, got {op!r}")
    return op


class InputContext:
    """What a dataset function learns about its input pipeline (one pipeline, one replica)."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines, self.input_pipeline_id = num_input_pipelines, input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync


class ReplicaContext:
    """The context a step function runs in (``tf.distribute.get_replica_context()`` inside ``run``)."""

    def __init__(self, strategy, replica_id_in_sync_group=0):
        self._strategy = strategy
        self.replica_id_in_sync_group = tf.constant(replica_id_in_sync_group)

    strategy = property(lambda self: self._strategy)
    num_replicas_in_sync = property(lambda self: self._strategy.num_replicas_in_sync)
    devices = property(lambda self: (CPU,))

    def all_reduce(self, reduce_op, value, options=None):
        _reduce_op(reduce_op, "ReplicaContext.all_reduce")
        return tf.nest.map_structure(tf.identity, value)  # one replica: its own value, SUM or MEAN alike

    def merge_call(self, merge_fn, args=(), kwargs=None):
        with _cross_replica(self._strategy):
            return merge_fn(self._strategy, *args, **(kwargs or {}))


class StrategyExtended:
    def __init__(self, strategy):
        self._container_strategy = strategy

    worker_devices = property(lambda self: (CPU,))
    parameter_devices = property(lambda self: (CPU,))


_state = {"strategy": None, "replica": None, "default": None}


@contextlib.contextmanager
def _cross_replica(strategy):
    saved = _state["replica"]
    _state["replica"] = None
    try:
        yield
    finally:
        _state["replica"] = saved


class Strategy:
    """The base of the strategies (tf.distribute.Strategy), with one replica."""

    def __init__(self, extended=None):
        self._extended = extended or StrategyExtended(self)

    extended = property(lambda self: self._extended)
    num_replicas_in_sync = property(lambda self: 1)
    cluster_resolver = property(lambda self: None)

    @contextlib.contextmanager
    def scope(self):
        current = _state["strategy"]
        if current is not None and current is not self:
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {self} is not {current}")
        _state["strategy"] = self
        try:
            yield self
        finally:
            _state["strategy"] = current

    def run(self, fn, args=(), kwargs=None, options=None):
        """fn(*args, **kwargs) on the one replica, in a replica context."""
        saved_strategy, saved_replica = _state["strategy"], _state["replica"]
        _state["strategy"], _state["replica"] = self, ReplicaContext(self)
        try:
            return fn(*args, **(kwargs or {}))
        finally:
            _state["strategy"], _state["replica"] = saved_strategy, saved_replica

    def reduce(self, reduce_op, value, axis=None):
        """The replicas' values combined (one replica: the value), and along axis when given."""
        op = _reduce_op(reduce_op, "Strategy.reduce")
        if axis is None:
            return tf.nest.map_structure(tf.convert_to_tensor, value)
        reduce = tf.reduce_sum if op is ReduceOp.SUM else tf.reduce_mean
        return tf.nest.map_structure(lambda v: reduce(v, axis=axis), value)

    def experimental_distribute_dataset(self, dataset, options=None):
        return dataset

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        return dataset_fn(InputContext())

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_distribute_values_from_function(self, value_fn):
        return value_fn(_ValueContext())

    def experimental_local_results(self, value):
        return (value,)

    def gather(self, value, axis):
        return tf.nest.map_structure(tf.convert_to_tensor, value)

    def __repr__(self):
        return f"<tf.distribute.{type(self).__name__} object>"


class _ValueContext:
    replica_id_in_sync_group, num_replicas_in_sync = 0, 1


class MirroredStrategy(Strategy):
    """Synchronous training on the machine's devices: on a CPU, one replica (Note [One-replica strategies])."""

    def __init__(self, devices=None, cross_device_ops=None):
        devices = [CPU] if devices is None else list(devices)
        if len(devices) != 1 or "gpu" in devices[0].lower() or "tpu" in devices[0].lower():
            raise ValueError(f"MirroredStrategy: tapegrad runs one replica on the CPU; got devices {devices}")
        super().__init__()
        self._devices = tuple(devices)


class OneDeviceStrategy(Strategy):
    """Everything on one device (tf.distribute.OneDeviceStrategy)."""

    def __init__(self, device):
        if "gpu" in str(device).lower() or "tpu" in str(device).lower():
            raise ValueError(f"OneDeviceStrategy: tapegrad runs on the CPU; got device {device!r}")
        super().__init__()
        self._device = device


def get_strategy():
    """The strategy whose scope is open, else the default strategy (one replica, no distribution)."""
    if _state["strategy"] is not None:
        return _state["strategy"]
    if _state["default"] is None:
        _state["default"] = Strategy()
    return _state["default"]


def has_strategy():
    return _state["strategy"] is not None


def in_cross_replica_context():
    return _state["strategy"] is not None and _state["replica"] is None


def get_replica_context():
    """The replica context inside ``run``; None inside a scope outside it; the default one otherwise."""
    if _state["replica"] is not None:
        return _state["replica"]
    return None if _state["strategy"] is not None else ReplicaContext(get_strategy())


def experimental_set_strategy(strategy):
    _state["strategy"] = strategy
