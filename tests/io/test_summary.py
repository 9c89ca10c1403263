"""tf.summary writes TensorBoard event files that TensorBoard's own reader reads back as TF's do
(plugin, data class, dtype and shape checked against files TF 2.21 wrote); without the tensorboard
extra, create_file_writer says what to install."""
import io
import sys

import numpy as np
import pytest

import tapegrad as tf


@pytest.fixture(autouse=True)
def no_default_writer():
    from tapegrad.summary import _writer
    saved = dict(vars(_writer._state))
    vars(_writer._state).update(writer=None, step=None, record=[True])
    yield
    vars(_writer._state).update(saved)


def _read(logdir):
    """{tag: [(step, array)]} through TensorBoard's event accumulator."""
    ea_mod = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    from tensorboard.util import tensor_util
    acc = ea_mod.EventAccumulator(str(logdir), size_guidance={ea_mod.TENSORS: 0})
    acc.Reload()
    return {tag: [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]
            for tag in acc.Tags()["tensors"]}


def _plugins(logdir):
    from tensorboard.backend.event_processing import event_file_loader
    out = {}
    for path in logdir.iterdir():
        for event in event_file_loader.EventFileLoader(str(path)).Load():
            for v in event.summary.value:
                out[v.tag] = (v.metadata.plugin_data.plugin_name, v.tensor.dtype)
    return out


def test_without_tensorboard_create_file_writer_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tensorboard.summary.writer.event_file_writer", None)
    with pytest.raises(ImportError, match=r'pip install "tapegrad\[tensorboard\]"'):
        tf.summary.create_file_writer(str(tmp_path))
    assert not any(tmp_path.iterdir())


def test_scalars_histogram_image_text_read_back(tmp_path):
    pytest.importorskip("tensorboard")
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert bool(tf.summary.scalar("loss", 0.5, step=1))
        assert bool(tf.summary.scalar("loss", tf.constant(0.25), step=tf.constant(2)))
        tf.summary.histogram("h", tf.constant([1.0, 2.0, 2.0, 3.0]), step=1)
        tf.summary.image("img", np.array([[[[0.0], [0.5]], [[1.0], [0.25]]]], np.float32), step=1)
        tf.summary.image("rgb", np.full((2, 2, 3, 3), 7, np.uint8), step=1, max_outputs=1)
        tf.summary.text("note", "hello", step=3)
    got = _read(tmp_path)
    assert [(s, float(v)) for s, v in got["loss"]] == [(1, 0.5), (2, 0.25)]
    hist = got["h"][0][1]
    assert hist.shape == (30, 3) and hist[:, 2].sum() == 4 and hist[0, 0] == 1.0 and hist[-1, 1] == 3.0
    assert list(np.nonzero(hist[:, 2])[0]) == [0, 15, 29]  # TF's buckets for these values
    from PIL import Image
    width, height, png = got["img"][0][1]
    assert (width, height) == (b"2", b"2")
    assert np.array(Image.open(io.BytesIO(png))).tolist() == [[0, 127], [255, 63]]  # TF's pixels
    assert len(got["rgb"][0][1]) == 3 and got["rgb"][0][1][:2].tolist() == [b"3", b"2"]
    assert got["note"] == [(3, np.array(b"hello", dtype=object))]
    assert _plugins(tmp_path) == {"loss": ("scalars", 1), "h": ("histograms", 2), "img": ("images", 7),
                                  "rgb": ("images", 7), "note": ("text", 7)}
    assert [p.name.endswith(".v2") for p in tmp_path.iterdir()] == [True]


def test_steps_default_and_as_default_step(tmp_path):
    pytest.importorskip("tensorboard")
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=5):
        assert tf.summary.experimental.get_step() == 5
        tf.summary.scalar("a", 1.0)
    assert tf.summary.experimental.get_step() is None
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.scalar("a", 1.0)
        step = tf.Variable(0, dtype=tf.int64)
        tf.summary.experimental.set_step(step)
        step.assign(7)
        tf.summary.scalar("a", 2.0)
    assert [s for s, _ in _read(tmp_path)["a"]] == [5, 7]


