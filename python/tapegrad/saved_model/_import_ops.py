"""How each TF op of a loaded SavedModel's functions runs in tapegrad: one row per TF op type.

Note [Imported ops]: a row takes the node's input tensors and its attributes (decoded to Python:
dtypes as tapegrad dtypes, tensors as NumPy arrays, shapes as lists) and returns the node's outputs
in the order of TF's op definition (_tf_op_defs), calling tapegrad's public ops, so a tape records
them and gradients flow through a loaded function as through one written in tapegrad. Variables arrive
as the Variables a function's resource arguments are bound to. Function calls (PartitionedCall,
StatefulPartitionedCall) run the called FunctionDef the same way (``ctx.call``). A TF op with no row
raises UnimplementedError naming it and the function.
"""
import numpy as np

import tapegrad as tf
from tapegrad import _core

_UNARY = {
    "Abs": "abs", "Acos": "acos", "Acosh": "acosh", "Asin": "asin", "Asinh": "asinh", "Atan": "atan",
    "Atanh": "atanh", "Ceil": "ceil", "Cos": "cos", "Cosh": "cosh", "Digamma": "digamma", "Erf": "erf",
    "Erfinv": "erfinv", "Erfc": "erfc", "Exp": "exp", "Expm1": "expm1", "Floor": "floor", "Lgamma": "lgamma", "Log": "log",
    "Log1p": "log1p", "Neg": "negative", "Reciprocal": "reciprocal", "Round": "round", "Rsqrt": "rsqrt",
    "Sigmoid": "sigmoid", "Sign": "sign", "Sin": "sin", "Sinh": "sinh", "Softplus": "softplus", "Sqrt": "sqrt",
    "Square": "square", "Tan": "tan", "Tanh": "tanh", "LogicalNot": "logical_not", "IsNan": "is_nan",
    "IsInf": "is_inf", "IsFinite": "is_finite"}
_NN_UNARY = {"Relu": "relu", "Relu6": "relu6", "Elu": "elu", "Selu": "selu", "Softsign": "softsign"}
_BINARY = {
    "AddV2": "add", "Add": "add", "Sub": "subtract", "Mul": "multiply", "RealDiv": "divide", "Div": "divide",
    "Maximum": "maximum", "Minimum": "minimum", "Pow": "pow", "FloorDiv": "floordiv", "FloorMod": "floormod",
    "SquaredDifference": "squared_difference",
    "Atan2": "atan2", "DivNoNan": "divide_no_nan", "MulNoNan": "multiply_no_nan", "Xdivy": "xdivy",
    "Xlogy": "xlogy", "Equal": "equal", "NotEqual": "not_equal", "Greater": "greater",
    "GreaterEqual": "greater_equal", "Less": "less", "LessEqual": "less_equal", "LogicalAnd": "logical_and",
    "LogicalOr": "logical_or"}
_REDUCTIONS = {"Sum": "reduce_sum", "Mean": "reduce_mean", "Max": "reduce_max", "Min": "reduce_min",
               "Prod": "reduce_prod", "All": "reduce_all", "Any": "reduce_any"}


def _ints(t):
    return [int(v) for v in np.asarray(t).reshape(-1)]


def _spatial(values, data_format):
    """TF's NHWC four (strides, ksize, dilations) as tapegrad's (height, width) pair."""
    if data_format != "NHWC":
        raise tf.errors.UnimplementedError(None, None, f"data_format {data_format!r} (only NHWC is run)")
    return list(values)[1:3]


def _fn(namespace, name):
    return lambda x, a, ctx: [getattr(namespace, name)(*x)]


def _reduce(name):
    return lambda x, a, ctx: [getattr(tf, name)(x[0], axis=_ints(x[1]), keepdims=a.get("keep_dims", False))]


def _matmul(x, a, ctx):
    return [tf.matmul(x[0], x[1], transpose_a=a.get("transpose_a", False), transpose_b=a.get("transpose_b", False))]


def _einsum(x, a, ctx):
    equation = a["equation"]
    return [tf.einsum(equation.decode() if isinstance(equation, bytes) else equation, *x)]


