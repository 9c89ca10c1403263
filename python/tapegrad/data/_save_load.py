"""Dataset.save and Dataset.load (and tf.data.experimental.save / load): a dataset's elements written to
a folder, and read back as a dataset with the same element_spec, cardinality and (one shard) order.

Note [Saved dataset layout]: TF writes its snapshot format (protos, chunked shard files in a folder per
run); tapegrad writes a documented layout of its own, which TF does not read (nor tapegrad TF's):
    path/dataset.json       {"format": "tapegrad.data.Dataset.save", "version": 1, "element_spec": spec,
                             "compression": "" | "GZIP" | "ZLIB", "num_elements": n,
                             "shards": [["run-<hex>/<shard, 8 digits>.tfrecord", elements], ...]}
    path/run-<hex>/*.tfrecord   TFRecord files (compressed as "compression"), one record an element: its
                             flat components in tf.nest order (dicts by sorted key), each an 8-byte
                             little-endian length and then the component's TensorProto bytes (TF's
                             tensor.proto, which holds its dtype and shape)
``spec`` nests as the element: {"tensor": dtype name, "shape": [dims, null for unknown] or null},
{"tuple": [specs]}, {"dict": [[key, spec], ...]}, {"namedtuple": name, "fields": [...], "items": [specs]}.
A save writes its shards into a new run folder, syncs them, then replaces dataset.json atomically
(io/_atomic.py) and only then removes earlier runs: a reader sees the earlier dataset or the new one,
whole, and an interrupted save leaves the earlier one. ``shard_func`` (element -> scalar int64) picks
each element's shard (shard 0 for all without it); load reads a single shard in order and several by
``reader_func`` (a dataset of the shard datasets -> a dataset), by default TF's: interleaved, as many
at a time as there are cores. ``checkpoint_args`` is accepted: a save here is not resumed. Loading
with an element_spec checks each element against it (TF's InvalidArgumentError at iteration).
"""
import collections
import json
import os
import struct
import uuid

import numpy as np

from tapegrad import _protos, dtypes, errors
from tapegrad._tensor.string_tensor import StringTensor
from tapegrad._tensor.tensor import Tensor, TensorSpec
from tapegrad.data import _structure as st
from tapegrad.data._dataset import Dataset
from tapegrad.data._windowing import Elements
from tapegrad.io._args import kernel_dtype_name
from tapegrad.io._atomic import atomic_write
from tapegrad.io._tensor_proto import _BY_ENUM, _values, tensor_proto
from tapegrad.io._tfrecord import TFRecordOptions, TFRecordWriter, read_records

__all__ = ["load", "save"]

_FORMAT, _VERSION, _META = "tapegrad.data.Dataset.save", 1, "dataset.json"
_COMPRESSIONS = {None: "", "": "", "NONE": "", "GZIP": "GZIP", "ZLIB": "ZLIB"}


def _compression(value, op):
    try:
        return _COMPRESSIONS[value]
    except (KeyError, TypeError):
        raise ValueError(f"{op}: compression must be None, \"NONE\", \"GZIP\" or \"ZLIB\", got {value!r}") from None


def _spec_json(spec):
    if isinstance(spec, TensorSpec):
        return {"tensor": spec.dtype.name, "shape": None if spec.shape.rank is None else list(spec.shape)}
    if isinstance(spec, dict):
        if not all(isinstance(k, str) for k in spec):
            raise TypeError(f"Dataset.save: dict keys of an element must be strings, got {sorted(map(repr, spec))}")
        return {"dict": [[k, _spec_json(spec[k])] for k in sorted(spec)]}
    if isinstance(spec, tuple) and hasattr(spec, "_fields"):
        return {"namedtuple": type(spec).__name__, "fields": list(spec._fields), "items": [_spec_json(s) for s in spec]}
    if isinstance(spec, tuple):
        return {"tuple": [_spec_json(s) for s in spec]}
    raise TypeError(f"Dataset.save: an element holding {type(spec).__name__} ({spec!r}) cannot be saved; "
                    "tensors nested in tuples and dicts can")


def _spec_of_json(data):
    if "tensor" in data:
        return TensorSpec(data["shape"], dtypes.as_dtype(data["tensor"]))
    if "dict" in data:
        return {k: _spec_of_json(v) for k, v in data["dict"]}
    if "namedtuple" in data:
        return collections.namedtuple(data["namedtuple"], data["fields"])(*[_spec_of_json(s) for s in data["items"]])
    return tuple(_spec_of_json(s) for s in data["tuple"])


def _leaf_array(leaf, spec):
    if isinstance(leaf, StringTensor):
        return np.asarray(leaf._value, dtype=object)
    if isinstance(leaf, Tensor):
        return leaf.numpy()
    return np.asarray(leaf, dtype=object if spec.dtype is dtypes.string else spec.dtype.as_numpy_dtype)


def _record(flat, specs):
    pieces = []
    for leaf, spec in zip(flat, specs):
        data = tensor_proto(_leaf_array(leaf, spec), spec.dtype).SerializeToString()
        pieces += [struct.pack("<Q", len(data)), data]
    return b"".join(pieces)


def _shard_of(shard_func, flat, dataset):
    element = dataset._to_tensors(flat)
    index = shard_func(*element) if type(dataset.element_spec) is tuple else shard_func(element)
    if not isinstance(index, Tensor) or index.dtype != dtypes.int64 or index.shape.rank != 0:
        raise errors.InvalidArgumentError(None, None, "`shard_func` must return a scalar int64.")
    value = int(index)
    if value < 0:
        raise errors.InvalidArgumentError(None, None, f"`shard_func` must return a non-negative shard index, got "
                                          f"{value}.")
    return value


