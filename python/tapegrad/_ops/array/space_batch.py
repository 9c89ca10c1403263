"""tf.reverse_sequence, tf.space_to_batch_nd (tf.space_to_batch) and tf.batch_to_space, composed of
transposes, reshapes, pads, slices and a batched gather, so that their gradients, forward mode and
tracing come from those ops.

Block shapes, paddings and crops set the result's shape, so they must be known values (not traced);
reverse_sequence's seq_lengths only move values and may be traced (a length out of range then makes
the gather raise at run time).
"""
import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.arrays import arange
from tapegrad._ops._lib.shapes import axis_varies, batched_gather_at_run_time, refuse_varying, run_time_size
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.array._common import is_traced, slice_at_run_time, value_needed
from tapegrad._ops.math.elementwise import less
from tapegrad._tensor.tensor import constant, identity

__all__ = ["reverse_sequence", "space_to_batch_nd", "space_to_batch", "batch_to_space"]

_InvalidArgument = errors.InvalidArgumentError
_gather, _reshape, _strided_slice, _transpose = _raw.GatherV2, _raw.Reshape, _raw.StridedSlice, _raw.Transpose


def _transposed(x, perm):
    return x if perm == sorted(perm) else _transpose(x, perm=perm)


@dispatch("input, seq_lengths:any, seq_axis:int=None, batch_axis:int=None")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):
    """Reverses the first seq_lengths[b] entries along ``seq_axis`` of each slice b along ``batch_axis``
    (default 0); entries past the length stay. A length must be in [0, input.shape[seq_axis]]."""
    fn = "reverse_sequence"
    x = input
    if seq_axis is None:
        raise TypeError(f"{fn}: Expected int for argument 'seq_axis' not None.")
    seq = seq_axis
    batch = 0 if batch_axis is None else batch_axis
    lens = convert_arg(seq_lengths, "tensor", fn, "seq_lengths", dtypes.int64)
    if lens.dtype not in (dtypes.int32, dtypes.int64):
        raise _InvalidArgument(f"{fn}: seq_lengths must be int32 or int64, got {lens.dtype.name}")
    rank = x.ndim
    for arg, a in (("seq_axis", seq), ("batch_axis", batch)):
        if not 0 <= a < rank:
            raise _InvalidArgument(f"{fn}: {arg} {a} is out of range [0, {rank}) for input of shape {tuple(x._shape)}")
    if seq == batch:
        raise _InvalidArgument(f"{fn}: batch_axis == seq_axis == {seq}")
    if lens.ndim != 1:
        raise _InvalidArgument(f"{fn}: seq_lengths must be 1-D, got shape {tuple(lens._shape)}")
    n, t_len = x._shape[batch], x._shape[seq]
    if lens._shape[0] != n:
        raise _InvalidArgument(f"{fn}: Length of seq_lengths != input.dims({batch}), ({lens._shape[0]} vs. {n})")
    if not is_traced(lens):
        v = lens.numpy()
        for b in np.flatnonzero((v < 0) | (v > t_len))[:1]:
            raise _InvalidArgument(f"{fn}: seq_lengths[{b}] = {v[b]} is not in [0, {t_len}] (input.dims({seq}))")
    perm = [batch, seq] + [d for d in range(rank) if d not in (batch, seq)]
    varies = bool(_core._varying_dims(x))  # sizes that change from call to call: read at run time
    if axis_varies(x, seq):
        t_len = run_time_size(x, seq, lens.dtype)
        steps = arange(t_len, lens.dtype)
    else:
        steps = constant(np.arange(t_len, dtype=lens.dtype.as_numpy_dtype))
    length = _reshape(lens, shape=[-1, 1])
    source = select(less(steps, length), length - constant(1, lens.dtype) - steps, steps)  # [batch, time]
    # a negative length points past the end: the gather raises (a traced length is checked there)
    past_end = t_len if varies else constant(t_len, lens.dtype)
    source = select(less(length, constant(0, lens.dtype)), past_end, source)
    gather = batched_gather_at_run_time if varies else (lambda p, i, a, b: _gather(p, i, axis=a, batch_dims=b))
    out = gather(_transposed(x, perm), source, 1, 1)
    return _transposed(out, list(np.argsort(perm)))


def _known_ints(value, fn, arg, rank):
    """A block shape, paddings or crops: an integer tensor of rank ``rank`` whose values are known."""
    t = convert_arg(value, "tensor", fn, arg, dtypes.int32)
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise _InvalidArgument(f"{fn}: {arg} must be int32 or int64, got {t.dtype.name}")
    if t.ndim != rank:
        raise _InvalidArgument(f"{fn}: {arg} rank should be {rank} instead of {t.ndim}")
    value_needed(t, f"{fn}'s {arg} (it sets the result's shape)")
    return t.numpy().astype(np.int64)


def _block_args(x, block_shape, pairs, fn, arg):
    """(block sizes, [before, after] pairs) as Python ints, checked against x."""
    block = _known_ints(block_shape, fn, "block_shape", 1)
    m = len(block)
    p = convert_arg(pairs, "tensor", fn, arg, dtypes.int32)
    if tuple(p._shape) != (m, 2):
        raise _InvalidArgument(f"{fn}: {arg} should have shape [{m}, 2] instead of {list(p._shape)}")
    p = _known_ints(p, fn, arg, 2)
    if x.ndim < m + 1:
        raise _InvalidArgument(f"{fn}: input rank should be >= {m + 1} instead of {x.ndim}")
    for i, b in enumerate(block):
        if b < 1:
            raise _InvalidArgument(f"{fn}: All values in block_shape must be positive, got value, {b} at index {i}.")
    if (p < 0).any():
        raise _InvalidArgument(f"{fn}: {arg.capitalize()} must be non-negative, got {p.tolist()}")
    return [int(b) for b in block], [[int(a), int(b)] for a, b in p]


