"""TensorFlow's checkpoint files: the TensorBundle ``.index`` table and its ``.data-0000i-of-0000n`` shards.

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
offset/size pairs, zero-padded to 40 bytes, then the magic 0xdb4775248b80fb57). The messages are
tapegrad._protos' classes (Note [Protos as descriptor code]); the table and the string tensors' lengths
are not protobuf and are written here. Reading checks every block's crc, every entry's offset/size
against the data file and every tensor's crc32c before returning anything; a damaged message is a
DataLossError naming the file, as a damaged block is.
"""
import os
import struct

import ml_dtypes
import numpy as np
from google.protobuf.message import DecodeError

from tapegrad import _protos, errors
from tapegrad.io._crc32c import crc32c, crc32c_py, mask  # noqa: F401 (crc32c_py: the tests hold crc32c to it)
from tapegrad.train._bundle_slices import from_slices, slice_key

MAGIC = 0xDB4775248B80FB57
DATA_SUFFIX = ".data-00000-of-00001"
INDEX_SUFFIX = ".index"

# TF DataType enum values (types.proto) <-> numpy dtypes.
DTYPES = {_protos.DataType.Value(name): t for name, t in (
    ("DT_FLOAT", np.float32), ("DT_DOUBLE", np.float64), ("DT_INT32", np.int32), ("DT_UINT8", np.uint8),
    ("DT_INT16", np.int16), ("DT_INT8", np.int8), ("DT_INT64", np.int64), ("DT_BOOL", np.bool_),
    ("DT_UINT16", np.uint16), ("DT_HALF", np.float16), ("DT_UINT32", np.uint32), ("DT_UINT64", np.uint64),
    ("DT_BFLOAT16", ml_dtypes.bfloat16))}
DT_STRING = _protos.DataType.Value("DT_STRING")
_ENUM = {np.dtype(t): e for e, t in DTYPES.items()}


# ---- varints: the table's lengths and offsets, and a string tensor's lengths
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


# ---- BundleEntryProto / BundleHeaderProto (tapegrad._protos)
HEADER = _protos.BundleHeaderProto(num_shards=1, endianness=_protos.BundleHeaderProto.LITTLE,
                                   version=_protos.VersionDef(producer=1)).SerializeToString()


def _entry_proto(dtype_enum, shape, offset, size, crc):
    entry = _protos.BundleEntryProto(dtype=dtype_enum, offset=offset, size=size, crc32c=crc)
    entry.shape.SetInParent()  # a scalar's shape is there and empty, as TF writes it
    for d in shape:
        entry.shape.dim.add(size=int(d))
    return entry.SerializeToString()


def _parse_entry(key, value):
    """(key, BundleEntryProto) of one table record, the shape checked."""
    key, entry = key.decode(), _protos.BundleEntryProto.FromString(value)
    shape = [d.size for d in entry.shape.dim]
    if entry.shape.unknown_rank or any(d < 0 for d in shape):
        raise ValueError(f"tensor '{key}' has an unknown shape ({shape}, unknown rank: {entry.shape.unknown_rank})")
    return key, entry


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
    shape = tuple(d.size for d in entry.shape.dim)
    count = int(np.prod(shape, dtype=np.int64))
    if entry.dtype == DT_STRING:
        pos, lengths = 0, []
        for _ in range(count):
            n, pos = read_varint(raw, pos)
            lengths.append(n)
        lengths32 = b"".join(struct.pack("<I", n) for n in lengths)
        if struct.unpack_from("<I", raw, pos)[0] != mask(crc32c(lengths32)):
            raise ValueError(f"the lengths of string tensor '{key}' fail their checksum")
        if mask(crc32c(raw[pos:], crc32c(lengths32))) != entry.crc32c:
            raise ValueError(f"string tensor '{key}' fails its crc32c")
        pos += 4
        items = []
        for n in lengths:
            items.append(bytes(raw[pos:pos + n]))
            pos += n
        if pos != len(raw):
            raise ValueError(f"string tensor '{key}' holds {len(raw)} bytes, its lengths say {pos}")
        return np.array(items, dtype=object).reshape(shape)
    if entry.dtype not in DTYPES:
        raise ValueError(f"tensor '{key}' has TF dtype enum {entry.dtype}, which tapegrad does not read")
    dt = np.dtype(DTYPES[entry.dtype]).newbyteorder("<")
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


def shard_file(prefix, shard, shards):
    return f"{os.fspath(prefix)}.data-{shard:05d}-of-{shards:05d}"


