"""tf.saved_model.save: TF's SavedModel directory, which TensorFlow loads and serves.

Note [SavedModel layout]: ``saved_model.pb`` holds one MetaGraphDef tagged "serve": its graph's
function library (each tf.function as a FunctionDef, Note [FunctionDef form]), the graph a TF1
session runs with the signature_defs naming its tensors and the saver_def (Note [Session graph]) and
the SavedObjectGraph (Note [Saved objects]); ``variables/variables.index`` and ``.data-00000-of-00001``
are a TF checkpoint of the saved object; ``assets/`` is empty. Every file is written to a temporary
name first and renamed in place after all are whole: the variables, then saved_model.pb.
"""
import os

import numpy as np

from tapegrad._function.concrete_function import ConcreteFunction
from tapegrad._function.function import Function
from tapegrad import _protos
from tapegrad.io._atomic import atomic_write_all
from tapegrad.saved_model import _session_graph
from tapegrad.saved_model._object_graph import ObjectGraph, _functions_of
from tapegrad.train import _bundle, _graph

SERVING = "serve"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
GRAPH_DEF_VERSION, GRAPH_DEF_MIN_CONSUMER = 2474, 12  # TF 2.21's GraphDef versions


def _as_function(value, key):
    if isinstance(value, ConcreteFunction):
        value = value._function
    if not isinstance(value, Function) or value.input_signature is None:
        raise ValueError(f"tf.saved_model.save: signature {key!r} must be a tf.function with an input_signature "
                         f"(or one of its concrete functions), got {type(value).__name__}")
    return value


def _signatures(obj, signatures):
    if signatures is None:  # TF's rule: the one tf.function of the object with an input_signature
        found = _functions_of(obj)
        return {DEFAULT_SERVING_SIGNATURE_DEF_KEY: found[0][1]} if len(found) == 1 else {}
    if not isinstance(signatures, dict):
        signatures = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    return {str(k): _as_function(v, k) for k, v in signatures.items()}


def save(obj, export_dir, signatures=None, options=None):
    """Writes obj (a tf.Module, Keras model or other trackable object) and its tf.functions with an
    input_signature to export_dir as TF's SavedModel (Note [SavedModel layout]); signatures: a
    tf.function (the "serving_default" signature), or a dict {key: tf.function}."""
    if not _graph.is_trackable(obj):
        raise ValueError(f"tf.saved_model.save: expected a trackable object (tf.Module, a Keras model, ...) to save, "
                         f"got {type(obj).__name__}")
    export_dir = os.fspath(export_dir)
    graph = ObjectGraph(obj, _signatures(obj, signatures))
    meta = _protos.MetaGraphDef()
    meta.meta_info_def.tags.append(SERVING)
    meta.graph_def.versions.producer, meta.graph_def.versions.min_consumer = GRAPH_DEF_VERSION, GRAPH_DEF_MIN_CONSUMER
    meta.graph_def.library.function.extend(e.fdef for e in graph.functions)
    nodes, tensors = _graph.tf_object_graph(obj)
    if sorted(key for _, key in graph.variables) != sorted(tensors):  # both walks name each variable alike
        raise AssertionError("tf.saved_model.save: the saved object's variables differ from its checkpoint's")
    object_graph = _bundle.encode_object_graph(nodes)
    tensors[_bundle.OBJECT_GRAPH_KEY] = np.array(object_graph, dtype=object)
    _session_graph.write(meta, graph, object_graph)  # after the library: it adds the saver's functions
    meta.object_graph_def.CopyFrom(graph.proto)
    model = _protos.SavedModel(saved_model_schema_version=1, meta_graphs=[meta])
    index, data = _bundle.encode(tensors)
    prefix = os.path.join(export_dir, "variables", "variables")
    os.makedirs(os.path.join(export_dir, "assets"), exist_ok=True)
    pb = model.SerializeToString(deterministic=True)
    atomic_write_all([(_bundle.data_file(prefix), lambda f: f.write(data)),
                      (_bundle.index_path(prefix), lambda f: f.write(index)),
                      (os.path.join(export_dir, "saved_model.pb"), lambda f: f.write(pb))])
