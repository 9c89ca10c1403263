"""keras.layers.TFSMLayer: a SavedModel (TF's or tapegrad's) as an inference layer, as Keras 3 reloads one."""
import tapegrad as tf
from tapegrad.keras.layers.base import Layer

__all__ = ["TFSMLayer"]


def _endpoint(reloaded, name, filepath):
    fn = getattr(reloaded, name, None)
    if fn is None:
        fn = getattr(reloaded, "signatures", {}).get(name)
    if fn is None:
        raise ValueError(f"The endpoint '{name}' is neither an attribute of the reloaded SavedModel, nor an entry in "
                         f"the `signatures` field of the reloaded SavedModel. Select another endpoint via the "
                         f"`call_endpoint` argument. Available endpoints for this SavedModel: "
                         f"{sorted(getattr(reloaded, 'signatures', {}))} ({filepath})")
    return fn


def _variables(obj, seen):
    """Every Variable reachable from the reloaded object, each once, in the order its children list them."""
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, tf.Variable):
        return [obj]
    children = obj if isinstance(obj, list) else list(obj.values()) if isinstance(obj, dict) else (
        [v for _, v in obj._checkpoint_children()] if hasattr(obj, "_checkpoint_children") else [])
    return [v for child in children for v in _variables(child, seen)]


def _weights(reloaded):
    """(trainable, non-trainable) variables: the lists a Keras export keeps, as Keras takes them, else every
    variable reachable, split by its trainable flag."""
    if hasattr(reloaded, "trainable_variables") and hasattr(reloaded, "non_trainable_variables"):
        return list(reloaded.trainable_variables), list(reloaded.non_trainable_variables)
    found = _variables(reloaded, set())
    return [v for v in found if v.trainable], [v for v in found if not v.trainable]


class TFSMLayer(Layer):
    """Calls `call_endpoint` of the SavedModel at filepath (and `call_training_endpoint` when training);
    its variables are the layer's weights, trainable ones trainable."""

    def __init__(self, filepath, call_endpoint="serve", call_training_endpoint=None, trainable=True, name=None,
                 dtype=None):
        super().__init__(trainable=trainable, name=name, dtype=dtype)
        self.filepath, self.call_endpoint, self.call_training_endpoint = filepath, call_endpoint, call_training_endpoint
        self._reloaded = tf.saved_model.load(filepath)
        self._call_fn = _endpoint(self._reloaded, call_endpoint, filepath)
        self._training_fn = (_endpoint(self._reloaded, call_training_endpoint, filepath)
                             if call_training_endpoint else None)
        self._trainable_variables, self._non_trainable_variables = _weights(self._reloaded)
        self.built = True

    def call(self, inputs, training=False, **kwargs):
        fn = self._training_fn if training and self._training_fn is not None else self._call_fn
        return fn(inputs, **kwargs)

