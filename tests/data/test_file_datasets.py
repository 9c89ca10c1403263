"""TFRecord and text files (Note [TFRecord framing]): tf.io.TFRecordWriter writes TF's bytes, tf.data.TFRecordDataset
reads them back in each compression, interleaves files as TF does, and raises TF's errors, naming the
file, on damaged, truncated and missing files. TF reading and writing them: test_tf_oracle_file_datasets.py."""
import gzip
import zlib

import numpy as np
import pytest

import tapegrad as tf

# TF 2.21's TFRecordWriter output for the records b"hello", "wörld", b"".
TF_BYTES = (b"\x05\x00\x00\x00\x00\x00\x00\x00\xea\xb2\x04>hello\xbb\x1f\x1c\x19\x06\x00\x00\x00\x00\x00\x00\x00"
            b"si\xd57w\xc3\xb6rldj\x892Z\x00\x00\x00\x00\x00\x00\x00\x00)\x03\x98\x07\xd8\xea\x82\xa2")
RECORDS = [b"hello", "wörld".encode(), b""]


def _records(ds):
    return [r.numpy() for r in ds]


def test_the_writer_writes_tfs_bytes(tmp_path):
    with tf.io.TFRecordWriter(str(tmp_path / "a.tfrecord")) as w:
        w.write(b"hello")
        w.write("wörld")
        w.write(b"")
    assert (tmp_path / "a.tfrecord").read_bytes() == TF_BYTES


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB", None])
def test_records_round_trip_in_each_compression(tmp_path, compression):
    path = str(tmp_path / "r.tfrecord")
    records = [bytes([i]) * i for i in range(50)] + [b"\xff" * 100_000]
    with tf.io.TFRecordWriter(path, options=tf.io.TFRecordOptions(compression_type=compression)) as w:
        for r in records:
            w.write(r)
    raw = (tmp_path / "r.tfrecord").read_bytes()
    plain = {"GZIP": gzip.decompress, "ZLIB": zlib.decompress}.get(compression or "", lambda b: b)(raw)
    assert plain.startswith(b"\x00" * 8)  # the first record is empty: a zero length
    ds = tf.data.TFRecordDataset(path, compression_type=compression)
    assert ds.element_spec == tf.TensorSpec([], tf.string)
    assert _records(ds) == records


def test_files_read_in_order_or_interleaved_as_tf(tmp_path):
    names = []
    for i in range(4):
        names.append(str(tmp_path / f"f{i}.tfr"))
        with tf.io.TFRecordWriter(names[-1]) as w:
            for j in range(3):
                w.write(f"{i}{j}")
    decoded = lambda ds: [r.decode() for r in _records(ds)]  # noqa: E731
    in_order = [f"{i}{j}" for i in range(4) for j in range(3)]
    assert decoded(tf.data.TFRecordDataset(names)) == in_order
    assert decoded(tf.data.TFRecordDataset(names, num_parallel_reads=tf.data.AUTOTUNE)) == in_order
    # TF 2.21's order with three files read at once: a finished file's place goes to the next file
    assert decoded(tf.data.TFRecordDataset(names, num_parallel_reads=3)) == \
        ["00", "10", "20", "01", "11", "21", "02", "12", "22", "30", "31", "32"]
    uneven = [str(tmp_path / f"g{i}.tfr") for i in range(5)]
    for name, n in zip(uneven, [3, 1, 4, 0, 2]):
        with tf.io.TFRecordWriter(name) as w:
            for j in range(n):
                w.write(f"{name[-5]}:{j}")
    assert decoded(tf.data.TFRecordDataset(uneven, num_parallel_reads=2)) == \
        ["0:0", "1:0", "0:1", "0:2", "2:0", "2:1", "2:2", "4:0", "2:3", "4:1"]  # TF 2.21's order
    assert decoded(tf.data.TFRecordDataset(uneven, num_parallel_reads=5)) == \
        ["0:0", "1:0", "2:0", "4:0", "0:1", "2:1", "4:1", "0:2", "2:2", "2:3"]
    assert decoded(tf.data.TFRecordDataset(tf.constant(names[:2]))) == in_order[:6]
    assert decoded(tf.data.TFRecordDataset(tf.data.Dataset.from_tensor_slices(names[2:]))) == in_order[6:]
    lengths = tf.data.TFRecordDataset(names).map(tf.strings.length).batch(5)
    assert [b.numpy().tolist() for b in lengths] == [[2] * 5, [2] * 5, [2] * 2]


def _write(path, data):
    path.write_bytes(data)
    return str(path)