def read(prefix):
    """{key: numpy array} of the TF checkpoint at prefix (its data in one shard or several, as the
    header says), every tensor checked; DataLossError naming the file otherwise."""
    ipath = index_path(prefix)
    try:
        with open(ipath, "rb") as f:
            index = f.read()
    except OSError as e:
        raise errors.NotFoundError(None, None, f"Checkpoint: cannot read {ipath}: {e}") from None
    try:
        records = read_table(index)
        if not records or records[0][0] != b"":
            raise ValueError("no BundleHeaderProto under the empty key")
        header = _protos.BundleHeaderProto.FromString(records[0][1])
        if header.endianness != _protos.BundleHeaderProto.LITTLE:
            raise ValueError("a big-endian checkpoint")
        shards = max(1, header.num_shards)  # 0: not written, as protobuf leaves out a field's default
        entries = dict(_parse_entry(k, v) for k, v in records[1:] if not k.startswith(b"\x00"))
        pieces = {slice_key(k): _parse_entry(b"slice", v)[1] for k, v in records[1:] if k.startswith(b"\x00")}
        for key, e in list(entries.items()) + [(f"{n} slice", e) for (n, _), e in pieces.items()]:
            if not 0 <= e.shard_id < shards:
                raise ValueError(f"tensor '{key}' is in shard {e.shard_id} of {shards}")
    except (ValueError, DecodeError, struct.error) as e:
        raise errors.DataLossError(None, None, f"Checkpoint: {ipath} is corrupted or truncated: {e}") from None
    data = {}

    def raw_of(key, e):
        dpath = shard_file(prefix, e.shard_id, shards)
        if dpath not in data:
            try:
                with open(dpath, "rb") as f:
                    data[dpath] = memoryview(f.read())
            except OSError as err:
                raise errors.DataLossError(None, None, f"Checkpoint: {ipath} needs its data file {dpath}: "
                                                       f"{err}") from None
        try:
            shard = data[dpath]
            if e.offset < 0 or e.size < 0 or e.offset + e.size > len(shard):
                raise ValueError(f"tensor '{key}' at {e.offset}+{e.size} runs past the end of the file "
                                 f"({len(shard)} bytes)")
            raw = shard[e.offset:e.offset + e.size]
            if e.dtype != DT_STRING and tensor_crc(raw) != e.crc32c:
                raise ValueError(f"tensor '{key}' fails its crc32c")
            return _tensor_from(e, raw, key)
        except (ValueError, struct.error) as err:
            raise errors.DataLossError(None, None, f"Checkpoint: {dpath} is corrupted or truncated: {err}") from None

    out = {}
    for key, e in entries.items():
        out[key] = from_slices(key, e, pieces, raw_of, ipath, DTYPES) if e.slices else raw_of(key, e)
    return out


# ---- TrackableObjectGraph (trackable_object_graph.proto), stored under OBJECT_GRAPH_KEY
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def encode_object_graph(nodes):
    """TrackableObjectGraph bytes of nodes: dicts with "children" [(node id, local name)], "attributes"
    [(name, full name, checkpoint key)] and "slots" [(original variable id, slot name, slot id)]."""
    graph = _protos.TrackableObjectGraph()
    for node in nodes:
        obj = graph.nodes.add()
        for i, name in node.get("children", ()):
            obj.children.add(node_id=i, local_name=name)
        for name, full, key in node.get("attributes", ()):
            obj.attributes.add(name=name, full_name=full, checkpoint_key=key)
        for o, name, s in node.get("slots", ()):
            obj.slot_variables.add(original_variable_node_id=o, slot_name=name, slot_variable_node_id=s)
        obj.has_checkpoint_values.value = True
    return graph.SerializeToString()


def decode_object_graph(data):
    """The nodes of a TrackableObjectGraph, as encode_object_graph takes them; ValueError if data is not
    one, has no root or names a node it lacks."""
    if not isinstance(data, bytes):
        raise ValueError(f"the object graph is a {type(data).__name__}, not a string")
    try:
        graph = _protos.TrackableObjectGraph.FromString(data)
    except DecodeError as e:
        raise ValueError(f"not a TrackableObjectGraph: {e}") from None
    nodes = [{"children": [(c.node_id, c.local_name) for c in obj.children],
              "attributes": [(a.name, a.full_name, a.checkpoint_key) for a in obj.attributes],
              "slots": [(s.original_variable_node_id, s.slot_name, s.slot_variable_node_id)
                        for s in obj.slot_variables]} for obj in graph.nodes]
    if not nodes:
        raise ValueError("the object graph has no root node")
    for node in nodes:
        for i, name in node["children"]:
            if not 0 <= i < len(nodes):
                raise ValueError(f"child '{name}' names node {i} of {len(nodes)}")
        for o, name, s in node["slots"]:
            if not (0 <= o < len(nodes) and 0 <= s < len(nodes)):
                raise ValueError(f"slot '{name}' names a node outside the {len(nodes)} in the graph")
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
