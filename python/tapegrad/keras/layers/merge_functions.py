"""keras.layers' functional forms of the merge layers (``add([a, b])`` is ``Add()([a, b])``), and
keras.layers.serialize / deserialize."""
from tapegrad.keras.layers.merge import Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract
from tapegrad.keras.saving._serialization import deserialize_keras_object, serialize_keras_object

__all__ = ["add", "subtract", "multiply", "average", "maximum", "minimum", "concatenate", "dot", "serialize",
           "deserialize"]


def _functional(layer_class, doc):
    def merge(inputs, **kwargs):
        return layer_class(**kwargs)(inputs)
    merge.__name__ = merge.__qualname__ = layer_class.__name__.lower()
    merge.__doc__ = f"{doc}: ``{layer_class.__name__}(**kwargs)(inputs)``."
    return merge


add = _functional(Add, "The sum of the inputs")
subtract = _functional(Subtract, "inputs[0] - inputs[1]")
multiply = _functional(Multiply, "The product of the inputs")
average = _functional(Average, "The mean of the inputs")
maximum = _functional(Maximum, "The elementwise maximum of the inputs")
minimum = _functional(Minimum, "The elementwise minimum of the inputs")


def concatenate(inputs, axis=-1, **kwargs):
    """The inputs joined along ``axis``: ``Concatenate(axis=axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, **kwargs):
    """The dot product of two inputs along ``axes``: ``Dot(axes=axes, **kwargs)(inputs)``."""
    return Dot(axes=axes, **kwargs)(inputs)


def serialize(layer):
    """A layer as Keras 3's dict (keras.saving.serialize_keras_object)."""
    return serialize_keras_object(layer)


def deserialize(config, custom_objects=None):
    """The layer a serialize() dict describes."""
    return deserialize_keras_object(config, custom_objects=custom_objects)
