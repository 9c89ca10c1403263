"""Model.fit / evaluate / predict over tf.data datasets, as Keras runs them."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

D = tf.data.Dataset


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    return x, y


def _model(seed=1):
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.05), "mse")
    model(np.zeros((1, 3), np.float32))
    return model


def test_fit_on_a_dataset_trains_as_fit_on_the_same_batches():
    x, y = _data()
    a, b = _model(), _model()
    ha = a.fit(D.from_tensor_slices((x, y)).batch(16), epochs=3, verbose=0)
    hb = b.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(ha.history["loss"], hb.history["loss"], rtol=1e-5)
    for wa, wb in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_allclose(wa, wb, rtol=1e-5)
    assert ha.history["loss"][-1] < ha.history["loss"][0]


def test_fit_with_validation_dataset_and_steps():
    x, y = _data()
    ds = D.from_tensor_slices((x, y)).batch(16)
    model = _model()
    h = model.fit(ds.repeat(), epochs=2, steps_per_epoch=3, validation_data=ds, validation_steps=2, verbose=0)
    assert set(h.history) == {"loss", "val_loss"} and len(h.history["loss"]) == 2
    assert h.params["steps"] == 3


def test_steps_per_epoch_running_out_warns_and_goes_on():
    x, y = _data()
    model = _model()
    with pytest.warns(UserWarning, match="ran out of data"):
        h = model.fit(D.from_tensor_slices((x, y)).batch(16), epochs=3, steps_per_epoch=3, verbose=0)
    assert len(h.history["loss"]) == 3


def test_fit_with_sample_weights_in_the_elements():
    x, y = _data()
    sw = np.ones(64, np.float32)
    a, b = _model(), _model()
    ha = a.fit(D.from_tensor_slices((x, y, sw)).batch(16), verbose=0)
    hb = b.fit(D.from_tensor_slices((x, y)).batch(16), verbose=0)
    np.testing.assert_allclose(ha.history["loss"], hb.history["loss"], rtol=1e-5)


def test_class_weight_with_a_dataset_weighs_as_with_arrays():
    x, _ = _data()
    y = (x[:, :1] > 0).astype(np.float32)
    weights = {0: 1.0, 1: 3.0}
    a, b = _model(), _model()
    ha = a.fit(D.from_tensor_slices((x, y)).batch(16), class_weight=weights, verbose=0)
    hb = b.fit(x, y, batch_size=16, shuffle=False, class_weight=weights, verbose=0)
    np.testing.assert_allclose(ha.history["loss"], hb.history["loss"], rtol=1e-5)


def test_evaluate_and_predict_on_datasets():
    x, y = _data()
    model = _model()
    ds = D.from_tensor_slices((x, y)).batch(10)
    assert model.evaluate(ds, verbose=0) == pytest.approx(model.evaluate(x, y, batch_size=10, verbose=0), rel=1e-5)
    np.testing.assert_allclose(model.predict(ds, verbose=0), model.predict(x, verbose=0), rtol=1e-5)
    assert model.predict(D.from_tensor_slices(x).batch(10), verbose=0).shape == (64, 1)
    assert model.predict(ds.repeat(), steps=2, verbose=0).shape == (20, 1)
    assert isinstance(model.evaluate(ds.repeat(), steps=2, verbose=0), float)


def test_unknown_length_dataset():
    x, y = _data()
    model = _model()
    ds = D.from_tensor_slices((x, y)).filter(lambda a, b: b[0] > -100.0).batch(16)
    assert len(model.fit(ds, epochs=2, verbose=0).history["loss"]) == 2


@pytest.mark.parametrize("kwargs", [dict(batch_size=8), dict(y=np.zeros((64, 1))), dict(validation_split=0.2)])
def test_fit_refuses_array_arguments_with_a_dataset(kwargs):
    x, y = _data()
    with pytest.raises(ValueError):
        _model().fit(D.from_tensor_slices((x, y)).batch(16), verbose=0, **kwargs)


def test_an_infinite_dataset_needs_steps():
    x, y = _data()
    with pytest.raises(ValueError, match="infinite"):
        _model().fit(D.from_tensor_slices((x, y)).batch(16).repeat(), verbose=0)


def test_timeseries_dataset_from_array_as_keras():
    # values from Keras 3.15 for the same call
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    ds = keras.utils.timeseries_dataset_from_array(data, np.arange(100, 110), sequence_length=3, sequence_stride=2,
                                                   sampling_rate=2, batch_size=2, start_index=1)
    batches = [(x.numpy().tolist(), y.numpy().tolist()) for x, y in ds]
    assert batches == [([[[2.0, 3.0], [6.0, 7.0], [10.0, 11.0]], [[6.0, 7.0], [10.0, 11.0], [14.0, 15.0]]], [101, 103]),
                       ([[[10.0, 11.0], [14.0, 15.0], [18.0, 19.0]]], [105])]
    single = keras.utils.timeseries_dataset_from_array(data, None, sequence_length=4, batch_size=None)
    assert single.element_spec.shape.as_list() == [4, 2] and len(list(single)) == 7
    shuffled = keras.utils.timeseries_dataset_from_array(data, np.arange(10), sequence_length=4, batch_size=3,
                                                         shuffle=True, seed=1)
    targets = [t for _, y in shuffled for t in y.numpy().tolist()]
    assert sorted(targets) == list(range(7)) and targets != list(range(7))
    for kwargs in [dict(sampling_rate=0), dict(sequence_stride=0), dict(start_index=20)]:
        with pytest.raises(ValueError):
            keras.utils.timeseries_dataset_from_array(data, None, 3, **kwargs)


def test_fit_on_timeseries_windows():
    series = np.sin(np.arange(300) * 0.1).astype(np.float32)
    ds = keras.utils.timeseries_dataset_from_array(series[:-5], series[5:], sequence_length=5, batch_size=32)
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile("adam", "mse")
    assert len(model.fit(ds, epochs=2, verbose=0).history["loss"]) == 2
