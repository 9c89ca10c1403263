"""How each op of tapegrad's registry is written as TensorFlow nodes in an exported graph.

Note [Exported ops]: most registry ops are TF's ops under TF's names and write as one node with TF's
type attributes ("T" and the like, which _function_def fills from the op definitions in _tf_op_defs).
Where tapegrad keeps as an attribute what TF takes as an input (a reduction's axes, a reshape's
shape, a transpose's permutation), the attribute becomes a Const node feeding that input. Ops TF does
not have (GeluTanh, Silu, ExpNegAbs, the fused recurrent loops in _tf_recurrent_nodes) are written as
the TF ops they stand for, with TF's formulas. An op with no row here (tapegrad's optimizer updates
such as ResourceApplyKerasAdam) is never written: the export raises UnimplementedError naming it and the
function, so no exported graph holds an op TF cannot run.
"""
import math

import numpy as np

from tapegrad.saved_model import _tf_recurrent_nodes as _recurrent

# registry op -> TF op, for ops that are one node with no attributes of their own
UNARY = {name: name for name in (
    "Abs Acos Acosh Asin Asinh Atan Atanh Ceil Cos Cosh Digamma Erf Erfinv Exp Expm1 Floor Lgamma Log Log1p Neg "
    "Reciprocal Relu Relu6 Round Rsqrt Selu Sigmoid Sign Sin Sinh Softplus Softsign Sqrt Square Tan Tanh Elu "
    "Identity StopGradient LogicalNot").split()}
BINARY = {name: name for name in (
    "Sub Mul RealDiv Maximum Minimum Pow FloorDiv FloorMod TruncateDiv TruncateMod SquaredDifference Atan2 DivNoNan "
    "MulNoNan Xdivy Xlogy Equal NotEqual Greater GreaterEqual Less LessEqual LogicalAnd LogicalOr NextAfter "
    "Polygamma").split()}
