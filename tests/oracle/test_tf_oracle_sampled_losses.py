"""tf.nn.nce_loss, sampled_softmax_loss, compute_accidental_hits and the candidate samplers against TF 2.21:
with the same sampled classes (sampled_values given) the losses and their gradients are TF's; the
samplers' expected counts follow TF's formulas for the classes they drew.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

RNG = np.random.default_rng(7)
W = RNG.normal(size=(10, 4))
B = RNG.normal(size=10)
X = RNG.normal(size=(3, 4))
LABELS = np.array([[1, 3], [0, 2], [5, 9]])
SAMPLED = np.array([3, 7, 0, 4, 8])  # holds true classes of rows 0 and 1 (accidental hits)


def _run(lib, loss, num_true, remove, dtype):
    w, b, x = (lib.Variable(a.astype(dtype)) for a in (W, B, X))
    labels = lib.constant(LABELS[:, :num_true], lib.int64)
    # (TF subtracts log Q without a cast: float64 logits need float64 counts there; tapegrad casts)
    expected_true = lib.constant(np.linspace(0.2, 0.9, 3 * num_true).reshape(3, num_true).astype(dtype))
    expected_sampled = lib.constant(np.linspace(0.1, 0.6, 5).astype(dtype))
    values = (lib.constant(SAMPLED, lib.int64), expected_true, expected_sampled)
    with lib.GradientTape() as tape:
        y = getattr(lib.nn, loss)(w, b, labels, x, num_sampled=5, num_classes=10, num_true=num_true,
                                  sampled_values=values, remove_accidental_hits=remove)
        total = lib.reduce_sum(y * lib.constant([1.0, 2.0, 3.0], y.dtype))
    return [y] + tape.gradient(total, [w, b, x])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("remove", [False, True])
@pytest.mark.parametrize("num_true", [1, 2])
@pytest.mark.parametrize("loss", ["nce_loss", "sampled_softmax_loss"])
def test_losses_and_gradients_match_tf(loss, num_true, remove, dtype):
    got, want = _run(tg, loss, num_true, remove, dtype), _run(ref, loss, num_true, remove, dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for g, w in zip(got, want):
        assert isinstance(g, tg.IndexedSlices) == isinstance(w, ref.IndexedSlices)  # a gather's gradient, as TF's
        g, w = tg.convert_to_tensor(g), ref.convert_to_tensor(w)
        assert g.dtype.name == w.dtype.name and tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=tol, atol=tol)


def test_compute_accidental_hits_matches_tf():
    for got, want in zip(tg.nn.compute_accidental_hits(tg.constant(LABELS, tg.int64), tg.constant(SAMPLED, tg.int64), 2),
                         ref.nn.compute_accidental_hits(ref.constant(LABELS, ref.int64), ref.constant(SAMPLED, ref.int64), 2)):
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("unique", [True, False])
@pytest.mark.parametrize("kind", ["log_uniform", "uniform"])
def test_sampler_expected_counts_follow_tf(kind, unique):
    # Draws differ (TF's and NumPy's streams); TF's own expected counts for its own draws follow the
    # same formulas as ours for ours: checked on both, with the number of tries recovered from one count.
    def formula(classes, tries):
        p = (np.log(classes + 2.0) - np.log(classes + 1.0)) / np.log(11.0) if kind == "log_uniform" else \
            np.full(np.shape(classes), 0.1)
        return -np.expm1(tries * np.log1p(-p)) if unique else p * 4

    for lib in (tg, ref):
        fn = getattr(lib.random, f"{kind}_candidate_sampler")
        s, te, se = fn(lib.constant(LABELS, lib.int64), 2, 4, unique, 10, seed=1)
        s = s.numpy()
        assert s.dtype == np.int64 and s.shape == (4,) and ((0 <= s) & (s < 10)).all()
        if unique:
            assert len(set(s.tolist())) == 4
            p = (np.log(s[0] + 2.0) - np.log(s[0] + 1.0)) / np.log(11.0) if kind == "log_uniform" else 0.1
            tries = np.log1p(-se.numpy()[0]) / np.log1p(-p)
        else:
            tries = None
        np.testing.assert_allclose(se.numpy(), formula(s, tries), rtol=1e-5)
        np.testing.assert_allclose(te.numpy(), formula(LABELS, tries), rtol=1e-5)
