"""keras.backend: floatx really sets the weights' and fit's float type; epsilon and image format;
the math helpers against TF's values; tf.keras and the top-level keras aliases."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import errors, keras
from tapegrad.keras import backend as K


@pytest.fixture
def float64_default():
    K.set_floatx("float64")
    yield
    K.set_floatx("float32")


def test_tf_keras_backend_is_the_module():
    assert tf.keras.backend is K is keras.backend
    assert tf.keras.layers is keras.layers


@pytest.mark.parametrize("alias", ["optimizers", "losses", "metrics", "initializers"])
def test_top_level_aliases_are_keras_modules(alias):
    assert getattr(tf, alias) is getattr(keras, alias)
    assert tf.optimizers.Adam is keras.optimizers.Adam


def test_defaults():
    assert (K.floatx(), K.epsilon(), K.image_data_format(), K.backend()) == \
        ("float32", 1e-7, "channels_last", "tensorflow")


def test_set_floatx_makes_layers_weights_and_inputs_float64(float64_default):
    dense = keras.layers.Dense(2)
    out = dense(np.ones((1, 3), np.float32))
    assert dense.kernel.dtype == tf.float64 and dense.bias.dtype == tf.float64 and out.dtype == tf.float64
    assert keras.metrics.Mean().dtype == tf.float64
    assert K.variable(1.0).dtype == tf.float64 and K.constant(1.0).dtype == tf.float64


def test_set_floatx_fit_casts_targets(float64_default):
    seen = []

    def loss(y_true, y_pred):
        seen.append((y_true.dtype, y_pred.dtype))
        return tf.reduce_mean(tf.square(y_true - y_pred))

    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile("sgd", loss)
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 1), np.float32), verbose=0)
    assert model.weights[0].dtype == tf.float64
    assert set(seen) == {(tf.float64, tf.float64)}


def test_set_floatx_refuses_other_types():
    with pytest.raises(ValueError, match="floatx"):
        K.set_floatx("int32")
    with pytest.raises(errors.UnimplementedError, match="float16"):
        K.set_floatx("float16")
    assert K.floatx() == "float32"


def test_set_epsilon_and_image_data_format():
    K.set_epsilon(1e-5)
    try:
        assert K.epsilon() == 1e-5
    finally:
        K.set_epsilon(1e-7)
    with pytest.raises(ValueError, match="data_format"):
        K.set_image_data_format("foo")
    K.set_image_data_format("channels_first")
    try:
        assert K.image_data_format() == "channels_first"
    finally:
        K.set_image_data_format("channels_last")


def test_clear_session_restarts_layer_names():
    K.clear_session()
    assert keras.layers.Dense(1).name == "dense"
    assert keras.layers.Dense(1).name == "dense_1"
    K.clear_session()
    assert keras.layers.Dense(1).name == "dense"


M = tf.constant([[1.0, 2.0], [3.0, 4.0]])
# (call, expected value) with TF 2.21's tf.keras.backend results
VALUES = [
    (lambda: K.mean(M), 2.5), (lambda: K.mean(M, axis=0), [2.0, 3.0]), (lambda: K.sum([1.0, 2.0]), 3.0),
    (lambda: K.max(M, axis=1, keepdims=True), [[2.0], [4.0]]), (lambda: K.std(tf.constant([1.0, 2.0])), 0.5),
    (lambda: K.square(M), [[1.0, 4.0], [9.0, 16.0]]), (lambda: K.sqrt(tf.constant(4.0)), 2.0),
    (lambda: K.abs(-1.0), 1.0), (lambda: K.exp(0.0), 1.0), (lambda: K.log(1.0), 0.0),
    (lambda: K.clip(tf.constant([-1.0, 5.0]), 0.0, 1.0), [0.0, 1.0]),
    (lambda: K.dot(tf.ones((2, 3)), tf.ones((3, 2))), [[3.0, 3.0], [3.0, 3.0]]),
    (lambda: K.dot(tf.ones((2, 2, 3)), tf.ones((3, 1))), np.full((2, 2, 1), 3.0)),
    (lambda: K.concatenate([tf.ones((1, 2)), tf.zeros((1, 2))]), [[1.0, 1.0, 0.0, 0.0]]),
    (lambda: K.reshape(tf.ones(4), (2, 2)), np.ones((2, 2))), (lambda: K.shape(tf.zeros((2, 3))), [2, 3]),
    (lambda: K.cast([1, 2], "float32"), [1.0, 2.0]), (lambda: K.zeros((2,)), [0.0, 0.0]),
    (lambda: K.ones((2,)), [1.0, 1.0]), (lambda: K.argmax(M), [1, 1]),
    (lambda: K.binary_crossentropy(tf.constant([1.0, 0.0]), tf.constant([0.9, 0.1])), [0.10536041, 0.10536041]),
    (lambda: K.categorical_crossentropy(tf.constant([[1.0, 0.0]]), tf.constant([[0.9, 0.1]])), [0.10536055]),
    (lambda: K.sparse_categorical_crossentropy(tf.constant([0]), tf.constant([[0.9, 0.1]])), [0.10536055]),
    (lambda: K.relu(tf.constant([-1.0, 2.0, 9.0]), alpha=0.5, max_value=6.0), [-0.5, 2.0, 6.0]),
]


@pytest.mark.parametrize("call, expected", VALUES, ids=[str(i) for i in range(len(VALUES))])
def test_math_helpers_match_tf(call, expected):
    np.testing.assert_allclose(np.asarray(call()), expected, rtol=1e-6)


def test_values_and_shapes():
    v = K.variable([1.0, 2.0])
    assert isinstance(v, tf.Variable) and isinstance(K.zeros((2,)), tf.Variable)
    K.set_value(v, [3.0, 4.0])
    np.testing.assert_array_equal(K.get_value(v), [3.0, 4.0])
    assert type(K.get_value(tf.constant(2.0))) is np.float32
    assert [a.tolist() for a in K.batch_get_value([v])] == [[3.0, 4.0]]
    assert K.int_shape(tf.zeros((2, 3))) == (2, 3) and K.ndim(tf.zeros((2, 3))) == 2
    assert K.dtype(tf.zeros(2)) == "float32" and K.count_params(v) == 2


MORE = [
    (lambda: K.hard_sigmoid(tf.constant([-3.0, 0.0, 1.0, 3.0])), [0.0, 0.5, 0.7, 1.0]),
    (lambda: K.switch(tf.constant([True, False]), tf.constant([1.0, 1.0]), tf.constant([2.0, 2.0])), [1.0, 2.0]),
    (lambda: K.l2_normalize(tf.constant([3.0, 4.0])), [0.6, 0.8]),
    (lambda: K.repeat_elements(tf.constant([[1, 2]]), 2, 1), [[1, 1, 2, 2]]),
    (lambda: K.arange(1, 5, 2), [1, 3]), (lambda: K.softsign(tf.constant([1.0, -3.0])), [0.5, -0.75]),
    (lambda: K.reverse(tf.constant([[1, 2], [3, 4]]), 1), [[2, 1], [4, 3]]),
    (lambda: K.bias_add(tf.zeros((1, 2)), tf.constant([1.0, 2.0])), [[1.0, 2.0]]),
    (lambda: K.repeat(tf.constant([[1.0, 2.0]]), 3), [[[1.0, 2.0]] * 3]),
    (lambda: K.sparse_categorical_crossentropy(tf.constant([0, 2]), tf.constant([[0.9, 0.05, 0.05], [0.1, 0.1, 0.8]]),
                                               ignore_class=2), [0.10536056, 0.0]),
    (lambda: keras.utils.normalize([[3.0, 4.0], [0.0, 0.0]]), [[0.6, 0.8], [0.0, 0.0]]),
    (lambda: keras.utils.pad_sequences([[1, 2, 3], [4]], maxlen=2), [[2, 3], [0, 4]]),
    (lambda: keras.utils.pad_sequences([[1, 2, 3], [4]], padding="post", truncating="post", value=-1),
     [[1, 2, 3], [4, -1, -1]]),
    (lambda: keras.utils.pad_sequences([[1, 2, 3], []]), [[1, 2, 3], [0, 0, 0]]),
    (lambda: keras.utils.pad_sequences([[1, 2], [3, 4]], maxlen=3), [[0, 1, 2], [0, 3, 4]]),
]


@pytest.mark.parametrize("call, expected", MORE, ids=[str(i) for i in range(len(MORE))])
def test_more_helpers_match_tf(call, expected):
    np.testing.assert_allclose(np.asarray(call()), expected, rtol=1e-6)


def test_helper_details():
    assert K.get_uid("x") + 1 == K.get_uid("x")
    K.clear_session()
    assert K.get_uid("x") == 1
    assert K.standardize_dtype("float64") == "float64" and K.is_float_dtype("float64") and K.is_int_dtype("int32")
    assert keras.utils.pad_sequences([[1, 2]]).dtype == np.int32
    assert keras.utils.pad_sequences([[1.5, 2]], dtype="float32").tolist() == [[1.5, 2.0]]
    with pytest.raises(ValueError, match="Padding type"):
        keras.utils.pad_sequences([[1]], padding="x")
    assert [t.numpy() for t in K.stop_gradient([tf.constant(1.0)])] == [1.0]