def _batch_matmul(x, a, ctx):
    return [tf.matmul(x[0], x[1], adjoint_a=a.get("adj_x", False), adjoint_b=a.get("adj_y", False))]


def _bias_add(x, a, ctx):
    return [tf.nn.bias_add(x[0], x[1], data_format=a.get("data_format", "NHWC"))]


def _conv(kind):
    def run(x, a, ctx):
        fmt = a.get("data_format", "NHWC")
        strides, dilations = _spatial(a["strides"], fmt), _spatial(a.get("dilations", [1, 1, 1, 1]), fmt)
        if a.get("padding") == "EXPLICIT":
            raise tf.errors.UnimplementedError(None, None, f"{kind} with EXPLICIT padding")
        if kind == "Conv2D":
            return [tf.nn.conv2d(x[0], x[1], strides, a["padding"], dilations=dilations)]
        return [tf.nn.depthwise_conv2d(x[0], x[1], [1] + strides + [1], a["padding"], dilations=dilations)]
    return run


def _pool(fn):
    def run(x, a, ctx):
        fmt = a.get("data_format", "NHWC")
        return [fn(x[0], _spatial(a["ksize"], fmt), _spatial(a["strides"], fmt), a["padding"])]
    return run


def _fused_batch_norm(x, a, ctx):
    if a.get("is_training", True):
        raise tf.errors.UnimplementedError(None, None, "FusedBatchNormV3 with is_training=true")
    if a.get("data_format", "NHWC") != "NHWC":
        raise tf.errors.UnimplementedError(None, None, f"FusedBatchNormV3 with data_format {a['data_format']!r}")
    y = tf.nn.batch_normalization(x[0], x[3], x[4], x[2], x[1], a.get("epsilon", 1e-4))
    return [y, x[3], x[4], x[3], x[4], x[3]]