def test_record_if_and_no_writer(tmp_path):
    pytest.importorskip("tensorboard")
    assert not bool(tf.summary.scalar("x", 1.0, step=0))  # no default writer: nothing written
    assert not tf.summary.should_record_summaries()
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=1):
        assert tf.summary.should_record_summaries()
        with tf.summary.record_if(False):
            assert not bool(tf.summary.scalar("skipped", 1.0))
        with tf.summary.record_if(lambda: True):
            assert bool(tf.summary.scalar("kept", 1.0))
    assert set(_read(tmp_path)) == {"kept"}


def test_plain_as_default_and_set_as_default(tmp_path):
    pytest.importorskip("tensorboard")
    writer = tf.summary.create_file_writer(str(tmp_path))
    writer.as_default()  # a plain call makes it the default
    assert bool(tf.summary.scalar("plain", 1.0, step=0))
    other = tf.summary.create_noop_writer()
    other.set_as_default()
    assert not bool(tf.summary.scalar("noop", 1.0, step=0))
    tf.summary.flush(writer)
    assert set(_read(tmp_path)) == {"plain"}


def test_close_flushes_and_refuses_later_writes(tmp_path):
    pytest.importorskip("tensorboard")
    writer = tf.summary.create_file_writer(str(tmp_path), max_queue=100, flush_millis=10 ** 7)
    with writer.as_default(step=0):
        tf.summary.scalar("a", 1.0)
        writer.close()
        writer.close()  # twice is fine
        with pytest.raises(tf.errors.NotFoundError, match="closed"):
            tf.summary.scalar("b", 1.0)
    assert set(_read(tmp_path)) == {"a"}


@pytest.mark.parametrize("call, error, match", [
    (lambda: tf.summary.scalar("s", [1.0, 2.0]), ValueError, "Expected scalar shape"),
    (lambda: tf.summary.scalar("s", "x"), ValueError, "float scalar"),
    (lambda: tf.summary.image("i", np.zeros((2, 2))), ValueError, "rank 4"),
    (lambda: tf.summary.image("i", np.zeros((1, 2, 2, 2))), ValueError, "channels"),
    (lambda: tf.summary.histogram("h", ["a"]), ValueError, "bucket"),
    (lambda: tf.summary.histogram("h", [1.0], buckets=-1), ValueError, "buckets"),
    (lambda: tf.summary.text("t", 3.0), TypeError, "strings"),
])
def test_bad_data_raises_and_writes_nothing(tmp_path, call, error, match):
    pytest.importorskip("tensorboard")
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        with pytest.raises(error, match=match):
            call()
    assert _read(tmp_path) == {}


def _tags(run_dir):
    from tensorboard.backend.event_processing import event_file_loader
    return sorted({(v.tag, e.step) for path in run_dir.iterdir()
                   for e in event_file_loader.EventFileLoader(str(path)).Load() for v in e.summary.value})


def test_keras_tensorboard_callback_writes_keras_tags(tmp_path):
    pytest.importorskip("tensorboard")
    keras = tf.keras
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d1"), keras.layers.Dense(1, name="d2")],
                             name="net")
    model.compile("sgd", "mse", metrics=["mae"])
    callback = keras.callbacks.TensorBoard(str(tmp_path), histogram_freq=1, update_freq=2)
    model.fit(np.ones((8, 3)), np.ones((8, 1)), batch_size=2, epochs=2, verbose=0, callbacks=[callback],
              validation_data=(np.ones((4, 3)), np.ones((4, 1))))
    # the tags and steps Keras 3.15 writes for this fit (less its "keras" model-config text)
    train = [(f"batch_{m}", s) for m in ("loss", "mae") for s in (2, 4, 6, 8)] + \
        [(f"epoch_{m}", e) for m in ("learning_rate", "loss", "mae") for e in (0, 1)] + \
        [(f"net/{layer}/{w}/histogram", e) for layer in ("d1", "d2") for w in ("bias", "kernel") for e in (0, 1)]
    validation = [(f"epoch_{m}", e) for m in ("loss", "mae") for e in (0, 1)] + \
        [(f"evaluation_{m}_vs_iterations", s) for m in ("loss", "mae") for s in (4, 8)]
    assert _tags(tmp_path / "train") == sorted(train)
    assert _tags(tmp_path / "validation") == sorted(validation)
    loss = _read(tmp_path / "train")["epoch_loss"]
    assert [s for s, _ in loss] == [0, 1] and np.allclose([float(v) for _, v in loss], model.history.history["loss"])


