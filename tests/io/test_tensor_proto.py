"""tf.io.serialize_tensor / parse_tensor and tf.make_tensor_proto / make_ndarray (Note [TensorProto
values]): TF 2.21's bytes for each dtype, values read back from tensor_content and from the typed lists
(the last value filling the rest), and TF's errors. TF's side: tests/oracle/test_tf_oracle_example.py."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import _protos

# tf.io.serialize_tensor(t).numpy() in TF 2.21
TF_BYTES = [
    (lambda: tf.constant([1.0, 2.0]), b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\x80?\x00\x00\x00@'),
    (lambda: tf.constant(3, tf.int64), b'\x08\t\x12\x00"\x08\x03\x00\x00\x00\x00\x00\x00\x00'),
    (lambda: tf.constant([[True, False]]), b'\x08\n\x12\x08\x12\x02\x08\x01\x12\x02\x08\x02"\x02\x01\x00'),
    (lambda: tf.constant(["a", "bc"]), b"\x08\x07\x12\x04\x12\x02\x08\x02B\x01aB\x02bc"),
    (lambda: tf.constant(b"x"), b"\x08\x07\x12\x00B\x01x"),
    (lambda: tf.zeros([0, 3]), b"\x08\x01\x12\x06\x12\x00\x12\x02\x08\x03"),
    (lambda: tf.constant([1.5], tf.float64), b'\x08\x02\x12\x04\x12\x02\x08\x01"\x08\x00\x00\x00\x00\x00\x00\xf8?'),
    (lambda: tf.constant([7], tf.int32), b'\x08\x03\x12\x04\x12\x02\x08\x01"\x04\x07\x00\x00\x00'),
]


@pytest.mark.parametrize("make,data", TF_BYTES)
def test_serialize_tensor_writes_tfs_bytes_and_parse_reads_them(make, data):
    t = make()
    out = tf.io.serialize_tensor(t)
    assert out.dtype == tf.string and out.shape == () and out.numpy() == data
    back = tf.io.parse_tensor(data, t.dtype)
    assert back.dtype == t.dtype and back.shape == t.shape
    assert np.asarray(back.numpy()).tolist() == np.asarray(t.numpy()).tolist()


def test_typed_lists_fill_with_their_last_value_as_tf():
    proto = _protos.TensorProto(dtype=1, tensor_shape={"dim": [{"size": 3}]}, float_val=[2.5, 1.0])
    assert tf.io.parse_tensor(proto.SerializeToString(), tf.float32).numpy().tolist() == [2.5, 1.0, 1.0]
    assert tf.make_ndarray(_protos.TensorProto(dtype=9, tensor_shape={"dim": [{"size": 2}]})).tolist() == [0, 0]
    proto = tf.make_tensor_proto([5.0] * 4, shape=[2, 2])
    assert proto.SerializeToString() == (b'\x08\x01\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02"\x10' + b"\x00\x00\xa0@" * 4)
    assert tf.make_ndarray(proto).tolist() == [[5.0, 5.0], [5.0, 5.0]]
    assert tf.make_ndarray(tf.make_tensor_proto(2.0, shape=[3])).tolist() == [2.0, 2.0, 2.0]


def test_parse_tensor_errors_as_tf():
    data = tf.io.serialize_tensor(tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Type mismatch between parsed tensor \(float\) and "
                                                             r"dtype \(double\)"):
        tf.io.parse_tensor(data, tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse `serialized` as TensorProto"):
        tf.io.parse_tensor(b"garbage\xff", tf.float32)
    short = _protos.TensorProto(dtype=1, tensor_shape={"dim": [{"size": 3}]}, tensor_content=b"\0" * 8)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot parse tensor from proto"):
        tf.io.parse_tensor(short.SerializeToString(), tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"parsed tensor \(half\) and dtype \(float\)"):
        tf.io.parse_tensor(_protos.TensorProto(dtype=19).SerializeToString(), tf.float32)
    with pytest.raises(tf.errors.UnimplementedError, match="DT_COMPLEX64"):
        tf.make_ndarray(_protos.TensorProto(dtype=8))
