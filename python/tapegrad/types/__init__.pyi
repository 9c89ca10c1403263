"""Type stub of tapegrad.types (written by .ci/gen_stubs; do not edit)."""
from typing import Any

from tapegrad.types import experimental as experimental
