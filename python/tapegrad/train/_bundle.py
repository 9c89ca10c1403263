"""TensorFlow's checkpoint files: the TensorBundle ``.index`` table and ``.data-00000-of-00001`` shard.

Note [TensorBundle format]: a TF checkpoint with prefix "dir/ckpt-3" is two files.
  "dir/ckpt-3.data-00000-of-00001"  every tensor's bytes, one after another (little-endian, C order);
                                    a string tensor is its lengths as varint64s, the masked crc32c of
                                    the lengths as uint32s (4 bytes), then the strings' bytes.
  "dir/ckpt-3.index"                a sorted-string table (LevelDB's table format, uncompressed): under
                                    the empty key a BundleHeaderProto {num_shards=1, endianness=LITTLE,
                                    version{producer=1}}, under each tensor's key a BundleEntryProto
                                    {dtype, shape, shard_id=0, offset, size, masked crc32c of the
                                    bytes (a string tensor's: of uint32 lengths, checksum, strings)}.
The table is data blocks of (shared, unshared, value length as varint32s, key suffix, value) records
followed by uint32 restart offsets and their count, each block followed by a type byte (0: no
compression) and the masked crc32c of block + type; then an empty metaindex block, an index block
({last key of a data block: its BlockHandle}), and a 48-byte footer (the two handles as varint64
offset/size pairs, zero-padded to 40 bytes, then the magic 0xdb4775248b80fb57). Messages are encoded
by the small protobuf wire functions here (field numbers from TF's tensor_bundle.proto,
tensor_shape.proto, versions.proto). Reading checks every block's crc, every entry's offset/size
against the data file and every tensor's crc32c before returning anything.
"""
import os
import struct

import numpy as np

from tapegrad import errors

MAGIC = 0xDB4775248B80FB57
DATA_SUFFIX = ".data-00000-of-00001"
INDEX_SUFFIX = ".index"

# TF DataType enum values (types.proto) <-> numpy dtypes.
DTYPES = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8, 9: np.int64,
          10: np.bool_, 17: np.uint16, 19: np.float16, 22: np.uint32, 23: np.uint64}
DT_STRING = 7
_ENUM = {np.dtype(t): e for e, t in DTYPES.items()}


# ---- crc32c (Castagnoli), masked as LevelDB/TF store it
def _table():
    out = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        out.append(c)
    return out


_CRC_TABLE = _table()

def crc32c_py(data, crc=0):
    """crc32c of data continuing from crc, in Python (~7 MB/s)."""
    crc ^= 0xFFFFFFFF
    table = _CRC_TABLE
    for b in bytes(data):
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


try:  # google-crc32c's C implementation when it is installed
    import google_crc32c as _gcrc

    def crc32c(data, crc=0):
        return _gcrc.extend(crc, bytes(data))
except ImportError:  # pragma: no cover - depends on the environment
    crc32c = crc32c_py


