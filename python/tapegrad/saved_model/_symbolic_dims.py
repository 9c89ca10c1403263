"""The sizes of an exported function's None dimensions, found by tracing it three times.

Note [Exported shapes]: a FunctionDef must serve every shape its signature admits, but tapegrad traces on
values: a None dimension is traced at one size, and an attribute may hold that size (a slice's end, a
reshape's target, the zeros of a recurrent layer's first state). The export traces the function three
times, the k-th None dimension at 2 + 4k, 3 + 4k and 5 + 4k (the first dimensions of several
inputs at one size when the function needs their batches equal), and compares the traces node by node. The ops,
edges and variables must be the same; an integer that differs must be a * size_k + b for one None
dimension k, the same a and b in all three traces (the third checks the fit the first two make), and a
constant that differs must be filled with one value, its shape such integers, or be a vector of such
integers (a shape read while tracing). In the FunctionDef such an integer is computed from ``tf.shape``
of the argument (Sym), such a constant is a Fill, and such a vector a Pack of them; anything else
that differs (a constant holding the batch size's values, a float attribute) raises, naming the node,
rather than write a graph that is right for one batch size only.
"""
import numpy as np

from tapegrad import errors
from tapegrad._tensor.tensor import TensorSpec


class Sym:
    """An integer a * size_k + b, size_k the size of the k-th None dimension of the signature."""

    def __init__(self, k, a, b):
        self.k, self.a, self.b = k, a, b

    def __repr__(self):
        return f"Sym({self.a} * size{self.k} + {self.b})"


def sizes(k):
    """The three sizes the k-th None dimension is traced at."""
    return 2 + 4 * k, 3 + 4 * k, 5 + 4 * k


def none_dims(specs):
    """(spec index, dimension) of every None dimension of the signature, in order."""
    return [(i, d) for i, s in enumerate(specs) for d, size in enumerate(s.shape.as_list()) if size is None]


def groupings(dims):
    """Ways to give the None dimensions sizes, tried in order: each its own size, then one size for all
    first (batch) dimensions (a model whose inputs must share the batch size cannot be traced otherwise).
    Each is a list of groups, a group a list of positions in dims; group k is traced at sizes(k)."""
    own = [[j] for j in range(len(dims))]
    batch = [j for j, (_, d) in enumerate(dims) if d == 0]
    shared = ([batch] if batch else []) + [[j] for j, (_, d) in enumerate(dims) if d != 0]
    return [own] if shared == own else [own, shared]


def at_sizes(specs, groups, which):
    """specs with the None dimensions of group k at sizes(k)[which]."""
    dims = none_dims(specs)
    size_of = {dims[j]: sizes(k)[which] for k, group in enumerate(groups) for j in group}
    return [TensorSpec([size_of.get((i, d), size) for d, size in enumerate(s.shape.as_list())], s.dtype, name=s.name)
            for i, s in enumerate(specs)]


def _fit(values, n_dims):
    """values (one per trace) as an int, or the Sym every trace agrees with, or None."""
    if all(v == values[0] for v in values):
        return values[0]
    for k in range(n_dims):
        (a0, a1, a2), (v0, v1, v2) = sizes(k), values
        a = (v1 - v0) // (a1 - a0)
        b = v0 - a * a0
        if a * a1 + b == v1 and a * a2 + b == v2:
            return Sym(k, a, b)
    return None


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


class Plan:
    """What differs between the traces of one function, as Syms (Note [Exported shapes])."""

    def __init__(self, traces, n_dims, function_name):
        self.n_dims, self._name = n_dims, function_name
        self.attrs, self.fills, self.shapes, self.sized = {}, {}, {}, {}
        first = traces[0]
        if any(len(t) != len(first) for t in traces):
            self._refuse("its graph has another number of nodes at another size of a None dimension")
        for i, nodes in enumerate(zip(*traces)):
            n = nodes[0]
            if any(m["type"] != n["type"] or m["inputs"] != n["inputs"] for m in nodes):
                self._refuse(f"node {n['name']!r} ({n['type']}) is another op at another size")
            self.shapes[i] = [self._fit_or_none([m["shape"][d] for m in nodes]) for d in range(len(n["shape"]))]
            self._compare_attrs(i, nodes)
            self._compare_values(i, nodes)

    def _refuse(self, why):
        raise errors.UnimplementedError(None, None, f"tf.saved_model.save: function {self._name!r}: {why} of a None "
                                                    f"dimension of its input_signature; give the signature fixed sizes")

    def _fit_or_none(self, values):
        if any(v is None for v in values):
            return None
        return _fit(values, self.n_dims)

    def _compare_attrs(self, i, nodes):
        n = nodes[0]
        for key, value in (n.get("attrs") or {}).items():
            values = [m["attrs"][key] for m in nodes]
            if all(v == value for v in values):
                continue
            if _is_int(value):
                fitted = _fit(values, self.n_dims)
            elif isinstance(value, list) and all(len(v) == len(value) for v in values):
                fitted = [_fit(list(col), self.n_dims) if all(map(_is_int, col)) else None for col in zip(*values)]
                fitted = None if any(f is None for f in fitted) else fitted
            else:
                fitted = None
            if fitted is None:
                self._refuse(f"attribute {key!r} of node {n['name']!r} ({n['type']}) depends on the size")
            self.attrs.setdefault(i, {})[key] = fitted

    def _compare_values(self, i, nodes):
        n = nodes[0]
        if n["type"] != "Const":
            if any(m.get("value") is not n.get("value") for m in nodes):
                self._refuse(f"node {n['name']!r} ({n['type']}) reads another variable")
            return
        arrays = [np.asarray(m["value"]) for m in nodes]
        if all(a.shape == arrays[0].shape and np.array_equal(a, arrays[0], equal_nan=True) for a in arrays):
            return
        if all(a.ndim == 1 and a.shape == arrays[0].shape and a.dtype.kind in "iu" for a in arrays):
            # a shape read at trace time ([batch, 5, 8]): each entry an int or a * size_k + b
            entries = [_fit([int(a[j]) for a in arrays], self.n_dims) for j in range(arrays[0].size)]
            if all(e is not None for e in entries):
                self.sized[i] = (entries, arrays[0].dtype)
                return
        flat = [a.reshape(-1) for a in arrays]
        if any(a.ndim != arrays[0].ndim for a in arrays) or any(
                a.size == 0 or not (a == a[0]).all() or a[0] != flat[0][0] for a in flat):
            self._refuse(f"the constant {n['name']!r} holds values that depend on the size")
        shape = [_fit([a.shape[d] for a in arrays], self.n_dims) for d in range(arrays[0].ndim)]
        if any(s is None for s in shape):
            self._refuse(f"the shape of the constant {n['name']!r} depends on the size")
        self.fills[i] = (shape, arrays[0].reshape(-1)[:1].reshape(()))
