"""einsum: parses the equation, then contracts operands pairwise with transpose, reshape and matmul.

Terminology: a label is one index letter; '...' stands for broadcast axes, given private labels.
Algorithm: (1) each operand takes its diagonal over repeated labels and sums labels used nowhere
else; (2) operands are contracted left to right, a pair at a time, keeping the labels that the
output or a later operand needs: shared kept labels are batch axes, shared others are summed by a
matmul; (3) the result is transposed to the output order. Every step is a differentiable op.
"""
import collections
import string

from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes, errors
from tapegrad._ops._lib.arrays import stack
from tapegrad._ops._lib.shapes import (axis_varies, diag_last_two, dynamic_broadcast, reshape_to, run_time_size,
                                       size_product)
from tapegrad._ops.math.reduction import reduce_sum
from tapegrad._tensor.tensor import Tensor, constant, convert_to_tensor
from tapegrad._ops import _raw

__all__ = ["einsum"]

_matmul = _raw.MatMul
_transpose = _raw.Transpose
_LETTERS = set(string.ascii_letters)
_FLOATING = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _error(msg):
    return errors.InvalidArgumentError(f"Einsum: {msg}")


def _operand(x, i):
    if x is None:
        raise ValueError(f"Einsum: operand {i} is None; expected a tensor")
    try:
        return convert_to_tensor(x)
    except errors.OpError as e:
        raise type(e)(f"Einsum: operand {i}: {e}") from None
    except TypeError as e:
        raise TypeError(f"Einsum: operand {i}: {e}") from None


def _split_term(term, equation):
    if term.count("...") > 1 or "." in term.replace("...", ""):
        raise _error(f"invalid ellipsis in '{term}' of equation '{equation}'")
    named = term.replace("...", "")
    bad = set(named) - _LETTERS
    if bad:
        raise _error(f"invalid labels {sorted(bad)} in equation '{equation}' (labels are letters a-z, A-Z)")
    return named