def _sync(path):
    with open(path, "rb+") as f:
        os.fsync(f.fileno())


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """Writes every element of ``dataset`` under the folder ``path`` (Note [Saved dataset layout])."""
    kind = _compression(compression, "Dataset.save")
    path = os.fspath(path)
    spec_json = _spec_json(dataset.element_spec)
    run = f"run-{uuid.uuid4().hex}"
    os.makedirs(os.path.join(path, run))
    writers, counts, total = {}, {}, 0
    try:
        for flat in dataset._flat():
            shard = 0 if shard_func is None else _shard_of(shard_func, flat, dataset)
            if shard not in writers:
                name = os.path.join(path, run, f"{shard:08d}.tfrecord")
                writers[shard] = TFRecordWriter(name, TFRecordOptions(kind or None))
                counts[shard] = 0
            writers[shard].write(_record(flat, dataset._specs))
            counts[shard] += 1
            total += 1
    finally:
        for writer in writers.values():
            writer.close()
    names = {shard: f"{run}/{shard:08d}.tfrecord" for shard in counts}
    for shard in sorted(names):
        _sync(os.path.join(path, names[shard]))
    meta = {"format": _FORMAT, "version": _VERSION, "element_spec": spec_json, "compression": kind,
            "num_elements": total, "shards": [[names[s], counts[s]] for s in sorted(names)]}
    atomic_write(os.path.join(path, _META), lambda f: f.write(json.dumps(meta, indent=1).encode()))
    for entry in os.listdir(path):  # earlier saves' runs, now unreferenced
        if entry.startswith("run-") and entry != run and os.path.isdir(os.path.join(path, entry)):
            for name in os.listdir(os.path.join(path, entry)):
                os.remove(os.path.join(path, entry, name))
            os.rmdir(os.path.join(path, entry))


class _Shard(Dataset):
    """The elements of one shard file, checked against the element_spec."""

    def __init__(self, file, count, spec, compression):
        self._file, self._count, self._compression = file, count, compression
        super().__init__(spec)

    def _card(self):
        return self._count

    def _flat(self):
        for record in read_records(self._file, self._compression):
            yield self._decode(record)

    def _decode(self, record):
        out, pos = [], 0
        for i, spec in enumerate(self._specs):
            if pos + 8 > len(record):
                raise errors.InvalidArgumentError(None, None, f"Dataset.load: {self._file} holds elements of "
                                                  f"{i} components, but the element_spec has {len(self._specs)}")
            (n,) = struct.unpack_from("<Q", record, pos)
            proto = _protos.TensorProto.FromString(record[pos + 8:pos + 8 + n])
            pos += 8 + n
            got = _BY_ENUM.get(proto.dtype)
            if got is not spec.dtype:
                got_name = kernel_dtype_name(got) if got is not None else _protos.DataType.Name(proto.dtype)
                raise errors.InvalidArgumentError(None, None, f"Data type mismatch at component {i}: expected "
                                                  f"{kernel_dtype_name(spec.dtype)} but got {got_name}.")
            array = _values(proto, "Dataset.load")
            if not spec.shape.is_compatible_with(array.shape):
                raise errors.InvalidArgumentError(None, None, f"Shape mismatch at component {i}: expected "
                                                  f"{spec.shape} but got {list(array.shape)}.")
            out.append(array)
        if pos != len(record):
            raise errors.InvalidArgumentError(None, None, f"Dataset.load: {self._file} holds elements of more "
                                              f"components than the element_spec's {len(self._specs)}")
        return tuple(out)


class _Loaded(Dataset):
    """What reader_func made of the shards, with the saved element count when no reader_func was given."""

    def __init__(self, inner, count):
        self._inner, self._count = inner, count
        super().__init__(inner.element_spec)

    def _card(self):
        return self._count if self._count is not None else self._inner._card()

    def _flat(self):
        return self._inner._flat()


def load(path, element_spec=None, compression=None, reader_func=None, wait=False):
    """The dataset saved under ``path`` by Dataset.save (Note [Saved dataset layout])."""
    kind = _compression(compression, "Dataset.load")
    path = os.fspath(path)
    meta_path = os.path.join(path, _META)
    if not os.path.isfile(meta_path):
        if element_spec is None:
            raise errors.NotFoundError(None, None, f"tf.data snapshot element_spec file not found: {meta_path}.")
        raise errors.NotFoundError(None, None, f"Could not find metadata file [{path}]")
    with open(meta_path, "rb") as f:
        meta = json.loads(f.read().decode())
    if meta.get("format") != _FORMAT or meta.get("version") != _VERSION:
        raise errors.DataLossError(None, None, f"{meta_path}: not a dataset saved by tapegrad's Dataset.save")
    spec = _spec_of_json(meta["element_spec"]) if element_spec is None else element_spec
    shards = [_Shard(os.path.join(path, name), count, spec, kind) for name, count in meta["shards"]]
    if reader_func is None:
        if len(shards) == 1:
            return _Loaded(shards[0], meta["num_elements"])
        # TF's default reader: the shards interleaved, as many at a time as there are cores
        inner = Elements(shards, st.DatasetSpec(spec)).interleave(lambda shard: shard, cycle_length=os.cpu_count())
        return _Loaded(inner, meta["num_elements"])
    return _Loaded(reader_func(Elements(shards, st.DatasetSpec(spec))), None)


# Dataset's module is at its size cap (tests/test_size.py): its save and load methods are attached here.
Dataset.save = save
Dataset.load = staticmethod(load)
