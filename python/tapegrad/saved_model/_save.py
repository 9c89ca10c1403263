"""tf.saved_model.save: TF's SavedModel directory, which TensorFlow loads and serves.

Note [SavedModel layout]: ``saved_model.pb`` holds one MetaGraphDef tagged "serve": its graph's
function library (each tf.function as a FunctionDef, Note [FunctionDef form]), the signature_defs
(serving's view: per signature its inputs and outputs with dtypes and shapes) and the
SavedObjectGraph (Note [Saved objects]); ``variables/variables.index`` and ``.data-00000-of-00001``
are a TF checkpoint of the saved object; ``assets/`` is empty. Every file is written to a temporary
name first and renamed in place after all are whole: the variables, then saved_model.pb.
"""
import os

import numpy as np

from tapegrad._function.concrete_function import ConcreteFunction
from tapegrad._function.function import Function
from tapegrad import _protos
from tapegrad.io._atomic import atomic_write_all
from tapegrad.io._tensor_proto import datatype_enum
from tapegrad.saved_model._function_def import shape_proto
from tapegrad.saved_model._object_graph import ObjectGraph, _functions_of
from tapegrad.train import _bundle, _graph

SERVING = "serve"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
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


def _signature_def(key, exported):
    sig = _protos.SignatureDef(method_name=PREDICT_METHOD_NAME)
    for name, spec in exported.input_signature[1].items():
        info = sig.inputs[name]
        info.name, info.dtype = f"{key}_{name}:0", datatype_enum(spec.dtype)
        info.tensor_shape.CopyFrom(shape_proto(spec.shape.as_list()))
    for i, (name, spec) in enumerate(sorted(exported.output_signature.items())):
        info = sig.outputs[name]
        info.name, info.dtype = f"StatefulPartitionedCall:{i}", datatype_enum(spec.dtype)
        info.tensor_shape.CopyFrom(shape_proto(spec.shape.as_list()))
    return sig


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
    for key, exported in getattr(graph, "signatures", {}).items():
        meta.signature_def[key].CopyFrom(_signature_def(key, exported))
    meta.object_graph_def.CopyFrom(graph.proto)
    model = _protos.SavedModel(saved_model_schema_version=1, meta_graphs=[meta])
    nodes, tensors = _graph.tf_object_graph(obj)
    tensors[_bundle.OBJECT_GRAPH_KEY] = np.array(_bundle.encode_object_graph(nodes), dtype=object)
    index, data = _bundle.encode(tensors)
    prefix = os.path.join(export_dir, "variables", "variables")
    os.makedirs(os.path.join(export_dir, "assets"), exist_ok=True)
    pb = model.SerializeToString(deterministic=True)
    atomic_write_all([(_bundle.data_file(prefix), lambda f: f.write(data)),
                      (_bundle.index_path(prefix), lambda f: f.write(index)),
                      (os.path.join(export_dir, "saved_model.pb"), lambda f: f.write(pb))])