def _parse(equation, shapes):
    """Returns (labels of each operand, output labels, ellipsis labels)."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise _error(f"equation '{equation}' has more than one '->'")
    lhs, rhs = eq.split("->") if "->" in eq else (eq, None)
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise _error(f"equation '{equation}' names {len(terms)} operands, got {len(shapes)}")
    named = [_split_term(t, equation) for t in terms]
    ell_rank = 0
    for t, n, s in zip(terms, named, shapes):
        if len(n) > len(s) or ("..." not in t and len(n) != len(s)):
            raise _error(f"term '{t}' of equation '{equation}' does not match an operand of shape {tuple(s)}")
        ell_rank = max(ell_rank, len(s) - len(n))
    ell = [chr(0x100 + i) for i in range(ell_rank)]
    labels = [list(t.replace("...", "".join(ell[ell_rank - (len(s) - len(n)):])))
              for t, n, s in zip(terms, named, shapes)]
    if rhs is None:   # implicit output: broadcast axes, then the labels used once, sorted
        counts = collections.Counter(l for ls in labels for l in ls)
        out = ell + sorted(l for l, c in counts.items() if c == 1 and l in _LETTERS)
    else:
        _split_term(rhs, equation)
        out = list(rhs.replace("...", "".join(ell)))
        if len(set(out)) != len(out):
            raise _error(f"output '{rhs}' of equation '{equation}' repeats a label")
        missing = set(out) - {l for ls in labels for l in ls}
        if missing - set(ell):
            raise _error(f"output labels {sorted(missing)} of equation '{equation}' appear in no input")
        out = [l for l in out if l not in missing]
    return labels, out, set(ell)


def _label_sizes(labels, shapes, ell, equation):
    sizes = {}
    for ls, s in zip(labels, shapes):
        for l, d in zip(ls, s):
            known = sizes.setdefault(l, d)
            if known != d:
                if l in ell and 1 in (known, d):
                    sizes[l] = max(known, d)
                else:
                    name = "..." if l in ell else l
                    raise _error(f"label '{name}' has sizes {known} and {d} in equation '{equation}' "
                                 f"for operands of shapes {[tuple(x) for x in shapes]}")
    return sizes


def _diagonal(x, ls):
    """Takes the diagonal over every label repeated within one operand ('ii->i')."""
    while len(set(ls)) != len(ls):
        l = next(l for l in ls if ls.count(l) > 1)
        p = ls.index(l)
        q = ls.index(l, p + 1)
        rest = [i for i in range(len(ls)) if i not in (p, q)]
        perm = rest + [p, q]  # the two axes last, then their diagonal (off-diagonal entries unread)
        x = diag_last_two(x if perm == list(range(len(ls))) else _transpose(x, perm=perm))
        ls = [ls[i] for i in rest] + [l]
    return x, ls


def _sum_unused(x, ls, keep):
    axes = [i for i, l in enumerate(ls) if l not in keep]
    if not axes:
        return x, ls
    return reduce_sum(x, axes), [l for l in ls if l in keep]


def _permuted(x, ls, order):
    perm = [ls.index(l) for l in order]
    return x if perm == list(range(len(ls))) else _transpose(x, perm=perm)


def _expand(x, ls, sizes, which):
    """Broadcasts the size-1 broadcast axes among ``which`` to their full size; a size that changes from
    call to call (an int64 scalar tensor in sizes, or an axis of x that varies) is read at run time."""
    target = [run_time_size(x, i) if axis_varies(x, i) else sizes[l] if l in which else d
              for i, (l, d) in enumerate(zip(ls, x._shape))]
    if not any(isinstance(t, Tensor) for t in target):
        return x if target == list(x._shape) else _raw.BroadcastTo(x, shape=target)
    if all(axis_varies(x, i) or not isinstance(t, Tensor) and t == d
           for i, (t, d) in enumerate(zip(target, x._shape))):
        return x  # (only x's own sizes)
    return dynamic_broadcast(x, stack([t if isinstance(t, Tensor) else constant(t, dtypes.int64) for t in target]))


def _einsum_op(a, la, b, lb, labels):
    """The contraction as one Einsum op (batched GEMMs on strided views, no transposes copied) when it
    fits: floating operands whose shared labels have one size in both (no broadcasting between them);
    None otherwise. The labels are renamed to letters for the op's equation."""
    # (tests/opinfo/linalg.py's Einsum row checks the op; its einsum row, this routing)
    if a.dtype not in _FLOATING or any(a._shape[la.index(l)] != b._shape[lb.index(l)] for l in la if l in lb):
        return None
    # a broadcast ('...') axis whose size varies between calls may be 1 in one operand at run time
    if any(l not in _LETTERS and axis_varies(x, ls.index(l)) for x, ls in ((a, la), (b, lb)) for l in ls):
        return None
    names = dict(zip(dict.fromkeys(la + lb), string.ascii_letters))
    if len(names) < len(set(la + lb)):
        return None
    term = lambda ls: "".join(names[l] for l in ls)  # noqa: E731
    return _raw.Einsum(a, b, equation=f"{term(la)},{term(lb)}->{term(labels)}")


def _contract(a, la, b, lb, keep, sizes, order=None):
    """(a with labels la) x (b with labels lb), summing the shared labels not in keep; returns the result
    and its labels: batch labels, then a's own, then b's own, or ``order`` where it names exactly those."""
    shared = [l for l in la if l in lb]
    batch = [l for l in shared if l in keep]
    summed = [l for l in shared if l not in keep]
    a_only = [l for l in la if l not in lb]
    b_only = [l for l in lb if l not in la]
    labels = batch + a_only + b_only
    if order is not None and sorted(order) == sorted(labels):
        labels = list(order)
    fused = _einsum_op(a, la, b, lb, labels)
    if fused is not None:
        return fused, labels
    a, b = _expand(a, la, sizes, shared), _expand(b, lb, sizes, shared)
    size = lambda ls: size_product([sizes[l] for l in ls])  # noqa: E731 (an int64 tensor when a size varies)
    B, M, K, N = size(batch), size(a_only), size(summed), size(b_only)
    lead = [B] if batch else []
    at = reshape_to(_permuted(a, la, batch + a_only + summed), lead + [M, K])
    bt = reshape_to(_permuted(b, lb, batch + summed + b_only), lead + [K, N])
    if not summed:        # outer product per batch entry: broadcasting multiply
        out = at * bt
    elif not a_only and not b_only:   # dot product per batch entry (M == N == 1)
        out = reduce_sum(at * reshape_to(bt, lead + [1, K]), -1, keepdims=True)
    else:
        out = _matmul(at, bt, transpose_a=False, transpose_b=False)
    labels = batch + a_only + b_only
    return reshape_to(out, [sizes[l] for l in labels]), labels


