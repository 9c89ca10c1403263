"""Every difference the oracle finds between tapegrad and TensorFlow, in one table.

Keys are fnmatch patterns over "fwd:<op>-<dtype>-<label>" (values, dtypes, shapes, error classes) and
"grad:<op>-<dtype>-<label>" (first-order gradients); the first matching row makes a case a strict xfail,
so fixing a difference fails its case until its row here goes. Values: (kind, reason), kind "bug" (to be
fixed) or "deliberate" (kept on purpose; README.md's "Differences from TensorFlow" lists the same rows)."""

BUG, DELIBERATE = "bug", "deliberate"
_FTZ = "TF flushes subnormal floats to zero on CPU; tapegrad keeps IEEE subnormals"
_ERF = "TF's float64 erf gives NaN at +-inf and near the largest float; tapegrad gives +-1"
_CAST = ("a float -> int cast of NaN, +-inf or an out-of-range value saturates (NaN -> 0); TF gives INT_MIN "
         "(x86's 'integer indefinite')")
_F32_CONSTANTS = ("float64 gelu and leaky_relu compute in float64; TF holds their constants (alpha, "
                  "1/sqrt(2)) as float32 (relative difference ~1e-8)")

_PYFLOAT = ("an operator between an integer or bool tensor and a Python float raises InvalidArgumentError "
            "(TF: TypeError)")

