"""Tensors and Variables as Python objects: repr/str/print as TF shows them, copy, deepcopy, pickle,
NumPy scalars from .numpy(), NumPy conversion; fit casts float targets to the model's float type."""
import copy
import pickle

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

# (value, repr, str) as TensorFlow 2.21 prints them
PRINTED = [
    (lambda: tf.constant([1.0, 2.0]), "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>",
     "tf.Tensor([1. 2.], shape=(2,), dtype=float32)"),
    (lambda: tf.constant(1e-8), "<tf.Tensor: shape=(), dtype=float32, numpy=9.99999993922529e-09>",
     "tf.Tensor(1e-08, shape=(), dtype=float32)"),
    (lambda: tf.constant(1 / 3), "<tf.Tensor: shape=(), dtype=float32, numpy=0.3333333432674408>",
     "tf.Tensor(0.33333334, shape=(), dtype=float32)"),
    (lambda: tf.constant(0.1, tf.float64), "<tf.Tensor: shape=(), dtype=float64, numpy=0.1>",
     "tf.Tensor(0.1, shape=(), dtype=float64)"),
    (lambda: tf.constant(False), "<tf.Tensor: shape=(), dtype=bool, numpy=False>",
     "tf.Tensor(False, shape=(), dtype=bool)"),
    (lambda: tf.constant(np.nan), "<tf.Tensor: shape=(), dtype=float32, numpy=nan>",
     "tf.Tensor(nan, shape=(), dtype=float32)"),
    (lambda: tf.constant(-0.0), "<tf.Tensor: shape=(), dtype=float32, numpy=-0.0>",
     "tf.Tensor(-0.0, shape=(), dtype=float32)"),
    (lambda: tf.constant([1, 2], tf.int64), "<tf.Tensor: shape=(2,), dtype=int64, numpy=array([1, 2])>",
     "tf.Tensor([1 2], shape=(2,), dtype=int64)"),
    (lambda: tf.zeros((0, 3)), "<tf.Tensor: shape=(0, 3), dtype=float32, numpy=array([], shape=(0, 3), dtype=float32)>",
     "tf.Tensor([], shape=(0, 3), dtype=float32)"),
    (lambda: tf.zeros((2, 2), tf.float64),
     "<tf.Tensor: shape=(2, 2), dtype=float64, numpy=\narray([[0., 0.],\n       [0., 0.]])>",
     "tf.Tensor(\n[[0. 0.]\n [0. 0.]], shape=(2, 2), dtype=float64)"),
    (lambda: tf.Variable(1.0, name="v"), "<tf.Variable 'v:0' shape=() dtype=float32, numpy=1.0>",
     "<tf.Variable 'v:0' shape=() dtype=float32, numpy=1.0>"),
    (lambda: tf.Variable([1.0, 2.0], name="w"),
     "<tf.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>",
     "<tf.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"),
]


@pytest.mark.parametrize("make, expected_repr, expected_str", PRINTED, ids=[r[2] for r in PRINTED])
def test_repr_and_str_as_tf(make, expected_repr, expected_str):
    t = make()
    assert repr(t) == expected_repr
    assert str(t) == expected_str


def test_print_shows_str(capsys):
    print(tf.constant([1.0, 2.0]), tf.float32)
    assert capsys.readouterr().out == "tf.Tensor([1. 2.], shape=(2,), dtype=float32) <dtype: 'float32'>\n"


def test_dtype_str_and_repr():
    assert str(tf.float64) == "<dtype: 'float64'>"
    assert repr(tf.float64) == "tf.float64"


@pytest.mark.parametrize("value, np_type", [(2.0, np.float32), (np.array(2.0), np.float64), (3, np.int32),
                                            (np.array(3, np.int64), np.int64), (True, np.bool_)])
def test_scalar_numpy_is_a_numpy_scalar(value, np_type):
    dtype = tf.as_dtype(np_type)
    out = tf.constant(value, dtype=dtype).numpy()
    assert type(out) is np_type and not isinstance(out, np.ndarray)
    assert type(tf.Variable(value, dtype=dtype).numpy()) is np_type


def test_non_scalar_numpy_is_an_array():
    assert isinstance(tf.constant([1.0]).numpy(), np.ndarray)
    assert isinstance(np.asarray(tf.constant(1.0)), np.ndarray)


