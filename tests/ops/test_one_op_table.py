"""One op table: a TF-oracle row (tests/tf_oracle) names the OpInfo row (tests/opinfo) of its op and takes
its input domain from it, so an op's domain is written once. Imports no TensorFlow."""
import functools
import inspect

import tapegrad as tf
from op_db import op_db
from tf_oracle.rows import OPINFO, ROWS

NAMESPACES = ("", "math.", "nn.", "linalg.")  # where a composite row's Python-level name is looked up


def _resolve(path):
    """tapegrad.<path>, or None."""
    try:
        return functools.reduce(getattr, path.split("."), tf)
    except AttributeError:
        return None


def _named(info):
    """The public callable a composite OpInfo row (op=None) is named after, or None."""
    return next(filter(None, (_resolve(ns + info.name) for ns in NAMESPACES)), None)


def _covering(fn):
    """The OpInfo rows of the public callable fn: its registry op's, its own, one that names fn as the public
    form of its op (OpInfo.public: its fn a lambda, a helper or the raw handle), or the composite named after it."""
    op = fn.name if isinstance(fn, tf._core.OpHandle) else None
    return [info.name for info in op_db
            if (op is not None and info.registry_op == op) or info.fn is fn or any(p is fn for p in info.public)
            or (info.op is None and _named(info) is fn)]


def test_every_named_opinfo_row_exists():
    unknown = sorted(f"{row.case_name}: {row.opinfo}" for row in ROWS if row.opinfo and row.opinfo not in OPINFO)
    assert not unknown, f"oracle rows naming no OpInfo row (tests/op_db.py): {unknown}"


def test_an_op_with_an_opinfo_row_is_named_by_its_oracle_rows():
    unnamed = []
    for row in ROWS:
        fn = _resolve(row.name)
        if row.opinfo is None and fn is not None and _covering(fn):
            unnamed.append(f"{row.case_name} (opinfo={' or '.join(map(repr, _covering(fn)))})")
    assert not unnamed, f"oracle rows of ops with an OpInfo row, not naming it (give the Row its opinfo and take " \
                        f"the domain from it, opinfo_domain): {unnamed}"


def test_an_oracle_row_names_an_opinfo_row_of_its_op():
    # a row whose fn is a lambda, a helper or a raw handle covers a public callable only by naming it (public=)
    wrong = []
    for row in ROWS:
        fn = _resolve(row.name)
        if row.opinfo in OPINFO and fn is not None and row.opinfo not in _covering(fn):
            op = fn.name if isinstance(fn, tf._core.OpHandle) else f"tapegrad.{row.name}"
            wrong.append(f"{row.case_name} names {row.opinfo}, a row of another op than {op} (or one that does not "
                         "list it in OpInfo.public)")
    assert not wrong, wrong


def test_oracle_rows_take_the_domain_of_their_opinfo_row():
    # samples built on one domain (unary, binary, Tensor's operators) hold it in their closure: the very
    # OpInfo row's tuple, not a copy written again
    own = []
    for row in ROWS:
        domain = inspect.getclosurevars(row.samples).nonlocals.get("domain")
        if row.opinfo in OPINFO and domain is not None and domain is not OPINFO[row.opinfo].domain:
            own.append(f"{row.case_name}: {domain}, its OpInfo row {row.opinfo}: {OPINFO[row.opinfo].domain}")
    assert not own, f"oracle rows writing their own domain (take it from the OpInfo row, opinfo_domain): {own}"