def _strided_slice(x, a, ctx):
    """TF's StridedSlice as a Python index: per position an Ellipsis, a new axis, an index (shrink) or a
    slice whose bounds the masks leave open."""
    begin, end, strides = _ints(x[1]), _ints(x[2]), _ints(x[3])
    bit = {k: a.get(k, 0) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")}
    index = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        if bit["ellipsis_mask"] >> i & 1:
            index.append(Ellipsis)
        elif bit["new_axis_mask"] >> i & 1:
            index.append(None)
        elif bit["shrink_axis_mask"] >> i & 1:
            index.append(b)
        else:
            index.append(slice(None if bit["begin_mask"] >> i & 1 else b, None if bit["end_mask"] >> i & 1 else e, s))
    return [x[0][tuple(index)]]


def _cast(x, a, ctx):
    return [tf.cast(x[0], a["DstT"])]


def _identity(t):
    return t if isinstance(t, _TensorList) else tf.identity(t)  # a TensorList passes as it is


def _identity_n(x, a, ctx):
    return [_identity(t) for t in x]


def _read(x, a, ctx):
    return [x[0].read_value()]


def _assign(method):
    def run(x, a, ctx):
        getattr(x[0], method)(x[1])
        return []
    return run


def _call(x, a, ctx):
    return ctx.call(a["f"], x)


def _shape(x, a, ctx):
    return [tf.shape(x[0], out_type=a.get("out_type", tf.int32))]


def _fill(x, a, ctx):
    return [tf.fill(x[0], x[1])]


def _pad(x, a, ctx):
    paddings = np.asarray(x[1]).reshape(-1, 2).tolist()
    return [tf.pad(x[0], paddings, constant_values=x[2] if len(x) > 2 else 0)]


def _split(x, a, ctx):
    return tf.split(x[1], a["num_split"], axis=int(np.asarray(x[0])))


def _split_v(x, a, ctx):
    return tf.split(x[0], _ints(x[1]), axis=int(np.asarray(x[2])))


def _one_hot(x, a, ctx):
    return [tf.one_hot(x[0], int(np.asarray(x[1])), on_value=x[2], off_value=x[3], axis=a.get("axis", -1))]


def _cumulative(name):
    return lambda x, a, ctx: [getattr(tf.math, name)(x[0], axis=int(np.asarray(x[1])),
                                                     exclusive=a.get("exclusive", False),
                                                     reverse=a.get("reverse", False))]


def _select_v1(x, a, ctx):
    """TF1's Select: a vector condition picks whole rows of higher-rank operands."""
    cond = x[0]
    if len(cond.shape) == 1 and len(x[1].shape) > 1:
        cond = tf.reshape(cond, [-1] + [1] * (len(x[1].shape) - 1))
    return [tf.where(cond, x[1], x[2])]


def _random(draw):
    def run(x, a, ctx):  # tapegrad's own stream: the same distribution, not TF's numbers
        seed = a.get("seed2") or a.get("seed") or None
        return [draw(_ints(x[0]), dtype=a["dtype"], seed=seed)]
    return run


class _TensorList(list):
    """A TF TensorList (the values a While loop collects, as Keras's recurrent layers use them): a
    Python list of tensors, copied on every write as TF's lists are values."""


def _list_reserve(x, a, ctx):
    return [_TensorList([None] * int(np.asarray(x[1])))]


def _list_set(x, a, ctx):
    out = _TensorList(x[0])
    out[int(np.asarray(x[1]))] = x[2]
    return [out]


def _list_stack(x, a, ctx):
    if any(t is None for t in x[0]):
        raise tf.errors.InvalidArgumentError(None, None, "TensorListStack of a list with unset elements")
    return [tf.stack(list(x[0]))]


def _decides_in_graph(pred):
    """Whether a loop's or branch's predicate depends on a traced function's inputs: then Python may not
    read its value (the trace would keep the answer for every later call); tf.while_loop / tf.cond decide."""
    return _core._tracing() and _core._is_traced(tf.convert_to_tensor(pred))


def _while(x, a, ctx):
    """A While loop: unrolled in Python while the condition is a value (eager, or fixed by constants in a
    trace: Keras's recurrent loops), else a tf.while_loop the graph runs."""
    values = list(x)  # (TF keeps a maximum_iterations limit among the loop variables and in cond)
    while True:
        keep = ctx.call(a["cond"], values)[0]
        if _decides_in_graph(keep):
            if any(isinstance(v, _TensorList) for v in values):
                raise tf.errors.UnimplementedError(None, None, "a While loop carrying TensorLists whose condition "
                                                               "depends on the traced function's inputs")
            return list(tf.while_loop(lambda *v: ctx.call(a["cond"], list(v))[0],
                                      lambda *v: tuple(ctx.call(a["body"], list(v))), tuple(values)))
        if not bool(np.asarray(keep)):
            return values
        values = ctx.call(a["body"], values)


def _if(x, a, ctx):
    if _decides_in_graph(x[0]):
        return list(tf.cond(x[0], lambda: tuple(ctx.call(a["then_branch"], x[1:])),
                            lambda: tuple(ctx.call(a["else_branch"], x[1:]))))
    branch = a["then_branch"] if bool(np.asarray(x[0])) else a["else_branch"]
    return ctx.call(branch, x[1:])


_CALLS = {
    "While": _while, "StatelessWhile": _while, "If": _if, "StatelessIf": _if,
    "TensorListReserve": _list_reserve, "TensorListSetItem": _list_set, "TensorListStack": _list_stack,
    "TensorListGetItem": lambda x, a, ctx: [x[0][int(np.asarray(x[1]))]],
    "TensorListFromTensor": lambda x, a, ctx: [_TensorList(tf.unstack(x[0]))],
    "TensorListLength": lambda x, a, ctx: [tf.constant(len(x[0]), tf.int32)],
}


RULES = {
    **_CALLS,
    **{op: _fn(tf.math, name) for op, name in _UNARY.items()},
    **{op: _fn(tf.nn, name) for op, name in _NN_UNARY.items()},
    **{op: _fn(tf.math, name) for op, name in _BINARY.items()},
    **{op: _reduce(name) for op, name in _REDUCTIONS.items()},
    "Identity": lambda x, a, ctx: [_identity(x[0])], "StopGradient": _fn(tf, "stop_gradient"), "IdentityN": _identity_n,
    "NoOp": lambda x, a, ctx: [],
    "ReadVariableOp": _read, "AssignVariableOp": _assign("assign"), "AssignAddVariableOp": _assign("assign_add"),
    "AssignSubVariableOp": _assign("assign_sub"), "StatefulPartitionedCall": _call, "PartitionedCall": _call,
    "MatMul": _matmul, "BatchMatMulV2": _batch_matmul, "BatchMatMulV3": _batch_matmul, "Einsum": _einsum,
    "BiasAdd": _bias_add,
    "Softmax": _fn(tf.nn, "softmax"), "LogSoftmax": _fn(tf.nn, "log_softmax"),
    "LeakyRelu": lambda x, a, ctx: [tf.nn.leaky_relu(x[0], alpha=a.get("alpha", 0.2))],
    "Cast": _cast, "Reshape": lambda x, a, ctx: [tf.reshape(x[0], x[1])],
    "Transpose": lambda x, a, ctx: [tf.transpose(x[0], _ints(x[1]))],
    "ConcatV2": lambda x, a, ctx: [tf.concat(list(x[:-1]), axis=int(np.asarray(x[-1])))],
    "Pack": lambda x, a, ctx: [tf.stack(list(x), axis=a.get("axis", 0))],
    "Unpack": lambda x, a, ctx: tf.unstack(x[0], num=a["num"], axis=a.get("axis", 0)),
    "ExpandDims": lambda x, a, ctx: [tf.expand_dims(x[0], int(np.asarray(x[1])))],
    "Squeeze": lambda x, a, ctx: [tf.squeeze(x[0], axis=a.get("squeeze_dims") or None)],
    "Tile": lambda x, a, ctx: [tf.tile(x[0], _ints(x[1]))],
    "ReverseV2": lambda x, a, ctx: [tf.reverse(x[0], _ints(x[1]))],
    "BroadcastTo": lambda x, a, ctx: [tf.broadcast_to(x[0], x[1])],
    "GatherV2": lambda x, a, ctx: [tf.gather(x[0], x[1], axis=int(np.asarray(x[2])), batch_dims=a.get("batch_dims", 0))],
    "ResourceGather": lambda x, a, ctx: [tf.gather(x[0], x[1], batch_dims=a.get("batch_dims", 0))],
    "StridedSlice": _strided_slice, "Shape": _shape, "Fill": _fill, "Pad": _pad, "PadV2": _pad,
    "ZerosLike": _fn(tf, "zeros_like"), "OnesLike": _fn(tf, "ones_like"),
    "Range": lambda x, a, ctx: [tf.range(x[0], x[1], x[2])],
    "SelectV2": lambda x, a, ctx: [tf.where(x[0], x[1], x[2])],
    "Conv2D": _conv("Conv2D"), "DepthwiseConv2dNative": _conv("DepthwiseConv2dNative"),
    "MaxPool": _pool(tf.nn.max_pool2d), "AvgPool": _pool(tf.nn.avg_pool2d), "FusedBatchNormV3": _fused_batch_norm,
    "Split": _split, "SplitV": _split_v, "OneHot": _one_hot, "Cumsum": _cumulative("cumsum"),
    "Cumprod": _cumulative("cumprod"), "ArgMax": lambda x, a, ctx: [tf.argmax(x[0], axis=int(np.asarray(x[1])),
                                                                                output_type=a.get("output_type", tf.int64))],
    "NextAfter": _fn(tf.math, "nextafter"), "Polygamma": _fn(tf.math, "polygamma"), "Select": _select_v1,
    "RandomUniform": _random(tf.random.uniform), "RandomStandardNormal": _random(tf.random.normal),
    "TruncateDiv": _fn(tf, "truncatediv"), "TruncateMod": _fn(tf, "truncatemod"),
    "ArgMin": lambda x, a, ctx: [tf.argmin(x[0], axis=int(np.asarray(x[1])), output_type=a.get("output_type", tf.int64))],
}

# The TF ops a loaded function may hold: _tf_op_defs has their definitions (.ci/gen_tf_op_defs).
TF_OPS = sorted(set(RULES) | {"Const"})
