"""Tensors as TensorProto bytes: tf.io.serialize_tensor / parse_tensor, and tf.make_tensor_proto /
tf.make_ndarray.

Note [TensorProto values]: TF writes a numeric tensor's values as tensor_content (the raw little-endian
bytes, C order) and a string tensor's as string_val; a proto made elsewhere may hold the typed lists
(float_val, double_val, int_val, int64_val, bool_val) instead, with fewer values than the shape has:
the last value then fills the rest, as TF reads them. A proto of no values is zeros.
"""
import base64

import numpy as np

from tapegrad import _protos, dtypes, errors
from tapegrad._tensor.string_tensor import StringTensor, string_constant
from tapegrad._tensor.tensor import Tensor, constant
from tapegrad.io._args import kernel_dtype_name

__all__ = ["serialize_tensor", "parse_tensor", "make_tensor_proto", "make_ndarray"]

_ENUMS = {dtypes.float32: "DT_FLOAT", dtypes.float64: "DT_DOUBLE", dtypes.int32: "DT_INT32",
          dtypes.int64: "DT_INT64", dtypes.bool: "DT_BOOL", dtypes.string: "DT_STRING", dtypes.uint8: "DT_UINT8",
          dtypes.int8: "DT_INT8", dtypes.int16: "DT_INT16", dtypes.uint16: "DT_UINT16", dtypes.uint32: "DT_UINT32",
          dtypes.uint64: "DT_UINT64", dtypes.float16: "DT_HALF", dtypes.bfloat16: "DT_BFLOAT16"}
_BY_ENUM = {_protos.DataType.Value(name): dt for dt, name in _ENUMS.items()}
# the typed list each dtype's values may come in (tensor.proto); float16 and bfloat16 as their bits in half_val
_LISTS = {dtypes.float32: "float_val", dtypes.float64: "double_val", dtypes.int32: "int_val",
          dtypes.int64: "int64_val", dtypes.bool: "bool_val", dtypes.string: "string_val", dtypes.uint8: "int_val",
          dtypes.int8: "int_val", dtypes.int16: "int_val", dtypes.uint16: "int_val", dtypes.uint32: "uint32_val",
          dtypes.uint64: "uint64_val", dtypes.float16: "half_val",
          dtypes.bfloat16: "half_val"}


def datatype_enum(dtype):
    """TF's DataType number of a tapegrad dtype."""
    return _protos.DataType.Value(_ENUMS[dtype])


def has_dtype(enum):
    """Whether TF's DataType number has a tapegrad dtype."""
    return enum in _BY_ENUM


def dtype_of_enum(enum):
    """The tapegrad dtype of TF's DataType number; UnimplementedError for one tapegrad lacks."""
    if enum not in _BY_ENUM:
        name = _protos.DataType.Name(enum) if enum in _protos.DataType.values() else enum
        raise errors.UnimplementedError(None, None, f"DataType {name} has no tapegrad dtype")
    return _BY_ENUM[enum]


def tensor_proto(array, dtype):
    """The TensorProto TF writes for a NumPy array of dtype (Note [TensorProto values])."""
    shape = _protos.TensorShapeProto(dim=[_protos.TensorShapeProto.Dim(size=int(d)) for d in array.shape])
    proto = _protos.TensorProto(dtype=_protos.DataType.Value(_ENUMS[dtype]), tensor_shape=shape)
    if dtype is dtypes.string:
        proto.string_val.extend(v.encode() if isinstance(v, str) else bytes(v) for v in array.reshape(-1).tolist())
    else:
        proto.tensor_content = np.ascontiguousarray(array, dtype.as_numpy_dtype).astype(
            np.dtype(dtype.as_numpy_dtype).newbyteorder("<"), copy=False).tobytes()
    return proto


def _array_and_dtype(value, dtype=None):
    if isinstance(value, StringTensor):
        return np.asarray(value._value, dtype=object), dtypes.string
    if isinstance(value, Tensor):
        return value.numpy(), value.dtype
    t = constant(value, dtype=dtype)
    if isinstance(t, StringTensor):
        return np.asarray(t._value, dtype=object), dtypes.string
    return t.numpy(), t.dtype


def serialize_tensor(tensor, name=None):
    """The TensorProto bytes of a tensor, as a scalar tf.string tensor (TF's bytes)."""
    array, dtype = _array_and_dtype(tensor)
    return string_constant(tensor_proto(array, dtype).SerializeToString())


