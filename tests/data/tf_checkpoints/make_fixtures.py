"""Writes the TF checkpoints tests/test_tf_checkpoint_format.py reads: run by hand with TensorFlow 2.21
+ Keras 3 (``/work/tfv/bin/python tests/data/tf_checkpoints/make_fixtures.py``). Each folder holds what
``tf.train.Checkpoint(...).save`` wrote (``checkpoint``, ``ckpt-1.index``, ``ckpt-1.data-00000-of-00001``)
and ``expected.npz``: every value saved, by the variable's role ("model/0" is ``model.weights[0]``,
"optimizer/0" is ``optimizer.variables[0]``)."""
import os
import shutil

import keras
import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
X = np.arange(6, dtype=np.float32).reshape(2, 3) / 6


def keras_model(kind):
    """The models the test rebuilds with tapegrad (same structure, same order of creation)."""
    if kind == "sequential_adam":
        return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(2)]), keras.optimizers.Adam()
    if kind == "functional_sgd_momentum":
        i = keras.Input((3,))
        h = keras.layers.Dense(4, activation="relu")(i)
        return keras.Model(i, keras.layers.Dense(2)(h)), keras.optimizers.SGD(momentum=0.9)
    if kind == "batchnorm_sgd":
        return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.BatchNormalization(),
                                 keras.layers.Dense(2)]), keras.optimizers.SGD()
    raise ValueError(kind)


def fresh(name):
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def module_fixture():
    module = tf.Module()
    module.v = tf.Variable([1.5, -2.25, 3.0], dtype=tf.float32)
    module.table = {"w": tf.Variable(np.arange(6.0).reshape(2, 3) / 7, dtype=tf.float64),
                    "ints": [tf.Variable(np.int32(-7)), tf.Variable(np.array([2**40, -3], np.int64))]}
    step = tf.Variable(np.int64(12))
    path = fresh("module")
    tf.train.Checkpoint(module=module, step=step).save(os.path.join(path, "ckpt"))
    np.savez(os.path.join(path, "expected.npz"), v=module.v.numpy(), w=module.table["w"].numpy(),
             i32=module.table["ints"][0].numpy(), i64=module.table["ints"][1].numpy(), step=step.numpy())


def keras_fixture(kind):
    model, opt = keras_model(kind)
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(X, training=True) ** 2)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    path = fresh(kind)
    tf.train.Checkpoint(model=model, optimizer=opt).save(os.path.join(path, "ckpt"))
    values = {f"model/{i}": v.numpy() for i, v in enumerate(model.weights)}
    values.update({f"optimizer/{i}": v.numpy() for i, v in enumerate(opt.variables)})
    np.savez(os.path.join(path, "expected.npz"), **values)


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(3, activation="tanh")
        self.out = keras.layers.Dense(1)

    def call(self, inputs):
        return self.out(self.hidden(inputs))


def compiled_subclass_fixture():
    """A compiled subclassed model after one fit epoch: its optimizer is saved as "net/optimizer"."""
    x = np.ones((2, 4), np.float32)
    net = Net()
    net.compile(optimizer="adam", loss="mse")
    net.fit(x, np.zeros((2, 1), np.float32), epochs=1, verbose=0)
    path = fresh("compiled_subclass")
    tf.train.Checkpoint(net=net).save(os.path.join(path, "ckpt"))
    values = {f"model/{i}": v.numpy() for i, v in enumerate(net.weights)}
    values.update({f"optimizer/{i}": v.numpy() for i, v in enumerate(net.optimizer.variables)})
    values["output"] = net(x).numpy()
    np.savez(os.path.join(path, "expected.npz"), **values)


if __name__ == "__main__":
    module_fixture()
    compiled_subclass_fixture()
    for kind in ["sequential_adam", "functional_sgd_momentum", "batchnorm_sgd"]:
        keras_fixture(kind)
