"""Tensor operators with an operand that does not convert, run by TensorFlow and by tapegrad from the
same code: TF's operators then call the operand's reflected method (x + obj is obj.__radd__(x)), and
keep the conversion's error when it is missing, returns NotImplemented or raises TypeError or
ValueError; comparisons never defer. Skipped when TensorFlow does not import, unless
TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()


class Reflecting:
    def __radd__(self, other):
        return "radd"

    def __rtruediv__(self, other):
        return "rtruediv"

    def __rmatmul__(self, other):
        return "rmatmul"

    def __rmul__(self, other):
        return NotImplemented

    def __rsub__(self, other):
        raise ValueError("no")

    def __rpow__(self, other):
        raise KeyError("own error")

    def __gt__(self, other):
        return "gt"

    def __eq__(self, other):
        return "eq"

    __hash__ = object.__hash__


EXPRESSIONS = {
    "add": lambda tf: tf.constant(1.0) + Reflecting(),
    "truediv": lambda tf: tf.constant(1.0) / Reflecting(),
    "matmul": lambda tf: tf.constant([[1.0]]) @ Reflecting(),
    "mul_not_implemented": lambda tf: tf.constant(1.0) * Reflecting(),
    "sub_value_error": lambda tf: tf.constant(1.0) - Reflecting(),
    "pow_other_error": lambda tf: tf.constant(1.0) ** Reflecting(),
    "floordiv_missing": lambda tf: tf.constant(1.0) // Reflecting(),
    "less_never_defers": lambda tf: tf.constant(1.0) < Reflecting(),
    "reflected_first": lambda tf: Reflecting() + tf.constant(1.0),
    "int_plus_float": lambda tf: tf.constant(1) + 1.5,
    "int_times_float": lambda tf: tf.constant(1) * 1.5,
    "float_plus_object": lambda tf: tf.constant(1.0) + object(),
}


def test_a_value_without_the_reflected_method_keeps_the_error():
    # float has no __ror__ (its type, `type`, has one: int | None); TF trips over that with an
    # AttributeError, tapegrad's contract is TypeError
    with pytest.raises(TypeError):
        tg.constant([True]) | 1.5


def _observed(lib, expression):
    try:
        value = expression(lib)
    except Exception as e:  # noqa: BLE001 (the error's kind is what is compared)
        kind = next((c.__name__ for c in (KeyError, TypeError, ValueError) if isinstance(e, c)), "other")
        return "error", kind
    return "value", value if isinstance(value, str) else "tensor"


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_operator_deferral_matches_tf(name):
    ours, theirs = _observed(tg, EXPRESSIONS[name]), _observed(ref, EXPRESSIONS[name])
    if theirs[0] == "error" and ours[0] == "error" and "other" in (ours[1], theirs[1]):
        return  # an op error class of one library (InvalidArgumentError is not a ValueError in TF)
    assert ours == theirs
