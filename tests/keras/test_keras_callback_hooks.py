"""The callback hooks fit (with validation), evaluate and predict call, in order, with their arguments and
log keys: the sequences below are the ones TF 2.21's Keras 3 gives for the same calls (recorded by
running them there). ``verbose`` changes only the params the callbacks see."""
import numpy as np
import pytest

from tapegrad import keras

HOOKS = ["on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end", "on_batch_begin", "on_batch_end",
         "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end", "on_test_batch_begin",
         "on_test_batch_end", "on_predict_begin", "on_predict_end", "on_predict_batch_begin",
         "on_predict_batch_end"]


def _describe(logs):
    if logs is None:
        return "None"
    return ",".join(f"outputs{np.asarray(v).shape}" if k == "outputs" else k for k, v in logs.items())


class Recorder(keras.callbacks.Callback):
    """Writes one line per call: the hook, its batch or epoch, and the keys of its logs in order."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def set_model(self, model):
        self.calls.append("set_model")
        super().set_model(model)

    def set_params(self, params):
        self.calls.append("set_params " + " ".join(f"{k}={v}" for k, v in sorted(params.items())))
        super().set_params(params)


def _hook(name):
    indexed = "batch" in name or "epoch" in name

    def hook(self, *args, logs=None):
        args = list(args)
        if len(args) > int(indexed):
            logs = args.pop()
        self.calls.append(" ".join([name] + [str(a) for a in args] + [_describe(logs)]))
    return hook


for _name in HOOKS:
    setattr(Recorder, _name, _hook(_name))


def make_model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    return model


X = np.arange(30, dtype=np.float32).reshape(10, 3) / 30
Y = np.ones((10, 2), np.float32)



def batch_calls(stage, batches):
    """The begin/end pair of each batch of a training or test pass, as TF calls them."""
    return [line for i in range(batches)
            for line in (f"on_{stage}_batch_begin {i} ", f"on_{stage}_batch_end {i} loss,mae")]


TF_TRAINING_EPOCH = batch_calls("train", 3)
TF_VALIDATION_PASS = ["on_test_begin ", *batch_calls("test", 2), "on_test_end loss,mae"]


@pytest.mark.parametrize("verbose", [0, 1])
def test_fit_with_validation_calls_the_test_hooks_before_on_epoch_end(verbose):
    rec = Recorder()
    make_model().fit(X, Y, batch_size=4, epochs=2, validation_data=(X[:5], Y[:5]), validation_batch_size=3,
                     callbacks=[rec], verbose=verbose)
    assert rec.calls == [
        "set_model",
        f"set_params epochs=2 steps=3 verbose={verbose}",
        "on_train_begin ",
        "on_epoch_begin 0 ",
        *TF_TRAINING_EPOCH,
        *TF_VALIDATION_PASS,
        "on_epoch_end 0 loss,mae,val_loss,val_mae",
        "on_epoch_begin 1 ",
        *TF_TRAINING_EPOCH,
        *TF_VALIDATION_PASS,
        "on_epoch_end 1 loss,mae,val_loss,val_mae",
        "on_train_end loss,mae,val_loss,val_mae",
    ]


@pytest.mark.parametrize("verbose", [0, 1])
def test_evaluate_calls_set_model_and_the_test_hooks(verbose):
    rec = Recorder()
    make_model().evaluate(X, Y, batch_size=4, callbacks=[rec], verbose=verbose)
    assert rec.calls == [
        "set_model",
        f"set_params epochs=1 steps=3 verbose={verbose}",
        "on_test_begin ",
        *batch_calls("test", 3),
        "on_test_end loss,mae",
    ]


@pytest.mark.parametrize("verbose", [0, 1])
def test_predict_calls_the_predict_hooks_with_each_batch_outputs(verbose):
    rec = Recorder()
    make_model().predict(X, batch_size=4, callbacks=[rec], verbose=verbose)
    assert rec.calls == [
        "set_model",
        f"set_params epochs=1 steps=3 verbose={verbose}",
        "on_predict_begin ",
        "on_predict_batch_begin 0 ",
        "on_predict_batch_end 0 outputs(4, 2)",
        "on_predict_batch_begin 1 ",
        "on_predict_batch_end 1 outputs(4, 2)",
        "on_predict_batch_begin 2 ",
        "on_predict_batch_end 2 outputs(2, 2)",
        "on_predict_end ",
    ]


def test_predict_batch_outputs_are_the_rows_predicted():
    seen = []

    class Keep(keras.callbacks.Callback):
        def on_predict_batch_end(self, batch, logs=None):
            seen.append(logs["outputs"])

    model = make_model()
    out = model.predict(X, batch_size=4, callbacks=[Keep()], verbose=0)
    assert all(isinstance(o, np.ndarray) for o in seen)
    np.testing.assert_array_equal(np.concatenate(seen), out)


def test_stop_training_in_a_validation_hook_ends_fit_after_that_epoch():
    class Stopper(Recorder):
        def on_test_batch_end(self, batch, logs=None):
            super().on_test_batch_end(batch, logs=logs)
            self.model.stop_training = True  # the validation pass goes on; fit stops after on_epoch_end

    rec = Stopper()
    hist = make_model().fit(X, Y, batch_size=4, epochs=3, validation_data=(X[:5], Y[:5]), callbacks=[rec],
                            verbose=0)
    assert rec.calls[2:] == [
        "on_train_begin ",
        "on_epoch_begin 0 ",
        *TF_TRAINING_EPOCH,
        *TF_VALIDATION_PASS,
        "on_epoch_end 0 loss,mae,val_loss,val_mae",
        "on_train_end loss,mae,val_loss,val_mae",
    ]
    assert hist.epoch == [0]


def test_stop_evaluating_and_stop_predicting_end_the_pass():
    class Stop(Recorder):
        def on_test_batch_end(self, batch, logs=None):
            super().on_test_batch_end(batch, logs=logs)
            self.model.stop_evaluating = True

        def on_predict_batch_end(self, batch, logs=None):
            super().on_predict_batch_end(batch, logs=logs)
            self.model.stop_predicting = True

    model, rec = make_model(), Stop()
    model.evaluate(X, Y, batch_size=4, callbacks=[rec], verbose=0)
    assert rec.calls[2:] == ["on_test_begin ", "on_test_batch_begin 0 ", "on_test_batch_end 0 loss,mae",
                             "on_test_end loss,mae"]
    rec = Stop()
    out = model.predict(X, batch_size=4, callbacks=[rec], verbose=0)
    assert rec.calls[2:] == ["on_predict_begin ", "on_predict_batch_begin 0 ", "on_predict_batch_end 0 outputs(4, 2)",
                             "on_predict_end "]
    assert out.shape == (4, 2)


def test_history_keys_are_sorted_and_history_is_set_at_train_begin():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="sgd", loss="binary_crossentropy", metrics=["accuracy"])
    seen = {}

    class Peek(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen["history"] = self.model.history
            seen["verbose"] = self.params["verbose"]

    y = np.ones((10, 1), np.float32)
    hist = model.fit(X, y, batch_size=4, epochs=1, callbacks=[Peek()])
    assert seen["history"] is hist and seen["verbose"] == "auto"
    assert list(hist.history) == ["accuracy", "loss"]


def test_callback_list_forwards_hooks_and_is_used_as_given():
    rec = Recorder()
    cbs = keras.callbacks.CallbackList([rec], add_history=True, model=None, epochs=1)
    assert rec.calls == ["set_params epochs=1"]
    assert isinstance(cbs.callbacks[-1], keras.callbacks.History)
    model = make_model()
    model.evaluate(X, Y, batch_size=5, callbacks=cbs, verbose=0)  # a CallbackList is not configured again
    assert rec.calls == ["set_params epochs=1", "on_test_begin ", "on_test_batch_begin 0 ",
                         "on_test_batch_end 0 loss,mae", "on_test_batch_begin 1 ",
                         "on_test_batch_end 1 loss,mae", "on_test_end loss,mae"]
