"""Type stub of tapegrad.saved_model (written by .ci/gen_stubs; do not edit)."""
from typing import Any

DEFAULT_SERVING_SIGNATURE_DEF_KEY: Any
PREDICT_METHOD_NAME: Any
SERVING: Any
def load(export_dir, tags=..., options=...) -> Any: ...
def save(obj, export_dir, signatures=..., options=...) -> Any: ...