def _proto_shape(shape):
    if not isinstance(shape, (list, tuple)) or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                                                         for d in shape):
        raise TypeError(f"make_tensor_proto: shape must be a list of ints, got {shape!r}")
    if any(not 0 <= int(d) < 2 ** 63 for d in shape):
        raise ValueError(f"make_tensor_proto: shape {list(shape)} has a dimension outside [0, 2**63)")
    return [int(d) for d in shape]


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A TensorProto of values (converted as tf.constant converts them, to ``shape`` when given)."""
    try:
        array, dt = _array_and_dtype(values, dtype)
    except (TypeError, ValueError, errors.OpError) as e:
        raise TypeError(f"make_tensor_proto: cannot make a TensorProto of {values!r:.60} ({e})") from None
    if shape is not None:
        shape = _proto_shape(shape)
        count = int(np.prod(shape, dtype=object))
        if count * np.dtype(object if dt is dtypes.string else dt.as_numpy_dtype).itemsize >= 2 ** 31:
            raise ValueError(f"make_tensor_proto: shape {shape} holds {count} values; a TensorProto holds under 2 GB")
        if verify_shape and list(array.shape) != shape:
            raise TypeError(f"make_tensor_proto: Expected Tensor's shape: {tuple(shape)}, but got {array.shape}.")
        if array.size == 1 or allow_broadcast:
            try:
                array = np.broadcast_to(array, shape)
            except ValueError:
                raise ValueError(f"make_tensor_proto: values of shape {array.shape} do not broadcast to "
                                 f"{shape}") from None
        elif array.size != count:
            raise ValueError(f"make_tensor_proto: {array.size} values cannot take the shape {shape} ({count} values)")
        else:
            array = array.reshape(shape)
    return tensor_proto(np.asarray(array), dt)


def make_ndarray(tensor):
    """The NumPy array a TensorProto holds (Note [TensorProto values])."""
    if not isinstance(tensor, _protos.TensorProto):
        raise TypeError(f"make_ndarray: tensor must be a TensorProto, got {type(tensor).__name__}")
    return _values(tensor, "make_ndarray")


def _values(proto, where):
    if proto.dtype not in _BY_ENUM:
        raise errors.UnimplementedError(None, None, f"{where}: a TensorProto of "
                                        f"{_protos.DataType.Name(proto.dtype)}, which tapegrad does not hold")
    dtype = _BY_ENUM[proto.dtype]
    shape = [d.size for d in proto.tensor_shape.dim]
    if proto.tensor_shape.unknown_rank or any(d < 0 for d in shape):
        raise errors.InvalidArgumentError(None, None, f"{where}: the TensorProto's shape {shape} is not fully known")
    count = int(np.prod(shape, dtype=np.int64))
    if dtype is not dtypes.string and proto.tensor_content:
        np_dtype = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        if len(proto.tensor_content) != count * np_dtype.itemsize:
            raise errors.InvalidArgumentError(None, None, f"{where}: Cannot parse tensor from proto: "
                                              f"{len(proto.tensor_content)} bytes of content for shape {shape}")
        return np.frombuffer(proto.tensor_content, np_dtype).astype(np_dtype.newbyteorder("="), copy=True) \
            .reshape(shape)
    listed = list(getattr(proto, _LISTS[dtype]))
    if dtype in (dtypes.float16, dtypes.bfloat16):  # half_val holds the bits
        listed = list(np.array(listed, np.uint16).view(dtype.as_numpy_dtype))
    np_dtype = object if dtype is dtypes.string else dtype.as_numpy_dtype
    if len(listed) > count:
        raise errors.InvalidArgumentError(None, None, f"{where}: Cannot parse tensor from proto: {len(listed)} "
                                          f"values for shape {shape}")
    if not listed:
        return np.full(shape, b"" if dtype is dtypes.string else 0, dtype=np_dtype)
    out = np.empty(count, dtype=np_dtype)
    out[:len(listed)] = listed
    out[len(listed):] = listed[-1]  # the last value fills the rest, as TF reads it
    return out.reshape(shape)


def parse_tensor(serialized, out_type, name=None):
    """The tensor serialized as TensorProto bytes; its dtype must be out_type."""
    if isinstance(serialized, StringTensor):
        data = np.asarray(serialized._value, dtype=object)
        if data.ndim:
            raise errors.InvalidArgumentError(None, None, f"parse_tensor: serialized must be a scalar, got shape "
                                              f"{data.shape}")
        data = data.item()
    else:
        data = serialized.encode() if isinstance(serialized, str) else bytes(serialized)
    want = dtypes.as_dtype(out_type)
    try:
        proto = _protos.TensorProto.FromString(data)
    except Exception:  # noqa: BLE001 -- protobuf's DecodeError and its relatives: not a TensorProto
        raise errors.InvalidArgumentError(None, None, "Could not parse `serialized` as TensorProto, base64: "
                                          f"{base64.b64encode(data[:48]).decode()}") from None
    got = _BY_ENUM.get(proto.dtype)
    if got is not want:
        got_name = kernel_dtype_name(got) if got is not None else _protos.DataType.Name(proto.dtype).lower()[3:]
        raise errors.InvalidArgumentError(None, None, f"Type mismatch between parsed tensor ({got_name}) and dtype "
                                          f"({kernel_dtype_name(want)})")
    array = _values(proto, "parse_tensor")
    return string_constant(array) if want is dtypes.string else constant(array, dtype=want)
