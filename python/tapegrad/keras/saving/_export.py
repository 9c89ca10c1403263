"""Model.export: Keras 3's serving artifact, a TF SavedModel of the model's inference function.

Note [Keras export]: as Keras 3 writes it, the saved object is an archive, not the model: its children
are the lists "variables", "trainable_variables", "non_trainable_variables", "_all_variables" and
"_misc_assets", the tf.function "serve" (model(inputs, training=False) with a None batch dimension) and
the signatures "serve" and "serving_default" of that same function. serve's input signature follows
Keras: a Sequential's input, or a functional model's input structure as ONE positional argument (a
list or dict of specs for several inputs), each spec named as its keras.Input; a subclassed model's
first call's shape, named "args_0". tapegrad's tf.function takes flat TensorSpecs only, so serve is
traced on the flat inputs and the SavedObjectGraph is told the structure to call it with
(``Function._export_arguments``, read by saved_model/_object_graph), which is the structure TF's
loader then accepts, as for Keras's own artifact.
"""
import tapegrad as tf
from tapegrad import errors

FORMATS = ("tf_saved_model", "onnx", "openvino", "litert", "torch")  # the formats Keras 3.15 knows


def _spec(x, name=None):
    shape = [None] + list(x.shape)[1:]
    return tf.TensorSpec(shape, tf.as_dtype(x.dtype), name=getattr(x, "name", None) or name)


def _model_inputs(model):
    """The structure of serve's one argument, with TensorSpecs as leaves."""
    graph = model.__dict__.get("_graph")  # a functional model's (a Sequential keeps none)
    if graph is not None:
        structure = graph.input_structure
        if isinstance(structure, dict):
            return {k: _spec(v) for k, v in structure.items()}
        return [_spec(v) for v in structure] if isinstance(structure, (list, tuple)) else _spec(structure)
    if getattr(model, "inputs", None):
        return _spec(model.inputs[0])
    shape = model.__dict__.get("_build_input_shape")
    if shape is None or not model.built:
        raise ValueError("The model provided has never called. It must be called at least once before export.")
    if not all(d is None or isinstance(d, int) for d in shape):
        raise ValueError(f"Model.export: the model was built on the nested shapes {shape!r}; pass input_signature")
    return tf.TensorSpec([None] + list(shape)[1:], model.dtype, name="args_0")


def _leaves(structure):
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure)]  # TF flattens a dict by its sorted keys
    return list(structure) if isinstance(structure, (list, tuple)) else [structure]


def _regroup(structure):
    """flat specs -> serve's positional arguments (the one structure), for the SavedObjectGraph."""
    if isinstance(structure, dict):
        return lambda flat: (dict(zip(sorted(structure), flat)),)
    if isinstance(structure, (list, tuple)):
        return lambda flat: (type(structure)(flat),)
    return lambda flat: (flat[0],)


def _argument(input_signature):
    if not isinstance(input_signature, (list, tuple)) or len(input_signature) != 1:
        raise ValueError(f"Model.export: input_signature must be a list of one spec (or one list or dict of "
                         f"specs), serve's one argument; got {input_signature!r}")
    structure = input_signature[0]
    named = [tf.TensorSpec(s.shape, tf.as_dtype(s.dtype), name=getattr(s, "name", None) or f"args_0_{i}")
             for i, s in enumerate(_leaves(structure))]
    if isinstance(structure, dict):
        return dict(zip(sorted(structure), named))
    return type(structure)(named) if isinstance(structure, (list, tuple)) else named[0]


class ExportArchive:
    """The saved object of an export (Note [Keras export])."""

    def __init__(self, model, structure):
        self._model = model
        self.variables, self.trainable_variables = list(model.variables), list(model.trainable_variables)
        self.non_trainable_variables = list(model.non_trainable_variables)
        specs = _leaves(structure)
        regroup = _regroup(structure)

        def serve(*flat):
            return model(*regroup(list(flat)), training=False)
        self.serve = tf.function(serve, input_signature=specs)
        self.serve._export_arguments = (["args_0"], regroup)

    def _checkpoint_children(self):
        return [("variables", self.variables), ("trainable_variables", self.trainable_variables),
                ("non_trainable_variables", self.non_trainable_variables), ("_all_variables", self.variables),
                ("_misc_assets", [])]


def export(self, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs):
    """Writes this model's inference function as a TF SavedModel for serving (Keras 3's
    ``model.export``, Note [Keras export]): TF loads it with ``tf.saved_model.load(filepath).serve(x)``,
    TF Serving and ``keras.layers.TFSMLayer`` serve its "serving_default" signature."""
    if format not in FORMATS:
        raise ValueError(f"Unrecognized format={format}. Supported formats are: {list(FORMATS)}.")
    if format != "tf_saved_model":
        raise errors.UnimplementedError(None, None, f"Model.export: format={format!r} is not implemented in "
                                                    f"tapegrad; it writes format='tf_saved_model'")
    if kwargs:
        raise TypeError(f"Model.export: unexpected arguments {sorted(kwargs)} for format='tf_saved_model'")
    structure = _model_inputs(self) if input_signature is None else _argument(input_signature)
    archive = ExportArchive(self, structure)
    tf.saved_model.save(archive, filepath, signatures={"serve": archive.serve, "serving_default": archive.serve})
    if verbose or verbose is None:  # Keras prints where the artifact is by default
        args = structure if not isinstance(structure, dict) else {k: structure[k] for k in sorted(structure)}
        print(f"Saved artifact at '{filepath}'. The following endpoints are available:\n\n* Endpoint 'serve'\n"
              f"  args_0 (POSITIONAL_ONLY): {args}")
