"""Type stub of tapegrad.version (written by .ci/gen_stubs; do not edit)."""
from typing import Any

COMPILER_VERSION: Any
GIT_VERSION: Any
GRAPH_DEF_VERSION: Any
GRAPH_DEF_VERSION_MIN_CONSUMER: Any
GRAPH_DEF_VERSION_MIN_PRODUCER: Any
TAPEGRAD_VERSION: Any
VERSION: Any