DIFFERENCES = {
    # ---- deliberate
    **{f"fwd:{op}-float*-edge_subnormal": (DELIBERATE, _FTZ) for op in ["sign", "log", "sqrt", "rsqrt", "floor",
                                                                        "ceil"]},
    "fwd:floordiv-float*-edge": (DELIBERATE, _FTZ),  # -1e-20 // 1e20: TF floors -0 (flushed), tapegrad -1e-40
    "fwd:erf-float64-edge_inf": (DELIBERATE, _ERF),
    "fwd:erf-float64-edge_huge": (DELIBERATE, _ERF),
    "fwd:constant-int32-huge": (DELIBERATE, "An integer that does not fit the dtype is refused: TF wraps "
                                            "`constant(2**40, int32)` to 0"),
    # ---- bugs: values
    "fwd:cast:edges-*-edge_nan_int*": (BUG, _CAST),
    "fwd:cast:edges-*-edge_inf_int*": (BUG, _CAST),
    "fwd:cast:edges-*-edge_huge_int*": (BUG, _CAST),
    "*:nn.gelu-float64-r*": (BUG, _F32_CONSTANTS),
    "fwd:nn.gelu*-float64-edge_nan": (BUG, _F32_CONSTANTS),
    "fwd:nn.gelu:approx-float64-r*": (BUG, _F32_CONSTANTS),
    "grad:nn.gelu:approx-float64-r23": (BUG, _F32_CONSTANTS),
    "*:nn.leaky_relu*-float64-r23": (BUG, _F32_CONSTANTS),
    "*:nn.leaky_relu-float64-rank0": (BUG, _F32_CONSTANTS),
    "fwd:nn.leaky_relu*-float64-edge_huge": (BUG, _F32_CONSTANTS),
    "grad:nn.leaky_relu*-float64-edge_zero": (BUG, _F32_CONSTANTS),
    "fwd:abs-*-edge_zero": (BUG, "abs(-0.0) is -0.0 (TF: +0.0)"),
    "fwd:sign-*-edge_nan": (BUG, "sign(NaN) is 0 (TF: NaN)"),
    "fwd:sin-*-edge_huge": (BUG, "sin of large arguments (1e10, 1e20, 1e30) is far outside [-1, 1]: no "
                                 "argument reduction"),
    "fwd:cos-*-edge_huge": (BUG, "cos of large arguments (1e10, 1e20, 1e30) is far outside [-1, 1]: no "
                                 "argument reduction"),
    "fwd:nn.relu-*-edge_nan": (BUG, "relu(NaN) is 0 (TF: NaN)"),
    "fwd:nn.relu6-*-edge_nan": (BUG, "relu6(NaN) is 0 (TF: NaN)"),
    "fwd:maximum-float*-edge": (BUG, "maximum(x, NaN) is x (TF: NaN)"),
    "fwd:minimum-float*-edge": (BUG, "minimum(x, NaN) is x (TF: NaN)"),
    "fwd:reduce_euclidean_norm-*-edge_nan": (BUG, "the norm of a vector holding NaN is 0 (TF: NaN)"),
    "fwd:norm-*-edge_nan": (BUG, "the norm of a vector holding NaN is 0 (TF: NaN)"),
    "fwd:linalg.global_norm-*-nan": (BUG, "global_norm of tensors holding NaN is finite (TF: NaN)"),
    "fwd:clip_by_global_norm-*-nan": (BUG, "clip_by_global_norm hides NaN: the global norm ignores it (TF: "
                                           "all NaN)"),
    "fwd:clip_by_norm-*-nan": (BUG, "clip_by_norm of a tensor holding NaN leaves the other entries (TF: all "
                                    "NaN)"),
    "fwd:argmax-*-nan": (BUG, "argmax picks the NaN entry (TF skips NaN)"),
    "fwd:argmin-*-nan": (BUG, "argmin picks the NaN entry (TF skips NaN)"),
    "fwd:linalg.trace-float*-nan_offdiag": (BUG, "trace picks up NaN/inf from off the diagonal"),
    "fwd:linalg.diag_part-float*-nan_offdiag": (BUG, "diag_part picks up NaN/inf from off the diagonal"),
    "fwd:cast-float*-to_bool": (BUG, "cast float -> bool is x > 0 (TF: x != 0, NaN -> True)"),
    "fwd:cast:edges-*-edge_*_bool": (BUG, "cast float -> bool is x > 0 (TF: x != 0, NaN -> True)"),
    "fwd:clip_by_value-*-inverted": (BUG, "clip_value_min > clip_value_max gives the max (TF: min(max) order, "
                                          "the min)"),
    "fwd:squeeze-*-empty_axes": (BUG, "squeeze(x, axis=[]) squeezes nothing (TF: every size-1 axis)"),
    "fwd:concat-*-tensor": (BUG, "concat(t, 0) with one tensor concatenates its rows (TF: t as a list of one)"),
    "*:nn.softmax_cross_entropy_with_logits-*-axnone": (BUG, "axis=None reduces every axis (TF: the last)"),
    "fwd:constant-int*-scalar": (BUG, "constant(3.7, int) truncates to 3 (TF: TypeError)"),
    "fwd:constant-bool-[lsh]*": (BUG, "constant(number, bool) converts (TF: TypeError): list, scalar, "
                                         "shape=, huge"),
    "fwd:reshape-*-empty": (BUG, "reshape of a (0, 3) tensor to [3, 0, -1] is refused (TF infers the -1)"),
    "grad:reshape-*-empty": (BUG, "reshape of a (0, 3) tensor to [3, 0, -1] is refused (TF infers the -1)"),
    "*:math.unsorted_segment_sum-*-neg": (BUG, "a negative segment id raises (TF drops that entry)"),
    "*:linalg.trace-*-rect": (BUG, "trace of a non-square matrix is refused (TF: sum of the main diagonal)"),
    "*:linalg.diag_part-*-rect": (BUG, "diag_part of a non-square matrix is refused (TF: the main diagonal)"),
    "fwd:where-*-indices": (BUG, "where(condition) alone raises NotImplementedError (TF: the indices of the "
                                 "true entries)"),
    "fwd:nn.relu-int*": (BUG, "relu refuses int32/int64 (TF takes them)"),
    "fwd:nn.relu6-int*": (BUG, "relu6 refuses int32/int64 (TF takes them)"),
    "fwd:pow:int-int64-empty": (BUG, "integer pow with a negative exponent raises even when the result is "
                                     "empty (TF returns the empty result)"),
    # ---- bugs: errors (TF raises, tapegrad returns or raises another class)
    "fwd:floordiv-int*-edge": (BUG, "integer floordiv by zero returns a value (TF: InvalidArgumentError)"),
    "fwd:floormod-int*-edge": (BUG, "integer floormod by zero returns a value (TF: InvalidArgumentError)"),
    "fwd:mod-int*-edge": (BUG, "integer mod by zero returns a value (TF: InvalidArgumentError)"),
    "*:divide-float32-mixed": (BUG, "mixed float dtypes raise InvalidArgumentError (TF: TypeError)"),
    "*:truediv-float32-mixed": (BUG, "mixed float dtypes raise InvalidArgumentError (TF: TypeError)"),
    "*:add_n-*-bad": (BUG, "add_n broadcasts inputs of different shapes (TF: InvalidArgumentError)"),
    "fwd:constant-*-badshape": (BUG, "constant(value, shape=) with a mismatched size raises "
                                     "InvalidArgumentError from Reshape (TF: TypeError)"),
    "fwd:eye-*-neg": (BUG, "eye(-1) raises NumPy's ValueError (TF: InvalidArgumentError)"),
    "*:fill-*-neg": (BUG, "fill with a negative dimension raises NumPy's ValueError (TF: InvalidArgumentError)"),
    "*:fill-*-nonscalar": (BUG, "fill with a non-scalar value is accepted (TF: InvalidArgumentError)"),
    "fwd:range-*-empty": (BUG, "range(3, 1) returns an empty tensor (TF: InvalidArgumentError, start > limit "
                               "with delta > 0)"),
    "fwd:range-*-zero_delta": (BUG, "range(0, 10, 0) raises ZeroDivisionError (TF: InvalidArgumentError)"),
    "grad:nn.selu-*-edge_zero": (BUG, "selu's gradient at 0 is the left one, scale * alpha (TF: scale)"),
    # ---- bugs: calling conventions (the keyword cases every row gets on its first sample)
    **{f"fwd:{op}-*-badkw": (BUG, "an unknown keyword argument is ignored (TF: TypeError naming it)")
       for op in ["abs", "negative", "neg", "sign", "square", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt",
                  "reciprocal", "sin", "cos", "tan", "tanh", "sigmoid", "softplus", "erf", "floor", "ceil", "round",
                  "nn.relu", "nn.relu6", "nn.elu", "nn.selu", "logical_not", "add", "subtract", "multiply",
                  "maximum", "minimum", "squared_difference", "pow", "multiply_no_nan", "floordiv", "floormod",
                  "mod", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
                  "logical_or", "matmul", "einsum"]},
    "fwd:pow:int-*-badkw": (BUG, "an unknown keyword argument is ignored (TF: TypeError naming it)"),
    "fwd:nn.silu-*-name": (BUG, "nn.silu and nn.swish take name= (TF's do not: TypeError)"),
    "fwd:nn.swish-*-name": (BUG, "nn.silu and nn.swish take name= (TF's do not: TypeError)"),
    "*:Tensor.__getitem__-*-list": (BUG, "a Python list as an index acts as NumPy fancy indexing (TF reads "
                                         "x[[0, 1]] as x[0, 1])"),
    **{f"fwd:Tensor.{op}-int*-pyfloat": (BUG, _PYFLOAT) for op in ["__radd__", "__sub__", "__rsub__", "__mul__",
                                                                  "__rmul__", "__truediv__", "__rtruediv__", "__lt__",
                                                                  "__ge__", "__eq__", "__ne__", "__floordiv__",
                                                                  "__mod__"]},
    "fwd:Tensor.__and__-bool-pyfloat": (BUG, _PYFLOAT),
    "fwd:Tensor.__or__-bool-pyfloat": (BUG, _PYFLOAT),
    "*:einsum-*-notstr": (BUG, "einsum with a non-string equation raises AttributeError (TF too; the contract: "
                              "TypeError)"),
    "fwd:Tensor.__and__-bool-pyint": (BUG, "bool_tensor & 3 converts 3 to bool (TF: TypeError)"),
    "fwd:Tensor.__or__-bool-pyint": (BUG, "bool_tensor | 3 converts 3 to bool (TF: TypeError)"),
    "fwd:Tensor.__eq__-*-badshape": (BUG, "== of tensors whose shapes do not broadcast raises (TF: False)"),
    "fwd:Tensor.__ne__-*-badshape": (BUG, "!= of tensors whose shapes do not broadcast raises (TF: True)"),
    "fwd:pad-bool-value": (BUG, "pad of a bool tensor with constant_values=3 converts 3 to bool (TF: TypeError)"),
    # ---- bugs: gradients
    "grad:fill-*-shape": (BUG, "fill has no gradient with respect to its value (TF: the sum of the upstream "
                               "gradient)"),
    "grad:linspace-*": (BUG, "linspace has no gradient with respect to start and stop"),
}
