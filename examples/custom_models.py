"""Custom layers and models in the style of Geron's chapter 12, with tapegrad for TensorFlow.

- MyDense: a Dense layer written by hand (build with add_weight, call, compute_output_shape,
  get_config).
- ResidualBlock: n_layers Dense layers with a skip connection around them.
- ResidualRegressor: a subclassed model that reuses one ResidualBlock four times.
- ReconstructingRegressor: a model that adds an auxiliary reconstruction loss with add_loss and
  tracks it with a Mean metric.

Each is trained with compile/fit on synthetic regression data (8 features, a smooth target), and
the training losses are printed. Run: python examples/custom_models.py
"""
import numpy as np

import tapegrad as tf
from tapegrad import keras


class MyDense(keras.layers.Layer):
    """outputs = activation(inputs @ kernel + bias)."""

    def __init__(self, units, activation=None, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.activation = keras.activations.get(activation)

    def build(self, batch_input_shape):
        self.kernel = self.add_weight(name="kernel", shape=[batch_input_shape[-1], self.units],
                                      initializer="glorot_normal")
        self.bias = self.add_weight(name="bias", shape=[self.units], initializer="zeros")
        super().build(batch_input_shape)

    def call(self, X):
        return self.activation(X @ self.kernel + self.bias)

    def compute_output_shape(self, batch_input_shape):
        return tf.TensorShape(batch_input_shape.as_list()[:-1] + [self.units])

    def get_config(self):
        return {**super().get_config(), "units": self.units,
                "activation": keras.activations.serialize(self.activation)}


class ResidualBlock(keras.layers.Layer):
    """inputs + (n_layers Dense layers)(inputs)."""

    def __init__(self, n_layers, n_neurons, **kwargs):
        super().__init__(**kwargs)
        self.hidden = [keras.layers.Dense(n_neurons, activation="elu", kernel_initializer="he_normal")
                       for _ in range(n_layers)]

    def call(self, inputs):
        Z = inputs
        for layer in self.hidden:
            Z = layer(Z)
        return inputs + Z


class ResidualRegressor(keras.Model):
    """Dense(30) -> ResidualBlock applied 1 + 3 times -> another ResidualBlock -> Dense(output_dim)."""

    def __init__(self, output_dim, **kwargs):
        super().__init__(**kwargs)
        self.hidden1 = keras.layers.Dense(30, activation="elu", kernel_initializer="he_normal")
        self.block1 = ResidualBlock(2, 30)
        self.block2 = ResidualBlock(2, 30)
        self.out = keras.layers.Dense(output_dim)

    def call(self, inputs):
        Z = self.hidden1(inputs)
        for _ in range(1 + 3):
            Z = self.block1(Z)
        Z = self.block2(Z)
        return self.out(Z)


class ReconstructingRegressor(keras.Model):
    """Five hidden layers and a regression head; a reconstruction of the inputs from the last hidden
    layer adds 0.05 * its mean squared error to the loss, and a Mean metric reports that error."""

    def __init__(self, output_dim, **kwargs):
        super().__init__(**kwargs)
        self.hidden = [keras.layers.Dense(30, activation="selu", kernel_initializer="lecun_normal")
                       for _ in range(5)]
        self.out = keras.layers.Dense(output_dim)
        self.reconstruction_mean = keras.metrics.Mean(name="reconstruction_error")

    def build(self, batch_input_shape):
        n_inputs = batch_input_shape[-1]
        self.reconstruct = keras.layers.Dense(n_inputs)
        super().build(batch_input_shape)

    def call(self, inputs, training=None):
        Z = inputs
        for layer in self.hidden:
            Z = layer(Z)
        reconstruction = self.reconstruct(Z)
        recon_loss = tf.reduce_mean(tf.square(reconstruction - inputs))
        self.add_loss(0.05 * recon_loss)
        if training:
            self.reconstruction_mean.update_state(recon_loss)
        return self.out(Z)

    @property
    def metrics(self):
        return super().metrics + [self.reconstruction_mean]


def make_data(n=1000, n_features=8, seed=42):
    """A smooth nonlinear target of standardized Gaussian features, split 80/20."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, n_features)).astype("float32")
    y = (np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] - 0.3 * X[:, 3] ** 2
         + 0.1 * rng.standard_normal(n)).astype("float32")[:, None]
    split = int(0.8 * n)
    return (X[:split], y[:split]), (X[split:], y[split:])


def main(epochs=10, n=1000):
    """Trains the three models; returns {model name: (first epoch loss, last epoch loss, test mse)}."""
    (X_train, y_train), (X_test, y_test) = make_data(n)
    models = {
        "MyDense": keras.Sequential([MyDense(30, activation="relu"), MyDense(1)]),
        "ResidualRegressor": ResidualRegressor(1),
        "ReconstructingRegressor": ReconstructingRegressor(1),
    }
    results = {}
    for name, model in models.items():
        keras.utils.set_random_seed(42)  # each model's initial weights and shuffles independent of the others
        model.compile(loss="mse", optimizer=keras.optimizers.Nadam(learning_rate=0.002))
        history = model.fit(X_train, y_train, epochs=epochs, batch_size=32, verbose=0)
        test_mse = model.evaluate(X_test, y_test, verbose=0, return_dict=True)["loss"]
        losses = history.history["loss"]
        print(f"{name}: loss per epoch {[round(v, 4) for v in losses]}, test loss {test_mse:.4f}")
        if "reconstruction_error" in history.history:
            print(f"  reconstruction error per epoch {[round(v, 4) for v in history.history['reconstruction_error']]}")
        results[name] = (losses[0], losses[-1], test_mse)
    layer = MyDense(4, activation="relu", name="my_dense")
    print("MyDense output shape for (None, 8):", layer.compute_output_shape(tf.TensorShape([None, 8])))
    print("MyDense config:", layer.get_config())
    return results


if __name__ == "__main__":
    main()
