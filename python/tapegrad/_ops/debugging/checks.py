"""How tf.debugging's assertions check a condition and word its failure, for the public asserts and for
the ops that check their arguments at run time (check_non_negative, check_less_equal, ...).

Eagerly a check runs now and raises InvalidArgumentError with TF's eager text. Inside a
tf.function a check on traced values is recorded as a host call that receives the condition and
the data tensors and raises at every call of the graph whose values fail, with the text of TF's
Assert op ("assertion failed: [..] [..]"); a trace runs with the first call's real values, so the
check also runs then. A condition on values known while tracing (constants) raises at trace time.
"""
import numpy as np

from tapegrad import _core
from tapegrad._function import trace_context as _trace_context
from tapegrad._ops.math import elementwise as ew
from tapegrad._tensor.tensor import Tensor, convert_to_tensor
from tapegrad.errors import InvalidArgumentError

SUMMARIZE = 3  # elements shown per tensor when summarize is None, as TF


def value_of(t):
    """A NumPy value; a traced tensor's too (its value in this trace: a host call reads it while tracing)."""
    return t._numpy_unchecked() if isinstance(t, Tensor) else np.asarray(t)


def current_trace():
    return _trace_context.current_trace()


def graph_name(t):
    """TF's name of t in the graph being traced ("a:0", "mul:0"); "Const:0" for a constant."""
    name = _core._traced_name(t)
    return _trace_context.graph_name(name[:-2]) + ":0" if name else "Const:0"


def label(t):
    """How TF's messages name a tensor: its shape and dtype eagerly, its graph name while tracing."""
    return graph_name(t) if _core._tracing() else f"shape={t.shape} dtype={t.dtype.name}"


# -- TF's Assert-op text: every datum in brackets, a tensor cut to `summarize` elements ----------------
def _element(v, dtype):
    if dtype == np.bool_:
        return "1" if v else "0"
    if np.issubdtype(dtype, np.floating):
        if not np.isfinite(v):
            return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
        short, full = (6, 9) if dtype == np.float32 else (15, 17)
        text = f"{v:.{short}g}"  # the shortest of two precisions that reads back to the same value
        return text if dtype.type(text) == v else f"{v:.{full}g}"
    return str(v)


def graph_summary(a, summarize):
    """A tensor as TF's Assert op prints it: nested brackets, `summarize` elements in all, then '...'."""
    flat, total = a.ravel(), a.size
    summarize = SUMMARIZE if summarize is None else summarize
    limit = total if summarize < 0 else min(summarize, total)
    if a.ndim == 0:
        return " ".join(_element(v, a.dtype) for v in flat[:limit]) + ("..." if total > limit else "")
    out, pos = [], [0]

    def dim(d):
        if pos[0] >= limit:
            return
        if d == a.ndim - 1:
            for i in range(a.shape[d]):
                if pos[0] >= limit:
                    if d != 0:  # a cut inner row says so; the outermost cut is marked once at the end
                        out.append("...")
                    return
                out.append((" " if i else "") + _element(flat[pos[0]], a.dtype))
                pos[0] += 1
            return
        for _ in range(a.shape[d]):
            opened = pos[0] < limit
            out.append("[" if opened else "")
            dim(d + 1)
            out.append("]" if opened else "")

    dim(0)
    return "".join(out) + ("..." if total > limit else "")


def _graph_text(parts, values, summarize):
    it = iter(values)
    items = [graph_summary(next(it), summarize) if p is _core._OUT else str(p) for p in parts]
    return "assertion failed: " + " ".join(f"[{i}]" for i in items)


def _static_text(parts, values):
    """TF's text for a condition that fails on values known while tracing: one datum per line."""
    it = iter(values)
    return "\n".join(str(next(it)) if p is _core._OUT else str(p) for p in parts)