def _run_time_sizes(xs, labels, sizes):
    """sizes with each label whose size changes from call to call (Note [Varying dimensions]) in an operand
    read at run time from that operand (an int64 scalar tensor), unless another operand fixes it above 1."""
    out = dict(sizes)
    for x, ls in zip(xs, labels):
        for i, l in enumerate(ls):
            if axis_varies(x, i) and not isinstance(out[l], Tensor) and not any(
                    l in ls2 and x2._shape[ls2.index(l)] != 1 and not axis_varies(x2, ls2.index(l))
                    for x2, ls2 in zip(xs, labels)):
                out[l] = run_time_size(x, i)
    return out


@dispatch
def einsum(equation, *inputs, **kwargs):
    """Einstein summation, e.g. 'ij,jk->ik', 'bij,bjk->bik', 'i,i->', 'ij->ji', '...ij,...jk->...ik'.

    Labels repeated within one operand take the diagonal ('ii->i'); labels missing from the output
    are summed; '...' axes broadcast. Without '->' the output is the broadcast axes followed by the
    labels that appear once, in alphabetical order.

    >>> tf.einsum('ij,jk->ik', tf.ones((2, 3)), tf.ones((3, 4))).shape
    TensorShape([2, 4])
    """
    unknown = sorted(set(kwargs) - {"name", "optimize"})  # TF's keywords; the contraction order is ours
    if unknown:
        raise TypeError(f"einsum() got an unexpected keyword argument '{unknown[0]}'")
    if isinstance(equation, bytes):
        equation = equation.decode()
    if not isinstance(equation, str):
        raise TypeError(f"Einsum: the equation must be a string such as 'ij,jk->ik', got {type(equation).__name__} {equation!r}")
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    if not inputs:
        raise _error("no operands given")
    xs = [_operand(x, i) for i, x in enumerate(inputs)]
    dtypes_ = {x.dtype for x in xs}
    if len(dtypes_) > 1:
        raise _error(f"operands must have one dtype, got {[f'{x.dtype.name}{tuple(x.shape)}' for x in xs]}")
    shapes = [tuple(x._shape) for x in xs]
    labels, out, ell = _parse(equation, shapes)
    sizes = _label_sizes(labels, shapes, ell, equation)
    if any(_core._varying_dims(x) for x in xs):
        sizes = _run_time_sizes(xs, labels, sizes)
    ops = []
    for i, (x, ls) in enumerate(zip(xs, labels)):
        x, ls = _diagonal(x, ls)
        elsewhere = set(out).union(*(set(o) for j, o in enumerate(labels) if j != i))
        ops.append(_sum_unused(x, ls, elsewhere))
    cur, cur_ls = ops[0]
    for j in range(1, len(ops)):
        keep = set(out).union(*(set(ls) for _, ls in ops[j + 1:]))
        last = j == len(ops) - 1  # the last pair gives the output's order directly where it can
        cur, cur_ls = _contract(cur, cur_ls, ops[j][0], ops[j][1], keep, sizes, order=out if last else None)
    cur, cur_ls = _sum_unused(cur, cur_ls, set(out))
    return _expand(_permuted(cur, cur_ls, out), out, sizes, set(out))
