"""Horovod's collectives on Python objects and its barrier: broadcast_object, allgather_object, barrier.

An object travels pickled, as in Horovod. It is pickled on the calling thread (an object that cannot
be pickled raises there, before any message) and unpickled there too; the communication thread only
moves the bytes, after the ranks' rendezvous (Note [Rendezvous] in _runtime.py), so a missing rank is
named within the timeout.
"""
import pickle

from tapegrad.distribute import _runtime
from tapegrad.distribute._collectives import _check_root

__all__ = ["broadcast_object", "allgather_object", "barrier"]


def _pickled(obj, fn):
    try:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:
        raise TypeError(f"{fn}: the object cannot be pickled: {type(e).__name__}: {e}") from e


def _label(name):
    return name or "object"  # not the object's class: only the root's object matters in a broadcast


def broadcast_object(obj, root_rank=0, session=None, name=None, process_set=None):
    """root_rank's object, on every rank (other ranks' ``obj`` is ignored): an epoch to resume from,
    a configuration, a vocabulary. Every rank, the root too, gets an unpickled copy, as in Horovod."""
    root_rank = _check_root(root_rank, "broadcast_object")
    st = _runtime.state()
    data = _pickled(obj, "broadcast_object") if st.rank == root_rank else None
    what = f"broadcast_object {_label(name)} from rank {root_rank}"

    def on_thread():
        st.rendezvous(what, [], [])
        return st.comm.bcast(data, root=root_rank) if st.size > 1 else data
    return pickle.loads(st.call(on_thread))


def allgather_object(obj, session=None, name=None, process_set=None):
    """The list of every rank's object, in rank order."""
    st = _runtime.state()
    data = _pickled(obj, "allgather_object")
    what = f"allgather_object {_label(name)}"

    def on_thread():
        st.rendezvous(what, [], [])
        return st.comm.allgather(data) if st.size > 1 else [data]
    return [pickle.loads(b) for b in st.call(on_thread)]


def barrier(process_set=None):
    """Returns once every rank has called it (or raises DeadlineExceededError naming the ranks that
    did not within the timeout)."""
    st = _runtime.state()
    st.call(st.rendezvous, "barrier", [], [])
