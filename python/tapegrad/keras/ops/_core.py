"""keras.ops' core ops (conversion, control flow, slicing, scatter, segments) and its math extras, over
tapegrad's ops."""
import numpy as np

import tapegrad as tf
from tapegrad.keras.ops._dtypes import as_tensor, dtype_name, promote, to_float


def _convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    if sparse or ragged:
        raise tf.errors.UnimplementedError(None, None, "keras.ops.convert_to_tensor: sparse and ragged tensors")
    return as_tensor(x, dtype)


def _convert_to_numpy(x):
    return np.asarray(x.numpy() if tf.is_tensor(x) else x)


def _shape(x):
    x = as_tensor(x)
    static = tuple(x.shape)
    if all(d is not None for d in static):
        return static
    dynamic = tf.shape(x)
    return tuple(d if d is not None else dynamic[i] for i, d in enumerate(static))


def _while_loop(cond, body, loop_vars, maximum_iterations=None):
    packed = isinstance(loop_vars, (list, tuple))
    state = tuple(tf.nest.map_structure(as_tensor, v) for v in (loop_vars if packed else (loop_vars,)))

    def step(*values):
        out = body(*values)
        return tuple(out) if isinstance(out, (list, tuple)) else (out,)
    result = tf.while_loop(lambda *values: cond(*values), step, state, maximum_iterations=maximum_iterations)
    result = tuple(result) if isinstance(result, (list, tuple)) else (result,)
    return type(loop_vars)(result) if packed else result[0]


def _fori_loop(lower, upper, body_fun, init_val):
    _, out = tf.while_loop(lambda i, _: tf.less(i, upper), lambda i, v: (i + 1, body_fun(i, v)),
                           (tf.convert_to_tensor(lower), init_val))
    return out


def _scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """JAX's scan: f(carry, x) -> (carry, y); returns the last carry and the ys stacked."""
    flat_xs = [] if xs is None else [as_tensor(x) for x in tf.nest.flatten(xs)]
    n = length if xs is None else flat_xs[0].shape[0]
    if n is None:
        n = tf.shape(flat_xs[0])[0]
    carry, ys = init, []
    if isinstance(n, int):  # a Python loop: eager or traced, its length is known
        order = range(n - 1, -1, -1) if reverse else range(n)
        for i in order:
            x = None if xs is None else tf.nest.pack_sequence_as(xs, [v[i] for v in flat_xs])
            carry, y = f(carry, x)
            ys.append(y)
        ys = ys[::-1] if reverse else ys
        stacked = None if not ys or ys[0] is None else tf.nest.map_structure(lambda *v: tf.stack(v), *ys)
        return carry, stacked
    raise tf.errors.UnimplementedError(None, None, "keras.ops.scan: a length unknown until run time")


def _associative_scan(f, elems, reverse=False, axis=0):
    """The inclusive scan of f along ``axis``, one step at a time (the same values as Keras's parallel
    scan for an associative f, up to float rounding)."""
    flat = [as_tensor(e) for e in tf.nest.flatten(elems)]
    n = flat[0].shape[axis]
    order = range(n - 1, -1, -1) if reverse else range(n)
    pick = [slice(None)] * (axis % len(flat[0].shape))
    outs, acc = [], None
    for i in order:
        x = tf.nest.pack_sequence_as(elems, [v[tuple(pick + [i])] for v in flat])
        acc = x if acc is None else (f(x, acc) if reverse else f(acc, x))
        outs.append(acc)
    outs = outs[::-1] if reverse else outs
    return tf.nest.map_structure(lambda *v: tf.stack(v, axis=axis), *outs)


def _map(f, xs):
    flat = [as_tensor(x) for x in tf.nest.flatten(xs)]
    outs = [f(tf.nest.pack_sequence_as(xs, [v[i] for v in flat])) for i in range(flat[0].shape[0])]
    return tf.nest.map_structure(lambda *v: tf.stack(v), *outs)


def _switch(index, branches, *operands):
    index = tf.clip_by_value(tf.cast(as_tensor(index), "int32"), 0, len(branches) - 1)
    return tf.switch_case(index, [lambda b=b: b(*operands) for b in branches])


def _slice(inputs, start_indices, shape):
    return tf.slice(as_tensor(inputs), start_indices, shape)