def check(cond, data, summarize, eager_text, static=False):
    """Raises InvalidArgumentError unless every element of `cond` is true.

    data: the strings and tensors TF's graph-mode Assert prints. eager_text(cond_values) -> the
    eager message. static: while tracing, a condition with no traced input fails at trace time
    with _static_text (TF's binary asserts do; Assert and assert_near fail when run)."""
    if not _core._tracing():
        if not np.all(cond.numpy()):
            raise InvalidArgumentError(eager_text())
        return None
    parts = [_core._OUT if isinstance(d, Tensor) else d for d in data]
    tensors = [d for d in data if isinstance(d, Tensor)]
    if static and not any(_core._is_traced(t) for t in [cond] + tensors):
        if not np.all(cond.numpy()):
            raise InvalidArgumentError(_static_text(parts, [t.numpy() for t in tensors]))
        return None

    def run(values):
        if not np.all(value_of(values[0])):
            raise InvalidArgumentError(_graph_text(parts, [value_of(v) for v in values[1:]], summarize))

    _core._record_host_call(run, [cond] + tensors, "Assert")
    trace = current_trace()
    if trace is not None and not trace.dry:  # the trace is the first call: check its values now
        run([cond] + tensors)
    return None


# -- comparisons of two tensors ---------------------------------------------------------------------------
def _binary_eager_text(x, y, ok, op, message, summarize):
    """TF's eager text: the first failing indices and values when shapes agree, then the first elements."""
    n = SUMMARIZE if summarize is None else summarize
    xa, ya, ok = x.numpy(), y.numpy(), ok.numpy()
    lines = [message] if message else []
    lines.append(f"Condition x {op} y did not hold.")
    if xa.shape == ya.shape and xa.ndim > 0:
        bad = ~ok
        where = np.argwhere(bad)[:n]
        lines += [f"Indices of first {len(where)} different values:", str(where),
                  "Corresponding x values:", str(xa[bad][:n]), "Corresponding y values:", str(ya[bad][:n])]
    xs, ys = xa.ravel()[:n], ya.ravel()[:n]
    lines += [f"First {xs.size} elements of x:", str(xs), f"First {ys.size} elements of y:", str(ys)]
    return "\n".join(lines)


def compare(x, y, compare, op, message, summarize):
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    ok = getattr(ew, compare)(x, y)
    data = ([message] if message else []) + [f"Condition x {op} y did not hold element-wise:",
                                             f"x ({label(x)}) = ", x, f"y ({label(y)}) = ", y]
    return check(ok, data, summarize, lambda: _binary_eager_text(x, y, ok, op, message, summarize), static=True)

# -- the sign of one tensor -------------------------------------------------------------------------------
def sign(x, compare, op, message, summarize):
    x = convert_to_tensor(x)
    ok = getattr(ew, compare)(x, convert_to_tensor(0, dtype=x.dtype))
    lead = f"{message}.  " if message else ""
    head = f"Condition x {op} 0 did not hold element-wise:"

    def eager_text():
        n = SUMMARIZE if summarize is None else summarize
        flat = x.numpy().ravel()
        shown = [str(v) for v in flat[:n]] + (["..."] if flat.size > n else [])
        # TF's own text has no line break after the condition of assert_non_positive
        sep = "" if op == "<=" else "\n"
        return f"{lead}\n{head}{sep}x ({label(x)}) = \n{shown}"

    data = ([lead] if lead else []) + [head, f"x ({label(x)}) = ", x]
    return check(ok, data, summarize, eager_text, static=True)

# -- Assert and what is built on it ---------------------------------------------------------------------
def eager_datum(d, summarize):
    """One datum as TF's eager Assert lists it: strings as bytes, tensors as comma-separated elements."""
    if isinstance(d, str):
        return repr(d.encode())
    a = d.numpy() if hasattr(d, "numpy") else np.asarray(d)
    flat = [repr(v.encode()) if isinstance(v, str) else repr(v) if isinstance(v, bytes) else str(v)
            for v in a.ravel().tolist()] if a.dtype.kind in "USO" else [str(v) for v in a.ravel()]
    n = len(flat) if summarize is not None and summarize < 0 else (SUMMARIZE if summarize is None else summarize)
    return ", ".join(flat[:n] + (["..."] if len(flat) > n else []))


# -- the checks the ops make of their arguments at run time ---------------------------------------------
def check_non_negative(x, message):
    """assert_non_negative(x, message): x >= 0 everywhere, now or at every call of the graph."""
    return sign(x, "greater_equal", ">=", message, None)


def check_less_equal(x, y, message):
    """assert_less_equal(x, y, message)."""
    return compare(x, y, "less_equal", "<=", message, None)


def check_greater_equal(x, y, message):
    """assert_greater_equal(x, y, message)."""
    return compare(x, y, "greater_equal", ">=", message, None)