def test_summaries_inside_a_function_write_at_every_call(tmp_path):
    pytest.importorskip("tensorboard")
    writer = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def train_step(x):
        y = x * 2.0
        with writer.as_default():
            tf.summary.scalar("y", y, step=step)
            tf.summary.histogram("h", tf.stack([x, y]), step=step)
            tf.summary.text("note", "hi", step=step)
        step.assign_add(1)
        return y

    for v in (1.0, 2.0, 3.0):
        train_step(tf.constant(v))
    writer.flush()
    got = _read(tmp_path)
    assert train_step.experimental_get_tracing_count() == 1
    assert [(s, float(v)) for s, v in got["y"]] == [(0, 2.0), (1, 4.0), (2, 6.0)]
    assert [s for s, _ in got["h"]] == [0, 1, 2] and [float(h[:, 1].max()) for _, h in got["h"]] == [2.0, 4.0, 6.0]
    assert [s for s, _ in got["note"]] == [0, 1, 2]


@pytest.mark.parametrize("data", [np.random.default_rng(0).normal(size=1000), [1.0, 2.0, 2.0, 3.0], [5.0, 5.0], [],
                                  np.arange(100) % 10, [1.0, np.nan, 3.0], [0.0, np.inf]],
                         ids=["normal", "small", "constant", "empty", "ints", "nan", "inf"])
@pytest.mark.parametrize("buckets", [30, 7, 1, 0])
def test_histogram_buckets_are_tensorboards(data, buckets):
    summary_v2 = pytest.importorskip("tensorboard.plugins.histogram.summary_v2")
    import warnings
    from tensorboard.util import tensor_util
    from tapegrad.summary._protos import _buckets
    data = np.asarray(data, dtype=np.float64)
    with warnings.catch_warnings():  # TensorBoard's own version warns on NaN and inf
        warnings.simplefilter("ignore")
        expected = tensor_util.make_ndarray(summary_v2.histogram_pb("h", data, buckets).value[0].tensor)
    np.testing.assert_array_equal(_buckets(data, buckets), expected)


def test_the_default_writer_step_and_record_if_are_per_thread(tmp_path):
    # One shared default made 4 threads with their own `with w.as_default()` lose events, write to each
    # other's files and hit "writer is closed"; TF keeps the default writer per thread.
    pytest.importorskip("tensorboard")
    import threading
    errors, per_thread = [], 50

    def work(k):
        try:
            w = tf.summary.create_file_writer(str(tmp_path / f"t{k}"))
            with w.as_default(step=0):
                for i in range(per_thread):
                    tf.summary.scalar("x", float(k), step=i)
            w.close()
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(4):
        events = _read(tmp_path / f"t{k}")["x"]
        assert len(events) == per_thread and all(float(v) == k for _, v in events)
    main = tf.summary.create_file_writer(str(tmp_path / "main"))
    main.set_as_default(step=3)
    seen = []
    t = threading.Thread(target=lambda: seen.append((tf.summary.should_record_summaries(),
                                                     tf.summary.experimental.get_step())))
    t.start()
    t.join()
    assert seen == [(False, None)] and tf.summary.should_record_summaries()
    main.close()


def test_a_writer_dropped_without_close_releases_its_file_and_thread(tmp_path):
    pytest.importorskip("tensorboard")
    import gc
    import os
    import threading
    before_threads = threading.active_count()
    before_fds = len(os.listdir("/proc/self/fd"))
    for k in range(30):
        w = tf.summary.create_file_writer(str(tmp_path / f"d{k}"))
        with w.as_default(step=k):
            tf.summary.scalar("x", 1.0)
        del w
    gc.collect()
    assert threading.active_count() <= before_threads + 1
    assert len(os.listdir("/proc/self/fd")) <= before_fds + 1
    assert all(_read(tmp_path / f"d{k}")["x"] == [(k, 1.0)] for k in range(30))  # flushed when closed


def test_histogram_buckets_past_int32_raise_tf_s_type_error(tmp_path):
    pytest.importorskip("tensorboard")
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=0):
        with pytest.raises(TypeError, match="must be of type tf.int32"):  # MemoryError before
            tf.summary.histogram("h", [1.0, 2.0], buckets=2**31)
