"""tf.map_fn, tf.scan, tf.foldl, tf.foldr and tf.vectorized_map: a Python function applied to the
rows (axis 0) of one tensor or of a nested structure of tensors with the same number of rows.

Eagerly they loop in Python: the tape records the ops of every call of ``fn``, so gradients reach
``elems``, the initializer and whatever ``fn`` closes over. Inside a tf.function they build one
tf.while_loop whose trip count is the run-time row count (Note [Functional loops]), so a graph
serves every length, as TF's does.

Note [Functional loops]: the loop variables are a row index, the carried state (scan and the
folds) and one buffer per output leaf, shaped [n + 1, *row shape], that iteration i writes row i of
(SetRow, in place; the last row is padding, cut off after the loop by ResizeRows). ``elems``
are captured and read with gather at the index. The row count and the buffers come from ops whose
shapes follow ``elems`` at run time, never from a size known at tracing time, so a relaxed trace
serves every length. The buffers need the row shape of every output before the loop: a scan's
outputs are its state, whose shape the loop keeps; map_fn traces ``fn`` once more, as a dry
subgraph (its side effects are undone), to learn them. A trace reads real values: the loop reads
from elems padded by a row of zeros, which it never reaches at run time but which the trace at
index 0 reads when there are no rows. Reversed
loops (foldr, scan(reverse=True)) index rows from the end and write there, so the outputs keep
the order of ``elems``.
"""
from tapegrad import _core, dtypes, errors
from tapegrad import _nest as nest
from tapegrad._function.control_flow import _trace_subgraph, while_loop
from tapegrad._ops.array.creation import zeros
from tapegrad._ops.array.manipulation import concat, expand_dims, gather, reshape, stack, unstack
from tapegrad._ops.math.elementwise import equal, maximum
from tapegrad._ops.math.divide_where import where
from tapegrad._ops.math.reduction import cumsum, reduce_sum
from tapegrad._tensor.tensor import Tensor, TensorShape, TensorSpec, convert_to_tensor, stop_gradient
from tapegrad._ops import _raw

_shape_op = _raw.Shape
_set_row = _raw.SetRow
_resize_rows = _raw.ResizeRows

__all__ = ["map_fn", "scan", "foldl", "foldr", "vectorized_map"]


# -- arguments ------------------------------------------------------------------------------------
def _callable(fn, what):
    if not callable(fn):
        raise TypeError(f"{what}: fn must be callable, got {type(fn).__name__}")
    if _core._tracing():  # inside a tf.function, fn's Python control flow on tensors becomes graph ops
        from tapegrad.autograph._api import convert
        return convert(fn)
    return fn


