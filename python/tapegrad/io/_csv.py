"""CSV records: tf.io.decode_csv, and the record parser tf.data.experimental.CsvDataset and
make_csv_dataset use.

Note [CSV records]: a record's fields are separated by one delimiter byte. With use_quote_delim a
field may be quoted ("a,b"), a doubled quote inside standing for one (""), and a quoted field may hold
the delimiter and, in a file, line ends; a quote inside an unquoted field, or a quoted field followed
by anything but the delimiter or the end, is an InvalidArgumentError, as TF's. Each field converts by
its column's default's dtype (float32, float64, int32, int64, string): an integer is [+-]digits (no
"0x", no "_", in range), a float what C's strtod reads in decimal (inf, nan included); an empty field,
or one equal to na_value, takes the default, and a column with an empty default is required. The
errors are TF's texts: "Expect 3 fields but have 2 in record 0", "Field 1 in record 0 is not a valid
float: abc", "Field 1 is required but missing in record 0!".
"""
import re

import numpy as np

from tapegrad import dtypes, errors
from tapegrad._tensor.string_tensor import StringTensor, string_constant
from tapegrad._tensor.tensor import Tensor, constant
from tapegrad.io._args import kernel_dtype_name

__all__ = ["decode_csv", "column_defaults", "split_record", "convert_fields", "csv_records"]

_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
_INT = re.compile(rb"\s*[+-]?\d+\s*")
_FLOAT = re.compile(rb"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)\s*", re.I)
_RANGE = {dtypes.int32: (-2 ** 31, 2 ** 31 - 1), dtypes.int64: (-2 ** 63, 2 ** 63 - 1)}


def _invalid(text):
    return errors.InvalidArgumentError(None, None, text)


def _python_dtype(value):
    """The dtype tf.constant gives a Python default (float32 for an empty one)."""
    if isinstance(value, (str, bytes)):
        return dtypes.string
    if isinstance(value, (bool, np.bool_)):
        return dtypes.bool
    return dtypes.int32 if isinstance(value, (int, np.integer)) else dtypes.float32


def column_defaults(record_defaults, select_cols=None):
    """[(dtype, default value or None for a required column)] from TF's record_defaults."""
    if select_cols is not None and list(select_cols) != sorted(set(select_cols)):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols is not None and any(c < 0 for c in select_cols):
        raise ValueError("select_cols contains negative values.")
    out = []
    for i, d in enumerate(record_defaults):
        if isinstance(d, (Tensor, StringTensor)):
            dtype = d.dtype
            values = np.asarray(d._value if isinstance(d, StringTensor) else d.numpy(), dtype=object).reshape(-1)
        else:
            values = np.asarray(d, dtype=object).reshape(-1)
            dtype = _python_dtype(values[0] if values.size else None)
        if dtype not in _TYPES:
            raise _invalid(f"Value for attr 'OUT_TYPE' of {kernel_dtype_name(dtype)} is not in the list of allowed "
                           "values: float, double, int32, int64, string")
        if values.size > 1:
            raise _invalid(f"There should only be 1 default per field but field {i} has {values.size}")
        value = None
        if values.size:
            value = values[0]
            value = (value.encode() if isinstance(value, str) else bytes(value)) if dtype is dtypes.string else value
        out.append((dtype, value))
    return out


def split_record(record, delim, use_quote, empty_is_a_field=False):
    """The fields of one record (bytes) as a list of bytes (Note [CSV records]). An empty record has no
    field for decode_csv and one empty field in a CSV file, as TF's."""
    if not use_quote or b'"' not in record:
        return record.split(delim) if record or empty_is_a_field else []
    fields, i, n = [], 0, len(record)
    while True:
        if i < n and record[i:i + 1] == b'"':
            j, piece = i + 1, bytearray()
            while True:
                k = record.find(b'"', j)
                if k < 0:
                    raise _invalid("Quoted field has to end with quote followed by delim or end")
                piece += record[j:k]
                if record[k + 1:k + 2] == b'"':
                    piece += b'"'
                    j = k + 2
                    continue
                break
            end = k + 1
            if end < n and record[end:end + 1] != delim:
                raise _invalid("Quoted field has to end with quote followed by delim or end")
            fields.append(bytes(piece))
            i = end
        else:
            end = record.find(delim, i)
            end = n if end < 0 else end
            field = record[i:end]
            if b'"' in field:
                raise _invalid("Unquoted fields cannot have quotes/CRLFs inside")
            fields.append(field)
            i = end
        if i >= n:
            return fields
        i += 1  # past the delimiter
        if i == n:
            fields.append(b"")
            return fields


