"""keras.ops.numpy's ops that move, join, split and pad tensors, over tapegrad's shape ops."""
import numpy as np

import tapegrad as tf
from tapegrad.keras.ops._dtypes import as_tensor, promote


def _rank(x):
    return len(x.shape)


def _positive(axis, rank):
    return axis + rank if axis < 0 else axis


def _expand_dims(x, axis):
    x = as_tensor(x)
    axes = sorted(_positive(a, _rank(x) + len(axis)) for a in axis) if isinstance(axis, (list, tuple)) else [axis]
    for a in axes:
        x = tf.expand_dims(x, a)
    return x


def _squeeze(x, axis=None):
    x = as_tensor(x)
    return tf.squeeze(x, axis=None if axis is None else list(axis) if isinstance(axis, (list, tuple)) else [axis])


def _moveaxis(x, source, destination):
    x = as_tensor(x)
    rank = _rank(x)
    source, destination = ([_positive(a, rank) for a in (v if isinstance(v, (list, tuple)) else [v])]
                           for v in (source, destination))
    order = [a for a in range(rank) if a not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return tf.transpose(x, order)


def _swapaxes(x, axis1, axis2):
    x = as_tensor(x)
    order = list(range(_rank(x)))
    a, b = _positive(axis1, len(order)), _positive(axis2, len(order))
    order[a], order[b] = order[b], order[a]
    return tf.transpose(x, order)


def _transpose(x, axes=None):
    x = as_tensor(x)
    return tf.transpose(x, None if axes is None else list(axes))


def _concatenate(xs, axis=0):
    xs = promote(*xs)
    if axis is None:
        return tf.concat([tf.reshape(x, [-1]) for x in xs], axis=0)
    return tf.concat(xs, axis=axis)


def _append(x1, x2, axis=None):
    return _concatenate([x1, x2], axis=axis)


def _at_least(x, rank):
    x = as_tensor(x)
    if rank == 2 and _rank(x) < 2:
        return tf.reshape(x, [1, -1])
    if rank == 3 and _rank(x) < 3:
        return tf.reshape(x, [1, -1, 1]) if _rank(x) < 2 else tf.expand_dims(x, -1)
    return x


def _hstack(xs):
    xs = promote(*xs)
    return tf.concat(xs, axis=0 if _rank(xs[0]) == 1 else 1)


def _split_sizes(x, indices_or_sections, axis, even):
    n = x.shape[axis]
    if isinstance(indices_or_sections, int):
        if even and n % indices_or_sections:
            raise ValueError(f"split: the axis of size {n} does not divide into {indices_or_sections} equal parts")
        base, extra = divmod(n, indices_or_sections)
        return [base + 1] * extra + [base] * (indices_or_sections - extra)
    bounds = [0] + [min(max(_positive(int(i), n), 0), n) for i in indices_or_sections] + [n]
    return [max(b - a, 0) for a, b in zip(bounds[:-1], bounds[1:])]


def _splitter(even, fixed_axis=None):
    def op(x, indices_or_sections, axis=0):
        x = as_tensor(x)
        axis = fixed_axis if fixed_axis is not None else _positive(axis, _rank(x))
        return tf.split(x, _split_sizes(x, indices_or_sections, axis, even), axis=axis)
    return op


def _fixed_split(axis_of_rank):
    def op(x, indices_or_sections):
        x = as_tensor(x)
        return _splitter(True)(x, indices_or_sections, axis=axis_of_rank(_rank(x)))
    return op


def _tile(x, repeats):
    x = as_tensor(x)
    repeats = [repeats] if isinstance(repeats, int) else list(repeats)
    extra = len(repeats) - _rank(x)
    if extra > 0:
        x = tf.reshape(x, [1] * extra + list(x.shape))
    return tf.tile(x, [1] * (_rank(x) - len(repeats)) + repeats)


def _flip(x, axis=None):
    x = as_tensor(x)
    axes = list(range(_rank(x))) if axis is None else list(axis) if isinstance(axis, (list, tuple)) else [axis]
    return tf.reverse(x, axes)


def _roll(x, shift, axis=None):
    x = as_tensor(x)
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(x, [-1]), shift, axis=0), tf.shape(x))
    return tf.roll(x, shift, axis)


