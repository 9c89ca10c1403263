"""``tf.image``: resizing."""
from tapegrad._ops.image import *  # noqa: F401,F403
