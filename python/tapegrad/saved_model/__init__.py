"""tf.saved_model: TF's SavedModel format (Note [SavedModel layout] in _save.py)."""
from tapegrad.saved_model._load import load
from tapegrad.saved_model._save import DEFAULT_SERVING_SIGNATURE_DEF_KEY, SERVING, save
from tapegrad.saved_model._session_graph import PREDICT_METHOD_NAME
from tapegrad.saved_model import _concrete_protos  # noqa: F401 -- registers ConcreteFunction.function_def's writer

__all__ = ["save", "load", "SERVING", "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "PREDICT_METHOD_NAME"]
