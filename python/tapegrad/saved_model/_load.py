"""tf.saved_model.load: a SavedModel TF wrote, as tapegrad objects whose functions run tapegrad's ops.

Note [Loaded objects]: the SavedObjectGraph's nodes come back as TF's loader revives them: a user
object as a tf.Module (its children as attributes, ``__call__`` included), a variable as a
tf.Variable holding the checkpoint's value (variables/, matched by the chain of child names from the
root, as TF matches), a tf.function as a callable that picks the concrete function whose input
signature the arguments fit, a concrete function (a signature's) as a callable taking keywords, the
signature map as ``.signatures``. A function runs its FunctionDef on tapegrad's ops (Note [Imported
ops]) with its bound inputs (the captured variables) after the arguments, so tapes record it. Every
value is read and checked before the first variable is made: a damaged file leaves nothing half-built.

Note [Loaded functions traced]: a concrete function runs as a tapegrad graph: at its first call its
FunctionDef is traced through a tf.function with its input signature (a dry trace, so variables are
restored after), and every call runs the graph (tens of microseconds, where running op by op in Python
costs milliseconds). A function whose trace would need a value Python cannot read there (tapegrad
raises OperatorNotAllowedInGraphError rather than keep it) runs op by op instead, every call.
"""
import os

from google.protobuf.message import DecodeError

from tapegrad import _nest, _protos, errors
from tapegrad._function.function import function
from tapegrad._tensor.tensor import TensorSpec, Variable, convert_to_tensor
from tapegrad.saved_model import _structure
from tapegrad.io._tensor_proto import dtype_of_enum
from tapegrad.saved_model._import_graph import Library, attr_value
from tapegrad.train import _bundle


class _UserObject:
    """A revived user object (TF's is an AutoTrackable, not a tf.Module): its children are its attributes,
    which a checkpoint or a new SavedModel walks; ``obj(...)`` calls its ``__call__`` child."""

    def _checkpoint_children(self):
        return sorted(vars(self).items())

    def __call__(self, *args, **kwargs):
        fn = self.__dict__.get("__call__")
        if fn is None:
            raise TypeError(f"'{type(self).__name__}' object is not callable")
        return fn(*args, **kwargs)


class _ConcreteFunction:
    """One FunctionDef with its bound inputs and signatures."""

    def __init__(self, library, name, proto, captured):
        self._library, self.name, self._captured = library, name, captured
        args, kwargs = _structure.decode(proto.canonicalized_input_signature)
        self.structured_input_signature = (args, kwargs)
        self.structured_outputs = _structure.decode(proto.output_signature)
        self._specs = _nest.flatten((args, kwargs))
        self._graph = None  # a tf.function over the FunctionDef, or False (Note [Loaded functions traced])

    def accepts(self, flat):
        return len(flat) == len(self._specs) and all(
            isinstance(s, TensorSpec) and s.dtype == t.dtype and s.shape.is_compatible_with(t.shape)
            for s, t in zip(self._specs, flat))

    def _run(self, *flat):
        return self._library.run(self.name, list(flat) + self._captured)

    def _traced(self):
        """The function's tf.function, or False when it runs op by op (Note [Loaded functions traced])."""
        if self._graph is None:
            graph = function(self._run, input_signature=[TensorSpec(s.shape, s.dtype) for s in self._specs])
            try:
                graph.get_concrete_function()
                self._graph = graph
            except (errors.OperatorNotAllowedInGraphError, errors.UnimplementedError):
                self._graph = False
        return self._graph

    def _call_flat(self, flat):
        graph = self._traced() if all(isinstance(s, TensorSpec) for s in self._specs) else False
        outs = graph(*flat) if graph else self._run(*flat)
        outs = [outs] if not isinstance(outs, (list, tuple)) else outs
        if self.structured_outputs is None:
            return None
        return _nest.pack_sequence_as(self.structured_outputs, outs)

    def __call__(self, *args, **kwargs):
        """A signature's function: its arguments by keyword (or in the signature's order)."""
        params, named = self.structured_input_signature
        if args and named:
            names = sorted(named)
            kwargs = {**dict(zip(names, args)), **kwargs}
            args = ()
        if named and set(kwargs) != set(named):
            raise TypeError(f"{self.name}: expected the arguments {sorted(named)}, got {sorted(kwargs)}")
        values = (tuple(args), {k: kwargs[k] for k in named})
        flat = [convert_to_tensor(v, dtype=s.dtype) for v, s in zip(_nest.flatten(values), self._specs)]
        if not self.accepts(flat):
            raise errors.InvalidArgumentError(None, None, f"{self.name}: arguments {_shapes(flat)} do not fit its "
                                                          f"signature {self._specs}")
        return self._call_flat(flat)