def _slice_update(inputs, start_indices, updates):
    inputs = as_tensor(inputs)
    updates = tf.cast(as_tensor(updates), inputs.dtype)
    grids = tf.meshgrid(*[tf.range(n) for n in updates.shape], indexing="ij")
    start = tf.cast(as_tensor(start_indices), "int32")
    indices = tf.stack([g + start[i] for i, g in enumerate(grids)], axis=-1)
    return tf.tensor_scatter_nd_update(inputs, indices, updates)


def _scatter(indices, values, shape):
    values = as_tensor(values)
    return tf.scatter_nd(tf.cast(as_tensor(indices), "int32"), values, list(shape))


def _scatter_update(inputs, indices, updates, reduction=None):
    inputs = as_tensor(inputs)
    indices, updates = tf.cast(as_tensor(indices), "int32"), tf.cast(as_tensor(updates), inputs.dtype)
    if reduction is None:
        return tf.tensor_scatter_nd_update(inputs, indices, updates)
    if reduction == "add":
        return tf.tensor_scatter_nd_add(inputs, indices, updates)
    raise tf.errors.UnimplementedError(None, None, f"keras.ops.scatter_update: reduction {reduction!r} "
                                       "(tapegrad: None and 'add')")


def _segment(fn):
    def op(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002 -- Keras's name
        data, segment_ids = as_tensor(data), tf.cast(as_tensor(segment_ids), "int32")
        if num_segments is None:
            num_segments = tf.reduce_max(segment_ids) + 1
        return fn(data, segment_ids, num_segments)
    return op


def _top_k(x, k, sorted=True):  # noqa: A002
    return tf.math.top_k(as_tensor(x), k=k, sorted=sorted)


def _in_top_k(targets, predictions, k):
    return tf.math.in_top_k(tf.cast(as_tensor(targets), "int32"), to_float(predictions), k)


def _extract_sequences(x, sequence_length, sequence_stride):
    x = as_tensor(x)
    frames = (x.shape[-1] - sequence_length) // sequence_stride + 1
    starts = tf.range(frames)[:, None] * sequence_stride
    return tf.gather(x, starts + tf.range(sequence_length)[None, :], axis=len(x.shape) - 1)


def _cdist(x, y):
    x, y = promote(x, y)
    if not x.dtype.is_floating:
        x, y = tf.cast(x, "float32"), tf.cast(y, "float32")
    return tf.sqrt(tf.reduce_sum(tf.square(x[..., :, None, :] - y[..., None, :, :]), axis=-1))


CORE = {
    "cast": lambda x, dtype: tf.cast(as_tensor(x), dtype_name(dtype)),
    "saturate_cast": lambda x, dtype: tf.saturate_cast(as_tensor(x), dtype_name(dtype)),
    "convert_to_tensor": _convert_to_tensor, "convert_to_numpy": _convert_to_numpy,
    "is_tensor": lambda x: tf.is_tensor(x), "dtype": lambda x: as_tensor(x).dtype.name, "shape": _shape,
    "cond": lambda pred, true_fn, false_fn: tf.cond(pred, true_fn, false_fn),
    "while_loop": _while_loop, "associative_scan": _associative_scan, "fori_loop": _fori_loop, "scan": _scan,
    "map": _map, "switch": _switch,
    "stop_gradient": lambda variable: tf.stop_gradient(variable),
    "vectorized_map": lambda function, elements: tf.vectorized_map(function, elements),
    "custom_gradient": lambda f: tf.custom_gradient(f),
    "slice": _slice, "slice_update": _slice_update, "scatter": _scatter, "scatter_update": _scatter_update,
    "segment_sum": _segment(tf.math.unsorted_segment_sum), "segment_max": _segment(tf.math.unsorted_segment_max),
    "segment_min": _segment(tf.math.unsorted_segment_min), "segment_prod": _segment(tf.math.unsorted_segment_prod),
    "top_k": _top_k, "in_top_k": _in_top_k, "extract_sequences": _extract_sequences, "cdist": _cdist,
    "unstack": lambda x, num=None, axis=0: tf.unstack(as_tensor(x), num=num, axis=axis),
    "erf": lambda x: tf.math.erf(to_float(x)), "erfc": lambda x: tf.math.erfc(to_float(x)),
    "erfinv": lambda x: tf.math.erfinv(to_float(x)), "rsqrt": lambda x: tf.math.rsqrt(to_float(x)),
}