def mask(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


# ---- protobuf wire format: just what these messages need
def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(buf, pos):
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise ValueError("truncated or overlong varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


def field_varint(number, value):
    return varint(number << 3) + varint(value) if value else b""


def field_bytes(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def field_fixed32(number, value):
    return varint(number << 3 | 5) + struct.pack("<I", value)


def parse(buf):
    """[(field number, wire type, value)] of one message; value is an int or a bytes slice."""
    out, pos, buf = [], 0, memoryview(buf)
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire == 1:
            value, pos = int.from_bytes(buf[pos:pos + 8], "little"), pos + 8
        elif wire == 2:
            n, pos = read_varint(buf, pos)
            value, pos = bytes(buf[pos:pos + n]), pos + n
        elif wire == 5:
            value, pos = int.from_bytes(buf[pos:pos + 4], "little"), pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        if pos > len(buf):
            raise ValueError("truncated protobuf message")
        out.append((number, wire, value))
    return out


# ---- BundleEntryProto / BundleHeaderProto
def _shape_proto(shape):
    return b"".join(field_bytes(2, field_varint(1, int(d))) for d in shape)


def _entry_proto(dtype_enum, shape, offset, size, crc):
    return (field_varint(1, dtype_enum) + field_bytes(2, _shape_proto(shape)) + field_varint(4, offset)
            + field_varint(5, size) + field_fixed32(6, crc))


HEADER = field_varint(1, 1) + field_bytes(3, field_varint(1, 1))  # num_shards=1, LITTLE, producer=1


def _parse_entry(value):
    entry = {"dtype": 0, "shape": [], "shard_id": 0, "offset": 0, "size": 0, "crc32c": None, "slices": False}
    for number, _, v in parse(value):
        if number == 1:
            entry["dtype"] = v
        elif number == 2:
            for n2, _, dim in parse(v):
                if n2 == 2:
                    entry["shape"].append(next((s for n3, _, s in parse(dim) if n3 == 1), 0))
                elif n2 == 3 and v:
                    raise ValueError("a tensor of unknown rank")
        elif number == 3:
            entry["shard_id"] = v
        elif number == 4:
            entry["offset"] = v
        elif number == 5:
            entry["size"] = v
        elif number == 6:
            entry["crc32c"] = v
        elif number == 7:
            entry["slices"] = True
    return entry


# ---- tensors <-> bytes
def tensor_crc(raw):
    """The crc32c a BundleEntryProto stores: masked, over the tensor's bytes in the data file (for a
    string tensor: over its lengths as uint32s, the lengths' checksum, then the strings)."""
    return mask(crc32c(raw))


def tensor_bytes(value):
    """(dtype enum, shape, bytes, entry crc) of a numpy array or a bytes/str scalar or array (DT_STRING)."""
    arr = np.asarray(value)
    if arr.dtype.kind in "SUO":
        items = [x.encode() if isinstance(x, str) else bytes(x) for x in arr.reshape(-1).tolist()]
        lengths32 = b"".join(struct.pack("<I", len(x)) for x in items)
        check = struct.pack("<I", mask(crc32c(lengths32)))
        strings = b"".join(items)
        raw = b"".join(varint(len(x)) for x in items) + check + strings
        return DT_STRING, arr.shape, raw, mask(crc32c(strings, crc32c(check, crc32c(lengths32))))
    dt = arr.dtype.newbyteorder("<") if arr.dtype.byteorder == ">" else arr.dtype
    if np.dtype(dt.type) not in _ENUM:
        raise TypeError(f"Checkpoint: cannot write a tensor of dtype {arr.dtype} in TF's format")
    raw = np.ascontiguousarray(arr, dtype=dt.newbyteorder("<")).tobytes()
    return _ENUM[np.dtype(dt.type)], arr.shape, raw, tensor_crc(raw)


def _tensor_from(entry, raw, key):
    shape = tuple(entry["shape"])
    count = int(np.prod(shape, dtype=np.int64))
    if entry["dtype"] == DT_STRING:
        pos, lengths = 0, []
        for _ in range(count):
            n, pos = read_varint(raw, pos)
            lengths.append(n)
        lengths32 = b"".join(struct.pack("<I", n) for n in lengths)
        if struct.unpack_from("<I", raw, pos)[0] != mask(crc32c(lengths32)):
            raise ValueError(f"the lengths of string tensor '{key}' fail their checksum")
        if entry["crc32c"] is not None and mask(crc32c(raw[pos:], crc32c(lengths32))) != entry["crc32c"]:
            raise ValueError(f"string tensor '{key}' fails its crc32c")
        pos += 4
        items = []
        for n in lengths:
            items.append(bytes(raw[pos:pos + n]))
            pos += n
        if pos != len(raw):
            raise ValueError(f"string tensor '{key}' holds {len(raw)} bytes, its lengths say {pos}")
        return np.array(items, dtype=object).reshape(shape)
    if entry["dtype"] not in DTYPES:
        raise ValueError(f"tensor '{key}' has TF dtype enum {entry['dtype']}, which tapegrad does not read")
    dt = np.dtype(DTYPES[entry["dtype"]]).newbyteorder("<")
    if len(raw) != count * dt.itemsize:
        raise ValueError(f"tensor '{key}' of shape {list(shape)} needs {count * dt.itemsize} bytes, "
                         f"the index says {len(raw)}")
    return np.frombuffer(raw, dtype=dt).astype(dt.newbyteorder("="), copy=True).reshape(shape)


# ---- the sorted-string table
def _block(records):
    """One table block of (key, value) records, every record a restart point (no shared prefix)."""
    body, restarts = bytearray(), []
    for key, value in records:
        restarts.append(len(body))
        body += varint(0) + varint(len(key)) + varint(len(value)) + key + value
    body += b"".join(struct.pack("<I", r) for r in (restarts or [0])) + struct.pack("<I", len(restarts or [0]))
    return bytes(body)


def _handle(offset, size):
    return varint(offset) + varint(size)


def table_bytes(records, block_size=4096):
    """A LevelDB-format table of sorted (bytes key, bytes value) records."""
    out, index = bytearray(), []

    def put(block):
        handle = _handle(len(out), len(block))
        out.extend(block + b"\x00" + struct.pack("<I", mask(crc32c(block + b"\x00"))))
        return handle

    chunk, size = [], 0
    for key, value in records:
        chunk.append((key, value))
        size += len(key) + len(value) + 8
        if size >= block_size:
            index.append((chunk[-1][0], put(_block(chunk))))
            chunk, size = [], 0
    if chunk or not index:
        index.append((chunk[-1][0] if chunk else b"", put(_block(chunk))))
    meta = put(_block([]))
    idx = put(_block(index))
    footer = (meta + idx).ljust(40, b"\x00") + struct.pack("<Q", MAGIC)
    return bytes(out + footer)


def _read_block(buf, handle_bytes):
    offset, pos = read_varint(handle_bytes, 0)
    size, _ = read_varint(handle_bytes, pos)
    if offset + size + 5 > len(buf):
        raise ValueError(f"a block at {offset}+{size} runs past the end of the file ({len(buf)} bytes)")
    block = buf[offset:offset + size + 1]
    if block[-1] != 0:
        raise ValueError(f"a block is compressed (type {block[-1]}), which tapegrad does not read")
    if struct.unpack_from("<I", buf, offset + size + 1)[0] != mask(crc32c(block)):
        raise ValueError(f"the block at offset {offset} fails its crc32c")
    return block[:-1]


def _records(block):
    if len(block) < 4:
        raise ValueError("a block shorter than its restart count")
    n = struct.unpack_from("<I", block, len(block) - 4)[0]
    end = len(block) - 4 - 4 * n
    if end < 0:
        raise ValueError("a block's restart array is larger than the block")
    pos, key, out = 0, b"", []
    while pos < end:
        shared, pos = read_varint(block, pos)
        unshared, pos = read_varint(block, pos)
        vlen, pos = read_varint(block, pos)
        if shared > len(key) or pos + unshared + vlen > end:
            raise ValueError("a record runs past its block")
        key = key[:shared] + bytes(block[pos:pos + unshared])
        pos += unshared
        out.append((key, bytes(block[pos:pos + vlen])))
        pos += vlen
    return out


def read_table(buf):
    """[(key, value)] of every record of a table, each block's crc checked."""
    buf = memoryview(buf)
    if len(buf) < 48 or struct.unpack_from("<Q", buf, len(buf) - 8)[0] != MAGIC:
        raise ValueError("no table footer (file truncated, or not a checkpoint index)")
    footer = bytes(buf[len(buf) - 48:len(buf) - 8])
    _, pos = read_varint(footer, 0)
    _, pos = read_varint(footer, pos)
    index = _records(_read_block(buf, footer[pos:]))
    records = []
    for _, handle in index:
        records += _records(_read_block(buf, handle))
    return records


# ---- whole checkpoints
def index_path(prefix):
    return os.fspath(prefix) + INDEX_SUFFIX


def data_file(prefix):
    return os.fspath(prefix) + DATA_SUFFIX


def encode(tensors):
    """(index bytes, data bytes) of {key: value}; keys sorted as bytes, as the table needs."""
    data, records = bytearray(), [(b"", HEADER)]
    for key in sorted(tensors, key=lambda k: k.encode()):
        enum, shape, raw, crc = tensor_bytes(tensors[key])
        records.append((key.encode(), _entry_proto(enum, shape, len(data), len(raw), crc)))
        data += raw
    return table_bytes(records), bytes(data)


def read(prefix):
    """{key: numpy array} of the TF checkpoint at prefix, every tensor checked; DataLossError naming the
    file otherwise."""
    ipath, dpath = index_path(prefix), data_file(prefix)
    try:
        with open(ipath, "rb") as f:
            index = f.read()
    except OSError as e:
        raise errors.NotFoundError(None, None, f"Checkpoint: cannot read {ipath}: {e}") from None
    try:
        records = read_table(index)
        if not records or records[0][0] != b"":
            raise ValueError("no BundleHeaderProto under the empty key")
        header = {n: v for n, _, v in parse(records[0][1])}
        if header.get(1, 1) != 1:
            raise ValueError(f"{header.get(1)} shards; tapegrad reads single-shard checkpoints")
        if header.get(2, 0) != 0:
            raise ValueError("a big-endian checkpoint")
        entries = {k.decode(): _parse_entry(v) for k, v in records[1:]}
    except (ValueError, UnicodeDecodeError, struct.error) as e:
        raise errors.DataLossError(None, None, f"Checkpoint: {ipath} is corrupted or truncated: {e}") from None
    for key, e in entries.items():
        if e["slices"] or e["shard_id"] != 0:
            raise errors.UnimplementedError(None, None, f"Checkpoint: {ipath}: tensor '{key}' is partitioned "
                                                        "(sliced or in another shard); tapegrad does not read that")
    try:
        with open(dpath, "rb") as f:
            data = memoryview(f.read())
    except OSError as e:
        raise errors.DataLossError(None, None, f"Checkpoint: {ipath} needs its data file {dpath}: {e}") from None
    out = {}
    try:
        for key, e in entries.items():
            if e["offset"] + e["size"] > len(data):
                raise ValueError(f"tensor '{key}' at {e['offset']}+{e['size']} runs past the end of the file "
                                 f"({len(data)} bytes)")
            raw = data[e["offset"]:e["offset"] + e["size"]]
            if e["dtype"] != DT_STRING and e["crc32c"] is not None and tensor_crc(raw) != e["crc32c"]:
                raise ValueError(f"tensor '{key}' fails its crc32c")
            out[key] = _tensor_from(e, raw, key)
    except (ValueError, struct.error) as err:
        raise errors.DataLossError(None, None, f"Checkpoint: {dpath} is corrupted or truncated: {err}") from None
    return out


# ---- TrackableObjectGraph (trackable_object_graph.proto), stored under OBJECT_GRAPH_KEY
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def encode_object_graph(nodes):
    """TrackableObjectGraph bytes of nodes: dicts with "children" [(node id, local name)], "attributes"
    [(name, full name, checkpoint key)] and "slots" [(original variable id, slot name, slot id)]."""
    out = bytearray()
    for node in nodes:
        body = b"".join(field_bytes(1, field_varint(1, i) + field_bytes(2, name.encode()))
                        for i, name in node.get("children", ()))
        body += b"".join(field_bytes(2, field_bytes(1, n.encode()) + field_bytes(2, full.encode())
                                     + field_bytes(3, key.encode())) for n, full, key in node.get("attributes", ()))
        body += b"".join(field_bytes(3, field_varint(1, o) + field_bytes(2, name.encode()) + field_varint(3, s))
                         for o, name, s in node.get("slots", ()))
        body += field_bytes(5, field_varint(1, 1))  # has_checkpoint_values: true
        out += field_bytes(1, body)
    return bytes(out)


def decode_object_graph(data):
    """The nodes of a TrackableObjectGraph, as encode_object_graph takes them."""
    nodes = []
    for number, wire, body in parse(data):
        if number != 1 or wire != 2:
            continue
        node = {"children": [], "attributes": [], "slots": []}
        for n, w, v in parse(body):
            if w != 2:
                continue
            f = {a: b for a, _, b in parse(v)}
            if n == 1:
                node["children"].append((f.get(1, 0), f.get(2, b"").decode()))
            elif n == 2:
                node["attributes"].append((f.get(1, b"").decode(), f.get(2, b"").decode(), f.get(3, b"").decode()))
            elif n == 3:
                node["slots"].append((f.get(1, 0), f.get(2, b"").decode(), f.get(3, 0)))
        nodes.append(node)
    for node in nodes:
        for i, name in node["children"]:
            if i >= len(nodes):
                raise ValueError(f"child '{name}' names node {i} of {len(nodes)}")
        for o, name, s in node["slots"]:
            if o >= len(nodes) or s >= len(nodes):
                raise ValueError(f"slot '{name}' names a node past the {len(nodes)} in the graph")
    return nodes


def node_paths(nodes, limit=8):
    """{node id: [paths from the root]} (shortest first, at most limit each; root is "")."""
    paths, queue = {0: [""]}, [(0, "", frozenset([0]))]
    while queue:
        node, path, on_path = queue.pop(0)
        for child, name in nodes[node]["children"]:
            if child in on_path or len(paths.setdefault(child, [])) >= limit:
                continue
            sub = f"{path}/{name}" if path else name
            paths[child].append(sub)
            queue.append((child, sub, on_path | {child}))
    return paths
