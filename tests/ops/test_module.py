"""tf.Module and tf.name_scope: names, scopes, variable and sub-module tracking, as TF defines them."""
import pytest

import tapegrad as tf
from tapegrad import keras


class Inner(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.v = tf.Variable(1.0, name="v")
        with self.name_scope:
            self.w = tf.Variable(2.0, name="w")
        self.items = [tf.Variable(3.0, name="l0"), {"b": tf.Variable(4.0, name="b", trainable=False),
                                                    "a": tf.Variable(5.0, name="a")}]

    @tf.Module.with_name_scope
    def __call__(self, x):
        self.z = tf.Variable(6.0, name="z")
        return x * self.w


class Outer(tf.Module):
    def __init__(self):
        super().__init__()
        self.m = Inner()
        self.ms = (Inner("inner2"),)
        self.shared = self.m.v  # reached twice, listed once


def test_default_name_is_the_class_name_in_snake_case():
    assert Outer().name == "outer"
    assert Inner().name == "inner"
    assert tf.Module().name == "module"


def test_names_must_be_identifiers():
    with pytest.raises(ValueError, match="not a valid module name"):
        tf.Module(name="bad name")


def test_variables_follow_tf_order_attributes_sorted_then_submodules():
    # As TF 2.x: own attributes first (sorted; dict keys sorted; "shared" reaches m.v first), then each
    # sub-module depth first, every variable once.
    o = Outer()
    names = [v.name for v in o.variables]
    assert names == ["v:0", "l0:0", "a:0", "b:0", "inner/w:0", "l0:0", "a:0", "b:0", "v:0", "inner2/w:0"]
    assert len(o.trainable_variables) == 8 and all(v.trainable for v in o.trainable_variables)
    assert isinstance(o.variables, tuple)


def test_submodules():
    o = Outer()
    assert [m.name for m in o.submodules] == ["inner", "inner2"]


def test_with_name_scope_prefixes_variables_made_in_the_call():
    m = Inner()
    m(1.0)
    assert m.z.name == "inner/z:0"


def test_name_scope_nesting_and_absolute_names():
    with tf.name_scope("a"):
        with tf.name_scope("b") as scope:
            assert scope == "a/b/"
            assert tf.Variable(1.0, name="q").name == "a/b/q:0"
        with tf.name_scope("x/") as scope:
            assert scope == "x/"
        with tf.name_scope("") as scope:
            assert scope == ""
            assert tf.Variable(1.0, name="r").name == "r:0"
    assert tf.Variable(1.0, name="s").name == "s:0"


def test_name_scope_rejects_non_strings():
    with pytest.raises(ValueError, match="must be a string"):
        tf.name_scope(None)


def test_a_module_made_in_a_scope_keeps_it():
    with tf.name_scope("o"):
        m = tf.Module(name="mm")
    assert m.name == "mm" and m.name_scope.name == "o/mm/"


def test_keras_layers_and_models_are_modules():
    layer = keras.layers.Dense(3, name="dense_mod")
    layer(tf.ones([2, 4]))
    assert isinstance(layer, tf.Module)
    assert [v.name for v in layer.variables] == ["dense_mod/kernel:0", "dense_mod/bias:0"]
    model = keras.Sequential([keras.layers.Dense(2, name="first"), keras.layers.Dense(1, name="second")])
    model(tf.ones([1, 3]))
    assert isinstance(model, tf.Module)
    assert [m.name for m in model.submodules][:2] == ["first", "second"]


def test_a_module_holding_a_keras_model_finds_its_variables():
    class Holder(tf.Module):
        def __init__(self):
            super().__init__()
            self.net = keras.Sequential([keras.layers.Dense(2)])
            self.net.build((None, 3))
            self.scale = tf.Variable(1.0)

    h = Holder()
    assert len(h.variables) == 3


def test_name_scopes_are_per_thread():
    import threading
    names = []
    with tf.name_scope("main"):
        t = threading.Thread(target=lambda: names.append(tf.Variable(1.0, name="t").name))
        t.start()
        t.join()
    assert names == ["t:0"]
