"""A small CNN on MNIST-shaped data (28x28 grey images, 10 classes), written as for TensorFlow.

The images are synthetic so that the example needs no download: class k is a short bar at one of
ten places and orientations, drawn at a random offset on a noisy background. The network is the
LeNet-style one of benchmarks/bench_cnn.py, trained with compile/fit.
Run: python examples/cnn_mnist_shaped.py [n_train]
"""
import sys

import numpy as np

import tapegrad as tf
from tapegrad import keras


def make_images(n, seed):
    """n images [n, 28, 28, 1] in [0, 1] and their labels: class k is bar k of BARS, moved by up to 2 pixels."""
    rng = np.random.default_rng(seed)
    bars = [(4, 4, "h"), (4, 16, "h"), (12, 4, "h"), (12, 16, "h"), (22, 10, "h"),
            (4, 4, "v"), (4, 22, "v"), (14, 4, "v"), (14, 22, "v"), (8, 13, "v")]
    labels = rng.integers(0, 10, n)
    x = rng.uniform(0, 0.3, (n, 28, 28, 1)).astype(np.float32)
    for i, k in enumerate(labels):
        r, c, way = bars[k]
        r, c = r + rng.integers(-2, 3), c + rng.integers(-2, 3)
        if way == "h":
            x[i, r:r + 2, c:c + 8, 0] = 1.0
        else:
            x[i, r:r + 8, c:c + 2, 0] = 1.0
    return x, labels.astype(np.int32)


def main(n_train=2048, epochs=3):
    keras.utils.set_random_seed(7)
    x_train, y_train = make_images(n_train, seed=1)
    x_test, y_test = make_images(512, seed=2)

    model = keras.models.Sequential([
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Conv2D(64, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Flatten(),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(10),
    ])
    model.compile(optimizer=keras.optimizers.Adam(),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(x_train, y_train, epochs=epochs, batch_size=64, verbose=2)
    logits = model.predict(x_test, verbose=0)
    accuracy = float(np.mean(np.argmax(logits, axis=1) == y_test))
    print(f"test accuracy: {accuracy:.3f} (chance: 0.1)")
    return accuracy


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2048)
