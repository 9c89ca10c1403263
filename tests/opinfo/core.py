"""OpInfo: one test row per op (how to call it, sample inputs, NumPy reference, input domain, bad calls,
edge samples)."""
import dataclasses
from typing import Callable, Optional

import numpy as np

UNARY_SHAPES = [(), (5,), (2, 3)]
BINARY_SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((4,), ())]


@dataclasses.dataclass
class SampleInput:
    args: list              # NumPy arrays (inputs) and plain Python values (attributes)
    kwargs: dict = dataclasses.field(default_factory=dict)
    grad_args: Optional[list] = None   # indices of args to differentiate; default: every float array


@dataclasses.dataclass
class ErrorInput:
    """A bad call and what it must raise, as PyTorch's ErrorInput: fn(*sample.args, **sample.kwargs) raises
    error_type with a message matching error_regex (re.search) and holding each of `contains`."""
    fn: Callable            # the public function or op handle the bad call goes through
    sample: SampleInput     # its arguments, passed as they are (no conversion to tensors)
    error_type: object      # an exception class, or a tuple of them
    error_regex: Optional[str] = None
    contains: tuple = ()    # substrings the message must hold (checks written as `words in str(e)`)
    after: Optional[Callable] = None   # () -> None, run after the raise: asserts what the call left alone


class BadCall:
    """`BadCall(tf.reshape, x, [5, 5]).raises(E, "Reshape")`: reads as the check it makes."""

    def __init__(self, fn, *args, **kwargs):
        self.fn, self.sample = fn, SampleInput(list(args), kwargs)

    def raises(self, error_type, error_regex=None, contains=(), after=None):
        return ErrorInput(self.fn, self.sample, error_type, error_regex, tuple(contains), after)


@dataclasses.dataclass(frozen=True)
class Check:
    """A property an edge output must have where no one value is expected: holds(output as NumPy) is true
    (everywhere, for an array of truth values)."""
    what: str
    holds: Callable


ANY = Check("anything", lambda out: True)       # an output the edge sample does not check
FINITE = Check("finite", np.isfinite)


@dataclasses.dataclass
class EdgeSample:
    """An input at an edge of the op's domain (0, -0.0, +-inf, NaN, huge, subnormal, empty) and what the op
    gives there (tests/ops/test_op_edges.py).

    fn(*sample.args, **sample.kwargs), with fn the row's unless `fn` names the public form the sample goes
    through (NumPy arrays among the args become tensors; other values are passed as they are), gives `value`:
    a NumPy value or nested lists (an array of that shape, compared as float64 with |got - want| <=
    max(atol, rtol * |want|), NaN matching NaN and +-inf only itself), a Check, None (the output is None),
    or a tuple of those, one per output. `dtype`: the output's dtype name, where it is checked.
    grad: the tape gradient of (the sum of) the output with respect to the inputs `wrt` (default: every float
    array), compared as the value (one entry per input, or the entry alone for one input); None: not checked.
    """
    sample: SampleInput
    value: object
    rtol: float = 0.0
    atol: float = 0.0
    dtype: Optional[str] = None
    grad: object = None
    grad_rtol: float = 0.0
    grad_atol: float = 0.0
    wrt: Optional[list] = None
    fn: Optional[Callable] = None

    def and_grad(self, grad, rtol=0.0, atol=0.0, wrt=None):
        return dataclasses.replace(self, grad=grad, grad_rtol=rtol, grad_atol=atol, wrt=wrt)


class Edge:
    """`Edge(np.array([1e30, -1e30])).gives(1e30, rtol=1e-7).and_grad([1.0, 0.0])`, or with the public form
    it goes through, `Edge(a, compute_uv=False).through(tf.linalg.svd).gives(...)`: reads as the check it
    makes. Exact (rtol = atol = 0) unless told."""

    def __init__(self, *args, **kwargs):
        self.sample, self.fn = SampleInput(list(args), kwargs), None

    def through(self, fn):
        self.fn = fn
        return self

    def gives(self, value, rtol=0.0, atol=0.0, dtype=None):
        return EdgeSample(self.sample, value, rtol, atol, dtype, fn=self.fn)


@dataclasses.dataclass
class OpInfo:
    """A row of the op table the tests are driven by.

    name: the registry op name (or a Python-level name for composites, with op=None).
    fn: calls the op through the public API: fn(*tensors_and_values, **kwargs).
    ref: the NumPy forward reference with the same signature on arrays (None: no forward check).
    samples: sample_fn(rng, np_dtype) -> iterable of SampleInput; default from ``arity``.
    domain: (low, high) for random float inputs: of the default samples, and of the op's TF-oracle rows
      (tests/tf_oracle, which name this row), so an op's domain is written once, here.
    order: 2 adds a second-derivative check through nested tapes.
    differentiable: False for ops with no gradient (checked to give None).
    draws_random: the op's output differs at every call (random ops); the sweeps that compare
      two calls skip it.
    error_inputs: () -> iterable of ErrorInput, the op's bad calls (set by attach_error_inputs from the
      family's <family>_errors.py table; a callable so the inputs are built only when a test asks).
    edge_samples: () -> iterable of EdgeSample, the op's values at the edges of its domain with what it
      must give there (set by attach_edge_samples from the family's <family>_edges.py table).
    public: the public callables whose op this row tests where ``fn`` does not show it (fn a lambda, a helper
      or the registry op's raw handle: tf.concat for ConcatV2, tf.range for Range): their TF-oracle rows name
      this row (tests/ops/test_one_op_table.py finds a row by its registry op, its fn or these).
    """

    name: str
    fn: Callable
    ref: Optional[Callable] = None
    arity: int = 1
    samples: Optional[Callable] = None
    domain: tuple = (-2.0, 2.0)
    order: int = 1
    differentiable: bool = True
    dtypes: tuple = ("float32", "float64")
    int_inputs: bool = False       # sample with integers (for int dtypes)
    atol: float = 1e-5
    rtol: float = 1e-4
    fwd_rtol32: float = 2e-6
    op: Optional[str] = "same"     # registry op covered by this row ("same": name; None: composite)
    draws_random: bool = False
    error_inputs: Optional[Callable] = None
    edge_samples: Optional[Callable] = None
    public: tuple = ()

    @property
    def registry_op(self):
        return self.name if self.op == "same" else self.op

    def sample_inputs(self, rng, dtype):
        if self.samples is not None:
            yield from self.samples(rng, dtype)
            return
        lo, hi = self.domain
        shapes = UNARY_SHAPES if self.arity == 1 else BINARY_SHAPES if self.arity == 2 else \
            [((2, 3),) * self.arity]
        for s in shapes:
            s = (s,) if self.arity == 1 else s
            yield SampleInput([rng.uniform(lo, hi, size=sh).astype(dtype) for sh in s])


def _attach(rows, table, field):
    """Sets `field` on the rows named in table ({row name: () -> [...]}); a name with no row is an error,
    so a check cannot drop out of the table unnoticed."""
    by_name = {row.name: row for row in rows}
    missing = sorted(set(table) - set(by_name))
    assert not missing, f"{field} for rows that do not exist: {missing}"
    for name, inputs in table.items():
        setattr(by_name[name], field, inputs)


def attach_error_inputs(rows, table):
    """The rows' bad calls ({row name: () -> [ErrorInput]})."""
    _attach(rows, table, "error_inputs")


def attach_edge_samples(rows, table):
    """The rows' edge samples ({row name: () -> [EdgeSample]})."""
    _attach(rows, table, "edge_samples")


def uniform(rng, shape, dtype, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(dtype)
