"""fit with EarlyStopping and ModelCheckpoint: the best epoch's weights are the ones kept and saved."""
import numpy as np

from tapegrad import keras


def small_model():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.set_weights([np.ones((3, 1), np.float32), np.zeros(1, np.float32)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    return model


def test_best_epoch_is_restored_and_saved(tmp_path):
    rng = np.random.RandomState(0)
    x, y = rng.randn(16, 3).astype(np.float32), rng.randn(16, 1).astype(np.float32)
    xv, yv = rng.randn(8, 3).astype(np.float32), rng.randn(8, 1).astype(np.float32)

    class Snapshots(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            self.weights = []

        def on_epoch_end(self, epoch, logs=None):
            self.weights.append(self.model.get_weights())

    path = str(tmp_path / "best.weights.h5")
    snaps = Snapshots()
    model = small_model()
    hist = model.fit(x, y, batch_size=8, epochs=6, validation_data=(xv, yv), shuffle=False, verbose=0,
                     callbacks=[snaps, keras.callbacks.EarlyStopping(patience=1, restore_best_weights=True),
                                keras.callbacks.ModelCheckpoint(path, save_weights_only=True, save_best_only=True)])
    val = hist.history["val_loss"]
    best = int(np.argmin(val))
    # Keras stops once an epoch fails to improve (patience 1), and restores the best epoch even when
    # training ran to the end
    assert len(val) == 6 or val[-1] >= val[best]
    for mine, kept in zip(model.get_weights(), snaps.weights[best]):
        np.testing.assert_array_equal(mine, kept)
    fresh = small_model()
    fresh.load_weights(path)
    for mine, saved in zip(fresh.get_weights(), snaps.weights[best]):
        np.testing.assert_array_equal(mine, saved)


def test_early_stopping_patience_one_stops_after_one_bad_epoch():
    values = iter([0.5, 0.6, 0.4, 0.3])

    class Fake:
        stop_training = False

        def get_weights(self):
            return []

    cb = keras.callbacks.EarlyStopping(patience=1)
    cb.set_model(Fake())
    cb.on_train_begin()
    for epoch in range(4):
        cb.on_epoch_end(epoch, {"val_loss": next(values)})
        if cb.model.stop_training:
            break
    assert epoch == 1 and cb.stopped_epoch == 1  # TF's Keras stops at the first epoch without improvement


def test_batch_hooks_reach_on_batch_end_and_lambda_callbacks():
    seen = []

    class OldStyle(keras.callbacks.Callback):
        def on_batch_end(self, batch, logs=None):  # Keras calls it for every training batch
            seen.append(("old", batch))

        def on_test_begin(self, logs=None):
            super().on_test_begin(logs)  # every Keras hook exists on the base class

    lam = keras.callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: seen.append(("lambda", batch)),
                                         on_batch_begin=lambda batch, logs: seen.append(("begin", batch)))
    OldStyle().on_test_begin()
    model = small_model()
    x = np.ones((4, 3), np.float32)
    model.fit(x, np.ones((4, 1), np.float32), batch_size=2, epochs=1, verbose=0, callbacks=[OldStyle(), lam])
    assert seen == [("begin", 0), ("old", 0), ("lambda", 0), ("begin", 1), ("old", 1), ("lambda", 1)]
    for hook in ("on_test_end", "on_test_batch_begin", "on_test_batch_end", "on_predict_begin", "on_predict_end",
                 "on_predict_batch_begin", "on_predict_batch_end"):
        assert callable(getattr(keras.callbacks.Callback(), hook))
