"""Precision, Recall, AUC, MeanIoU and the top-k accuracies: NumPy formulas, and Keras 3's values on
a fixed sample (read from TF 2.21's tf.keras once and written here)."""
import numpy as np
import pytest

from tapegrad import keras

RNG = np.random.default_rng(0)
YT = RNG.integers(0, 2, size=(50, 1)).astype(np.float32)
YP = np.clip(YT * 0.3 + RNG.uniform(size=(50, 1)) * 0.7, 0, 1).astype(np.float32)
SW = RNG.uniform(size=(50,)).astype(np.float32)

# metric, Keras 3's result after update_state(YT, YP) then update_state(YT[:20], YP[:20], SW[:20])
KERAS_VALUES = [
    (lambda: keras.metrics.Precision(), 0.80147165),
    (lambda: keras.metrics.Recall(), 0.86275697),
    (lambda: keras.metrics.Precision(thresholds=[0.3, 0.7]), [0.6954712, 1.0]),
    (lambda: keras.metrics.AUC(), 0.8501226),
    (lambda: keras.metrics.AUC(curve="PR"), 0.88344383),
    (lambda: keras.metrics.AUC(summation_method="minoring"), 0.8483856),
    (lambda: keras.metrics.AUC(curve="PR", summation_method="majoring"), 0.8878186),
    (lambda: keras.metrics.AUC(num_thresholds=7), 0.8655783),
]


@pytest.mark.parametrize("make,expected", KERAS_VALUES, ids=[str(i) for i in range(len(KERAS_VALUES))])
def test_matches_keras(make, expected):
    m = make()
    m.update_state(YT, YP)
    m.update_state(YT[:20], YP[:20], sample_weight=SW[:20])
    np.testing.assert_allclose(np.asarray(m.result()), expected, rtol=1e-5)
    m.reset_state()
    assert np.all(np.asarray(m.result()) == 0)


def test_precision_and_recall_formulas():
    pred = YP[:, 0] > 0.5
    truth = YT[:, 0] == 1
    tp, fp, fn = (pred & truth).sum(), (pred & ~truth).sum(), (~pred & truth).sum()
    p, r = keras.metrics.Precision(), keras.metrics.Recall()
    p.update_state(YT, YP)
    r.update_state(YT, YP)
    np.testing.assert_allclose(float(p.result()), tp / (tp + fp), rtol=1e-6)
    np.testing.assert_allclose(float(r.result()), tp / (tp + fn), rtol=1e-6)
    empty = keras.metrics.Precision()
    empty.update_state([0.0, 0.0], [0.1, 0.2])
    assert float(empty.result()) == 0.0  # no positive prediction: 0, not NaN


def test_top_k_and_mean_iou():
    scores = np.array([[0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [0.9, 0.05, 0.05]], np.float32)
    labels = np.array([2, 0, 1])
    m = keras.metrics.SparseTopKCategoricalAccuracy(k=2)
    m.update_state(labels, scores)
    np.testing.assert_allclose(float(m.result()), 1.0)  # ties count as in the top k, as in Keras
    tie = keras.metrics.SparseTopKCategoricalAccuracy(k=1)
    tie.update_state([0, 1, 2], [[0.3, 0.3, 0.1]] * 3)
    np.testing.assert_allclose(float(tie.result()), 2 / 3)
    m = keras.metrics.TopKCategoricalAccuracy(k=1)
    m.update_state(np.eye(3)[labels], scores)
    np.testing.assert_allclose(float(m.result()), 0.0)
    iou = keras.metrics.MeanIoU(num_classes=4)
    iou.update_state([0, 1, 2, 2, 1], [0, 2, 2, 1, 1])
    np.testing.assert_allclose(float(iou.result()), (1 + 1 / 3 + 1 / 3) / 3, rtol=1e-6)


def test_metrics_by_name_in_a_traced_fit():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile("sgd", loss="binary_crossentropy", metrics=["precision", "recall", "auc"])
    x = RNG.normal(size=(16, 2)).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.float32)
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    prob = model.predict(x, verbose=0)
    auc = keras.metrics.AUC()
    auc.update_state(y, prob)
    np.testing.assert_allclose(logs["auc"], float(auc.result()), rtol=1e-5)
    assert set(logs) == {"loss", "precision", "recall", "auc"}


def test_bad_arguments():
    with pytest.raises(ValueError, match="thresholds must be in"):
        keras.metrics.Precision(thresholds=1.5)
    with pytest.raises(ValueError, match="invalid curve"):
        keras.metrics.AUC(curve="XY")
    with pytest.raises(ValueError, match="do not match"):
        keras.metrics.Recall().update_state(np.ones((3, 2)), np.ones((3, 4)))


def test_top_k_and_class_id_match_keras():
    rng = np.random.default_rng(3)
    y_true = (rng.uniform(size=(20, 5)) > 0.6).astype(np.float32)
    y_pred = rng.uniform(size=(20, 5)).astype(np.float32)
    # Keras 3's values for this sample (TF 2.21)
    for metric, expected in [(keras.metrics.Precision(top_k=2), 0.45), (keras.metrics.Recall(top_k=1), 0.20930232),
                             (keras.metrics.Precision(top_k=2, class_id=3), 0.6666667),
                             (keras.metrics.Recall(thresholds=[0.1, 0.9], top_k=3), [0.6511628, 0.06976745])]:
        metric.update_state(y_true, y_pred)
        np.testing.assert_allclose(np.asarray(metric.result()), expected, rtol=1e-6)
