"""keras.layers.Lambda: a function of the inputs as a layer (no weights)."""
import inspect

from tapegrad.keras.layers.base import Layer

__all__ = ["Lambda"]


class Lambda(Layer):
    """outputs = function(inputs, **arguments). Saved by the function's module and name (a lambda
    expression cannot be saved to a file)."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"Lambda: function must be callable, got {type(function).__name__}")
        self.function, self.output_shape_arg, self.arguments = function, output_shape, dict(arguments or {})
        self._takes_training = "training" in inspect.signature(function).parameters if _has_signature(function) else False

    def call(self, inputs, training=None):
        kwargs = dict(self.arguments)
        if self._takes_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)


def _has_signature(fn):
    try:
        inspect.signature(fn)
        return True
    except (TypeError, ValueError):
        return False
