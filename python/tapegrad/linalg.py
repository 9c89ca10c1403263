"""``tf.linalg``: matrix products and norms."""
from tapegrad._ops.linalg import *  # noqa: F401,F403
