"""TensorShape and Dimension as TF defines them: a shape of known rank is a tuple of ints (None for an
unknown dimension); TensorShape(None) is a shape of unknown rank.

Note [Shapes are tuples]: a TensorShape of known rank is a tuple subclass, so engine code and user
code that index, unpack or hash shapes stay plain and fast; Tensor.shape builds one without
validation (_known). What TF defines differently from a tuple is overridden: == converts the other
side (`x.shape == [2, 3]` is True), a slice or a sum is a TensorShape, and a scalar's shape is truthy.
The unknown-rank shape is an empty tuple of the subclass _UnknownRank whose length, iteration and
as_list raise, as TF's do.
"""
import functools
import operator

__all__ = ["TensorShape", "Dimension", "as_shape", "unknown_shape"]


class Dimension:
    """One dimension of a TensorShape (TF's legacy ``shape.dims[i]``): ``value`` is an int or None."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = _dim(value)

    def __int__(self):
        if self.value is None:
            raise TypeError("Cannot convert an unknown Dimension to an int")
        return self.value

    __index__ = __int__

    def __eq__(self, other):
        other = other.value if isinstance(other, Dimension) else other
        if self.value is None or other is None:
            return None  # TF: unknown dimensions compare as unknown
        return self.value == other

    def __ne__(self, other):
        eq = self.__eq__(other)
        return None if eq is None else not eq

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"Dimension({self.value})"

    def __str__(self):
        return "?" if self.value is None else str(self.value)


def _dim(d):
    """One dimension as an int >= 0 or None, with TF's errors."""
    if d is None or type(d) is int and d >= 0:
        return d
    if isinstance(d, Dimension):
        return d.value
    if isinstance(d, float) or not hasattr(d, "__index__"):
        raise TypeError(f"Dimension value must be integer or None or have an __index__ method, got value "
                        f"'{d!r}' with type '{type(d)}'")
    value = operator.index(d)
    if value < 0:
        raise ValueError(f"Dimension {value} must be >= 0")
    return value


class TensorShape(tuple):
    """The shape of a tensor: a tuple of ints (None for unknown dimensions) with TF's methods;
    ``TensorShape(None)`` has unknown rank."""
    __slots__ = ()

    def __new__(cls, dims):
        if isinstance(dims, TensorShape):
            return dims
        if dims is None:
            return tuple.__new__(_UnknownRank)
        if isinstance(dims, (str, bytes)):
            raise TypeError(f"Failed to convert '{dims!r}' to a shape: '{dims!r}' could not be converted to a "
                            "dimension. A shape should either be single dimension (e.g. 10), or an iterable of "
                            "dimensions (e.g. [1, 10, None]).")
        if isinstance(dims, Dimension) or hasattr(dims, "__index__") and not hasattr(dims, "__len__"):
            return _known((_dim(dims),))
        try:
            items = list(dims)
        except TypeError:
            raise TypeError(f"Failed to convert '{dims!r}' to a shape: expected None, a dimension or an iterable "
                            f"of dimensions, got {type(dims).__name__}") from None
        return _known([_dim(d) for d in items])

    def __reduce__(self):
        return (TensorShape, (self.as_list() if self.rank is not None else None,))

    # -- what differs from a tuple (Note [Shapes are tuples]) ---------------------------------------
    def __getitem__(self, key):
        if type(key) is slice:
            return _known(tuple.__getitem__(self, key))
        return tuple.__getitem__(self, key)

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return other.rank is not None and tuple.__eq__(self, other)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def __bool__(self):
        return True  # TF: a shape of known rank, a scalar's () included, is true

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __repr__(self):
        return f"TensorShape({list(self)})"

    def __str__(self):
        return "(" + ", ".join("None" if d is None else str(d) for d in self) + ("," if len(self) == 1 else "") + ")"

    # -- TF's methods -------------------------------------------------------------------------------
    @property
    def rank(self):
        return len(self)

    ndims = rank

    @property
    def dims(self):
        return [Dimension(d) for d in self]

    def as_list(self):
        return list(self)

    def num_elements(self):
        n = 1
        for d in self:
            if d is None:
                return None
            n *= d
        return n

    def is_fully_defined(self):
        return None not in self

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def is_compatible_with(self, other):
        other = as_shape(other)
        if other.rank is None:
            return True
        return len(self) == len(other) and all(a is None or b is None or a == b for a, b in zip(self, other))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other):
        """The shape with every dimension either shape knows; ValueError where they disagree."""
        other = as_shape(other)
        if other.rank is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return _known([a if a is not None else b for a, b in zip(self, other)])

    def most_specific_compatible_shape(self, other):
        """The most specific shape compatible with both: dimensions they share, None elsewhere."""
        other = as_shape(other)
        if other.rank is None or len(self) != len(other):
            return TensorShape(None)
        return _known([a if a == b else None for a, b in zip(self, other)])

    def concatenate(self, other):
        other = as_shape(other)
        if other.rank is None:
            return TensorShape(None)
        return _known(tuple(self) + tuple(other))

    def with_rank(self, rank):
        try:
            return self.merge_with(unknown_shape(rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank):
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank):
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")


class _UnknownRank(TensorShape):
    """TensorShape(None): a shape whose rank is not known (Note [Shapes are tuples])."""
    __slots__ = ()

    def __len__(self):
        raise ValueError("Cannot take the length of shape with unknown rank.")

    def __iter__(self):
        raise ValueError("Cannot iterate over a shape with unknown rank.")

    def _unknown(self, *_args):
        raise ValueError("The rank of this shape is unknown: it has no dimensions to inspect or compare.")

    __contains__ = __mul__ = __rmul__ = count = index = __lt__ = __le__ = __gt__ = __ge__ = _unknown

    def __getitem__(self, key):
        return TensorShape(None) if type(key) is slice else None

    def __eq__(self, other):
        try:
            return as_shape(other).rank is None
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self):
        return hash(None)

    def __bool__(self):
        return False

    def __repr__(self):
        return "TensorShape(None)"

    def __str__(self):
        return "<unknown>"

    @property
    def rank(self):
        return None

    ndims = rank

    @property
    def dims(self):
        return None

    def as_list(self):
        raise ValueError("as_list() is not defined on an unknown TensorShape.")

    def num_elements(self):
        return None

    def is_fully_defined(self):
        return False

    def is_compatible_with(self, other):
        as_shape(other)
        return True

    def merge_with(self, other):
        return as_shape(other)

    def most_specific_compatible_shape(self, other):
        return self

    def concatenate(self, other):
        as_shape(other)
        return self


# A TensorShape of trusted dims (ints >= 0 or None), without checks (Note [Shapes are tuples]): a C-level
# call, as Tensor.shape makes one per access.
_known = functools.partial(tuple.__new__, TensorShape)


def as_shape(shape):
    """``shape`` as a TensorShape (TF's tf.compat.dimension-free as_shape)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None):
    """A shape of unknown dimensions: of rank ``rank``, or of unknown rank."""
    return TensorShape(None) if rank is None else _known([None] * rank)