def _convert(field, dtype, default, column, where, na_value):
    if field == b"" or (na_value and field == na_value):
        if default is None:
            raise _invalid(f"Field {column} is required but missing{where}!")
        return default
    if dtype is dtypes.string:
        return field
    name = kernel_dtype_name(dtype)
    if dtype in _RANGE:
        lo, hi = _RANGE[dtype]
        if not _INT.fullmatch(field) or not lo <= int(field) <= hi:
            raise _invalid(f"Field {column}{where} is not a valid {name}: {field.decode('utf-8', 'replace')}")
        return int(field)
    if not _FLOAT.fullmatch(field):
        raise _invalid(f"Field {column}{where} is not a valid {name}: {field.decode('utf-8', 'replace')}")
    return float(field)


def convert_fields(fields, columns, select_cols, where, na_value):
    """The record's values, one per column (Note [CSV records])."""
    if select_cols is not None:
        if len(fields) <= select_cols[-1]:
            raise _invalid(f"Expect {select_cols[-1] + 1} fields but have {len(fields)}{where}")
        fields = [fields[c] for c in select_cols]
    if len(fields) != len(columns):
        raise _invalid(f"Expect {len(columns)} fields but have {len(fields)}{where}")
    return [_convert(f, dtype, default, i, where, na_value) for i, (f, (dtype, default)) in
            enumerate(zip(fields, columns))]


def _delimiter(field_delim):
    delim = field_delim.encode() if isinstance(field_delim, str) else bytes(field_delim)
    if len(delim) != 1:
        raise _invalid("field_delim should be only 1 char")
    return delim


def _text(value):
    return value.encode() if isinstance(value, str) else bytes(value)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """Each record (a string tensor of any shape) split into its fields, converted by record_defaults:
    one tensor per column, shaped as ``records``."""
    if isinstance(records, StringTensor):
        values = np.asarray(records._value, dtype=object)
    else:
        values = np.asarray(string_constant(records)._value, dtype=object)
    columns = column_defaults(record_defaults, select_cols)
    if select_cols is not None and len(select_cols) != len(columns):
        raise _invalid("select_cols should match output size")
    delim, na = _delimiter(field_delim), _text(na_value)
    select = list(select_cols) if select_cols is not None else None
    rows = [convert_fields(split_record(r, delim, use_quote_delim), columns, select,
                           f" in record {i}", na) for i, r in enumerate(values.reshape(-1))]
    out = []
    for c, (dtype, _) in enumerate(columns):
        column = [row[c] for row in rows]
        if dtype is dtypes.string:
            out.append(string_constant(np.array(column, dtype=object).reshape(values.shape)))
        else:
            out.append(constant(np.array(column, dtype=dtype.as_numpy_dtype).reshape(values.shape), dtype=dtype))
    return out


def csv_records(lines, use_quote, delim):
    """The records of a file's lines (each without its "\\n"): a trailing "\\r" goes, and a line ending
    inside a quoted field joins the next one with the line end kept."""
    pending = None
    for line in lines:
        if line.endswith(b"\r"):
            line = line[:-1]
        pending = line if pending is None else pending + b"\n" + line
        if use_quote and _inside_quotes(pending, delim):
            continue
        yield pending
        pending = None
    if pending is not None:
        raise _invalid("Reached end of file without closing quoted field in record")


def _inside_quotes(record, delim):
    """Whether the record ends inside a quoted field."""
    if b'"' not in record:
        return False
    inside, i, n = False, 0, len(record)
    at_start = True
    while i < n:
        c = record[i:i + 1]
        if inside:
            if c == b'"':
                if record[i + 1:i + 2] == b'"':
                    i += 1
                else:
                    inside = False
        elif c == b'"' and at_start:
            inside = True
        at_start = not inside and c == delim
        i += 1
    return inside