class _RestoredFunction:
    """A tf.function of the SavedModel: calls the first concrete function its arguments fit."""

    def __init__(self, name, concretes, params):
        self.__name__, self._concretes, self._params = name, concretes, params

    def _bind(self, args, kwargs):
        """The arguments in the function's positional order (keywords placed by parameter name)."""
        args = list(args)
        for name in self._params[len(args):]:
            if name not in kwargs:
                break
            args.append(kwargs.pop(name))
        if kwargs:
            raise TypeError(f"{self.__name__}() got unexpected keyword arguments {sorted(kwargs)}")
        return tuple(args)

    def __call__(self, *args, **kwargs):
        args = self._bind(args, dict(kwargs))
        for cf in self._concretes:
            params, _ = cf.structured_input_signature
            if len(args) != len(params):
                continue
            try:
                flat = [convert_to_tensor(v, dtype=s.dtype)
                        for v, s in zip(_nest.flatten((args, {})), cf._specs)]
            except (TypeError, ValueError, errors.OpError):
                continue
            if cf.accepts(flat):
                return cf._call_flat(flat)
        raise ValueError(f"Could not find matching concrete function to call loaded from the SavedModel. Got "
                         f"{_shapes(_nest.flatten(args))}; expected one of "
                         f"{[cf.structured_input_signature for cf in self._concretes]}")

    def concrete_functions(self):
        return list(self._concretes)


class _SignatureMap(dict):
    """``.signatures``: {key: concrete function}."""


def _shapes(flat):
    return [f"{getattr(t, 'dtype', type(t)).__repr__()}{tuple(getattr(t, 'shape', ()))}" for t in flat]


def _read_saved_model(export_dir):
    path = os.path.join(export_dir, "saved_model.pb")
    if not os.path.isfile(path):
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.sep}{{saved_model.pbtxt|saved_model.pb}}")
    with open(path, "rb") as f:
        data = f.read()
    try:
        model = _protos.SavedModel.FromString(data)
    except DecodeError as e:
        raise errors.DataLossError(None, None, f"{path}: not a SavedModel ({e})") from None
    if not model.meta_graphs:
        raise errors.DataLossError(None, None, f"{path}: a SavedModel with no MetaGraphDef")
    return path, model


def _meta_graph(path, model, tags):
    if tags is None:
        if len(model.meta_graphs) == 1:
            return model.meta_graphs[0]
        tags = ["serve"]
    tags = [tags] if isinstance(tags, str) else list(tags)
    for meta in model.meta_graphs:
        if set(meta.meta_info_def.tags) == set(tags):
            return meta
    found = [list(m.meta_info_def.tags) for m in model.meta_graphs]
    raise RuntimeError(f"MetaGraphDef associated with tags {tags} could not be found in SavedModel, with available "
                       f"tags '{found}'. ({path})")