def test_damaged_truncated_and_missing_files_raise_as_tf(tmp_path):
    data = bytearray(TF_BYTES)
    data[14] ^= 1  # inside the first record's data
    with pytest.raises(tf.errors.DataLossError, match=r"bad.tfrecord: corrupted record at 12$"):
        _records(tf.data.TFRecordDataset(_write(tmp_path / "bad.tfrecord", bytes(data))))
    data = bytearray(TF_BYTES)
    data[2] ^= 1  # the first length
    with pytest.raises(tf.errors.DataLossError, match=r"corrupted record at 0 \(Is this even a TFRecord file\?\)"):
        _records(tf.data.TFRecordDataset(_write(tmp_path / "len.tfrecord", bytes(data))))
    with pytest.raises(tf.errors.DataLossError, match=r"trunc.tfrecord: truncated record at 43"):
        _records(tf.data.TFRecordDataset(_write(tmp_path / "trunc.tfrecord", TF_BYTES[:-3])))
    # a file ending inside a record's header ends the records (TF reads files still being appended to)
    assert _records(tf.data.TFRecordDataset(_write(tmp_path / "tail.tfrecord", TF_BYTES + b"\x05" * 11))) == RECORDS
    with pytest.raises(tf.errors.NotFoundError, match="none.tfrecord"):
        _records(tf.data.TFRecordDataset(str(tmp_path / "none.tfrecord")))
    with pytest.raises(tf.errors.DataLossError, match="gz.tfrecord: corrupted record at 0"):
        _records(tf.data.TFRecordDataset(_write(tmp_path / "gz.tfrecord", b"\x1f\x8b" + b"\x00" * 30), "GZIP"))
    # a damaged length that passes its crc cannot make the reader allocate it: it is a truncated record
    import struct
    from tapegrad.io._crc32c import crc32c, mask
    header = struct.pack("<Q", 1 << 60)
    forged = header + struct.pack("<I", mask(crc32c(header))) + b"abc"
    with pytest.raises(tf.errors.DataLossError, match="truncated record at 0"):
        _records(tf.data.TFRecordDataset(_write(tmp_path / "huge.tfrecord", forged)))


def test_bad_arguments_raise_as_tf(tmp_path):
    with pytest.raises(TypeError, match="must contain `tf.string` elements. Got `tf.int32`"):
        tf.data.TFRecordDataset(3)
    with pytest.raises(TypeError, match="must contain `tf.string` elements. Got `tf.int64`"):
        tf.data.TFRecordDataset(tf.data.Dataset.range(3))
    with pytest.raises(ValueError, match='Not a valid compression_type: "BZ2"'):
        tf.io.TFRecordOptions(compression_type="BZ2")
    with pytest.raises(ValueError, match='Not a valid compression_type: "BZ2"'):
        tf.io.TFRecordWriter(str(tmp_path / "x"), options="BZ2")
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle_length"):
        tf.data.TFRecordDataset("x", num_parallel_reads=0)
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        tf.io.TFRecordWriter(str(tmp_path / "missing" / "x.tfrecord"))
    w = tf.io.TFRecordWriter(str(tmp_path / "c.tfrecord"))
    with pytest.raises(TypeError, match="bytes or str"):
        w.write(3)
    w.close()
    with pytest.raises(tf.errors.FailedPreconditionError, match="Writer is closed"):
        w.write(b"b")
    assert tf.io.TFRecordOptions.get_compression_type_string("GZIP") == "GZIP"
    assert tf.io.TFRecordOptions.get_compression_type_string(None) == ""
    assert np.array_equal(_records(tf.data.TFRecordDataset(str(tmp_path / "c.tfrecord"))), [b""][:0])


def test_text_lines_as_tf(tmp_path):
    (tmp_path / "t.txt").write_bytes(b"a,b\r\n1,2\n\nlast")
    (tmp_path / "e.txt").write_bytes(b"")
    (tmp_path / "n.txt").write_bytes(b"\n")
    (tmp_path / "r.txt").write_bytes(b"a\r\rb\r\n")  # TF drops every carriage return
    (tmp_path / "t.txt.gz").write_bytes(gzip.compress(b"x\ny\n"))
    lines = lambda *a, **k: _records(tf.data.TextLineDataset(*a, **k))  # noqa: E731
    assert lines(str(tmp_path / "t.txt")) == [b"a,b", b"1,2", b"", b"last"]
    assert lines(str(tmp_path / "e.txt")) == [] and lines(str(tmp_path / "n.txt")) == [b""]
    assert lines(str(tmp_path / "r.txt")) == [b"ab"]
    assert lines(str(tmp_path / "t.txt.gz"), compression_type="GZIP") == [b"x", b"y"]
    assert lines([str(tmp_path / "t.txt")] * 2, num_parallel_reads=2) == [b"a,b", b"a,b", b"1,2", b"1,2", b"", b"",
                                                                          b"last", b"last"]
    long = b"z" * 200_000  # a line longer than a read
    (tmp_path / "l.txt").write_bytes(long + b"\n" + long)
    assert lines(str(tmp_path / "l.txt")) == [long, long]
    assert tf.data.TextLineDataset(str(tmp_path / "t.txt")).element_spec == tf.TensorSpec([], tf.string)
    with pytest.raises(tf.errors.NotFoundError, match="none.txt; No such file or directory"):
        lines(str(tmp_path / "none.txt"))
