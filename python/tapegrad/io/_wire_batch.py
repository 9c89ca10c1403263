"""A batch of serialized tf.train.Examples read by NumPy in one pass, for parse_example's FixedLenFeatures.

Note [Parsing a batch in one pass]: an Example's bytes are protobuf's wire format, nested three deep:
    Example:  field 1 (Features) = tag 0x0A, varint length, bytes
    Features: field 1 repeated (the map's entries), each tag 0x0A, varint length, bytes
    entry:    key = tag 0x0A, varint length, UTF-8;  value (Feature) = tag 0x12, varint length, bytes
    Feature:  one of bytes_list (tag 0x0A), float_list (0x12), int64_list (0x1A), varint length, bytes
    list:     float_list / int64_list: one packed field (tag 0x0A, varint length, little-endian float32s
              or varints); bytes_list: tag 0x0A, varint length, bytes, once a value
The batch's records are joined into one uint8 array, and each level is walked for every record at once
(one NumPy step a level, and a loop over the entries of the Example that has the most), which finds
every key's value bytes without a Python step per record. This is what protobuf writes for every
Example (TF's and tapegrad's writers: fields in order, packed lists). Anything else the wire format
allows (unknown or repeated fields, unpacked lists, a key twice or missing, another dtype or count
than the config's, a malformed record) makes ``fixed_features`` return None, and parse_example decodes
the batch record by record with protobuf, which gives the same values and TF's errors.
"""
import numpy as np

from tapegrad import dtypes

__all__ = ["fixed_features"]

_LIST_TAGS = {dtypes.string: 0x0A, dtypes.float32: 0x12, dtypes.int64: 0x1A}  # Feature's fields 1, 2, 3
_SHIFTS = np.arange(0, 70, 7, dtype=np.uint64)


class _Unusual(Exception):
    """The batch holds something this reader leaves to protobuf."""


def _expect(condition):
    if not condition.all():
        raise _Unusual


def _varints(buf, at):
    """The varints starting at positions ``at`` (int64 array): (values as int64, positions after them)."""
    byte = buf[at]
    if (byte < 0x80).all():  # the common case: every length below 128, one byte
        return byte.astype(np.int64), at + 1
    value = np.zeros(len(at), np.uint64)
    pos = at.copy()
    more = np.ones(len(at), bool)
    for shift in _SHIFTS:
        byte = buf[pos[more]]
        value[more] |= (byte & 0x7F).astype(np.uint64) << shift
        pos[more] += 1
        cont = byte >= 0x80
        more[np.flatnonzero(more)[~cont]] = False
        if not more.any():
            return value.view(np.int64), pos
    raise _Unusual  # longer than 10 bytes: not a varint


def _field(buf, at, end, tag):
    """The (start, end) of a length-delimited field with ``tag`` at ``at``, which must lie before ``end``."""
    _expect(at < end)
    _expect(buf[at] == tag)
    length, start = _varints(buf, at + 1)
    stop = start + length
    _expect((length >= 0) & (stop <= end))
    return start, stop


def _entries(buf, start, end):
    """Every map entry of every record: (record number, entry start, entry end), records in order."""
    records, starts, ends = [], [], []
    pos, index = start.copy(), np.arange(len(start))
    active = pos < end
    while active.any():
        rows = index[active]
        a, b = _field(buf, pos[rows], end[rows], 0x0A)
        records.append(rows), starts.append(a), ends.append(b)
        pos[rows] = b
        active = pos < end
    if not records:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(records), np.concatenate(starts), np.concatenate(ends)


def _key_rows(buf, owner, key_start, key_end, key, count):
    """The entry of each record whose key is ``key``, in record order; _Unusual unless each has one."""
    name = np.frombuffer(key.encode(), np.uint8)
    rows = np.flatnonzero(key_end - key_start == len(name))
    if len(name) and len(rows):
        same = (buf[key_start[rows, None] + np.arange(len(name))] == name).all(axis=1)
        rows = rows[same]
    if len(rows) != count:
        raise _Unusual
    rows = rows[np.argsort(owner[rows], kind="stable")]
    _expect(owner[rows] == np.arange(count))
    return rows


