"""Data-parallel training over MPI with Horovod's TensorFlow names, and tf.distribute's strategies.

A Horovod script runs with only its imports changed (``import tapegrad.distribute as hvd``, or
``import tapegrad.distribute.keras as hvd`` for the Keras callbacks' module layout); start it with
``mpirun -n N python script.py``. Needs the optional extra: ``pip install "tapegrad[mpi]"``.

When every rank runs on one machine, gradients are written into a shared-memory window as the
backward sweep finishes them and each rank combines them itself (Note [Shared-memory reduction] in
_shared.py). Otherwise MPI's collectives run on one background thread (Note [One communication
thread] in _runtime.py), on buckets planned identically on every rank (Note [Fusion plan] in
_reduce.py) while the backward sweep is still running. Waits for other ranks have a deadline and
name the rank that is missing (Note [Rendezvous]).
"""
from tapegrad.distribute import callbacks
from tapegrad.distribute._collectives import (Compression, allgather, allreduce, broadcast, broadcast_variables,
                                              grouped_allreduce)
from tapegrad.distribute._objects import allgather_object, barrier, broadcast_object
from tapegrad.distribute._optimizer import DistributedOptimizer
from tapegrad.distribute._reduce import Adasum, Average, Max, Min, Product, Sum
from tapegrad.distribute._runtime import (cross_rank, cross_size, fusion_threshold, init, is_initialized, local_rank,
                                          local_size, mpi_built, mpi_enabled, mpi_threads_supported, rank,
                                          set_fusion_threshold, set_timeout, shutdown, size)
from tapegrad.distribute._tape import DistributedGradientTape
from tapegrad.distribute._multi_worker import MultiWorkerMirroredStrategy
from tapegrad.distribute._strategy import (InputContext, MirroredStrategy, OneDeviceStrategy, ReduceOp,  # noqa: F401
                                           ReplicaContext, Strategy, experimental_set_strategy, get_replica_context,
                                           get_strategy, has_strategy, in_cross_replica_context)


def stats(reset=False):
    """Counters of this process's communication since init (or the last reset): steps, collectives,
    bytes, comm_seconds (time the communication thread spent in buckets), sweep_seconds (time in
    DistributedGradientTape sweeps), overlap_seconds (communication that ran during a sweep) and
    wait_seconds (time the calling thread waited for results)."""
    from tapegrad.distribute._runtime import state
    s = state().stats
    out = dict(s)
    if reset:
        for k in s:
            s[k] = 0 if isinstance(s[k], int) else 0.0
    return out


__all__ = ["init", "shutdown", "is_initialized", "rank", "size", "local_rank", "local_size", "cross_rank",
           "cross_size", "mpi_threads_supported", "mpi_enabled", "mpi_built", "allreduce", "grouped_allreduce",
           "allgather", "broadcast", "broadcast_variables", "broadcast_object", "allgather_object", "barrier",
           "DistributedGradientTape", "DistributedOptimizer",
           "Average", "Sum", "Min", "Max", "Product", "Adasum", "Compression", "callbacks", "set_timeout",
           "fusion_threshold", "set_fusion_threshold", "stats",
           # tf.distribute's strategies (one replica on a CPU, Note [One-replica strategies]; one per MPI
           # rank for MultiWorkerMirroredStrategy, Note [Ranks as workers])
           "Strategy", "MirroredStrategy", "OneDeviceStrategy", "MultiWorkerMirroredStrategy", "ReduceOp",
           "InputContext", "ReplicaContext",
           "get_strategy", "has_strategy", "in_cross_replica_context", "get_replica_context",
           "experimental_set_strategy"]
