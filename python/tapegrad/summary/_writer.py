"""Summary writers and the state tf.summary reads: the default writer, the default step and the
record_if condition, each per thread as in TF. Files are written by the ``tensorboard`` package's own
EventFileWriter (the optional extra ``tapegrad[tensorboard]``), so they are TensorBoard's event format
exactly. A writer dropped without ``close()`` is closed when it is collected: its file and its
EventFileWriter thread do not outlive it."""
import contextlib
import os
import threading
import time
import weakref

from tapegrad import errors

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "flush", "record_if",
           "should_record_summaries", "set_step", "get_step", "default_writer"]

_INSTALL = 'tf.summary needs TensorBoard: pip install "tapegrad[tensorboard]"'


class _ThreadState(threading.local):
    """This thread's default writer, default step and record_if conditions (TF keeps them per thread)."""

    def __init__(self):
        self.writer, self.step, self.record = None, None, [True]


_state = _ThreadState()


def _event_file_writer():
    try:
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError as e:
        raise ImportError(f"{_INSTALL} (importing tensorboard failed: {e})") from None
    return EventFileWriter


class SummaryWriter:
    """Writes summaries to one event file in ``logdir``; made by ``create_file_writer``."""

    def __init__(self, logdir=None, max_queue=None, flush_millis=None, filename_suffix=None):
        self._events = None
        if logdir is not None:  # None: the no-op writer
            max_queue = 10 if max_queue is None else int(max_queue)
            flush_secs = 120.0 if flush_millis is None else flush_millis / 1000.0
            if max_queue < 0 or flush_secs < 0:
                raise ValueError(f"create_file_writer: max_queue ({max_queue}) and flush_millis ({flush_millis}) "
                                 "must be >= 0")
            self._events = _event_file_writer()(os.fspath(logdir), max_queue_size=max(max_queue, 1),
                                                flush_secs=flush_secs,
                                                filename_suffix=".v2" if filename_suffix is None else filename_suffix)
            # Not a method of self: the finalizer must not keep the writer alive.
            self._finalizer = weakref.finalize(self, self._events.close)
        self._closed = False

    def as_default(self, step=None):
        """Makes this the default writer (and ``step`` the default step). In a ``with`` block the
        previous ones come back at its end and the writer flushes; a plain call ``writer.as_default()``
        keeps it the default from then on, like ``set_as_default`` (in TF a plain call does nothing,
        silently losing the summaries written after it)."""
        return _DefaultBlock(self, step)

    def set_as_default(self, step=None):
        _state.writer = self
        if step is not None:
            _state.step = step

    def init(self):
        """Nothing to do: the file is created with the writer."""

    def flush(self):
        if self._events is not None and not self._closed:
            self._events.flush()

    def close(self):
        """Flushes and closes the file; writing to a closed writer raises NotFoundError."""
        if self._events is not None and not self._closed:
            self._finalizer()  # closes the EventFileWriter once, here or at collection
        self._closed = True

    def _write(self, summary, step):
        if self._events is None:
            return False
        if self._closed:
            raise errors.NotFoundError("tf.summary: the summary writer was closed; create a new one")
        from tensorboard.compat.proto import event_pb2
        self._events.add_event(event_pb2.Event(wall_time=time.time(), step=step, summary=summary))
        return True


class _DefaultBlock:
    """What as_default returns: the writer is the default from the call on; leaving the ``with``
    block restores the previous default writer (and step, when one was given) and flushes."""

    def __init__(self, writer, step):
        self._writer, self._step = writer, step
        self._previous = _state.writer, _state.step
        writer.set_as_default(step)

    def __enter__(self):
        return self._writer

    def __exit__(self, *exc_info):
        _state.writer = self._previous[0]
        if self._step is not None:
            _state.step = self._previous[1]
        self._writer.flush()
        return False


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None):
    """A writer of TensorBoard event files in ``logdir`` (created if missing).

    Args:
      logdir: the directory.
      max_queue: how many summaries to queue before writing (10).
      flush_millis: the longest time between writes to disk, in ms (120,000).
      filename_suffix: the event file name's suffix (".v2").

    Raises:
      ImportError: without the ``tensorboard`` package (``pip install "tapegrad[tensorboard]"``).
    """
    if logdir is None:
        raise ValueError("create_file_writer: logdir must be given")
    return SummaryWriter(logdir, max_queue, flush_millis, filename_suffix)


def create_noop_writer():
    """A writer that writes nothing (summaries under it return False)."""
    return SummaryWriter()


def default_writer():
    return _state.writer


def flush(writer=None, name=None):
    """Flushes ``writer``, or the default writer."""
    writer = writer if writer is not None else _state.writer
    if writer is not None:
        writer.flush()


def _condition_true(condition):
    return bool(condition() if callable(condition) else condition)


@contextlib.contextmanager
def record_if(condition):
    """Summaries in the block are written only when ``condition`` (a bool, a boolean tensor or a
    callable returning one, checked at each summary) holds."""
    _state.record.append(condition)
    try:
        yield
    finally:
        _state.record.pop()


def should_record_summaries():
    """Whether a summary written now would be recorded: a default writer and a true record_if."""
    return _state.writer is not None and _condition_true(_state.record[-1])


def set_step(step):
    """Sets the default step for summaries (an int, an int tensor or a Variable read at each write)."""
    _state.step = step


def get_step():
    return _state.step


def current_step(step):
    """The step a summary is written at (an int, a tensor or a Variable): the argument, else the default;
    ValueError when neither."""
    step = _state.step if step is None else step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument or through "
                         "tf.summary.experimental.set_step()")
    return step
