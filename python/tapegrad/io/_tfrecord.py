"""TFRecord files: tf.io.TFRecordWriter and TFRecordOptions, and the reader tf.data.TFRecordDataset uses.

Note [TFRecord framing]: a TFRecord file is records one after another, each
    uint64 length (little-endian) | uint32 masked crc32c of those 8 bytes | length bytes of data |
    uint32 masked crc32c of the data
(the mask is LevelDB's: rotate right 15 bits, add 0xa282ead8). A "GZIP" file is that stream in one
gzip member, a "ZLIB" file in one zlib stream. Reading checks both checksums of every record: a
length whose crc fails is "corrupted record at <offset>" (at offset 0: not a TFRecord file), a data
crc that fails at the data's offset, a file ending inside a record's data "truncated record at <offset>",
each a DataLossError naming the file, as TF's reader; a file ending inside a header ends the records
(TF reads files still being appended to).
"""
import gzip
import os
import struct
import zlib

from tapegrad import errors
from tapegrad.io._crc32c import crc32c, mask

__all__ = ["TFRecordWriter", "TFRecordOptions", "TFRecordCompressionType", "read_records", "read_lines",
           "compression_of"]


class TFRecordCompressionType:
    NONE, ZLIB, GZIP = 0, 1, 2


_NAMES = {None: "", "": "", "ZLIB": "ZLIB", "GZIP": "GZIP", TFRecordCompressionType.NONE: "",
          TFRecordCompressionType.ZLIB: "ZLIB", TFRecordCompressionType.GZIP: "GZIP"}


def compression_of(value):
    """"", "ZLIB" or "GZIP" from any spelling TF takes (a name, a TFRecordCompressionType, options)."""
    if isinstance(value, TFRecordOptions):
        return value.compression_type
    try:
        return _NAMES[value]
    except (KeyError, TypeError):
        raise ValueError(f'Not a valid compression_type: "{value}"') from None


class TFRecordOptions:
    """How a TFRecord file is compressed: ``compression_type`` "" (none), "ZLIB" or "GZIP", and the
    zlib ``compression_level`` (0-9; None: zlib's default). TF's other zlib knobs are accepted and kept."""

    compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB", TFRecordCompressionType.GZIP: "GZIP",
                            TFRecordCompressionType.NONE: ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        self.compression_type = compression_of(compression_type)
        if compression_level is not None and not (isinstance(compression_level, int) and -1 <= compression_level <= 9):
            raise ValueError(f"TFRecordOptions: compression_level must be an int in [-1, 9], got {compression_level!r}")
        self.compression_level = compression_level
        self.flush_mode = flush_mode
        self.input_buffer_size, self.output_buffer_size = input_buffer_size, output_buffer_size
        self.window_bits, self.compression_method = window_bits, compression_method
        self.mem_level, self.compression_strategy = mem_level, compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        return "" if not options else compression_of(options)


def _frame(data):
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", mask(crc32c(header))) + data + struct.pack("<I", mask(crc32c(data)))


class TFRecordWriter:
    """Writes records (bytes, or str as UTF-8) to a TFRecord file, compressed as ``options`` says.

    >>> with tf.io.TFRecordWriter(path) as writer:
    ...     writer.write(b"a record")
    """

    def __init__(self, path, options=None):
        self._path = os.fspath(path)
        kind = compression_of(options)
        level = options.compression_level if isinstance(options, TFRecordOptions) else None
        level = -1 if level is None else level
        try:
            raw = open(self._path, "wb")
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{self._path}; No such file or directory") from None
        except OSError as e:
            raise errors.PermissionDeniedError(None, None, f"{self._path}; {e.strerror}") from None
        self._raw, self._zlib = raw, None
        if kind == "GZIP":
            self._out = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9 if level == -1 else level, mtime=0)
        else:
            self._out = raw
            if kind == "ZLIB":
                self._zlib = zlib.compressobj(level)
        self._closed = False

    def write(self, record):
        if self._closed:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if isinstance(record, str):
            record = record.encode()
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(f"TFRecordWriter.write: a record is bytes or str, got {type(record).__name__}")
        data = _frame(bytes(record))
        self._out.write(self._zlib.compress(data) if self._zlib else data)

    def flush(self):
        if self._closed:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if self._zlib:
            self._out.write(self._zlib.flush(zlib.Z_SYNC_FLUSH))
        self._out.flush()

    def close(self):
        if self._closed:
            return
        self._closed = True
        if self._zlib:
            self._out.write(self._zlib.flush())
        if self._out is not self._raw:
            self._out.close()
        self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 -- at interpreter exit the file may be gone already
            pass