@dispatch("input, block_shape:any, paddings:any")
def space_to_batch_nd(input, block_shape, paddings, name=None):
    """Zero-pads the M spatial dimensions after the batch (``paddings`` [M, 2]) and moves each block of
    ``block_shape`` [M] into the batch: [batch] + spatial + rest -> [batch * prod(block_shape)] +
    padded spatial / block_shape + rest, the offset within the block leading the new batch index."""
    fn = "space_to_batch_nd"
    x = input
    block, pads = _block_args(x, block_shape, paddings, fn, "paddings")
    m = len(block)
    if m == 0:
        return identity(x)
    batch_varies = _only_batch_varies(x, fn)
    batch, rest = x._shape[0], list(x._shape[1 + m:])
    padded = [x._shape[1 + i] + a + b for i, (a, b) in enumerate(pads)]
    for i, (s, b) in enumerate(zip(padded, block)):
        if s % b:
            raise _InvalidArgument(f"{fn}: padded_shape[{i}]={s} is not divisible by block_shape[{i}]={b}")
    if any(a or b for a, b in pads):
        flat = [0, 0] + [p for pair in pads for p in pair] + [0, 0] * len(rest)
        x = _raw.Pad(x, paddings=flat, constant_values=0.0)  # (tf.pad's zeros)
    split = [-1 if batch_varies else batch] + [d for s, b in zip(padded, block) for d in (s // b, b)] + rest
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, len(split)))
    y = _transpose(_reshape(x, shape=split), perm=perm)
    if batch_varies:  # the blocks lead: [block..., batch, ...] -> [block... * batch, ...]
        return _reshape(y, shape=[-1] + [s // b for s, b in zip(padded, block)] + rest)
    return _reshape(y, shape=[batch * int(np.prod(block))] + [s // b for s, b in zip(padded, block)] + rest)


def _only_batch_varies(x, fn):
    """Whether x's batch (axis 0) changes size from call to call of the tf.function being traced; a
    change in another axis is refused (the blocks' reshapes would keep the traced sizes)."""
    varying = _core._varying_dims(x)
    if varying & ~1:
        refuse_varying(x, fn, "only the batch (axis 0) may change size from call to call")
    return bool(varying)


@dispatch("input, block_shape:any, paddings:any")
def space_to_batch(input, block_shape, paddings, name=None):
    """TF 2's space_to_batch: space_to_batch_nd."""
    return space_to_batch_nd(input, block_shape, paddings)


@dispatch("input, block_shape:any, crops:any")
def batch_to_space(input, block_shape, crops, name=None):
    """The inverse of space_to_batch_nd: moves blocks of ``block_shape`` [M] (a Python int stands for it
    in two dimensions) from the batch back into the M spatial dimensions, then crops each by ``crops``
    [M, 2]: [batch * prod(block_shape)] + spatial + rest -> [batch] + spatial * block - crops + rest."""
    fn = "batch_to_space"
    x = input
    if isinstance(block_shape, (int, np.integer)) and not isinstance(block_shape, bool):
        block_shape = [int(block_shape)] * 2
    block, crop = _block_args(x, block_shape, crops, fn, "crops")
    m = len(block)
    if m == 0:
        return identity(x)
    total = int(np.prod(block))
    batch_varies = _only_batch_varies(x, fn)
    if x._shape[0] % total:
        raise _InvalidArgument(f"{fn}: Input batch dimension ({x._shape[0]}) is not divisible by product of block "
                               f"sizes ({total})")
    batch, spatial, rest = x._shape[0] // total, list(x._shape[1:1 + m]), list(x._shape[1 + m:])
    full = [s * b for s, b in zip(spatial, block)]
    for i, (f, (a, b)) in enumerate(zip(full, crop)):
        if f - a - b < 0:
            raise _InvalidArgument(f"{fn}: cropped_shape[{i}]={f - a - b} must be non-negative")
    if batch_varies:  # (a batch not divisible by the blocks is the reshape's error at run time)
        batch = -1
    y = _reshape(x, shape=block + [batch] + spatial + rest)
    perm = [m] + [d for i in range(m) for d in (m + 1 + i, i)] + list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = _reshape(_transpose(y, perm=perm), shape=[batch] + full + rest)
    if not any(a or b for a, b in crop):
        return y
    if batch_varies:
        begin = [0] + [a for a, _ in crop] + [0] * len(rest)
        end = [y._shape[0]] + [f - b for f, (_, b) in zip(full, crop)] + rest
        return slice_at_run_time(y, begin, [-1] + [e - b for b, e in zip(begin[1:], end[1:])], end)
    shape = y._shape
    begin = [0] + [a for a, _ in crop] + [0] * len(rest)
    end = [shape[0]] + [f - b for f, (_, b) in zip(full, crop)] + rest
    return _strided_slice(y, begin=begin, end=end, strides=[1] * len(shape))
