"""Every difference the oracle finds between tapegrad and TensorFlow, in one table.

Keys are fnmatch patterns over "fwd:<op>-<dtype>-<label>" (values, dtypes, shapes, error classes) and
"grad:<op>-<dtype>-<label>" (first-order gradients); the first matching row makes a case a strict xfail,
so fixing a difference fails its case until its row here goes. Values: (kind, reason), kind "bug" (to be
fixed) or "deliberate" (kept on purpose; docs/differences.md lists the same rows, generated from this table by .ci/gen_docs)."""

BUG, DELIBERATE = "bug", "deliberate"
_LOG_SUBNORMAL = ("both flush subnormals to zero (Note [Flush denormals]), but TF's float32 log reads a "
                  "subnormal's bits with integer ops: log(1e-40) is -103.97 and log(-1e-40) NaN in TF, -inf in "
                  "tapegrad, as log(0)")
_LGAMMA_SUBNORMAL = ("both flush subnormals to zero (Note [Flush denormals]), but TF's float32 lgamma reads a "
                     "subnormal argument unflushed: lgamma(1e-45) is 103.97 in TF, inf (lgamma(0)) in tapegrad")
_NAN_ORDER = ("sort, argsort and top_k order NaN above every number (NumPy's rule; stable for ties), so NaNs come "
              "last when ascending and first when descending; TF's order around a NaN depends on its algorithm")
_ERF = "TF's float64 erf gives NaN at +-inf and near the largest float; tapegrad gives +-1"

DIFFERENCES = {
    # ---- deliberate
    "fwd:log-float32-edge_subnormal": (DELIBERATE, _LOG_SUBNORMAL),
    "fwd:erf-float64-edge_inf": (DELIBERATE, _ERF),
    "fwd:erf-float64-edge_huge": (DELIBERATE, _ERF),
    "fwd:constant-int32-huge": (DELIBERATE, "An integer that does not fit the dtype is refused: TF wraps "
                                            "`constant(2**40, int32)` to 0"),
    "grad:nn.conv2d-float*-dilated": (DELIBERATE, "conv2d's gradient with dilations > 1 is computed; "
                                                  "TF's CPU kernels refuse it"),
    "fwd:math.lgamma-float32-edge_subnormal": (DELIBERATE, _LGAMMA_SUBNORMAL),
    "fwd:sort-float*-edge_nan": (DELIBERATE, _NAN_ORDER),
    "fwd:argsort-float*-edge_nan": (DELIBERATE, _NAN_ORDER),
    "fwd:math.top_k-float*-edge_nan": (DELIBERATE, _NAN_ORDER),
    "fwd:nn.sufficient_statistics-*-ax5": (DELIBERATE, "sufficient_statistics refuses an axis out of range with "
                                                        "InvalidArgumentError, as every op does; TF's is an IndexError"),
    "fwd:math.cumulative_logsumexp-float*-nan": (DELIBERATE, "cumulative_logsumexp propagates a NaN to every later "
                                                             "sum; TF's kernel skips it ([1, nan, 1] gives 1, 1.69, 2.10)"),
    # ---- bugs: values
    # ---- bugs: errors (TF raises, tapegrad returns or raises another class)
    # ---- bugs: calling conventions
    # ---- bugs: gradients
}
