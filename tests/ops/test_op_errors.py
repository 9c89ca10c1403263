"""Every op row's bad calls (OpInfo.error_inputs): each raises its TF error class, with a message matching
the case's pattern and holding its words, and leaves alone what its `after` check reads."""
import pytest

from op_db import op_db

CASES = [(op.name, i, case) for op in op_db if op.error_inputs is not None
         for i, case in enumerate(op.error_inputs())]


@pytest.mark.parametrize("case", [case for _, _, case in CASES], ids=[f"{name}-{i}" for name, i, _ in CASES])
def test_bad_call_raises(case):
    with pytest.raises(case.error_type, match=case.error_regex) as info:
        case.fn(*case.sample.args, **case.sample.kwargs)
    for words in case.contains:
        assert words in str(info.value), str(info.value)
    if case.after is not None:
        case.after()
