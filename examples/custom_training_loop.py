"""The custom training loop of Geron's chapter 12, as the book writes it, with tapegrad for TensorFlow.

The only changes from the book: the imports below, the diabetes data shipped with tapegrad standing
in for California housing (not downloadable here), split and standardized the same way, and
n_epochs = 20 instead of 5, since that data is 40 times smaller (20 epochs are 160 steps, the book's
5 epochs about 1,800). The validation MSE is printed next to a least-squares fit on the same split.
Run: python examples/custom_training_loop.py
"""
import numpy as np

import tapegrad as tf
from tapegrad import keras
from tapegrad.datasets import diabetes

keras.utils.set_random_seed(42)
(X_train_scaled, y_train), (X_valid_scaled, y_valid), (X_test_scaled, y_test) = diabetes.load_data()

# ---- from here on, the book's code
l2_reg = keras.regularizers.l2(0.05)
model = keras.models.Sequential([
    keras.layers.Dense(30, activation="elu", kernel_initializer="he_normal",
                       kernel_regularizer=l2_reg),
    keras.layers.Dense(1, kernel_regularizer=l2_reg)
])


def random_batch(X, y, batch_size=32):
    idx = np.random.randint(len(X), size=batch_size)
    return X[idx], y[idx]


def print_status_bar(iteration, total, loss, metrics=None):
    metrics = " - ".join(["{}: {:.4f}".format(m.name, m.result())
                         for m in [loss] + (metrics or [])])
    end = "" if iteration < total else "\n"
    print("\r{}/{} - ".format(iteration, total) + metrics,
          end=end)


n_epochs = 20
batch_size = 32
n_steps = len(X_train_scaled) // batch_size
optimizer = keras.optimizers.Nadam(lr=0.01)
loss_fn = keras.losses.mean_squared_error
mean_loss = keras.metrics.Mean()
metrics = [keras.metrics.MeanAbsoluteError()]

for epoch in range(1, n_epochs + 1):
    print("Epoch {}/{}".format(epoch, n_epochs))
    for step in range(1, n_steps + 1):
        X_batch, y_batch = random_batch(X_train_scaled, y_train)
        with tf.GradientTape() as tape:
            y_pred = model(X_batch, training=True)
            main_loss = tf.reduce_mean(loss_fn(y_batch, y_pred))
            loss = tf.add_n([main_loss] + model.losses)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        for variable in model.variables:
            if variable.constraint is not None:
                variable.assign(variable.constraint(variable))
        mean_loss(loss)
        for metric in metrics:
            metric(y_batch, y_pred)
        print_status_bar(step * batch_size, len(y_train), mean_loss, metrics)
    print_status_bar(len(y_train), len(y_train), mean_loss, metrics)
    for metric in [mean_loss] + metrics:
        metric.reset_states()
# ---- end of the book's code

valid_mse = float(np.mean((model.predict(X_valid_scaled, verbose=0) - y_valid) ** 2))
baseline = diabetes.least_squares_mse(X_train_scaled, y_train, X_valid_scaled, y_valid)
print(f"validation MSE: {valid_mse:.4f} (least-squares baseline: {baseline:.4f})")
