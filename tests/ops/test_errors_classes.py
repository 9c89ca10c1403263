"""tf.errors: TF's classes, codes and attributes, one set raised by both the engine and Python code; and the
refusals of functions that have no op row (the rows' bad calls are in tests/ops/test_op_errors.py)."""
import pickle

import pytest

import tapegrad as tf
from tapegrad import _core, errors

CLASSES = {
    "CancelledError": 1, "UnknownError": 2, "InvalidArgumentError": 3, "DeadlineExceededError": 4,
    "NotFoundError": 5, "AlreadyExistsError": 6, "PermissionDeniedError": 7, "ResourceExhaustedError": 8,
    "FailedPreconditionError": 9, "AbortedError": 10, "OutOfRangeError": 11, "UnimplementedError": 12,
    "InternalError": 13, "UnavailableError": 14, "DataLossError": 15, "UnauthenticatedError": 16,
}


@pytest.mark.parametrize("name,code", sorted(CLASSES.items()))
def test_each_class_has_tf_code_and_attributes(name, code):
    cls = getattr(tf.errors, name)
    assert issubclass(cls, tf.errors.OpError)
    e = cls(None, None, "it failed")
    assert (e.message, e.op, e.node_def, e.error_code, str(e)) == ("it failed", None, None, code, "it failed")
    assert cls("short form").message == "short form"


def test_error_code_constants_as_tf():
    assert (errors.OK, errors.INVALID_ARGUMENT, errors.RESOURCE_EXHAUSTED, errors.UNAUTHENTICATED) == (0, 3, 8, 16)
    assert errors.OpError(None, None, "m", errors.DATA_LOSS).error_code == 15


def test_invalid_argument_is_also_a_value_error_and_pickles():
    assert issubclass(tf.errors.InvalidArgumentError, ValueError)
    e = pickle.loads(pickle.dumps(tf.errors.InvalidArgumentError(None, None, "bad")))
    assert type(e) is tf.errors.InvalidArgumentError and e.message == "bad"


def test_engine_raises_the_same_classes():
    assert _core.InvalidArgumentError is tf.errors.InvalidArgumentError
    assert _core.TapeError is tf.errors.TapeError
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))
    assert type(info.value) is tf.errors.InvalidArgumentError and info.value.error_code == 3


def test_eye_too_large_is_resource_exhausted():
    # tf.eye has no op row; tf.zeros, tf.ones, tf.fill and tf.range are the Fill and Range rows' bad calls
    oom = r"(Fill|Range|MatrixDiagV3): OOM when allocating tensor with "
    with pytest.raises(tf.errors.ResourceExhaustedError, match=oom + r"shape\[10000000,10000000\]"):
        tf.eye(10 ** 7)


def test_range_beyond_int32_is_int64():
    assert tf.range(2 ** 40, 2 ** 40 + 2).dtype == tf.int64


def test_creation_arguments_refused_with_tf_classes():
    with pytest.raises(TypeError, match=r"eye: num_rows must be an int"):
        tf.eye(2.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"LinSpace: axis 3 is out of range"):
        tf.linspace(0.0, 1.0, 3, axis=3)


def test_unsupported_forms_are_unimplemented():
    with pytest.raises(tf.errors.UnimplementedError, match=r"diag_part: "):
        tf.linalg.diag_part(tf.ones([2, 2]), k=1)


def test_where_of_a_condition_alone_gives_the_indices_of_true_entries():
    got = tf.where(tf.constant([[True, False], [False, True]]))
    assert got.dtype == tf.int64 and got.numpy().tolist() == [[0, 0], [1, 1]]
    assert tf.where(tf.constant([0.0, 2.0, -1.0])).numpy().tolist() == [[1], [2]]  # non-zero is true, as TF
    assert tf.where(tf.zeros([2, 3], tf.bool)).shape == (0, 2)


def test_add_n_does_not_broadcast():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"AddN: .*float32\(2, 3\) and float32\(3,\)"):
        tf.add_n([tf.ones([2, 3]), tf.ones([3])])


def test_constant_shape_refused_naming_const():
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"^Const: OOM when allocating tensor with shape\[1099511627776,1024\]"):
        tf.constant(1.0, shape=[2 ** 40, 2 ** 10])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Const: dimension -1"):
        tf.constant(1.0, shape=[-1])
    with pytest.raises(TypeError, match=r"^Const: shape must be a list of ints, got float inf"):
        tf.constant(1.0, shape=[float("inf")])
    assert tf.constant(1.0, shape=3).shape == (3,)