class _Inflated:
    """A binary file object over a zlib stream (TF's "ZLIB" TFRecord files)."""

    def __init__(self, raw):
        self._raw, self._z, self._buf = raw, zlib.decompressobj(), b""

    def read(self, n):
        while len(self._buf) < n:
            chunk = self._raw.read(1 << 16)
            if not chunk:
                self._buf += self._z.flush()
                break
            self._buf += self._z.decompress(chunk)
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def close(self):
        self._raw.close()


def _open(path, kind):
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    except OSError as e:
        raise errors.PermissionDeniedError(None, None, f"{path}; {e.strerror}") from None
    if kind == "GZIP":
        return _Gunzipped(raw)
    return _Inflated(raw) if kind == "ZLIB" else raw


class _Gunzipped(gzip.GzipFile):
    """A gzip stream that closes the file under it too."""

    def __init__(self, raw):
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw

    def close(self):
        try:
            super().close()
        finally:
            self._raw.close()


def _read_up_to(f, n):
    """n bytes of f, or fewer at its end, read in pieces: a damaged length never allocates its size."""
    pieces, left = [], n
    while left > 0:
        piece = f.read(min(left, 1 << 24))
        if not piece:
            break
        pieces.append(piece)
        left -= len(piece)
    return b"".join(pieces)


def _data_loss(path, text):
    return errors.DataLossError(None, None, f"{path}: {text}")


def read_records(path, compression_type=""):
    """The records of one TFRecord file, each checked (Note [TFRecord framing]), as bytes."""
    f = _open(path, compression_type)
    offset = 0
    try:
        while True:
            try:
                header = f.read(12)
            except (OSError, EOFError, zlib.error) as e:  # a damaged gzip or zlib stream
                raise _data_loss(path, f"corrupted record at {offset} ({type(e).__name__}: {e})") from None
            if len(header) < 12:  # the end, also inside a header, as TF (a file still being appended)
                return
            length, length_crc = struct.unpack("<QI", header)
            if mask(crc32c(header[:8])) != length_crc:
                hint = " (Is this even a TFRecord file?)" if offset == 0 else ""
                raise _data_loss(path, f"corrupted record at {offset}{hint}")
            try:
                data = _read_up_to(f, length + 4)
            except (OSError, EOFError, zlib.error) as e:
                raise _data_loss(path, f"corrupted record at {offset} ({type(e).__name__}: {e})") from None
            if len(data) < length + 4:
                raise _data_loss(path, f"truncated record at {offset}")
            record, (data_crc,) = data[:length], struct.unpack("<I", data[length:])
            if mask(crc32c(record)) != data_crc:  # TF names where the record's data starts
                raise _data_loss(path, f"corrupted record at {offset + 12}")
            yield record
            offset += 16 + length
    finally:
        f.close()


def read_lines(path, compression_type="", keep_returns=False):
    """The lines of one text file (TextLineDataset's), each without "\\n" and, unless keep_returns, any
    "\\r", as bytes."""
    f = _open(path, compression_type)
    tail = b""
    try:
        while True:
            try:
                chunk = f.read(1 << 16)
            except (OSError, EOFError, zlib.error) as e:
                raise _data_loss(path, f"not a readable {compression_type} file ({type(e).__name__}: {e})") from None
            if not chunk:
                break
            lines = (tail + chunk).split(b"\n")
            tail = lines.pop()
            for line in lines:
                yield line if keep_returns else line.replace(b"\r", b"")
        if tail:
            yield tail if keep_returns else tail.replace(b"\r", b"")
    finally:
        f.close()
