"""format(tensor, spec) / f-strings of eager tensors: NumPy's format of the value, as TensorFlow's.

Expected strings are TensorFlow 2.21's for the same expressions.
"""
import pytest

import tapegrad as tf


@pytest.mark.parametrize("make, spec, expected", [
    (lambda: tf.constant(-543.38574), "", "-543.3857421875"),
    (lambda: tf.constant(-543.38574), ".2f", "-543.39"),
    (lambda: tf.constant([1.0, 2.5]), "", "[1.  2.5]"),
    (lambda: tf.constant([[1, 2]]), "", "[[1 2]]"),
    (lambda: tf.constant(3), "03d", "003"),
    (lambda: tf.constant(True), "", "True"),
    (lambda: tf.constant(1.5, tf.float64), "", "1.5"),
    (lambda: tf.constant("ab"), "", "b'ab'"),
])
def test_format_of_an_eager_tensor(make, spec, expected):
    assert format(make(), spec) == expected


def test_format_spec_on_a_one_element_vector_is_a_type_error():
    with pytest.raises(TypeError):
        format(tf.constant([2.0]), ".2f")


def test_metric_result_in_str_format():
    m = tf.keras.metrics.Mean()
    m(tf.constant(2.5))
    assert "ELBO: {}".format(-m.result()) == "ELBO: -2.5"


def test_variable_formats_as_its_text():
    v = tf.Variable(2.0, name="v")
    assert f"{v}" == str(v)
    with pytest.raises(TypeError):
        format(v, ".2f")


def test_traced_tensor_formats_as_its_symbolic_text():
    texts = []

    @tf.function
    def f(x):
        texts.append(f"{x}")
        return x

    f(tf.constant(1.0))
    assert texts[0].startswith("Tensor(")
