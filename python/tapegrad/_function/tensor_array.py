"""tf.TensorArray: a list of same-dtype tensors that loops write and ``stack`` joins, with gradients.

Two forms. Eagerly and in loops that run as Python (also inside a trace) it is a list of tensors:
``write`` stores the tensor itself, so gradients flow through ``stack``/``read`` by the ops that
build them. Carried by a graph loop (tf.while_loop over a traced condition, see Note [Loop state]
in autograph/_loops.py) it is a buffer tensor ``[capacity, *element_shape]`` plus a size tensor:
``write`` at a traced index is the op SetRow (cpp/ops/rows.cpp), which the loop runs in place; a
``dynamic_size`` array's buffer doubles when a write passes its end, and ``stack`` cuts it to the
size (ResizeRows).
A size that a trace computes from its arguments (``size=n``) also takes the buffer form, from the
start when the element shape is given, else at the first write: the trace has the value of its
example, but the graph must serve every size, so the buffer is a Fill of a shape built from the
size tensor (a value-shaped op, Note [Value-shaped ops] in cpp/engine/registry.h), never a Python
list of the example's length.
As in TF's eager mode, ``write`` returns a new TensorArray that shares the elements with the old.
"""
import builtins

from tapegrad import _core, dtypes, errors
from tapegrad._ops.array.creation import fill, zeros
from tapegrad._ops.array.manipulation import concat, gather, reshape, stack, unstack

from tapegrad._ops.math.elementwise import maximum
from tapegrad._tensor.tensor import Tensor, TensorShape, cast, convert_to_tensor, shape, _item
from tapegrad._ops import _raw

__all__ = ["TensorArray"]

_set_row = _raw.SetRow
_resize_rows = _raw.ResizeRows


class _Elements:
    """The storage TensorArray objects share: a list of tensors (None: not written or cleared)."""

    def __init__(self, size, element_shape):
        self.items = [None] * size
        self.element_shape = element_shape
        self.read_once = set()


