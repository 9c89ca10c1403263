"""Tensors a TF checkpoint keeps in slices (TF's sharding by size, MaxShardSizePolicy): the slice keys
of the .index table, and the tensor put together from its slices."""
import numpy as np

from tapegrad import errors

__all__ = ["from_slices", "slice_key"]


def from_slices(key, e, pieces, raw_of, ipath, dtypes):
    """A tensor saved in slices (TF's sharding by size): its entry lists the slices; each slice's values
    are an entry of their own under the key _slice_key reads."""
    shape = [d.size for d in e.shape.dim]
    if e.dtype not in dtypes:
        raise errors.UnimplementedError(None, None, f"Checkpoint: {ipath}: tensor '{key}' is saved in slices "
                                                    f"of TF dtype {e.dtype}; tapegrad reads numeric slices")
    out = np.zeros(shape, dtypes[e.dtype])
    filled = np.zeros(shape, bool)

    def whole(extents):  # a length of -1 is the whole dimension
        return tuple((0, n) if length < 0 else (start, length) for (start, length), n in zip(extents, shape))
    own = {whole(ext): p for (name, ext), p in pieces.items() if name == key and len(ext) == len(shape)}
    for piece in e.slices:
        extents = whole([(x.start, x.length if x.HasField("length") else -1) for x in piece.extent])
        if len(extents) != len(shape) or extents not in own:
            raise errors.DataLossError(None, None, f"Checkpoint: {ipath}: tensor '{key}' lacks its slice {extents}")
        index = tuple(slice(start, start + length) for start, length in extents)
        value = raw_of(f"{key} slice {extents}", own[extents])
        if value.shape != out[index].shape:
            raise errors.DataLossError(None, None, f"Checkpoint: {ipath}: slice {extents} of '{key}' has shape "
                                                   f"{value.shape}")
        out[index], filled[index] = value, True
    if not filled.all():
        raise errors.DataLossError(None, None, f"Checkpoint: {ipath}: the slices of '{key}' do not cover it")
    return out


def slice_key(key):
    """(tensor name, ((start, length or -1), ...)) of TF's key for one saved slice, written in OrderedCode:
    the number 0, the name (0x00 escaped as 00 ff, 0xff as ff 00, ended by 00 01), the rank, then each
    dimension's start and length as signed numbers. ValueError if it is not one."""
    if key[:1] != b"\x00":
        raise ValueError("not a slice key")
    name, pos = bytearray(), 1
    while True:
        i = min([j for j in (key.find(b"\x00", pos), key.find(b"\xff", pos)) if j >= 0], default=-1)
        if i < 0 or i + 1 >= len(key):
            raise ValueError(f"slice key {bytes(key[:40])!r} has no name end")
        name += key[pos:i]
        pair = key[i:i + 2]
        if pair == b"\x00\x01":
            pos = i + 2
            break
        name += {b"\x00\xff": b"\x00", b"\xff\x00": b"\xff"}.get(pair, b"?")
        if pair not in (b"\x00\xff", b"\xff\x00"):
            raise ValueError(f"slice key {bytes(key[:40])!r}: a bad escape")
        pos = i + 2
    n = key[pos]
    rank, pos = int.from_bytes(key[pos + 1:pos + 1 + n], "big"), pos + 1 + n
    dims = []
    for _ in range(rank):
        start, pos = _signed_increasing(key, pos)
        length, pos = _signed_increasing(key, pos)
        dims.append((start, length))
    if pos != len(key):
        raise ValueError("a slice key longer than its dimensions")
    return name.decode(), tuple(dims)


def _signed_increasing(key, pos):
    """OrderedCode's signed number at pos: n bytes whose first n bits are 1s then a 0 (0s then a 1 for a
    negative number, the bytes complemented), the value in the bits after. (number, next pos)."""
    first = key[pos]
    negative = not first & 0x80
    lead = first ^ 0xFF if negative else first
    n = 1
    while n < 8 and lead & (0x80 >> n):
        n += 1
    if n >= 8:
        raise ValueError("a slice extent of more than 7 bytes")
    piece = bytes(b ^ 0xFF for b in key[pos:pos + n]) if negative else bytes(key[pos:pos + n])
    if len(piece) < n:
        raise ValueError("a truncated slice extent")
    value = int.from_bytes(piece, "big") & ((1 << (8 * n - n - 1)) - 1)
    return (-value - 1 if negative else value), pos + n
