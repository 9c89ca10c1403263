"""Type stub of tapegrad.data.experimental (written by .ci/gen_stubs; do not edit)."""
from typing import Any

AUTOTUNE: Any
INFINITE_CARDINALITY: Any
UNKNOWN_CARDINALITY: Any
def cardinality(dataset) -> Any: ...
