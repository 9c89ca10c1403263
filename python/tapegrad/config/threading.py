"""tf.config.threading: the kernels' thread counts. intra-op sets how many threads one kernel uses
(OpenMP and OpenBLAS); inter-op is recorded only (ops run one after another)."""
from tapegrad import _core

__all__ = ["get_intra_op_parallelism_threads", "set_intra_op_parallelism_threads",
           "get_inter_op_parallelism_threads", "set_inter_op_parallelism_threads"]

_state = {"intra": 0, "inter": 0}


def _count(num_threads, what):
    if isinstance(num_threads, bool) or not hasattr(num_threads, "__index__"):
        raise TypeError(f"{what}: num_threads must be an int, got {type(num_threads).__name__} {num_threads!r}")
    n = num_threads.__index__()
    if not -2 ** 31 <= n < 2 ** 31:
        raise ValueError(f"{what}: Value out of range: {n}")
    return n


def set_intra_op_parallelism_threads(num_threads):
    """Caps the threads one kernel uses at ``num_threads``; 0 lets the system choose (all cores)."""
    n = _count(num_threads, "set_intra_op_parallelism_threads")
    _core._set_num_threads(n)
    _state["intra"] = n


def get_intra_op_parallelism_threads():
    """The value last set (0: the system chooses)."""
    return _state["intra"]


def set_inter_op_parallelism_threads(num_threads):
    """Recorded for get_...; tapegrad runs independent ops one after another."""
    _state["inter"] = _count(num_threads, "set_inter_op_parallelism_threads")


def get_inter_op_parallelism_threads():
    return _state["inter"]