BINARY["Add"] = "AddV2"
BINARY["Select"] = "SelectV2"
REDUCTIONS = {name: name for name in ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any")}


def _axes(node, ctx, key="axis"):
    """A reduction's axes: the attribute, or every axis of the input when it has none."""
    axes = node["attrs"].get(key)
    return list(range(ctx.rank(0))) if axes is None else list(axes)


def _reduce(node, ctx):
    axes = ctx.ints(_axes(node, ctx))
    return ctx.emit(REDUCTIONS[node["type"]], [ctx.input(0), axes], keep_dims=node["attrs"].get("keepdims", False))


def _matmul(node, ctx):
    a = node["attrs"]
    if ctx.rank(0) == 2 and ctx.rank(1) == 2:
        return ctx.emit("MatMul", [ctx.input(0), ctx.input(1)], transpose_a=a.get("transpose_a", False),
                        transpose_b=a.get("transpose_b", False))
    return ctx.emit("BatchMatMulV2", [ctx.input(0), ctx.input(1)], adj_x=a.get("transpose_a", False),
                    adj_y=a.get("transpose_b", False))


def _softmax(node, ctx):
    axis = node["attrs"].get("axis", -1)
    if axis not in (-1, ctx.rank(0) - 1):
        ctx.refuse(f"{node['type']} over axis {axis} of a rank-{ctx.rank(0)} tensor (TF's op takes the last axis)")
    return ctx.emit(node["type"], [ctx.input(0)])


def _softmax_grad(node, ctx):  # y (g - sum(g y)) along the axis
    y, g = ctx.input(0), ctx.input(1)
    total = ctx.emit("Sum", [ctx.emit("Mul", [g, y]), ctx.ints([node["attrs"].get("axis", -1)])], keep_dims=True)
    return ctx.emit("Mul", [y, ctx.emit("Sub", [g, total])])


def _last_mean(ctx, x):
    return ctx.emit("Mean", [x, ctx.ints([-1])], keep_dims=True)


def _normalized(node, ctx):
    """(x - mean) and 1/sqrt(var + epsilon) over the last axis, as LayerNorm computes them."""
    x = ctx.input(0)
    centered = ctx.emit("Sub", [x, _last_mean(ctx, x)])
    var = _last_mean(ctx, ctx.emit("Mul", [centered, centered]))
    return centered, ctx.emit("Rsqrt", [ctx.emit("AddV2", [var, _scalar(ctx, node["attrs"].get("epsilon", 1e-3))])])


def _layer_norm(node, ctx):
    centered, r = _normalized(node, ctx)
    return ctx.emit("Mul", [centered, r])


def _layer_norm_grad(node, ctx):  # r (g - mean(g) - xh mean(g xh))
    centered, r = _normalized(node, ctx)
    g, xh = ctx.input(1), ctx.emit("Mul", [centered, r])
    spread = ctx.emit("Mul", [xh, _last_mean(ctx, ctx.emit("Mul", [g, xh]))])
    return ctx.emit("Mul", [r, ctx.emit("Sub", [ctx.emit("Sub", [g, _last_mean(ctx, g)]), spread])])


def _einsum(node, ctx):
    return ctx.emit("Einsum", [ctx.input(0), ctx.input(1)], equation=node["attrs"]["equation"], N=2)


def _with_const(tf_op, key, **extra):
    """A node whose integer attribute `key` is TF's second input."""
    def write(node, ctx):
        return ctx.emit(tf_op, [ctx.input(0), ctx.ints(node["attrs"][key])], **extra)
    return write


def _cast(node, ctx):
    return ctx.emit("Cast", [ctx.input(0)], DstT=ctx.datatype(node["attrs"]["dtype"]), Truncate=False)


def _concat(node, ctx):
    values = [ctx.input(i) for i in range(len(node["inputs"]))]
    return ctx.emit("ConcatV2", values + [ctx.ints(node["attrs"]["axis"])], N=len(values))


def _pad(node, ctx):
    paddings = ctx.ints(node["attrs"]["paddings"], shape=[-1, 2])
    fill = node["attrs"].get("constant_values", 0.0)
    if fill == 0:
        return ctx.emit("Pad", [ctx.input(0), paddings])
    return ctx.emit("PadV2", [ctx.input(0), paddings, ctx.const(np.asarray(fill, ctx.numpy_dtype(0)))])


def _gather(node, ctx):
    a = node["attrs"]
    return ctx.emit("GatherV2", [ctx.input(0), ctx.input(1), ctx.ints(a.get("axis", 0))],
                    batch_dims=a.get("batch_dims", 0))


def _strided_slice(node, ctx):
    a = node["attrs"]
    consts = [ctx.ints(a[k]) for k in ("begin", "end", "strides")]
    return ctx.emit("StridedSlice", [ctx.input(0)] + consts, shrink_axis_mask=a.get("shrink_axis_mask", 0))


def _spatial(values):
    """tapegrad's (height, width) strides, sizes or dilations as TF's NHWC four."""
    values = list(values)
    return [1] + values + [1] if len(values) == 2 else values


def _conv(tf_op):
    def write(node, ctx):
        a = node["attrs"]
        return ctx.emit(tf_op, [ctx.input(0), ctx.input(1)], strides=_spatial(a["strides"]), padding=a["padding"],
                        dilations=_spatial(a.get("dilations", [1, 1])), data_format="NHWC")
    return write


def _pool(tf_op):
    def write(node, ctx):
        a = node["attrs"]
        return ctx.emit(tf_op, [ctx.input(0)], ksize=_spatial(a["ksize"]), strides=_spatial(a["strides"]),
                        padding=a["padding"], data_format="NHWC")
    return write


def _scalar(ctx, value):
    return ctx.const(np.asarray(value, ctx.numpy_dtype(0)))


def _gelu(node, ctx):  # 0.5 x (1 + erf(x / sqrt 2))
    x = ctx.input(0)
    inner = ctx.emit("Erf", [ctx.emit("Mul", [x, _scalar(ctx, 1 / math.sqrt(2))])])
    return ctx.emit("Mul", [ctx.emit("Mul", [x, _scalar(ctx, 0.5)]), ctx.emit("AddV2", [inner, _scalar(ctx, 1.0)])])


def _gelu_tanh(node, ctx):  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    x = ctx.input(0)
    cube = ctx.emit("Mul", [ctx.emit("Mul", [ctx.emit("Mul", [x, x]), x]), _scalar(ctx, 0.044715)])
    inner = ctx.emit("Tanh", [ctx.emit("Mul", [ctx.emit("AddV2", [x, cube]), _scalar(ctx, math.sqrt(2 / math.pi))])])
    return ctx.emit("Mul", [ctx.emit("Mul", [x, _scalar(ctx, 0.5)]), ctx.emit("AddV2", [inner, _scalar(ctx, 1.0)])])


def _silu(node, ctx):
    return ctx.emit("Mul", [ctx.input(0), ctx.emit("Sigmoid", [ctx.input(0)])])


def _exp_neg_abs(node, ctx):
    return ctx.emit("Exp", [ctx.emit("Neg", [ctx.emit("Abs", [ctx.input(0)])])])


def _leaky_relu(node, ctx):
    return ctx.emit("LeakyRelu", [ctx.input(0)], alpha=float(node["attrs"].get("alpha", 0.2)))


def _shape(node, ctx):
    return ctx.emit("Shape", [ctx.input(0)], out_type=ctx.datatype(node["attrs"].get("out_type", node["dtype"])))


def _argmax(node, ctx):
    a = node["attrs"]
    return ctx.emit(node["type"], [ctx.input(0), ctx.ints(a["axis"])], output_type=ctx.datatype(a["output_type"]))


def _cumulative(node, ctx):
    a = node["attrs"]
    return ctx.emit(node["type"], [ctx.input(0), ctx.ints(a["axis"])], exclusive=a.get("exclusive", False),
                    reverse=a.get("reverse", False))


def _one_hot(node, ctx):
    a = node["attrs"]
    dtype = ctx.numpy_dtype_of(a["dtype"])
    return ctx.emit("OneHot", [ctx.input(0), ctx.ints(a["depth"]), ctx.const(np.asarray(a["on_value"], dtype)),
                               ctx.const(np.asarray(a["off_value"], dtype))], axis=a.get("axis", -1))


def _squeeze(node, ctx):
    return ctx.emit("Squeeze", [ctx.input(0)], squeeze_dims=list(node["attrs"].get("axis", [])))


def _random(tf_op):
    def write(node, ctx):
        a = node["attrs"]
        seed = a.get("seed", -1)
        return ctx.emit(tf_op, [ctx.ints(a["shape"])], dtype=ctx.datatype(a["dtype"]),
                        seed=0 if seed < 0 else int(seed), seed2=0)
    return write


RULES = {
    **{op: (lambda tf_op: lambda node, ctx: ctx.emit(tf_op, [ctx.input(i) for i in range(len(node["inputs"]))]))(tf_op)
       for op, tf_op in {**UNARY, **BINARY}.items()},
    **{op: _reduce for op in REDUCTIONS},
    "MatMul": _matmul, "Softmax": _softmax, "LogSoftmax": _softmax, "SoftmaxGrad": _softmax_grad,
    "LayerNorm": _layer_norm, "LayerNormGrad": _layer_norm_grad, "Einsum": _einsum, "Cast": _cast, "ConcatV2": _concat,
    "Reshape": _with_const("Reshape", "shape"), "Transpose": _with_const("Transpose", "perm"),
    "ExpandDims": _with_const("ExpandDims", "axis"), "Tile": _with_const("Tile", "multiples"),
    "ReverseV2": _with_const("ReverseV2", "axis"), "BroadcastTo": _with_const("BroadcastTo", "shape"),
    "Squeeze": _squeeze, "Pad": _pad, "GatherV2": _gather, "StridedSlice": _strided_slice,
    "Conv2D": _conv("Conv2D"), "DepthwiseConv2dNative": _conv("DepthwiseConv2dNative"),
    "MaxPool": _pool("MaxPool"), "AvgPool": _pool("AvgPool"), "Gelu": _gelu, "GeluTanh": _gelu_tanh, "Silu": _silu,
    "ExpNegAbs": _exp_neg_abs, "LeakyRelu": _leaky_relu, "Shape": _shape, "ArgMax": _argmax, "ArgMin": _argmax,
    "Cumsum": _cumulative, "Cumprod": _cumulative, "OneHot": _one_hot,
    "RandomUniform": _random("RandomUniform"), "RandomStandardNormal": _random("RandomStandardNormal"),
    **_recurrent.RULES,  # unrolled over the steps
}

# Every TF op a rule may write, besides the graph's own Placeholder, Const, ReadVariableOp, the
# assignments and Identity: _tf_op_defs holds their definitions (.ci/gen_tf_op_defs lists them from here).
TF_OPS = sorted(set(UNARY.values()) | set(BINARY.values()) | set(REDUCTIONS.values()) | {
    "MatMul", "BatchMatMulV2", "Softmax", "LogSoftmax", "Cast", "ConcatV2", "Reshape", "Transpose", "ExpandDims",
    "Tile", "ReverseV2", "BroadcastTo", "Squeeze", "Pad", "PadV2", "GatherV2", "StridedSlice", "Conv2D",
    "DepthwiseConv2dNative", "MaxPool", "AvgPool", "LeakyRelu", "Shape", "ArgMax", "ArgMin", "Cumsum", "Cumprod",
    "OneHot", "RandomUniform", "RandomStandardNormal", "Einsum", "Const", "Placeholder", "ReadVariableOp", "AssignVariableOp",
    "AssignAddVariableOp", "AssignSubVariableOp", "NoOp", "StatefulPartitionedCall", "PartitionedCall",
    # the session graph's variables and saver (_session_graph)
    "VarHandleOp", "SaveV2", "RestoreV2", "StaticRegexFullMatch", "Select", "StringJoin", "ShardedFilename",
    "MergeV2Checkpoints", "Pack", "Fill"})
