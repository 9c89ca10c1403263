"""tf.summary: scalars, histograms, images and text for TensorBoard, written as TensorBoard event
files by the ``tensorboard`` package (``pip install "tapegrad[tensorboard]"``).

    writer = tf.summary.create_file_writer("logs/run1")
    with writer.as_default(step=epoch):
        tf.summary.scalar("loss", loss)
"""
from tapegrad import _core, dtypes
from tapegrad._tensor.tensor import Tensor, constant
from tapegrad._function.trace_context import current_trace
from tapegrad.summary import experimental
from tapegrad.summary._writer import (SummaryWriter, create_file_writer, create_noop_writer, current_step,
                                      default_writer, flush, record_if, should_record_summaries)

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "experimental", "flush", "histogram",
           "image", "record_if", "scalar", "should_record_summaries", "text"]


def _builders():
    """summary/_protos.py, imported at the first summary written: it needs the tensorboard extra."""
    from tapegrad.summary import _protos
    return _protos


def _now(x):
    """A tensor's value now (a traced tensor's too: it was just computed), other values as they are."""
    return x._numpy_unchecked() if isinstance(x, Tensor) else x


def _write(build, data, step):
    """Writes ``build(values of data)`` to the default writer when recording; TF's boolean tensor of
    whether it did. Inside a tf.function it is written for this call and, as a host call of the graph,
    at every later call with that call's data and step (a Variable step is read each time)."""
    if not should_record_summaries():
        return constant(False, dtypes.bool)
    writer, step = default_writer(), current_step(step)
    if _core._tracing():
        if isinstance(step, Tensor) and not step.dtype.is_integer:
            raise ValueError(f"tf.summary: step must be an integer, got a {step.dtype.name} tensor")
        traced = [x for x in (data, step) if isinstance(x, Tensor)]

        def emit(values):
            it = iter(values)
            writer._write(build(next(it).numpy() if isinstance(data, Tensor) else data),
                          int(next(it).numpy() if isinstance(step, Tensor) else step))
        _core._record_host_call(emit, traced, "tf.summary")
        trace = current_trace()
        if trace is not None and trace.dry:
            return constant(True, dtypes.bool)
    return constant(writer._write(build(_now(data)), int(_now(step))), dtypes.bool)


def scalar(name, data, step=None, description=None):
    """Writes a scalar (a float, or a 0-d tensor) at ``step`` (else the default step)."""
    return _write(lambda d: _builders().scalar_summary(name, d, description), data, step)


def histogram(name, data, step=None, buckets=None, description=None):
    """Writes a histogram of ``data`` in ``buckets`` equal-width buckets (30)."""
    return _write(lambda d: _builders().histogram_summary(name, d, buckets, description), data, step)


def image(name, data, step=None, max_outputs=3, description=None):
    """Writes up to ``max_outputs`` images from ``data`` of shape [k, h, w, c] (c = 1, 3, 4): floats in
    [0, 1] or uint8."""
    return _write(lambda d: _builders().image_summary(name, d, max_outputs, description), data, step)


def text(name, data, step=None, description=None):
    """Writes a string (or an array of strings; Markdown is rendered)."""
    return _write(lambda d: _builders().text_summary(name, d, description), data, step)
