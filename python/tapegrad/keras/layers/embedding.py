"""keras.layers.Embedding: rows of a trainable table looked up by integer ids."""
import tapegrad as tf

from tapegrad.keras import constraints, initializers, regularizers
from tapegrad.keras.layers.base import Layer

__all__ = ["Embedding"]


class Embedding(Layer):
    """outputs[..., :] = embeddings[inputs[...]]: ids in [0, input_dim) of any shape, one row of
    ``output_dim`` per id. The lookup is a gather, so the gradient is a scatter-add into the rows used.

    With ``mask_zero=True`` the output carries the mask ids != 0 (Note [Keras masks]).
    """

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        kwargs.pop("activity_regularizer", None)
        super().__init__(**kwargs)
        if int(input_dim) <= 0 or int(output_dim) <= 0:
            raise ValueError(f"Embedding: input_dim and output_dim must be positive, got input_dim={input_dim}, "
                             f"output_dim={output_dim}")
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint, name="embeddings")
        self.built = True

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, tf.Tensor) and inputs.dtype.is_floating:
            inputs = tf.cast(inputs, tf.int32)  # ids fed as floats (a float32 batch), as Keras casts them
        return super().__call__(inputs, *args, **kwargs)

    def call(self, inputs):
        if not inputs.dtype.is_integer:
            inputs = tf.cast(inputs, tf.int32)
        try:
            return tf.gather(self.embeddings, inputs)
        except tf.errors.InvalidArgumentError as e:  # an id outside [0, input_dim)
            raise tf.errors.InvalidArgumentError(None, None, f"{self.name} (Embedding, input_dim={self.input_dim}) on "
                                                 f"ids of shape {tuple(inputs.shape)}: {e}") from None

    def compute_mask(self, inputs, mask=None):
        return tf.not_equal(inputs, 0) if self.mask_zero else None
