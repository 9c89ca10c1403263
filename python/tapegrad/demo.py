"""python -m tapegrad.demo: the book's regression model trained by a custom loop, with a progress bar.

Trains Dense(30, elu, he_normal, l2) + Dense(1, l2) with Nadam on the diabetes data shipped with
tapegrad, prints each epoch's loss and MAE (training and validation), compares the validation MSE with
a least-squares fit, and saves learning_curve.png when matplotlib is installed.
"""
import argparse
import sys

import numpy as np

import tapegrad as tf
from tapegrad import keras
from tapegrad.datasets import diabetes


def build_model():
    l2_reg = keras.regularizers.l2(0.05)
    return keras.models.Sequential([
        keras.layers.Dense(30, activation="elu", kernel_initializer="he_normal", kernel_regularizer=l2_reg),
        keras.layers.Dense(1, kernel_regularizer=l2_reg),
    ])


def train(n_epochs=20, batch_size=32, seed=42, verbose=1, out=None):
    """Runs the loop; returns (model, history dict of per-epoch lists, validation MSE, baseline MSE)."""
    out = out or sys.stdout
    keras.utils.set_random_seed(seed)
    (X_train, y_train), (X_valid, y_valid), _ = diabetes.load_data()
    model = build_model()
    optimizer = keras.optimizers.Nadam(learning_rate=0.01)
    loss_fn = keras.losses.mean_squared_error
    mean_loss, mae = keras.metrics.Mean(name="loss"), keras.metrics.MeanAbsoluteError(name="mae")
    n_steps = len(X_train) // batch_size
    history = {"loss": [], "mae": [], "val_loss": [], "val_mae": []}
    for epoch in range(1, n_epochs + 1):
        if verbose:
            print(f"Epoch {epoch}/{n_epochs}", file=out)
        bar = keras.utils.Progbar(n_steps, verbose=verbose, stateful_metrics=["loss", "mae"], file=out)
        for step in range(1, n_steps + 1):
            idx = np.random.randint(len(X_train), size=batch_size)
            X_batch, y_batch = X_train[idx], y_train[idx]
            with tf.GradientTape() as tape:
                y_pred = model(X_batch, training=True)
                main_loss = tf.reduce_mean(loss_fn(y_batch, y_pred))
                loss = tf.add_n([main_loss] + model.losses)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            mean_loss(loss)
            mae(y_batch, y_pred)
            logs = [("loss", mean_loss.result()), ("mae", mae.result())]
            if step < n_steps:
                bar.update(step, logs)
        y_hat = model(X_valid)
        val_loss = float(tf.reduce_mean(loss_fn(y_valid, y_hat)) + tf.add_n(model.losses))
        val_mae = float(np.mean(np.abs(y_hat.numpy() - y_valid)))
        epoch_logs = {"loss": float(mean_loss.result()), "mae": float(mae.result()),
                      "val_loss": val_loss, "val_mae": val_mae}
        bar.update(n_steps, list(epoch_logs.items()), finalize=True)
        for k, v in epoch_logs.items():
            history[k].append(v)
        mean_loss.reset_state()
        mae.reset_state()
    valid_mse = float(np.mean((model.predict(X_valid, verbose=0) - y_valid) ** 2))
    baseline = diabetes.least_squares_mse(X_train, y_train, X_valid, y_valid)
    return model, history, valid_mse, baseline


def save_learning_curve(history, path):
    """Saves loss and MAE per epoch (training and validation) to ``path``; False without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    epochs = np.arange(1, len(history["loss"]) + 1)
    for ax, key in zip(axes, ["loss", "mae"]):
        ax.plot(epochs, history[key], label="training")
        ax.plot(epochs, history["val_" + key], label="validation")
        ax.set_xlabel("epoch")
        ax.set_ylabel(key)
        ax.grid(True)
        ax.legend()
    fig.suptitle("tapegrad demo: diabetes regression, custom training loop")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tapegrad.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--plot", default="learning_curve.png", help="where to save the learning curve")
    args = parser.parse_args(argv)
    model, history, valid_mse, baseline = train(args.epochs, seed=args.seed)
    print(f"validation MSE {valid_mse:.4f}; least-squares baseline {baseline:.4f}")
    if save_learning_curve(history, args.plot):
        print(f"learning curve saved to {args.plot}")
    else:
        print("matplotlib is not installed: no learning-curve plot")
    return 0


if __name__ == "__main__":
    sys.exit(main())
