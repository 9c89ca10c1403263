"""tf.image.non_max_suppression run by TensorFlow and by tapegrad on the same boxes: random boxes, ties,
thresholds, degenerate and flipped boxes, eagerly and in one tf.function trace for every input.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()


def _cases():
    rng = np.random.default_rng(7)
    for n in (0, 1, 5, 40):
        corners = rng.uniform(0, 10, size=(n, 2, 2)).astype(np.float32)
        boxes = np.concatenate([corners[:, 0], corners[:, 0] + rng.uniform(0, 4, size=(n, 2))], 1).astype(np.float32)
        yield boxes, rng.uniform(size=n).astype(np.float32)
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [1, 1, 0, 0], [0, 0, 0, 1], [5, 5, 6, 6], [5, 5, 6, 6]],
                     np.float32)  # a flipped copy, a box of no area, two equal boxes
    yield boxes, np.array([0.9, 0.9, 0.8, 0.95, 0.5, 0.5], np.float32)  # ties: the lower index first


SETTINGS = [dict(max_output_size=10), dict(max_output_size=3, iou_threshold=0.1),
            dict(max_output_size=20, iou_threshold=0.7, score_threshold=0.3), dict(max_output_size=0),
            dict(max_output_size=10, iou_threshold=1.0), dict(max_output_size=10, iou_threshold=0.0)]


@pytest.mark.parametrize("setting", range(len(SETTINGS)))
def test_same_selection_as_tf(setting):
    kw = SETTINGS[setting]
    for boxes, scores in _cases():
        want = ref.image.non_max_suppression(boxes, scores, **kw).numpy()
        got = tg.image.non_max_suppression(boxes, scores, **kw).numpy()
        assert got.dtype == want.dtype and got.tolist() == want.tolist(), (kw, boxes, scores)


def test_one_trace_serves_every_score():
    f = tg.function(lambda b, s: tg.image.non_max_suppression_with_scores(b, s, 4, 0.4))
    g = ref.function(lambda b, s: ref.image.non_max_suppression_with_scores(b, s, 4, 0.4))
    boxes = next(c for c in _cases() if len(c[0]) == 40)[0]
    for seed in range(3):
        scores = np.random.default_rng(seed).uniform(size=40).astype(np.float32) ** (seed + 1)
        for w, o in zip(g(boxes, scores), f(boxes, scores)):
            np.testing.assert_array_equal(o.numpy(), w.numpy())
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("call", [
    lambda tf: tf.image.non_max_suppression(np.zeros((3, 4), np.float32), np.zeros(2, np.float32), 2),
    lambda tf: tf.image.non_max_suppression(np.zeros((3, 3), np.float32), np.zeros(3, np.float32), 2),
    lambda tf: tf.image.non_max_suppression(np.zeros((3, 4), np.float32), np.zeros(3, np.float32), 2, 1.5),
])
def test_same_error_class(call):
    with pytest.raises(Exception) as want:
        call(ref)
    with pytest.raises(Exception) as got:
        call(tg)
    assert isinstance(got.value, (tg.errors.InvalidArgumentError, ValueError))
    assert isinstance(want.value, (ref.errors.InvalidArgumentError, ValueError))
