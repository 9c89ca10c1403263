"""keras.preprocessing.sequence: pad_sequences (the one name Keras 3 keeps there)."""
from tapegrad.keras.utils import pad_sequences  # noqa: F401

__all__ = ["pad_sequences"]
