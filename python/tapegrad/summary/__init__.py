"""tf.summary: scalars, histograms, images and text for TensorBoard, written as TensorBoard event
files by the ``tensorboard`` package (``pip install "tapegrad[tensorboard]"``).

    writer = tf.summary.create_file_writer("logs/run1")
    with writer.as_default(step=epoch):
        tf.summary.scalar("loss", loss)
"""
from tapegrad import dtypes
from tapegrad._tensor import constant
from tapegrad.summary import _protos, experimental
from tapegrad.summary._writer import (SummaryWriter, create_file_writer, create_noop_writer, current_step,
                                      default_writer, flush, record_if, should_record_summaries)

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "experimental", "flush", "histogram",
           "image", "record_if", "scalar", "should_record_summaries", "text"]


def _write(build, step):
    """Writes one summary to the default writer when recording; TF's boolean tensor of whether it did."""
    if not should_record_summaries():
        return constant(False, dtypes.bool)
    step = current_step(step)
    return constant(default_writer()._write(build(), step), dtypes.bool)


def scalar(name, data, step=None, description=None):
    """Writes a scalar (a float, or a 0-d tensor) at ``step`` (else the default step)."""
    return _write(lambda: _protos.scalar_summary(name, data, description), step)


def histogram(name, data, step=None, buckets=None, description=None):
    """Writes a histogram of ``data`` in ``buckets`` equal-width buckets (30)."""
    return _write(lambda: _protos.histogram_summary(name, data, buckets, description), step)


def image(name, data, step=None, max_outputs=3, description=None):
    """Writes up to ``max_outputs`` images from ``data`` of shape [k, h, w, c] (c = 1, 3, 4): floats in
    [0, 1] or uint8."""
    return _write(lambda: _protos.image_summary(name, data, max_outputs, description), step)


def text(name, data, step=None, description=None):
    """Writes a string (or an array of strings; Markdown is rendered)."""
    return _write(lambda: _protos.text_summary(name, data, description), step)
