"""tf.debugging's value assertions (assert_equal, assert_positive, assert_near, Assert, ...); how a check
runs eagerly and inside a tf.function is in checks.py."""
import numpy as np

from tapegrad import _core
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops.debugging import checks
from tapegrad._ops.math import elementwise as ew
from tapegrad._ops.math import reduction as _reduction
from tapegrad._tensor.tensor import Tensor, convert_to_tensor
from tapegrad.errors import InvalidArgumentError

__all__ = ["Assert", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater",
           "assert_greater_equal", "assert_positive", "assert_negative", "assert_non_negative",
           "assert_non_positive", "assert_near", "assert_all_finite"]


@dispatch
def assert_equal(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``x == y`` for every element (after broadcasting)."""
    return checks.compare(x, y, "equal", "==", message, summarize)


def assert_none_equal(x, y, summarize=None, message=None, name=None):
    """Raises InvalidArgumentError unless ``x != y`` for every element."""
    return checks.compare(x, y, "not_equal", "!=", message, summarize)


@dispatch
def assert_less(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``x < y`` for every element."""
    return checks.compare(x, y, "less", "<", message, summarize)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``x <= y`` for every element."""
    return checks.compare(x, y, "less_equal", "<=", message, summarize)


@dispatch
def assert_greater(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``x > y`` for every element."""
    return checks.compare(x, y, "greater", ">", message, summarize)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``x >= y`` for every element."""
    return checks.compare(x, y, "greater_equal", ">=", message, summarize)


def assert_positive(x, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless every element of ``x`` is > 0."""
    return checks.sign(x, "greater", ">", message, summarize)


def assert_negative(x, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless every element of ``x`` is < 0."""
    return checks.sign(x, "less", "<", message, summarize)


def assert_non_negative(x, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless every element of ``x`` is >= 0."""
    return checks.sign(x, "greater_equal", ">=", message, summarize)


def assert_non_positive(x, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless every element of ``x`` is <= 0."""
    return checks.sign(x, "less_equal", "<=", message, summarize)


@dispatch
def Assert(condition, data, summarize=None, name=None):  # noqa: N802 -- TF's name
    """Raises InvalidArgumentError listing ``data`` when the scalar ``condition`` is false.

    Eagerly it checks now; inside a tf.function it checks at every call of the graph.

    >>> tf.debugging.Assert(x > 0, ["x must be positive:", x])
    """
    if not _core._tracing() or not isinstance(condition, Tensor):
        if not isinstance(condition, Tensor):
            condition_value = condition  # a Python or NumPy bool: bool() raises for arrays as TF
        else:
            condition_value = condition.numpy()
        if bool(condition_value):
            return None
        if _core._tracing():  # a known-false condition in a graph fails when the graph runs, as TF's
            condition = convert_to_tensor(False)
        else:
            raise InvalidArgumentError(f"Expected '{condition!s}' to be true. Summarized data: "
                                       + "\n".join(checks.eager_datum(d, summarize) for d in data))
    data = [d if isinstance(d, (str, Tensor)) else convert_to_tensor(d) for d in data]
    return checks.check(condition, data, summarize, None)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError unless ``|x - y| <= atol + rtol * |y|`` everywhere.

    rtol and atol default to 10 * eps of x's dtype."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    if not x.dtype.is_floating:  # TF's ValueError (from np.finfo, whose wording changes with NumPy's version)
        raise ValueError(f"assert_near: data type {np.dtype(x.dtype.as_numpy_dtype)} not inexact")
    eps = np.finfo(x.dtype.as_numpy_dtype).eps
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=x.dtype)
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=x.dtype)
    ok = _reduction.reduce_all(ew.less_equal(ew.abs(x - y), atol + rtol * ew.abs(y)))
    data = [f"{message}.  " if message else "",
            f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
            f"x ({checks.label(x)}) = ", x, f"y ({checks.label(y)}) = ", y]
    if _core._tracing():
        return checks.check(ok, data, summarize, None)
    return Assert(ok, data, summarize=summarize)


def assert_all_finite(x, message, name=None):
    """Returns ``x``; raises InvalidArgumentError "<message> : Tensor had NaN values" (or Inf)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
                                   "bfloat16, half, float, double (assert_all_finite / CheckNumerics)")

    def text(values):
        return f"{message} : Tensor had {'NaN' if np.isnan(values).any() else 'Inf'} values"

    if not _core._tracing():
        if not np.isfinite(x.numpy()).all():
            raise InvalidArgumentError(text(x.numpy()))
        return x

    def run(values):
        if not np.isfinite(checks.value_of(values[0])).all():
            raise InvalidArgumentError(text(checks.value_of(values[0])))

    _core._record_host_call(run, [x], "CheckNumerics")
    trace = checks.current_trace()
    if trace is not None and not trace.dry:
        run([x])
    return x