@pytest.mark.parametrize("value", [[1.0, 2.0], [[1, 2]], 3.5, [True, False], np.arange(6.0).reshape(2, 3)])
def test_pickle_round_trips_value_dtype_and_shape(value):
    t = tf.constant(value)
    back = pickle.loads(pickle.dumps(t))
    assert isinstance(back, tf.Tensor) and back.dtype == t.dtype and back.shape == t.shape
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_copy_of_a_tensor_is_the_tensor():
    t = tf.constant([1.0, 2.0])
    assert copy.copy(t) is t
    assert copy.deepcopy(t) is t
    nested = copy.deepcopy({"a": [t]})
    assert nested["a"][0] is t


def test_pickle_variable_keeps_value_dtype_name_trainable():
    v = tf.Variable([1.0, 2.0], name="w", trainable=False, dtype=tf.float64)
    back = pickle.loads(pickle.dumps(v))
    assert isinstance(back, tf.Variable) and back is not v
    assert (back.name, back.trainable, back.dtype) == ("w:0", False, tf.float64)
    np.testing.assert_array_equal(back.numpy(), [1.0, 2.0])


def test_deepcopy_variable_is_independent_copy_is_same():
    v = tf.Variable(1.0, name="v")
    assert copy.copy(v) is v  # as TF
    w = copy.deepcopy(v)
    assert w is not v and w.name == "v:0" and w.trainable
    w.assign(5.0)
    assert float(v) == 1.0 and float(w) == 5.0


def test_pickle_inside_function_refuses_the_traced_tensor():
    @tf.function
    def f(x):
        pickle.dumps(x * 2.0)
        return x

    with pytest.raises(Exception, match="pickle"):
        f(tf.constant(1.0))


def test_numpy_conversion_for_plotting():
    x = tf.linspace(0.0, 1.0, 5)
    y = tf.square(x)
    np.testing.assert_allclose(np.asarray(y), np.linspace(0, 1, 5) ** 2, rtol=1e-6)
    assert np.array(x, dtype=np.float64).dtype == np.float64
    assert np.asarray(x).shape == (5,)


def _recording_loss(seen):
    def loss(y_true, y_pred):
        seen.append((y_true.dtype, y_pred.dtype))
        return tf.reduce_mean(tf.square(y_true - y_pred))
    return loss


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_casts_float64_targets_to_the_model_dtype(run_eagerly):
    seen = []
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile("sgd", _recording_loss(seen), run_eagerly=run_eagerly)
    x, y = np.ones((4, 3)), np.ones((4, 1))  # float64 NumPy, as the book's data
    model.fit(x, y, verbose=0)
    model.evaluate(x, y, verbose=0)
    model.train_on_batch(x, tf.constant(y))
    assert set(seen) == {(tf.float32, tf.float32)}


def test_fit_gives_a_function_loss_integer_labels_as_floats():
    seen = []

    def loss(y_true, y_pred):  # as Keras's loss wrapper: y_true in the predictions' float type
        seen.append(y_true.dtype)
        return keras.losses.sparse_categorical_crossentropy(y_true, y_pred)

    model = keras.Sequential([keras.layers.Dense(3, activation="softmax")])
    model.compile("sgd", loss, metrics=["sparse_categorical_accuracy"])
    history = model.fit(np.ones((4, 2)), np.array([0, 1, 2, 1]), verbose=0)
    assert set(seen) == {tf.float32}
    assert np.isfinite(history.history["loss"][0]) and 0 <= history.history["sparse_categorical_accuracy"][0] <= 1


def test_matplotlib_plots_tensors(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = tf.linspace(-3.0, 3.0, 20)
    fig, ax = plt.subplots()
    (line,) = ax.plot(x, tf.nn.sigmoid(x))
    ax.hist(tf.random.normal([50], seed=1))
    ax.set_title(f"{tf.constant(0.5):.3f}")
    fig.savefig(tmp_path / "plot.png")
    plt.close(fig)
    np.testing.assert_allclose(line.get_ydata(), 1 / (1 + np.exp(-np.linspace(-3, 3, 20))), rtol=1e-6)
