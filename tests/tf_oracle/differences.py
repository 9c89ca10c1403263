"""Every difference the oracle finds between tapegrad and TensorFlow, in one table.

Keys are fnmatch patterns over "fwd:<op>-<dtype>-<label>" (values, dtypes, shapes, error classes) and
"grad:<op>-<dtype>-<label>" (first-order gradients); the matching cases are strict xfails, so fixing a
difference fails its case until the row here goes. Values: (kind, reason), kind "bug" (to be fixed) or
"deliberate" (kept on purpose; README.md's "Differences from TensorFlow" lists the same rows)."""

DIFFERENCES = {
}
