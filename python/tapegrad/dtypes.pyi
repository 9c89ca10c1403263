"""Type stub of tapegrad.dtypes (written by .ci/gen_stubs; do not edit)."""
from typing import Any

class DType:
    def __init__(self, name, code, np_type) -> None: ...
    def __getattr__(self, name: str) -> Any: ...
def as_dtype(type_value) -> Any: ...
bfloat16: Any
bool: Any
double: Any
float16: Any
float32: Any
float64: Any
half: Any
int16: Any
int32: Any
int64: Any
int8: Any
string: Any
uint16: Any
uint32: Any
uint64: Any
uint8: Any
