"""Tensor.__getitem__: ints, slices, None (newaxis), Ellipsis, one int list/tensor (a gather), bool masks.

A list key is read as a tuple of indices, as TF does (x[[0, 1]] is x[0, 1]); an int list or tensor
inside a tuple is a gather along its axis (TF refuses it).
"""
import builtins

import numpy as np

from tapegrad import _core
from tapegrad._function.trace_context import note_frozen_size, traced_value_error
from tapegrad._ops import _raw
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.array._common import boolean_mask
from tapegrad._ops.array.getitem_run_time import getitem_at_run_time
from tapegrad._ops.math.elementwise import less
from tapegrad._tensor.tensor import Tensor, convert_to_tensor
from tapegrad.errors import UnimplementedError as _Unimplemented

_InvalidArgument = _core.InvalidArgumentError
_gather, _reshape, _strided_slice = _raw.GatherV2, _raw.Reshape, _raw.StridedSlice

_VALID = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`), scalar int32/int64 tensors and "
          "one integer list or tensor are valid indices")


def _getitem(self, key):
    """x[key] as one StridedSlice (+ Reshape for new axes, + GatherV2 for an index list)."""
    if isinstance(key, bool) or (isinstance(key, (Tensor, np.ndarray)) and key.dtype == np.bool_):
        mask = key if isinstance(key, Tensor) else convert_to_tensor(np.asarray(key))
        return boolean_mask(self, mask, 0)  # (its rows are found at run time, whatever self's sizes)
    if _core._tracing() and (_core._size_varies(self) or _traced_key_part(key)):  # see _ops/array/getitem_run_time.py
        y = getitem_at_run_time(self, key)
        if y is None:
            _refuse_size_relative(self, key)
        return y
    if type(key) is int and self._shape:  # fast path: x[i], as in iteration
        shape = list(self._shape)
        n = shape[0]
        if not -n <= key < n:
            raise _InvalidArgument(f"StridedSlice: index {key} is out of range for dimension 0 of shape {tuple(shape)}")
        key %= n
        end = shape[:]
        end[0] = key + 1
        return _strided_slice(self, begin=[key] + [0] * (len(shape) - 1), end=end, strides=[1] * len(shape),
                              shrink_axis_mask=1)
    if isinstance(key, Tensor) and _traced(key) and key.ndim == 0 and key.dtype.is_integer and self._shape:
        # x[i] for a traced i, read at run time: a negative i counts from the end; one out of range
        # is the gather's error (not wrapped round)
        return _gather(self, select(less(key, 0), key + self._shape[0], key), axis=0, batch_dims=0)
    # A list key is a sequence of indices, as in TF (x[[0, 1]] is x[0, 1], not NumPy's gather);
    # an index list inside a tuple (x[[0, 1], :], x[:, [2, 0]]) gathers.
    key = tuple(key) if isinstance(key, (tuple, list)) else (key,)
    shape = list(self._shape)
    real = [k for k in key if k is not None and k is not Ellipsis]
    ellipses = sum(k is Ellipsis for k in key)
    if ellipses > 1:
        raise _InvalidArgument("StridedSlice: an index can contain at most one ellipsis (`...`)")
    if len(real) > len(shape):
        raise _InvalidArgument(f"StridedSlice: too many indices ({len(real)}) for a tensor of shape {tuple(shape)}")
    if not ellipses:
        key = key + (Ellipsis,)
    begin, end, strides, out, gather_at, shrink, new_axes = [], [], [], [], None, 0, False
    for k in key:
        if k is None:
            out.append(1)
            new_axes = True
            continue
        if k is Ellipsis:
            for _ in range(len(shape) - len(real)):
                n = shape[len(begin)]
                begin.append(0), end.append(n), strides.append(1), out.append(n)
            continue
        d, n = len(begin), shape[len(begin)]
        if isinstance(k, builtins.slice):
            try:
                b, e, s = k.indices(n)
            except ValueError as err:
                raise _InvalidArgument(f"StridedSlice: {err} (dimension {d} of shape {tuple(shape)})") from None
            if _core._tracing() and any(type(v) is int and not -n <= v <= n for v in (k.start, k.stop)):
                note_frozen_size(f"x[{k.start}:{k.stop}] clamps to the traced size {n}")
            begin.append(b), end.append(e), strides.append(s), out.append(len(range(b, e, s)))
            continue
        idx = _index_value(k)
        if isinstance(idx, np.ndarray):  # an index list: slice the whole axis, gather afterwards
            if gather_at is not None:
                raise TypeError(f"{_VALID}; got more than one index list in {key}")
            if idx.size and (idx.min() < -n or idx.max() >= n):
                raise _InvalidArgument(f"StridedSlice: indices {idx.tolist()} are out of range for dimension {d} "
                                       f"of shape {tuple(shape)}")
            gather_at = (len(out), np.where(idx < 0, idx + n, idx))
            begin.append(0), end.append(n), strides.append(1), out.append(n)
            continue
        if not -n <= idx < n:
            raise _InvalidArgument(f"StridedSlice: index {idx} is out of range for dimension {d} of shape {tuple(shape)}")
        idx %= n
        begin.append(idx), end.append(idx + 1), strides.append(1)
        shrink |= 1 << d
    if gather_at is not None:
        _check_adjacent(key)
    y = self
    if shrink or begin != [0] * len(shape) or end != shape or strides != [1] * len(shape):
        y = _strided_slice(self, begin=begin, end=end, strides=strides, shrink_axis_mask=shrink)
    if new_axes:
        y = _reshape(y, shape=out)
    if gather_at is not None:
        y = _gather(y, convert_to_tensor(gather_at[1]), axis=gather_at[0])
    return y


def _traced_key_part(key):
    """Whether a tuple key holds an index computed inside the tf.function (probs[0, action]) or a slice
    whose start, stop or step is (x[:n]): either is resolved in the graph at every call."""
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if isinstance(k, builtins.slice) and any(isinstance(v, Tensor) and _traced(v) for v in (k.start, k.stop, k.step)):
            return True
        if len(key) > 1 and isinstance(k, Tensor) and k.ndim == 0 and k.dtype.is_integer and _traced(k):
            return True
    return False


def _refuse_size_relative(x, key):
    """Refuses a key getitem_at_run_time cannot resolve at run time (an index list or mask) on a tensor
    whose size varies between calls: a StridedSlice would keep the traced size."""
    raise _Unimplemented(f"tf.function: the key {key!r} indexes a tensor ({x.dtype.name}, traced shape "
                         f"{tuple(x._shape)}) whose size changes from call to call (it comes from an op such as "
                         "tf.unique or a growing TensorArray); index lists and masks would keep the traced size. "
                         "Use tf.gather or tf.boolean_mask.")


def _check_adjacent(key):
    """NumPy moves an index list to the front when integers sit apart from it; that case is refused."""
    at = [i for i, k in enumerate(key) if k is not None and k is not Ellipsis and not isinstance(k, builtins.slice)]
    if at[-1] - at[0] + 1 != len(at):
        raise TypeError(f"{_VALID}; an index list combined with integers separated by slices is not supported: {key}")


def _index_value(k):
    """An int, or an int64 array for an index list; anything else is a TypeError (as in TF)."""
    if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
        return int(k)
    if isinstance(k, Tensor) and k.dtype.is_integer:
        if _traced(k):
            raise traced_value_error(k, "an index inside a tuple key")
        return int(k._item()) if k.ndim == 0 else k.numpy().astype(np.int64)
    if isinstance(k, (list, np.ndarray)):
        a = np.asarray(k)
        if a.dtype.kind in "iu" or a.size == 0:
            return a.astype(np.int64)
    raise TypeError(f"{_VALID}, got {k!r}")


def _traced(k):
    return _core._tracing() and (_core._is_traced(k) or k._is_variable)


getitem = _getitem  # Tensor.__getitem__, installed with the rest of the surface (_tensor.py)
