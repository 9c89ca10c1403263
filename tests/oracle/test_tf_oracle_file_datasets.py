"""TFRecord and text files both ways: TF's TFRecordWriter output read by tapegrad's TFRecordDataset and tapegrad's
read by TF's, in each compression; the interleaved order of num_parallel_reads and the errors on damaged
files equal TF's. Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

RECORDS = [b"", b"a", "wörld".encode(), bytes(range(256)) * 40, b"\x00" * 70_000]


def _write(side, path, compression, records=RECORDS):
    with side.io.TFRecordWriter(str(path), options=side.io.TFRecordOptions(compression_type=compression)) as w:
        for r in records:
            w.write(r)


def _read(side, paths, compression="", **kwargs):
    return [r.numpy() for r in side.data.TFRecordDataset(paths, compression_type=compression, **kwargs)]


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
@pytest.mark.parametrize("writer,reader", [(tg, ref), (ref, tg)], ids=["tapegrad_to_tf", "tf_to_tapegrad"])
def test_records_cross(tmp_path, compression, writer, reader):
    _write(writer, tmp_path / "r.tfrecord", compression)
    assert _read(reader, str(tmp_path / "r.tfrecord"), compression) == RECORDS


def test_uncompressed_bytes_are_tfs(tmp_path):
    _write(tg, tmp_path / "tg.tfrecord", "")
    _write(ref, tmp_path / "tf.tfrecord", "")
    assert (tmp_path / "tg.tfrecord").read_bytes() == (tmp_path / "tf.tfrecord").read_bytes()


@pytest.mark.parametrize("reads", [None, 1, 2, 3, 5])
def test_interleaved_order_is_tfs(tmp_path, reads):
    names = []
    for i, n in enumerate([3, 1, 4, 0, 2]):
        names.append(str(tmp_path / f"f{i}.tfr"))
        _write(ref, names[-1], "", [f"{i}:{j}".encode() for j in range(n)])
    assert _read(tg, names, num_parallel_reads=reads) == _read(ref, names, num_parallel_reads=reads)


def _error(side, path):
    try:
        _read(side, str(path))
    except Exception as e:  # noqa: BLE001 -- the class and message are compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("damage", ["length", "data", "data_crc", "truncated", "empty_tail"])
def test_damaged_files_raise_as_tf(tmp_path, damage):
    _write(ref, tmp_path / "ok.tfrecord", "", [b"first", b"second record"])
    data = bytearray((tmp_path / "ok.tfrecord").read_bytes())
    if damage == "length":
        data[21 + 2] ^= 4  # the second record's length
    elif damage == "data":
        data[21 + 12 + 3] ^= 1
    elif damage == "data_crc":
        data[-1] ^= 1
    elif damage == "truncated":
        data = data[:-5]
    else:
        data += b"\x01\x02"
    (tmp_path / "d.tfrecord").write_bytes(bytes(data))
    ours, theirs = _error(tg, tmp_path / "d.tfrecord"), _error(ref, tmp_path / "d.tfrecord")
    if damage == "empty_tail":  # bytes short of a header end the records, in TF too
        assert ours is None and theirs is None
        return
    assert ours is not None and theirs is not None
    assert ours[0] == theirs[0]
    where = theirs[1].split("} ")[-1].split(" [Op:")[0].split("'")[0]  # "corrupted record at 21", ...
    assert where in ours[1] and "d.tfrecord" in ours[1]


def test_a_string_pipeline_over_records(tmp_path):
    _write(ref, tmp_path / "r.tfrecord", "")
    out = [np.asarray(b) for b in tg.data.TFRecordDataset(str(tmp_path / "r.tfrecord")).map(tg.strings.length).batch(2)]
    want = [np.asarray(b) for b in ref.data.TFRecordDataset(str(tmp_path / "r.tfrecord")).map(ref.strings.length).batch(2)]
    assert [o.tolist() for o in out] == [w.tolist() for w in want]


@pytest.mark.parametrize("text", [b"", b"\n", b"a\nb", b"a\r\nb\r\n", b"x\r\ry\n\n\nz", "é\n".encode() * 3,
                                  b"q" * 70_000 + b"\n" + b"w"])
def test_text_lines_as_tf(tmp_path, text):
    (tmp_path / "t.txt").write_bytes(text)
    ours = [r.numpy() for r in tg.data.TextLineDataset(str(tmp_path / "t.txt"))]
    assert ours == [r.numpy() for r in ref.data.TextLineDataset(str(tmp_path / "t.txt"))]
