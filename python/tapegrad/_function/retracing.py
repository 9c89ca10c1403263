"""TF's frequent-retracing warning: 5 traces within the last 10 calls of one Python function warn.

As TF does, the calls of every Function made from the same Python function count together (a
tf.function created in a loop retraces at each call), a warning is logged (``logging.warning``
on the "tapegrad" logger) at most twice per Python function, and get_concrete_function is not a call.
"""
import logging
import threading
import weakref

_HISTORY = 10        # calls remembered
_THRESHOLD = 5       # traces among them that warn
_MAX_WARNINGS = 2    # per Python function

_log = logging.getLogger("tapegrad")
_lock = threading.RLock()  # a Function may be collected (flush_calls) while the lock is held
_detectors = weakref.WeakKeyDictionary()  # Python function -> _Detector


class _Detector:
    __slots__ = ("calls_per_trace", "calls", "warnings", "functions")

    def __init__(self):
        self.calls_per_trace = []  # per recent trace: the calls from it up to the next trace
        self.calls = 0             # calls those entries cover
        self.warnings = 0
        self.functions = weakref.WeakSet()  # the Functions of this Python function

    def add_calls(self, n):
        if n > 0:
            if not self.calls_per_trace:
                self.calls_per_trace.append(0)
            self.calls_per_trace[-1] += n
            self.calls += n

    def called(self, traced):
        if traced or not self.calls_per_trace:
            self.calls_per_trace.append(0)
        self.calls_per_trace[-1] += 1
        self.calls += 1
        while self.calls_per_trace and self.calls - self.calls_per_trace[0] > _HISTORY:
            self.calls -= self.calls_per_trace.pop(0)


def _key(function):
    f = function.python_function
    while hasattr(f, "__wrapped__"):
        f = f.__wrapped__
    return getattr(f, "func", f)  # a method's Function wraps functools.partial(f, instance)


def flush_calls(function):
    """Counts the calls ``function`` made since it last traced (when it is about to go away)."""
    try:
        d = _detectors.get(_key(function))
    except TypeError:
        return
    if d is not None:
        with _lock:
            d.add_calls(function._num_calls - function._calls_seen)
            function._calls_seen = function._num_calls


def note_trace(function):
    """Counts a call of ``function`` that traced, after the calls (of it and of the other Functions
    of its Python function) that did not; the C++ side counts every call (``_num_calls``)."""
    key = _key(function)
    with _lock:
        try:
            d = _detectors.setdefault(key, _Detector())
        except TypeError:  # not weakly referenceable: one detector per Function
            d = function.__dict__.setdefault("_retrace_detector", _Detector())
        d.functions.add(function)
        for f in list(d.functions):
            calls = f._num_calls
            d.add_calls(calls - f._calls_seen - (f is function))
            f._calls_seen = calls
        d.called(traced=True)
        if d.warnings >= _MAX_WARNINGS or len(d.calls_per_trace) < _THRESHOLD:
            return
        d.warnings += 1
        traces, calls = len(d.calls_per_trace), d.calls
    cause = function._retrace_cause()
    _log.warning(
        f"{traces} out of the last {calls} calls to {function.python_function!r} triggered tf.function retracing. "
        "Tracing is expensive and the excessive number of tracings could be due to (1) creating @tf.function "
        "repeatedly in a loop, (2) passing tensors with different shapes, (3) passing Python objects instead of "
        "tensors. For (1), please define your @tf.function outside of the loop. For (2), @tf.function has "
        "reduce_retracing=True option that can avoid unnecessary retracing. For (3), please refer to "
        "https://www.tensorflow.org/guide/function#controlling_retracing and "
        "https://www.tensorflow.org/api_docs/python/tf/function for  more details." + (f" {cause}" if cause else ""))
