"""tf.nest: nested structures flatten and pack by TF's rules, in Python and in C++ alike."""
import collections

import pytest

import tapegrad as tf
from tapegrad import _core

Point = collections.namedtuple("Point", "x y")

STRUCTURES = [
    1.0,
    None,
    [],
    (),
    {},
    [1, 2, (3, 4)],
    {"b": 1, "a": [2, 3]},
    {"z": {"y": 1, "x": 2}, "a": (3,)},
    Point(x=[1, 2], y={"k": 3}),
    [Point(1, 2), (Point(3, 4),), {"q": [5, {"p": 6}]}],
    collections.OrderedDict([("b", 1), ("a", 2)]),
    "a string is a leaf",
]


@pytest.mark.parametrize("s", STRUCTURES, ids=range(len(STRUCTURES)))
def test_python_and_cpp_flatten_alike(s):
    assert _core._nest_flatten(s) == tf.nest.flatten(s)


@pytest.mark.parametrize("s", STRUCTURES, ids=range(len(STRUCTURES)))
def test_python_and_cpp_pack_alike(s):
    flat = [f"leaf{i}" for i in range(len(tf.nest.flatten(s)))]
    py_packed = tf.nest.pack_sequence_as(s, flat)
    cpp_packed = _core._nest_pack(s, flat)
    assert py_packed == cpp_packed
    assert type(py_packed) is type(cpp_packed)
    assert tf.nest.flatten(py_packed) == flat


def test_dicts_flatten_in_sorted_key_order_and_keep_their_own_order():
    d = {"b": 1, "a": 2}
    assert tf.nest.flatten(d) == [2, 1]
    packed = tf.nest.pack_sequence_as(d, [20, 10])
    assert packed == {"b": 10, "a": 20} and list(packed) == ["b", "a"]


def test_namedtuple_kept():
    p = tf.nest.map_structure(lambda v: v * 10, Point(1, [2, 3]))
    assert isinstance(p, Point) and p == Point(10, [20, 30])


def test_map_structure_over_several():
    assert tf.nest.map_structure(lambda a, b: a + b, {"x": [1, 2]}, {"x": [10, 20]}) == {"x": [11, 22]}


def test_structure_mismatch_raises():
    with pytest.raises(ValueError):
        tf.nest.assert_same_structure([1, 2], [1, 2, 3])
    with pytest.raises(ValueError):
        tf.nest.assert_same_structure({"a": 1}, {"b": 1})
    with pytest.raises(TypeError):
        tf.nest.assert_same_structure([1], (1,))
    tf.nest.assert_same_structure([1], (1,), check_types=False)
    with pytest.raises(ValueError):
        tf.nest.pack_sequence_as([1, 2], [1])
    with pytest.raises(ValueError):
        tf.nest.pack_sequence_as([1, 2], [1, 2, 3])
    with pytest.raises(ValueError):
        _core._nest_pack([1, 2], [1, 2, 3])


def test_custom_gradient_outputs_keep_their_structure():
    @tf.custom_gradient
    def f(x):
        def grad(dp, dq):
            return dp + 2.0 * dq
        return Point(x * 1.0, x * 2.0), grad

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        p = f(x)
        total = p.x + p.y
    assert isinstance(p, Point)
    assert float(tape.gradient(total, x)) == 3.0