def _rows(elems, what, scalar_error=ValueError, mismatch_error=ValueError):
    """(flat tensors, static row count) of ``elems``; every leaf needs rank >= 1 and the same rows."""
    flat = [v if isinstance(v, Tensor) else convert_to_tensor(v) for v in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{what}: elems must hold at least one tensor")
    if any(v.ndim == 0 for v in flat):
        raise scalar_error(f"{what}: elements in elems must be 1+ dimensional Tensors, not scalars")
    n = flat[0]._shape[0]
    for v in flat[1:]:
        if v._shape[0] != n:
            raise mismatch_error(f"{what}: Dimensions {n} and {v._shape[0]} are not compatible: every tensor in "
                                 "elems must have the same size along axis 0")
    return flat, n


def _row_of(structure, flat, i):
    return nest.pack_sequence_as(structure, [gather(v, i) for v in flat])


def _tensors(structure, what):
    return nest.map_structure(lambda v: v if isinstance(v, Tensor) else convert_to_tensor(v), structure)


def _no_backprop(result, back_prop):
    if back_prop:
        return result
    return nest.map_structure(lambda v: stop_gradient(v) if isinstance(v, Tensor) else v, result)


# -- the graph loop (Note [Functional loops]) -------------------------------------------------------
def _row_numbers(t):
    """0, 1, ..., n-1 for the n rows of ``t``, from ops whose shapes follow ``t`` at run time (so no
    size is baked into the graph); ``where(x == x, 0, 0)`` is zeros shaped like ``t``, NaN or not."""
    zero = where(equal(t, t), 0, 0)
    per_row = reduce_sum(zero, axis=list(range(1, t.ndim))) if t.ndim > 1 else zero
    return cumsum(per_row + 1, axis=0) - 1


def _rows_mask(rows, index, row_ndim):
    return reshape(equal(rows, index), [-1] + [1] * row_ndim)


def _write(buffer, index, value):
    # SetRow, in place in the loop (Note [Donated loop variables]); the index is never below 0 at run
    # time, and at -1 only in the trace without rows, which writes the padding row.
    return _set_row(buffer, maximum(index, 0), value)


def _graph_loop(step, structure, flat, state, out_specs, start=0, reverse=False, first=None):
    """Runs ``state, outs = step(state, row)`` over rows ``start``..n-1 (counted from the end when
    reversed) as one tf.while_loop. ``out_specs``: (dtype, row shape) per output leaf; ``first``: the
    outputs of the rows before ``start``. Returns (state, stacked outputs)."""
    n = gather(_shape_op(flat[0], out_type=dtypes.int32.code), 0)  # a run-time value, even in a fixed-shape trace
    # The body is traced with real values at index 0: with no rows it reads the row of zeros padded
    # on (always padded, so that traces at every length give one graph), and writes the padding row
    # of the buffers, which are cut off after the loop.
    unpadded = flat[0]
    flat = [concat([v, zeros([1] + list(v._shape[1:]), v.dtype)], 0) for v in flat]
    rows = _row_numbers(flat[0])
    flat_state = nest.flatten(state)
    k = len(flat_state)
    buffers = [where(_rows_mask(rows, rows, len(s)), zeros(list(s), dt), zeros(list(s), dt)) for dt, s in out_specs]
    if first is not None:
        buffers = [_write(b, n - 1 if reverse else 0, v) for b, v in zip(buffers, first)]

    def cond(i, *_):
        return i < n

    def body(i, *values):
        index = n - 1 - i if reverse else i
        row = _row_of(structure, flat, maximum(index, 0))  # (never below 0 when it runs; traced at -1 without rows)
        new_state, outs = step(nest.pack_sequence_as(state, list(values[:k])), row)
        written = [_write(b, index, o) for b, o in zip(values[k:], outs)]
        return (i + 1, *nest.flatten(new_state), *written)

    result = while_loop(cond, body, (convert_to_tensor(start), *flat_state, *buffers))
    return nest.pack_sequence_as(state, list(result[1:1 + k])), [_resize_rows(b, unpadded, like=True) for b in result[1 + k:]]


# -- map_fn -----------------------------------------------------------------------------------------
def _leaf_spec(leaf, what):
    """(dtype, shape or None) of one leaf of fn_output_signature."""
    if isinstance(leaf, TensorSpec):
        return leaf.dtype, leaf.shape
    if isinstance(leaf, Tensor):
        return leaf.dtype, None
    try:
        return dtypes.as_dtype(leaf), None
    except (TypeError, ValueError, KeyError):
        raise TypeError(f"{what}: fn_output_signature must hold DTypes or TensorSpecs, got {leaf!r}") from None


def _check_outputs(result, signature, specs, what):
    """fn's result, flattened and checked against the signature (its structure, dtypes, shapes)."""
    if signature is not None:
        try:
            nest.assert_same_structure(signature, result, check_types=True)
        except TypeError as e:
            raise TypeError(f"{what}: fn's output does not have the structure of fn_output_signature (or of "
                            f"elems when no signature is given): {e}") from None
        except ValueError as e:
            raise ValueError(f"{what}: fn's output does not have the structure of fn_output_signature (or of "
                             f"elems when no signature is given): {e}") from None
    flat = nest.flatten(result)
    out = []
    for j, v in enumerate(flat):
        dt, want = specs[j] if specs is not None else (None, None)
        if v is None:
            raise ValueError(f"{what}: fn returned None; it must return tensors")
        if not isinstance(v, Tensor):
            v = convert_to_tensor(v, dtype=dt) if dt is not None else convert_to_tensor(v)
        if dt is not None and v.dtype != dt:
            raise errors.InvalidArgumentError(f"{what}: output {j} of fn has dtype {v.dtype.name}, but the "
                                              f"signature (fn_output_signature, or the dtype of elems) is {dt.name}")
        if want is not None and not want.is_compatible_with(TensorShape(v._shape)):
            raise ValueError(f"{what}: Incompatible shape for value ({tuple(v._shape)}), expected ({want})")
        out.append(v)
    return out


def _stack_outputs(outs_per_row, what, infer_shape):
    stacked = []
    for j, column in enumerate(zip(*outs_per_row)):
        first = column[0]._shape
        if infer_shape:
            for v in column[1:]:
                if v._shape != first:
                    raise ValueError(f"{what}: Incompatible shape for value ({tuple(v._shape)}), expected "
                                     f"({tuple(first)}): output {j} of fn must have the same shape for every row")
        stacked.append(stack(list(column)))
    return stacked


def _map(fn, elems, signature, what, infer_shape=True, scalar_error=ValueError, mismatch_error=ValueError):
    """The loop behind map_fn and vectorized_map. ``signature`` None: outputs as fn gives them."""
    flat, n = _rows(elems, what, scalar_error, mismatch_error)
    specs = None if signature is None else [_leaf_spec(s, what) for s in nest.flatten(signature)]

    def apply(row):
        result = fn(row)
        return result, _check_outputs(result, signature, specs, what)

    if _core._tracing():
        # learn the outputs' structure and row shapes from a dry trace (Note [Functional loops])
        probe_row = [gather(v, 0) if n else zeros(list(v._shape[1:]), v.dtype) for v in flat]
        probe = _trace_subgraph(lambda *r: apply(nest.pack_sequence_as(elems, list(r)))[1],
                                [None] * len(flat), probe_row, [], what)[3]
        out_specs = [(v.dtype, tuple(v._shape)) for v in probe]
        structure = []  # of fn's result, from the loop body's trace

        def step(state, row):
            result, outs = apply(row)
            structure[:] = [result]
            return state, outs

        _, stacked = _graph_loop(step, elems, flat, (), out_specs)
        return nest.pack_sequence_as(structure[0], stacked)

    rows = [unstack(v) for v in flat]
    results, outs = [], []
    for i in range(n):
        result, out = apply(nest.pack_sequence_as(elems, [r[i] for r in rows]))
        results.append(result)
        outs.append(out)
    if n == 0:
        return None
    return nest.pack_sequence_as(results[0], _stack_outputs(outs, what, infer_shape))


def _empty_like_signature(signature, specs):
    """map_fn's result for no rows, eagerly (fn never runs): rows of the signature's shape if given."""
    leaves = [zeros([0] + (list(s) if s is not None and s.rank is not None and None not in s else []), dt)
              for dt, s in specs]
    return nest.pack_sequence_as(signature, leaves)


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """Stacks ``fn(row)`` over the rows of ``elems`` (a tensor or a nested structure of tensors with
    the same number of rows; ``fn`` receives a row of the same structure).

    ``fn`` must return the structure and dtypes of ``elems`` unless ``fn_output_signature`` (or the
    older ``dtype``) gives them: a DType or TensorSpec per output leaf, in the output's structure.

    >>> tf.map_fn(lambda x: x * x, tf.constant([1.0, 2.0, 3.0]))
    <tf.Tensor: shape=(3,), dtype=float32, numpy=array([1., 4., 9.], dtype=float32)>
    """
    what = "tf.map_fn"
    fn = _callable(fn, what)
    if fn_output_signature is None:
        fn_output_signature = dtype
    elems = _tensors(elems, what) if nest.flatten(elems) else elems
    if fn_output_signature is None:
        fn_output_signature = nest.map_structure(lambda v: v.dtype if isinstance(v, Tensor) else v, elems)
    result = _map(fn, elems, fn_output_signature, what, infer_shape)
    if result is None:  # no rows, eagerly
        specs = [_leaf_spec(s, what) for s in nest.flatten(fn_output_signature)]
        result = _empty_like_signature(fn_output_signature, specs)
    return _no_backprop(result, back_prop)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` applied to every row of ``elems`` and stacked (the outputs may have any structure and
    dtypes). TF vectorizes ``fn``; here it runs as map_fn, with the same results."""
    what = "tf.vectorized_map"
    fn = _callable(fn, what)
    elems = _tensors(elems, what)
    result = _map(fn, elems, None, what, scalar_error=IndexError, mismatch_error=errors.InvalidArgumentError)
    if result is None:  # no rows: fn runs once on zeros to learn the outputs' shapes, as TF traces it
        flat = nest.flatten(elems)
        sample = fn(nest.pack_sequence_as(elems, [zeros(list(v._shape[1:]), v.dtype) for v in flat]))
        result = nest.map_structure(lambda v: zeros([0] + list(convert_to_tensor(v)._shape),
                                                    convert_to_tensor(v).dtype), sample)
    return result


# -- scan, foldl, foldr ---------------------------------------------------------------------------
def _check_state(before, after, what, errors_for=None):
    """fn's new accumulator against the previous one: the structure always (types of sequences too
    when dtypes are checked); with ``errors_for`` = (dtype error, shape error) the dtypes and shapes
    too: scan's outputs are stacked, and a graph loop keeps its variables' dtypes and shapes."""
    try:
        nest.assert_same_structure(before, after, check_types=errors_for is not None)
    except TypeError as e:
        raise TypeError(f"{what}: fn must return the structure of its accumulator: {e}") from None
    except ValueError as e:
        raise ValueError(f"{what}: fn must return the structure of its accumulator: {e}") from None
    if errors_for is None:
        return after
    dtype_error, shape_error = errors_for
    flat = []
    for j, (b, a) in enumerate(zip(nest.flatten(before), nest.flatten(after))):
        a = a if isinstance(a, Tensor) else convert_to_tensor(a, dtype=b.dtype)
        if a.dtype != b.dtype:
            raise dtype_error(f"{what}: output {j} of fn has dtype {a.dtype.name}, but the accumulator has dtype "
                              f"{b.dtype.name}")
        if a._shape != b._shape:
            raise shape_error(f"{what}: Incompatible shape for value ({tuple(a._shape)}), expected ({tuple(b._shape)}): "
                              f"output {j} of fn must keep the accumulator's shape")
        flat.append(a)
    return nest.pack_sequence_as(before, flat)


def _accumulate(fn, elems, initializer, reverse, collect, what):
    """The loop behind scan (``collect``: every accumulator is an output) and the folds.
    Returns (final accumulator, stacked accumulators or None)."""
    fn = _callable(fn, what)
    elems = _tensors(elems, what)
    flat, n = _rows(elems, what, scalar_error=IndexError)
    if initializer is None:
        if n == 0:  # TF fails reading the first row: in a graph when it runs (InvalidArgumentError)
            error = errors.InvalidArgumentError if _core._tracing() else errors.OutOfRangeError
            raise error(f"{what}: elems has no rows and no initializer is given: "
                        + ("Reading from negative indices (index -1) is not allowed." if reverse and not collect
                           else "Tried to read from index 0 but array size is: 0"))
        last = gather(_shape_op(flat[0], out_type=dtypes.int32.code), 0) - 1 if _core._tracing() else n - 1
        state = _row_of(elems, flat, last if reverse else 0)  # (in a graph, the last row at run time)
        start = 1
    else:  # the folds run eagerly as Python does, with the initializer as given (as TF's do)
        state = _tensors(initializer, what) if collect or _core._tracing() else initializer
        start = 0
    first = state

    if _core._tracing():
        def step(a, row):
            new = _check_state(a, fn(a, row), what, (TypeError, ValueError))
            return new, nest.flatten(new) if collect else []

        specs = [(v.dtype, tuple(v._shape)) for v in nest.flatten(state)] if collect else []
        firsts = nest.flatten(first) if collect and start else None  # the first row is the first output
        state, stacked = _graph_loop(step, elems, flat, state, specs, start, reverse, firsts)
        return state, stacked if collect else None

    rows = [unstack(v) for v in flat]
    order = range(n - 1 - start, -1, -1) if reverse else range(start, n)
    outs = [nest.flatten(state)] if start else []
    for i in order:
        checks = (errors.InvalidArgumentError, ValueError) if collect else None
        state = _check_state(state, fn(state, nest.pack_sequence_as(elems, [r[i] for r in rows])), what, checks)
        if collect:
            outs.append(nest.flatten(state))
    if not collect:
        return state, None
    if reverse:
        outs.reverse()
    if not outs:
        return state, [zeros([0] + list(v._shape), v.dtype) for v in nest.flatten(state)]
    return state, [stack(list(column)) for column in zip(*outs)]


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The accumulators ``a = fn(a, row)`` over the rows of ``elems``, stacked: ``a`` starts as
    ``initializer`` (or the first row, which is then the first output); ``reverse`` scans from the
    last row (outputs stay in the rows' order).

    >>> tf.scan(lambda a, x: a + x, tf.constant([1.0, 2.0, 3.0]))
    <tf.Tensor: shape=(3,), dtype=float32, numpy=array([1., 3., 6.], dtype=float32)>
    """
    state, stacked = _accumulate(fn, elems, initializer, reverse, True, "tf.scan")
    return _no_backprop(nest.pack_sequence_as(state, stacked), back_prop)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``a = fn(a, row)`` over the rows of ``elems`` from the first; returns the last ``a`` (it starts
    as ``initializer``, or the first row)."""
    return _no_backprop(_accumulate(fn, elems, initializer, False, False, "tf.foldl")[0], back_prop)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``a = fn(a, row)`` over the rows of ``elems`` from the last; returns the last ``a`` (it starts
    as ``initializer``, or the last row)."""
    return _no_backprop(_accumulate(fn, elems, initializer, True, False, "tf.foldr")[0], back_prop)
