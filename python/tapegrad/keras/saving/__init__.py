"""keras.saving: whole-model files (save_model / load_model) and the serialization of keras objects."""
from tapegrad.keras.saving._model_file import load_model, save_model  # noqa: F401
from tapegrad.keras.saving._serialization import (CustomObjectScope, custom_object_scope,  # noqa: F401
                                                  deserialize_keras_object, get_registered_name,
                                                  get_registered_object, register_keras_serializable,
                                                  serialize_keras_object)

__all__ = ["save_model", "load_model", "register_keras_serializable", "get_registered_name", "get_registered_object",
           "serialize_keras_object", "deserialize_keras_object", "custom_object_scope", "CustomObjectScope"]
