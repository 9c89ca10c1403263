"""Python structures as TF's StructuredValue (struct.proto), the form SavedModels keep signatures in.

Note [Structured values]: a SavedModel describes a function's arguments and results as nests of
None, bools, ints, floats, strings, lists, tuples, dicts (string keys), named tuples and TensorSpecs,
each a StructuredValue; TF's loader rebuilds the Python structure from them to call the function.
``encode`` and ``decode`` are inverse on those kinds; anything else raises ValueError naming it.
"""
import collections

from tapegrad import _protos
from tapegrad._tensor.tensor import TensorSpec
from tapegrad.io._tensor_proto import datatype_enum, dtype_of_enum
from tapegrad.saved_model._function_def import shape_proto

FullArgSpec = collections.namedtuple(
    "FullArgSpec", ["args", "varargs", "varkw", "defaults", "kwonlyargs", "kwonlydefaults", "annotations"])


def encode(value):
    v = _protos.StructuredValue()
    if value is None:
        v.none_value.SetInParent()
    elif isinstance(value, bool):
        v.bool_value = value
    elif isinstance(value, int):
        v.int64_value = value
    elif isinstance(value, float):
        v.float64_value = value
    elif isinstance(value, str):
        v.string_value = value
    elif isinstance(value, TensorSpec):
        shape = None if value.shape.rank is None else list(value.shape.as_list())
        v.tensor_spec_value.shape.CopyFrom(shape_proto(shape))
        v.tensor_spec_value.dtype = datatype_enum(value.dtype)
        if value.name:
            v.tensor_spec_value.name = value.name
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        v.named_tuple_value.name = type(value).__name__  # (a named tuple has a name, so it is set)
        for key, item in zip(value._fields, value):
            v.named_tuple_value.values.add(key=key).value.CopyFrom(encode(item))
    elif isinstance(value, tuple):  # SetInParent: an empty container is still one
        v.tuple_value.SetInParent()
        v.tuple_value.values.extend(encode(x) for x in value)
    elif isinstance(value, list):
        v.list_value.SetInParent()
        v.list_value.values.extend(encode(x) for x in value)
    elif isinstance(value, dict):
        v.dict_value.SetInParent()
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"tf.saved_model: a signature's dict keys must be strings, got {key!r}")
            v.dict_value.fields[key].CopyFrom(encode(item))
    else:
        raise ValueError(f"tf.saved_model: cannot save a signature holding a {type(value).__name__} ({value!r})")
    return v


def decode(v):
    kind = v.WhichOneof("kind")
    if kind in (None, "none_value"):
        return None
    if kind in ("bool_value", "int64_value", "float64_value", "string_value"):
        return getattr(v, kind)
    if kind == "tensor_spec_value":
        spec = v.tensor_spec_value
        shape = None if spec.shape.unknown_rank else [None if d.size < 0 else d.size for d in spec.shape.dim]
        return TensorSpec(shape, dtype_of_enum(spec.dtype), name=spec.name or None)
    if kind == "tensor_dtype_value":
        return dtype_of_enum(v.tensor_dtype_value)
    if kind == "tensor_shape_value":
        shape = v.tensor_shape_value
        return None if shape.unknown_rank else [None if d.size < 0 else d.size for d in shape.dim]
    if kind == "list_value":
        return [decode(x) for x in v.list_value.values]
    if kind == "tuple_value":
        return tuple(decode(x) for x in v.tuple_value.values)
    if kind == "dict_value":
        return {key: decode(item) for key, item in sorted(v.dict_value.fields.items())}
    if kind == "named_tuple_value":
        fields = [(p.key, decode(p.value)) for p in v.named_tuple_value.values]
        cls = collections.namedtuple(v.named_tuple_value.name, [k for k, _ in fields])
        return cls(*[item for _, item in fields])
    raise ValueError(f"tf.saved_model: a signature holds a {kind}, which tapegrad does not read")


def argspec(names, defaults=None):
    """The FullArgSpec TF records for a function of positional arguments `names`."""
    return FullArgSpec(list(names), None, None, defaults, [], None, {})

