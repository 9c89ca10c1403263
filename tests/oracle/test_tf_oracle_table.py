"""The TF oracle's table (tests/tf_oracle) covers the public API, and its known differences are live
and agree with README.md. Needs no TensorFlow: runs in the default suite."""
import fnmatch
import functools
import os
import re
import types

import tapegrad as tf
from tf_oracle.cases import all_ids
from tf_oracle.differences import DELIBERATE, DIFFERENCES
from tf_oracle.rows import EXCLUDED, MODULES, ROWS

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")  # the repository
README = os.path.join(ROOT, "README.md")


def _public_callables():
    """public path -> object for every callable in the covered namespaces (modules left out)."""
    out = {}
    for module_name in MODULES:
        module = getattr(tf, module_name) if module_name else tf
        for name in dir(module):
            obj = getattr(module, name)
            if not name.startswith("_") and callable(obj) and not isinstance(obj, types.ModuleType):
                out[f"{module_name}.{name}" if module_name else name] = obj
    return out


def _resolve(path):
    return functools.reduce(getattr, path.split("."), tf)


def test_every_public_callable_has_a_row_or_an_exclusion():
    # an alias (tf.math.add is tf.add) is covered by its target's row
    covered = {id(_resolve(row.name)) for row in ROWS}
    missing = sorted(p for p, obj in _public_callables().items() if id(obj) not in covered and p not in EXCLUDED)
    assert not missing, f"public callables with neither a row in tests/tf_oracle/rows.py nor an exclusion: {missing}"


def test_exclusions_name_public_callables_without_rows():
    public = _public_callables()
    covered = {id(_resolve(row.name)) for row in ROWS}
    stale = sorted(p for p in EXCLUDED if p not in public or id(public[p]) in covered)
    assert not stale, f"exclusions naming no public callable, or one that has a row: {stale}"


def _is_operator(path):
    """Tensor's operators (Tensor.__add__, ...) have rows without being public callables of their own."""
    return path.startswith("Tensor.") and callable(_resolve(path))


def test_every_row_names_a_public_op():
    public = _public_callables()
    unknown = sorted(row.name for row in ROWS if row.name not in public and not _is_operator(row.name))
    assert not unknown, f"rows naming no public callable: {unknown}"


def test_every_difference_matches_a_case():
    ids = all_ids()
    stale = [p for p in DIFFERENCES if not any(fnmatch.fnmatchcase(i, p) for i in ids)]
    assert not stale, f"known differences matching no oracle case: {stale}"
    assert all(kind in ("bug", DELIBERATE) for kind, _ in DIFFERENCES.values())


def _readme_differences():
    """reason -> set of case patterns, from README.md's "Differences from TensorFlow" bullets."""
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Differences from TensorFlow\n", 1)[1].split("\n## ", 1)[0]
    bullets = re.findall(r"^- (.*?)(?=^- |\Z)", section, flags=re.M | re.S)
    out = {}
    for bullet in bullets:
        reason, cases = " ".join(bullet.split()).split(". Cases: ", 1)
        out[reason] = set(re.findall(r"`([^`]+)`", cases))
    return out


def test_readme_lists_the_deliberate_differences():
    table = {}
    for pattern, (kind, reason) in DIFFERENCES.items():
        if kind == DELIBERATE:
            table.setdefault(reason, set()).add(pattern)
    assert _readme_differences() == table