def _rot90(array, k=1, axes=(0, 1)):
    x = as_tensor(array)
    a, b = axes
    for _ in range(k % 4):
        x = _swapaxes(_flip(x, b), a, b)
    return x


def _pad(x, pad_width, mode="constant", constant_values=None):
    x = as_tensor(x)
    widths = np.broadcast_to(np.asarray(pad_width, "int64"), (_rank(x), 2)).tolist()
    if mode not in ("constant", "reflect", "symmetric"):
        raise tf.errors.UnimplementedError(None, None, f"keras.ops.pad: mode {mode!r} (tapegrad pads constant, "
                                           "reflect and symmetric)")
    if constant_values is not None and mode != "constant":
        raise ValueError("pad: constant_values is only for mode='constant'")
    value = 0 if constant_values is None else constant_values
    return tf.pad(x, widths, mode=mode.upper(), constant_values=tf.cast(value, x.dtype))


def _diff(a, n=1, axis=-1):
    x = as_tensor(a)
    axis = _positive(axis, _rank(x))
    for _ in range(n):
        head = [slice(None)] * axis
        later, earlier = x[tuple(head + [slice(1, None)])], x[tuple(head + [slice(None, -1)])]
        x = tf.not_equal(later, earlier) if x.dtype == tf.bool else later - earlier
    return x


def _trapezoid(y, x=None, dx=1.0, axis=-1):
    y = as_tensor(y)
    y = tf.cast(y, "float32") if not y.dtype.is_floating else y
    axis = _positive(axis, _rank(y))
    head = [slice(None)] * axis
    pairs = y[tuple(head + [slice(1, None)])] + y[tuple(head + [slice(None, -1)])]
    if x is None:
        return tf.reduce_sum(pairs, axis=axis) * tf.cast(dx, y.dtype) / 2
    steps = _diff(tf.cast(as_tensor(x), y.dtype), axis=-1 if len(as_tensor(x).shape) == 1 else axis)
    if len(steps.shape) == 1 and _rank(y) > 1:
        steps = tf.reshape(steps, [-1] + [1] * (_rank(y) - axis - 1))
    return tf.reduce_sum(pairs * steps, axis=axis) / 2


def _get_item(x, key):
    return as_tensor(x)[key]


def _repeat(x, repeats, axis=None):
    return tf.repeat(as_tensor(x), repeats, axis=axis)


NUMPY_SHAPE = {
    "reshape": lambda x, newshape: tf.reshape(as_tensor(x), [newshape] if isinstance(newshape, int) else newshape),
    "transpose": _transpose, "expand_dims": _expand_dims, "squeeze": _squeeze, "moveaxis": _moveaxis,
    "swapaxes": _swapaxes, "ravel": lambda x: tf.reshape(as_tensor(x), [-1]),
    "broadcast_to": lambda x, shape: tf.broadcast_to(as_tensor(x), list(shape)),
    "concatenate": _concatenate, "append": _append,
    "stack": lambda x, axis=0: tf.stack(promote(*x), axis=axis),
    "hstack": _hstack, "vstack": lambda xs: tf.concat(promote(*[_at_least(x, 2) for x in xs]), axis=0),
    "dstack": lambda xs: tf.concat(promote(*[_at_least(x, 3) for x in xs]), axis=2),
    "split": _splitter(True), "array_split": _splitter(False),
    "hsplit": _fixed_split(lambda rank: 0 if rank == 1 else 1), "vsplit": _fixed_split(lambda rank: 0),
    "dsplit": _fixed_split(lambda rank: 2),
    "tile": _tile, "repeat": _repeat, "flip": _flip, "fliplr": lambda x: _flip(x, 1),
    "flipud": lambda x: _flip(x, 0), "roll": _roll, "rot90": _rot90, "pad": _pad,
    "ndim": lambda x: len(as_tensor(x).shape), "size": lambda x: tf.size(as_tensor(x)),
    "get_item": _get_item, "diff": _diff, "trapezoid": _trapezoid,
}