def _packed_varints(buf, start, end, want):
    """Each record's packed varints, ``want`` of them a record, as an int64 array [records, want]."""
    lengths = end - start
    if (lengths == want).all():  # the common case: every value below 128, one byte each
        data = buf[start[:, None] + np.arange(want)]
        if (data < 0x80).all():
            return data.astype(np.int64)
    _expect(lengths > 0)  # (reduceat of an empty segment would not be 0)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    data = buf[np.repeat(start - offsets, lengths) + np.arange(lengths.sum())]
    last = data < 0x80
    _expect(last[offsets + lengths - 1])  # each record's varints end inside its list
    _expect(np.add.reduceat(last.astype(np.int64), offsets) == want)
    ids = np.concatenate([[0], np.cumsum(last)[:-1]])
    first = np.flatnonzero(np.concatenate([[True], last[:-1]]))
    place = np.arange(len(data)) - first[ids]
    _expect(place < 10)
    parts = (data & 0x7F).astype(np.uint64) << (7 * place).astype(np.uint64)
    return np.add.reduceat(parts, first).view(np.int64).reshape(len(start), want)


def _values(buf, joined, start, end, dtype, want):
    """Each record's list bytes [start, end) as ``want`` values: an array [records, want]."""
    n = len(start)
    if dtype is dtypes.string:
        starts, ends, pos = np.empty((n, want), np.int64), np.empty((n, want), np.int64), start
        for j in range(want):
            a, b = _field(buf, pos, end, 0x0A)
            starts[:, j], ends[:, j], pos = a, b, b
        _expect(pos == end)
        out = np.empty(n * want, object)
        out[:] = [joined[a:b] for a, b in zip(starts.reshape(-1).tolist(), ends.reshape(-1).tolist())]
        return out.reshape(n, want)
    a, b = _field(buf, start, end, 0x0A)
    _expect(b == end)
    if dtype is dtypes.float32:
        _expect(b - a == 4 * want)
        raw = buf[a[:, None] + np.arange(4 * want)]
        return raw.reshape(-1).view("<f4").astype(np.float32).reshape(n, want)
    return _packed_varints(buf, a, b, want)


def fixed_features(records, configs):
    """{key: NumPy array [records] + shape} for FixedLenFeatures read as Note [Parsing a batch in one pass],
    or None when the batch is one to leave to protobuf. ``configs`` is {key: (dtype, dims)}."""
    n = len(records)
    if n == 0:
        return None
    try:
        joined = b"".join(records)
    except TypeError:  # (str records: protobuf's path says what they are)
        return None
    lengths = np.fromiter(map(len, records), np.int64, n)
    if (lengths == 0).any():
        return None
    buf = np.frombuffer(joined + bytes(16), np.uint8)  # (padding: a truncated varint reads zeros, then fails a check)
    end = np.cumsum(lengths)
    start = end - lengths
    try:
        features_start, features_end = _field(buf, start, end, 0x0A)
        _expect(features_end == end)
        owner, entry_start, entry_end = _entries(buf, features_start, features_end)
        key_start, key_end = _field(buf, entry_start, entry_end, 0x0A)
        value_start, value_end = _field(buf, key_end, entry_end, 0x12)
        _expect(value_end == entry_end)
        out = {}
        for key, (dtype, dims) in configs.items():
            want = int(np.prod(dims, dtype=np.int64))
            if want == 0:
                raise _Unusual
            rows = _key_rows(buf, owner, key_start, key_end, key, n)
            list_start, list_end = _field(buf, value_start[rows], value_end[rows], _LIST_TAGS[dtype])
            _expect(list_end == value_end[rows])
            out[key] = _values(buf, joined, list_start, list_end, dtype, want).reshape([n] + list(dims))
        return out
    except (_Unusual, IndexError):
        return None
