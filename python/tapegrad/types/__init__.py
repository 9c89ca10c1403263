"""tf.types: the types of tapegrad's API objects (``tf.types.experimental``)."""
from tapegrad.types import experimental

__all__ = ["experimental"]
