"""Cases from the oracle table: ids "<op>-<dtype>-<label>", each with its row and sample, the same on
every run (seeded from the id), and the known differences applied as strict xfails."""
import dataclasses
import fnmatch
import zlib

import numpy as np
import pytest

from tf_oracle.differences import DIFFERENCES
from tf_oracle.rows import ROWS
from tf_oracle.samples import FLOAT


def _keyword_samples(sample):
    """TF's calling conventions on a row's first sample: name= is accepted, an unknown keyword refused."""
    yield "name", dataclasses.replace(sample, kwargs={**sample.kwargs, "name": "oracle"}, grad=False)
    yield "badkw", dataclasses.replace(sample, kwargs={**sample.kwargs, "no_such_argument": 1}, grad=False)


def all_cases():
    """(case id, row, dtype, sample) for every row, dtype and sample label."""
    cases = []
    for row in ROWS:
        for dtype in row.dtypes:
            rng = np.random.default_rng(zlib.crc32(f"{row.case_name}-{dtype}".encode()))
            samples = list(row.samples(rng, dtype))
            if row.keywords and dtype == row.dtypes[0]:
                samples += list(_keyword_samples(samples[0][1]))
            for label, sample in samples:
                cases.append((f"{row.case_name}-{dtype}-{label}", row, dtype, sample))
    return cases


def forward_ids():
    return [f"fwd:{cid}" for cid, *_ in all_cases()]


def gradient_cases():
    return [c for c in all_cases() if c[2] in FLOAT and c[1].grad and c[3].grad and not c[1].shape_only]


def all_ids():
    return forward_ids() + [f"grad:{c[0]}" for c in gradient_cases()]


def difference_for(case_id):
    """The known-difference row whose pattern matches "fwd:<id>" or "grad:<id>", or None."""
    for pattern, entry in DIFFERENCES.items():
        if fnmatch.fnmatchcase(case_id, pattern):
            return pattern, entry
    return None


def params(kind, cases):
    """pytest params for `kind` ("fwd" or "grad"), known differences marked xfail(strict=True)."""
    out = []
    for case in cases:
        known = difference_for(f"{kind}:{case[0]}")
        marks = [pytest.mark.xfail(strict=True, reason=f"{known[1][0]}: {known[1][1]}")] if known else []
        out.append(pytest.param(*case[1:], id=case[0], marks=marks))
    return out
