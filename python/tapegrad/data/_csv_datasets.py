"""tf.data.experimental.CsvDataset and make_csv_dataset: CSV files as datasets (Note [CSV records] in
io/_csv.py). CsvDataset gives one tuple of scalars per record; make_csv_dataset lists the files of a
pattern, reads the column names from the header, infers each column's dtype from the first rows, and
gives batches of {column: values} (and the label column apart), shuffled and repeated as TF's."""
import collections

import numpy as np

from tapegrad import dtypes, errors
from tapegrad._ops.array.creation import zeros
from tapegrad._tensor.string_tensor import string_constant
from tapegrad._tensor.tensor import TensorSpec
from tapegrad.data._dataset import Dataset
from tapegrad.data._file_datasets import _FileDataset
from tapegrad.io._csv import _convert, _delimiter, _text, column_defaults, convert_fields, csv_records, split_record
from tapegrad.io._files import matching_files
from tapegrad.io._tfrecord import compression_of, read_lines

__all__ = ["CsvDataset", "make_csv_dataset"]


class CsvDataset(_FileDataset):
    """The records of CSV files, one tuple of scalars each, by ``record_defaults`` (a default per column,
    or an empty one for a required column; its dtype is the column's). ``header`` skips each file's
    first record; ``select_cols`` / ``exclude_cols`` pick columns by index."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None, name=None):
        columns = column_defaults(record_defaults, select_cols)
        if select_cols is not None and exclude_cols is not None:
            raise errors.InvalidArgumentError(None, None, "Either select_cols or exclude_cols should be empty")
        if select_cols is not None and len(select_cols) != len(columns):
            raise errors.InvalidArgumentError(None, None, "select_cols should match output size")
        if exclude_cols is not None and list(exclude_cols) != sorted(set(exclude_cols)):
            raise errors.InvalidArgumentError(None, None, "exclude_cols should be strictly increasing")
        self._columns_spec = columns
        self._header, self._quote = bool(header), bool(use_quote_delim)
        self._delim, self._na = _delimiter(field_delim), _text(na_value)
        self._select = list(select_cols) if select_cols is not None else None
        self._exclude = set(exclude_cols or ())
        super().__init__(filenames, compression_type, buffer_size)
        Dataset.__init__(self, tuple(TensorSpec([], dtype) for dtype, _ in columns))

    def _elements(self, path):
        np_types = [object if d is dtypes.string else d.as_numpy_dtype for d, _ in self._columns_spec]
        records = csv_records(read_lines(path, self._compression, keep_returns=True), self._quote, self._delim)
        if self._header:
            header = next(records, None)
            if header is None:
                raise errors.InvalidArgumentError(None, None, f"Can't read header of file {path}")
            split_record(header, self._delim, self._quote, empty_is_a_field=True)  # a malformed one raises, as TF
        for record in records:
            fields = split_record(record, self._delim, self._quote, empty_is_a_field=True)
            if self._exclude:
                fields = [f for c, f in enumerate(fields) if c not in self._exclude]
            values = convert_fields(fields, self._columns_spec, self._select, " in record", self._na)
            yield tuple(np.array(v, dtype=t) for v, t in zip(values, np_types))


_INFERENCE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string)
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _fits(value, dtype):
    try:  # the converter decides what a dtype reads
        _convert(value, dtype, b"", 0, "", b"")
    except errors.InvalidArgumentError:
        return False
    if dtype is dtypes.float32:
        v = float(value)
        return not np.isfinite(v) or abs(v) <= _FLOAT32_MAX
    return True


def _infer(rows, n_columns, na_value):
    """Each column's dtype: the first of int32, int64, float32, float64, string that reads every
    non-empty value of the rows (an all-empty column is a string one, as TF's)."""
    out = []
    for c in range(n_columns):
        values = [r[c] for r in rows if c < len(r) and r[c] != b"" and r[c] != na_value]
        if not values:
            out.append(dtypes.string)
            continue
        out.append(next(t for t in _INFERENCE_ORDER if all(_fits(v, t) for v in values)))
    return out


def _first_records(paths, compression, quote, delim, count):
    rows = []
    for path in paths:
        for record in csv_records(read_lines(path, compression, keep_returns=True), quote, delim):
            rows.append(split_record(record, delim, quote, empty_is_a_field=True))
            if len(rows) >= count:
                return rows
    return rows


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """Batches of ({column name: values}, label values) from the CSV files matching file_pattern."""
    paths = [p.decode() if isinstance(p, bytes) else str(p) for p in matching_files(file_pattern).numpy().tolist()]
    if not paths:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    kind, delim, na = compression_of(compression_type), _delimiter(field_delim), _text(na_value)
    first = _first_records(paths[:1], kind, use_quote_delim, delim, 1 + num_rows_for_inference)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = [f.decode(encoding) for f in first[0]]
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError(f"Duplicate names in `column_names`: {column_names}.")
    indices = list(range(len(column_names)))
    if select_columns is not None:
        picked = [column_names.index(s) if isinstance(s, str) else int(s) for s in select_columns]
        if any(isinstance(s, str) and s not in column_names for s in select_columns):
            raise ValueError(f"`select_columns` {select_columns} are not all in `column_names` {column_names}")
        indices = sorted(picked)
    names = [column_names[i] for i in indices]
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}. Received: {label_name}.")
    if column_defaults is None:
        rows = first[1:] if header else first
        types = _infer([[r[i] if i < len(r) else b"" for i in indices] for r in rows], len(indices), na)
        column_defaults = [_typed_default(t) for t in types]
    dataset = CsvDataset(paths, column_defaults, compression_type=kind, header=header, field_delim=field_delim,
                         use_quote_delim=use_quote_delim, na_value=na_value, select_cols=indices)
    dataset._cycle = max(1, int(num_parallel_reads or 1))  # the files interleaved, as TF's make_csv_dataset
    dataset = _as_dicts(dataset, names, label_name)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    return dataset.batch(batch_size).prefetch(prefetch_buffer_size or 1)


def _typed_default(dtype):
    return string_constant([b""]) if dtype is dtypes.string else zeros([1], dtype)


def _as_dicts(dataset, names, label_name):
    def to_dict(*values):
        features = collections.OrderedDict(zip(names, values))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label
    return dataset.map(to_dict)
