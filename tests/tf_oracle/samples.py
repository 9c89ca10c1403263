"""Sample inputs shared by the oracle rows: one (label, Sample) per case, the same arrays for both libraries."""
import dataclasses

import numpy as np

FLOAT = ("float32", "float64")
INT = ("int32", "int64")
NUMERIC = FLOAT + INT
ALL = NUMERIC + ("bool",)


@dataclasses.dataclass
class DT:
    """A dtype argument: becomes tapegrad.<name> or tensorflow.<name>."""
    name: str


@dataclasses.dataclass
class Sample:
    """args/kwargs: NumPy arrays become tensors (inside lists and tuples too); DT becomes a dtype;
    anything else is passed as it is. grad: differentiate with respect to the float tensors."""
    args: list
    kwargs: dict = dataclasses.field(default_factory=dict)
    grad: bool = True


def edge_values(dtype):
    """label -> 1-D array of values at the edge of the dtype's domain."""
    if dtype == "bool":
        return {"edge_bool": np.array([True, False, False, True])}
    if dtype in INT:
        info = np.iinfo(dtype)
        return {"edge_int": np.array([0, 1, -1, 7, -7, info.max, info.min], dtype)}
    info = np.finfo(dtype)
    return {"edge_zero": np.array([0.0, -0.0], dtype),
            "edge_inf": np.array([np.inf, -np.inf], dtype),
            "edge_nan": np.array([np.nan, 1.0], dtype),
            "edge_huge": np.array([1e10, -1e30, 1e20, info.max], dtype),
            "edge_tiny": np.array([info.tiny, -info.tiny, 1e-30, -1e-20], dtype),
            "edge_subnormal": np.array([info.tiny / 4, -info.tiny / 1024, info.smallest_subnormal], dtype)}


def random_array(rng, shape, dtype, domain=(-2.0, 2.0)):
    lo, hi = domain
    if dtype == "bool":
        return rng.uniform(size=shape) > 0.5
    if dtype in INT:
        return rng.integers(int(np.floor(lo)) - 3, int(np.ceil(hi)) + 4, size=shape).astype(dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def unary(domain=(-2.0, 2.0), edges=True, **kwargs):
    """Elementwise: rank 0, empty, (2, 3) in the domain, then the dtype's edge values."""
    def samples(rng, dtype):
        for label, shape in [("rank0", ()), ("empty", (0, 3)), ("r23", (2, 3))]:
            yield label, Sample([random_array(rng, shape, dtype, domain)], dict(kwargs))
        if edges:  # gradients at the kinks (0 and -0) too, where TF picks a subgradient
            for label, x in edge_values(dtype).items():
                yield label, Sample([x], dict(kwargs), grad=label == "edge_zero")
    return samples


def binary(domain=(-2.0, 2.0), edges=True, mixed=True):
    """Elementwise pairs: same shape, broadcast, scalar, empty, mismatched shapes, mixed dtypes and the
    outer product of the edge values (integer division by zero included)."""
    def samples(rng, dtype):
        def r(shape):  # no integer zeros: division by zero is the edge case's
            x = random_array(rng, shape, dtype, domain)
            return np.where(x == 0, 1, x).astype(x.dtype) if dtype in INT else x
        yield "same", Sample([r((2, 3)), r((2, 3))])
        yield "bcast", Sample([r((2, 1)), r((3,))])
        yield "scalar", Sample([r(()), r((2, 3))])
        yield "empty", Sample([r((0, 3)), r((3,))])
        yield "badshape", Sample([r((2, 3)), r((4,))])
        x = r((4,))
        yield "tie", Sample([x, x.copy()])  # which side a tie's gradient goes to
        if mixed and dtype == "float32":
            yield "mixed", Sample([r((3,)), r((3,)).astype("float64")])
        if edges:
            x = np.concatenate([v for k, v in edge_values(dtype).items() if k != "edge_subnormal"])
            yield "edge", Sample([x[:, None], x[None, :]], grad=False)
    return samples


def reduction(extra=None, edges=True, **kwargs):
    """Reductions: axis None / int / negative / list / out of range, keepdims, empty and rank 0."""
    def samples(rng, dtype):
        r = lambda shape: random_array(rng, shape, dtype)
        x = r((2, 3))
        for label, kw in [("all", {}), ("ax0", {"axis": 0}), ("axm1", {"axis": -1}),
                          ("ax01", {"axis": [0, 1]}), ("keep", {"axis": 1, "keepdims": True}),
                          ("ax2", {"axis": 2}), ("axm3", {"axis": -3})]:
            yield label, Sample([x], {**kwargs, **kw})
        yield "rank0", Sample([r(())], dict(kwargs))
        yield "empty0", Sample([r((0, 3))], {**kwargs, "axis": 0})
        yield "emptyall", Sample([r((0, 3))], dict(kwargs))
        if edges:
            for label, v in edge_values(dtype).items():
                yield label, Sample([v], dict(kwargs), grad=False)
        if extra:
            yield from extra(rng, dtype)
    return samples


def fixed(*cases):
    """Samples from (label, make(rng, dtype) -> Sample or None) pairs; None: not for this dtype."""
    def samples(rng, dtype):
        for label, make in cases:
            sample = make(rng, dtype)
            if sample is not None:
                yield label, sample
    return samples
