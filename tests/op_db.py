"""The op table the tests are driven by: every op family's rows in one list."""
import importlib

FAMILIES = ["elementwise", "reduction", "array", "linalg", "nn", "optim", "random", "conv", "recurrent", "sorting", "matrix", "segments", "composites", "loop_buffers", "sets", "sized_by_values"]

op_db = []
for _family in FAMILIES:
    try:
        _module = importlib.import_module(f"opinfo.{_family}")
    except ModuleNotFoundError as e:
        if e.name != f"opinfo.{_family}":
            raise
        continue
    op_db.extend(_module.rows)
