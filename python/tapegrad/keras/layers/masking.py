"""keras.layers.Masking: marks the steps whose features all equal mask_value as masked."""
import tapegrad as tf

from tapegrad.keras import _masking
from tapegrad.keras.layers.base import Layer

__all__ = ["Masking"]


class Masking(Layer):
    """outputs = inputs with masked steps set to 0; the output carries the mask "some feature of the
    step differs from mask_value" (shape inputs.shape[:-1]), read by the layers after it (RNNs,
    attention, GlobalAveragePooling1D, losses; Note [Keras masks])."""

    supports_masking = True

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return tf.reduce_any(tf.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = self.compute_mask(inputs)
        out = tf.where(tf.expand_dims(keep, -1), inputs, tf.zeros_like(inputs))
        _masking.set_keras_mask(out, keep)  # computed once: Layer.__call__ keeps a mask call has set
        return out