def _checkpoint_values(export_dir, proto):
    """{saved object node id: array} for every variable, matched through the checkpoint's object graph."""
    prefix = os.path.join(export_dir, "variables", "variables")
    if not any(n.WhichOneof("kind") == "variable" for n in proto.nodes):
        return {}
    arrays = _bundle.read(prefix)
    try:
        ckpt = _bundle.decode_object_graph(arrays[_bundle.OBJECT_GRAPH_KEY].item())
    except (KeyError, ValueError) as e:
        raise errors.DataLossError(None, None, f"{prefix}: its object graph does not read ({e})") from None
    values, queue, seen = {}, [(0, 0)], {0}
    while queue:
        saved, node = queue.pop(0)
        ckpt_children = dict((name, i) for i, name in ckpt[node]["children"])
        if proto.nodes[saved].WhichOneof("kind") == "variable":
            keys = [key for name, _, key in ckpt[node]["attributes"] if name == "VARIABLE_VALUE"]
            if keys and keys[0] in arrays:
                values[saved] = arrays[keys[0]]
        for child in proto.nodes[saved].children:
            if child.local_name in ckpt_children and child.node_id not in seen:
                seen.add(child.node_id)
                queue.append((child.node_id, ckpt_children[child.local_name]))
    return values


def _constant(meta, name):
    node = next((n for n in meta.graph_def.node if n.name == name), None)
    if node is None or node.op != "Const":
        raise errors.DataLossError(None, None, f"the SavedModel's constant {name!r} is not in its graph")
    return convert_to_tensor(attr_value(node.attr["value"]))


def load(export_dir, tags=None, options=None):
    """The object TF saved at export_dir, rebuilt (Note [Loaded objects])."""
    export_dir = os.fspath(export_dir)
    path, model = _read_saved_model(export_dir)
    meta = _meta_graph(path, model, tags)
    proto = meta.object_graph_def
    if not proto.nodes:
        raise errors.UnimplementedError(None, None, f"tf.saved_model.load: {path} is a TF1 SavedModel (no object "
                                                    "graph); tapegrad loads TF2 SavedModels")
    values = _checkpoint_values(export_dir, proto)
    library = Library(meta.graph_def.library.function)
    objects = {}
    for i, node in enumerate(proto.nodes):  # variables and constants first: functions bind them
        kind = node.WhichOneof("kind")
        if kind == "variable":
            v = node.variable
            if i not in values:
                raise errors.NotFoundError(None, None, f"{export_dir}: no value for the variable {v.name!r} "
                                                       "in variables/")
            objects[i] = Variable(values[i].astype(dtype_of_enum(v.dtype).as_numpy_dtype),
                                  trainable=v.trainable, name=v.name or None)
        elif kind == "constant":
            objects[i] = _constant(meta, node.constant.operation)
    concretes = {name: _ConcreteFunction(library, name, c, [objects[j] for j in c.bound_inputs])
                 for name, c in proto.concrete_functions.items()}
    for i, node in enumerate(proto.nodes):
        kind = node.WhichOneof("kind")
        if kind == "user_object":
            ident = node.user_object.identifier
            objects[i] = (_SignatureMap() if ident == "signature_map" else [] if ident == "trackable_list_wrapper"
                          else {} if ident == "trackable_dict_wrapper" else _UserObject())
        elif kind == "function":
            spec = node.function.function_spec
            params = list(_structure.decode(spec.fullargspec).args) if spec.HasField("fullargspec") else []
            params = params[1:] if spec.is_method else params
            objects[i] = _RestoredFunction("function", [concretes[n] for n in node.function.concrete_functions],
                                           params)
        elif kind == "bare_concrete_function":
            objects[i] = concretes[node.bare_concrete_function.concrete_function_name]
        elif kind not in ("variable", "constant"):
            raise errors.UnimplementedError(None, None, f"tf.saved_model.load: {path} holds a {kind} object "
                                                        f"(node {i}), which tapegrad does not load")
    for i, node in enumerate(proto.nodes):
        parent = objects[i]
        for child in node.children:
            value = objects[child.node_id]
            if isinstance(parent, list):
                parent.append(value)
            elif isinstance(parent, dict):
                parent[child.local_name] = value
            else:
                if isinstance(value, _RestoredFunction):
                    value.__name__ = child.local_name
                object.__setattr__(parent, child.local_name, value)
    return objects[0]