class TensorArray:
    """A list of tensors of one dtype for loops to collect results into (TF's ``tf.TensorArray``).

    Args:
      dtype: the element dtype.
      size: the number of elements (required).
      dynamic_size: whether writes past the end grow the array.
      clear_after_read: whether ``read`` empties an element (default True), so it cannot be read twice.
      infer_shape: whether all elements must have the shape of the first written one.
      element_shape: the shape every element must have (None dims: any).

    >>> ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0)
    >>> ta.stack()
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = dtypes.as_dtype(dtype)
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = bool(infer_shape)
        if isinstance(element_shape, TensorShape) and element_shape.rank is None:
            element_shape = None  # TensorShape(None): unknown, as None
        shape = None if element_shape is None else tuple(TensorShape(_dims(element_shape)))
        self._buffer = self._size = None  # the graph-loop form (see the module docstring)
        self._traced_size = None          # a size the trace computes, until the buffer exists
        if _is_graph_value(size):
            self._elements = _Elements(0, shape)
            self._traced_size = _checked_size(size)
            if shape is not None and None not in shape:
                self._start_buffer(shape)
            return
        n = int(_item(size))
        if n < 0:
            raise errors.InvalidArgumentError(f"TensorArray: size must be non-negative, got {n}")
        self._elements = _Elements(n, shape)

    def _start_buffer(self, element_shape):
        """The buffer form for a traced size: zeros of [size, *element_shape]."""
        n = self._traced_size
        self._buffer = fill(concat([reshape(n, [1]), convert_to_tensor(list(element_shape), dtypes.int32)], 0),
                            zeros([], self._dtype))
        self._size = n
        self._traced_size = None

    # -- properties ---------------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def element_shape(self):
        shape = self._elements.element_shape
        return TensorShape(shape)  # TensorShape(None) when unknown, as TF

    @property
    def handle(self):
        return None

    @property
    def flow(self):
        return None

    def size(self, name=None):
        if self._traced_size is not None:
            return self._traced_size
        if self._buffer is not None:
            return self._size
        return convert_to_tensor(len(self._elements.items))

    # -- writing ------------------------------------------------------------------------------------
    def _value(self, value, what):
        t = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=self._dtype)
        if t.dtype != self._dtype:
            raise errors.InvalidArgumentError(f"TensorArray dtype is {self._dtype.name} but Op is trying to {what} "
                                              f"dtype {t.dtype.name}")
        want = self._elements.element_shape
        got = tuple(t.shape)
        if want is not None and (len(want) != len(got) or any(w is not None and w != g for w, g in zip(want, got))):
            raise ValueError(f"Incompatible shape for value ({got}), expected ({want})")
        if self._infer_shape and (want is None or None in want):
            self._elements.element_shape = got
        return t

    def _like(self):
        out = TensorArray.__new__(TensorArray)
        out.__dict__.update(self.__dict__)
        return out

    def write(self, index, value, name=None):
        """Stores ``value`` at ``index``; returns the TensorArray to use from now on."""
        value = self._value(value, "write")
        if self._traced_size is not None:  # the first write gives the element shape
            out = self._like()
            out._start_buffer(tuple(value.shape))
            return out._dense_write(index, value)
        if self._buffer is not None:
            return self._dense_write(index, value)
        i = int(_item(index))
        items = self._elements.items
        if i < 0:
            raise errors.OutOfRangeError(f"Writing to negative indices (index {i}) is not allowed.")
        if i >= len(items):
            if not self._dynamic_size:
                raise errors.OutOfRangeError(f"Tried to write to index {i} but array is not resizeable and size "
                                             f"is: {len(items)}")
            items.extend([None] * (i + 1 - len(items)))
        items[i] = value
        self._elements.read_once.discard(i)
        return self._like()

    def unstack(self, value, name=None):
        """Writes the rows of ``value`` at 0, 1, ...."""
        value = convert_to_tensor(value, dtype=self._dtype)
        if value.shape.rank == 0:
            raise ValueError(f"TensorArray.unstack: value must have rank >= 1, got a scalar {value.dtype.name}")
        rows = unstack(value)
        if (len(rows) > len(self._elements.items) and not self._dynamic_size and self._buffer is None
                and self._traced_size is None):
            raise ValueError(f"Cannot unstack {len(rows)} tensors into a TensorArray of static size "
                             f"{len(self._elements.items)}")
        out = self
        for i, row in enumerate(rows):
            out = out.write(i, row)
        return out._like()

    def scatter(self, indices, value, name=None):
        """Writes ``value[k]`` at ``indices[k]``."""
        rows = unstack(convert_to_tensor(value, dtype=self._dtype))
        out = self
        for i, row in zip(_index_list(indices), rows):
            out = out.write(i, row)
        return out._like()

    def split(self, value, lengths, name=None):
        """Writes consecutive pieces of ``value`` (lengths along axis 0) at 0, 1, ...."""
        value = convert_to_tensor(value, dtype=self._dtype)
        out, start = self, 0
        for i, n in enumerate(_index_list(lengths)):
            out = out.write(i, value[start:start + n])
            start += n
        return out._like()

    # -- reading ------------------------------------------------------------------------------------
    def _element(self, i, reading=False):
        items = self._elements.items
        if i < 0 or i >= len(items):
            raise errors.OutOfRangeError(f"Tried to read from index {i} but array size is: {len(items)}")
        if items[i] is not None:
            return items[i]
        if reading and i in self._elements.read_once:
            raise errors.InvalidArgumentError(f"Could not read index {i} twice because it was cleared after a "
                                              "previous read (perhaps try setting clear_after_read = false?)")
        shape = self._known_shape()
        return zeros(shape, self._dtype)

    def _known_shape(self):
        shape = self._elements.element_shape
        if self._traced_size is not None:
            raise errors.InvalidArgumentError(
                "TensorArray: the array's size is computed by the trace and nothing was written to it, so its "
                "element shape is unknown; give element_shape")
        if shape is None or None in shape:
            raise ValueError(f"TensorArray: an element that was never written has an unknown shape "
                             f"({'unknown' if shape is None else shape}); give element_shape")
        return list(shape)

    def _rows(self):
        """The graph-loop form's elements as one tensor: the buffer, cut to the size if it can grow."""
        return _resize_rows(self._buffer, self._size) if self._dynamic_size else self._buffer

    def read(self, index, name=None):
        """The element at ``index`` (zeros of the element shape if never written)."""
        if self._traced_size is not None:
            self._known_shape()
        if self._buffer is not None:
            return gather(self._buffer, index)
        i = int(_item(index))
        value = self._element(i, reading=True)
        if self._clear_after_read and self._elements.items[i] is not None:
            self._elements.items[i] = None
            self._elements.read_once.add(i)
        return value

    def stack(self, name=None):
        """The elements joined along a new axis 0."""
        if self._traced_size is not None:
            self._known_shape()
        if self._buffer is not None:
            return self._rows()
        items = self._elements.items
        if not items:
            shape = self._elements.element_shape
            return zeros([0] + list(shape if shape is not None and None not in shape else []), self._dtype)
        if any(t is None for t in items):
            return stack([self._element(i) for i in builtins.range(len(items))])
        return stack(items)

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        if self._traced_size is not None:
            self._known_shape()
        if self._buffer is not None:
            return gather(self._rows(), indices)
        return stack([self._element(i) for i in _index_list(indices)])

    def concat(self, name=None):
        """The elements joined along their axis 0."""
        if self._traced_size is not None:
            self._known_shape()
        if self._buffer is not None:
            return reshape(self._rows(), [-1] + list(self._buffer.shape[2:]))
        return concat([self._element(i) for i in builtins.range(len(self._elements.items))], 0)

    def identity(self):
        return self

    def close(self, name=None):
        return None

    def mark_used(self):
        return None

    def __repr__(self):
        n = len(self._elements.items) if self._buffer is None and self._traced_size is None else "traced"
        return f"<tf.TensorArray dtype={self._dtype.name} size={n} element_shape={self.element_shape}>"

    # -- the graph-loop form (autograph/_loops.py) ------------------------------------------------------
    def _loop_ready(self):
        """Whether a graph loop can carry it: its element shape is known (given, or from its writes)."""
        items = self._elements.items
        return self._buffer is not None or self._traced_size is None and (
            bool(items) and all(t is not None for t in items) or self._elements.element_shape is not None)

    def _to_loop_value(self):
        if self._buffer is not None:
            return self._buffer, self._size
        items = self._elements.items
        if items and all(t is not None for t in items) or self._elements.element_shape is not None:
            written = [i for i, t in enumerate(items) if t is not None]
            if len(written) < len(items) and len(written) <= 8:  # zeros and the few rows (not a row per element)
                buffer = zeros([len(items)] + self._known_shape(), self._dtype)
                for i in written:
                    buffer = _set_row(buffer, convert_to_tensor(i), items[i])
            else:
                buffer = self.stack()
        else:
            raise ValueError("TensorArray: an array carried by a loop over a traced tensor needs its element_shape "
                             "(or its elements written) before the loop")
        return buffer, convert_to_tensor(len(items))

    def _detached(self):
        """This array with its own copy of the elements: writes to it leave this one as it is."""
        out = self._like()
        out._elements = _Elements(0, self._elements.element_shape)
        out._elements.items = list(self._elements.items)
        out._buffer, out._size = self._buffer, self._size
        return out

    def _unwritten_loop_value(self, like):
        """The loop value of this array with nothing written (zeros for its elements), shaped as
        ``like``, the loop value of the array after an iteration (whose write gave the element shape)."""
        if self._traced_size is not None:
            out = self._like()
            out._start_buffer(tuple(like[0].shape[1:]))
            return out._buffer, out._size
        n = len(self._elements.items)
        return zeros([n] + list(like[0].shape[1:]), self._dtype), convert_to_tensor(n)

    def _from_loop_value(self, value):
        out = self._like()
        out._elements = _Elements(0, self._elements.element_shape)
        out._buffer, out._size = value
        return out

    def _dense_write(self, index, value):
        index = cast(convert_to_tensor(index), dtypes.int32)
        out = self._like()
        out._buffer = _set_row(self._buffer, index, value, grow=self._dynamic_size)
        out._size = maximum(self._size, index + 1)
        return out

def grow_rows(loop_value, rows_ahead):
    """A dynamic array's loop value (buffer, size) with at least size + rows_ahead rows (zeros)."""
    buffer, size = loop_value
    rows = maximum(shape(buffer)[0], cast(size, dtypes.int32) + cast(rows_ahead, dtypes.int32))
    return _resize_rows(buffer, rows), size


def _is_graph_value(size):
    """Whether a size is computed by the trace from its arguments or variables (no value while tracing)."""
    return isinstance(size, Tensor) and _core._tracing() and (_core._is_traced(size) or size._is_variable)


def _checked_size(size):
    size = convert_to_tensor(size)
    if size.dtype not in (dtypes.int32, dtypes.int64) or size.shape.rank != 0:
        raise TypeError(f"TensorArray: size must be a scalar int32, got {size.dtype.name}{tuple(size.shape)}")
    return cast(size, dtypes.int32)


def _dims(shape):
    return [None if d is None or (isinstance(d, int) and d < 0) else int(d) for d in shape]


def _index_list(indices):
    if isinstance(indices, Tensor):
        return [int(v) for v in indices.numpy().reshape(-1)]
    return [int(_item(v)) for v in indices]

