"""The joining kernels of tf.strings on object arrays of bytes: reduce_join, unsorted_segment_join and
ngrams of a dense tensor, each with TF's argument checks and TF's order of joined pieces."""
import numpy as np

from tapegrad import errors


def _joined(groups, sep, shape):
    out = np.empty(shape, dtype=object)
    for index in np.ndindex(shape):
        out[index] = sep.join(groups[index])
    return out


def reduce_join(values, axis, keepdims, sep):
    """ReduceJoin: the strings joined along ``axis`` (None: all, row-major). The first axis listed varies
    fastest in the joined order, as in TF's kernel: axis=[0, 1] joins [["a", "b"], ["c", "d"]] as "acbd"."""
    ndim = values.ndim
    if axis is None:
        axes = list(range(ndim))[::-1]
    else:
        axes = [int(a) for a in np.ravel(np.asarray(axis))]
        for a in axes:
            if not -ndim <= a < ndim:
                raise errors.OutOfRangeError(f"ReduceJoin: Invalid reduction dimension {a} for input with "
                                             f"{ndim} dimension(s)")
        axes = [a % ndim for a in axes]
        if len(set(axes)) < len(axes):
            twice = next(a for a in axes if axes.count(a) > 1)
            raise errors.InvalidArgumentError(f"ReduceJoin: Duplicate reduction dimension {twice}")
    kept = [a for a in range(ndim) if a not in axes]
    moved = np.transpose(values, kept + axes[::-1])
    moved = moved.reshape([values.shape[a] for a in kept] + [-1])
    joined = _joined(moved, sep, moved.shape[:-1])
    if keepdims:
        joined = joined.reshape([1 if a in axes else values.shape[a] for a in range(ndim)])
    return joined


def unsorted_segment_join(values, ids, num_segments, sep):
    """UnsortedSegmentJoin: out[j] joins, in order, the inputs whose segment id is j (empty when none)."""
    if ids.ndim == 0:
        raise errors.InvalidArgumentError("UnsortedSegmentJoin: Segment_id cannot have rank 0")
    if num_segments < 0:
        raise errors.InvalidArgumentError(f"UnsortedSegmentJoin: Number of segments must be non-negative but "
                                          f"got {num_segments}")
    if ids.shape != values.shape[:ids.ndim]:
        raise errors.InvalidArgumentError(f"UnsortedSegmentJoin: segment_ids shape {list(ids.shape)} is not a "
                                          f"prefix of the input's shape {list(values.shape)}")
    if ids.size and (ids.min() < 0 or ids.max() >= num_segments):
        raise errors.InvalidArgumentError("UnsortedSegmentJoin: segment_ids are not allowed to exceed "
                                          "num_segments or to have negative values.")
    inner = values.shape[ids.ndim:]
    rows = values.reshape((ids.size,) + inner)
    groups = np.empty((num_segments,) + inner, dtype=object)
    for index in np.ndindex(groups.shape):
        groups[index] = []
    for row, segment in enumerate(ids.ravel()):
        for index in np.ndindex(inner):
            groups[(int(segment),) + index].append(rows[(row,) + index])
    return _joined(groups, sep, groups.shape)


def _row_ngrams(row, widths, left, right, padding_width, preserve_short, sep):
    """The ngrams of one sequence, width by width; each side padded with min(padding_width, width - 1)
    pads (width - 1 when padding_width is -1)."""
    out = []
    for width in widths:
        pad = width - 1 if padding_width < 0 else min(padding_width, width - 1)
        padded = [left] * pad + list(row) + [right] * pad
        out += [sep.join(padded[i:i + width]) for i in range(len(padded) - width + 1)]
    if preserve_short and not out and len(row):  # the whole sequence, padded, as its only ngram
        pad = max(padding_width, 0)
        out = [sep.join([left] * pad + list(row) + [right] * pad)]
    return out


def ngrams(values, widths, sep, left, right, padding_width, preserve_short):
    """StringNGrams of a dense tensor along its last axis: every row has as many ngrams, so the result
    is dense, of shape values.shape[:-1] + [count]."""
    rows = values.reshape(int(np.prod(values.shape[:-1])), values.shape[-1])
    grams = [_row_ngrams(r, widths, left, right, padding_width, preserve_short, sep) for r in rows]
    count = len(grams[0]) if grams else len(_row_ngrams([b""] * values.shape[-1], widths, left, right,
                                                        padding_width, preserve_short, sep))
    out = np.empty((len(grams), count), dtype=object)
    for i, g in enumerate(grams):
        out[i, :] = g
    return out.reshape(values.shape[:-1] + (count,))


def refuse_join_input(x, i, inputs):
    """Raises for join's input ``x`` (``inputs[i]``, not text) as TF refuses it: a list of tensors only goes to
    the kernel, which names the input; with Python values among them each is converted to a string tensor."""
    if all(hasattr(v, "dtype") for v in inputs):  # tensors (string or not) and nothing else
        raise errors.InvalidArgumentError(f"cannot compute StringJoin as input #{i}(zero-based) was expected to be a "
                                          f"string tensor but is a {x.dtype.name} tensor")
    if hasattr(x, "dtype") and not isinstance(x, np.generic):
        raise ValueError(f"StringJoin: Tensor conversion requested dtype string for Tensor with dtype {x.dtype.name}")
    if isinstance(x, (bool, int, float)):
        raise TypeError(f"StringJoin: Cannot convert {x!r} to EagerTensor of dtype string")
    raise ValueError(f"StringJoin: cannot convert {x!r} ({type(x).__name__}) to a string tensor")
