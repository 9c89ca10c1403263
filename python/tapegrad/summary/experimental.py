"""tf.summary.experimental: the default step."""
from tapegrad.summary._writer import get_step, set_step

__all__ = ["get_step", "set_step"]
