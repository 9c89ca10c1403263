"""The objects a SavedModel holds (SavedObjectGraph): modules, variables, functions and signatures.

Note [Saved objects]: the nodes are numbered breadth-first from the object saved (node 0), each child
named as a TF checkpoint names it (train/_keras3.children), so that TF's loader, which restores the
variables from variables/ by walking children by name, finds each value. Besides its checkpoint
children, an object lists its tf.functions: the attributes of its class and of itself holding a
tf.function with an input_signature (one concrete function each, Note [Exported shapes]). The saved
object also has the child "signatures": TF's signature map, one bare concrete function per key.
"""
from tapegrad import _protos
from tapegrad._function.function import Function
from tapegrad._tensor.tensor import Variable
from tapegrad.io._tensor_proto import datatype_enum
from tapegrad.saved_model import _structure
from tapegrad.saved_model._export import export
from tapegrad.saved_model._function_def import shape_proto
from tapegrad.train import _graph, _keras3
from tapegrad.train._bundle import VALUE_SUFFIX

def _functions_of(obj):
    """(name, bound Function) of obj's tf.functions that have an input_signature, by attribute name."""
    found = {}
    for cls in reversed(type(obj).__mro__):
        for key, value in vars(cls).items():
            if isinstance(value, Function):
                found[key] = getattr(obj, key)
    for key, value in getattr(obj, "__dict__", {}).items():
        if isinstance(value, Function):
            found[key] = value
    return sorted((k, f) for k, f in found.items() if f.input_signature is not None)


class ObjectGraph:
    """Builds the SavedObjectGraph and the FunctionDefs for a root object and its signatures."""

    def __init__(self, root, signatures):
        self.proto = _protos.SavedObjectGraph()
        self.functions = []  # ExportedFunction, every FunctionDef of the library
        self._ids = {}  # id(object) -> node id
        self._by_var = _keras3.variables_by_id(root)
        self._counter = 0
        self.variables = []  # (Variable, its checkpoint key), by first path as tf_object_graph names them
        paths = {id(root): ""}
        self._add(root)
        queue = [root]
        while queue:
            obj = queue.pop(0)
            node = self.proto.nodes[self._ids[id(obj)]]
            for name, child in self._children(obj):
                new = id(child) not in self._ids
                if id(child) not in paths:  # a function's capture may have added it before its path is met
                    paths[id(child)] = f"{paths[id(obj)]}/{name}" if paths[id(obj)] else str(name)
                    if isinstance(child, Variable):
                        self.variables.append((child, paths[id(child)] + VALUE_SUFFIX))
                child_id = self._add(child)
                node.children.add(node_id=child_id, local_name=str(name))
                if new and not isinstance(child, (Variable, Function)):
                    queue.append(child)
        self._add_signatures(signatures)  # TF writes the map even when it is empty
        self._check_tracked()

    def _check_tracked(self):
        """Every variable a function reads is reachable from the saved object (else TF could not
        restore it), as TF requires."""
        linked = {c.node_id for n in self.proto.nodes for c in n.children}
        for exported in self.functions:
            for var in exported.captured:
                if self._ids[id(var)] not in linked:
                    raise ValueError(f"tf.saved_model.save: function {exported.name!r} reads the variable "
                                     f"{var.name!r}, which the saved object does not track; make it an attribute "
                                     f"of the object (or of one of its modules)")

    def _children(self, obj):
        out = [(n, c) for n, c in _keras3.children(obj, self._by_var)
               if c is not None and _graph._containers_hold_trackables(c)]
        taken = {n for n, _ in out}
        return out + [(n, f) for n, f in _functions_of(obj) if n not in taken]

    def fdef_name(self, base):
        self._counter += 1
        return f"__inference_{base}_{self._counter}"

    def _add(self, obj):
        if id(obj) in self._ids:
            return self._ids[id(obj)]
        self._ids[id(obj)] = len(self.proto.nodes)
        node = self.proto.nodes.add()
        if isinstance(obj, Variable):
            node.variable.dtype = datatype_enum(obj.dtype)
            node.variable.shape.CopyFrom(shape_proto(list(obj.shape)))
            node.variable.trainable = bool(obj.trainable)
            node.variable.name = obj.name.split(":")[0]
        elif isinstance(obj, Function):
            self._add_function(node, obj)
        else:
            kind = ("trackable_list_wrapper" if isinstance(obj, (list, tuple)) else
                    "trackable_dict_wrapper" if isinstance(obj, dict) else "_generic_user_object")
            node.user_object.identifier = kind
            node.user_object.version.producer, node.user_object.version.min_consumer = 1, 1
        return self._ids[id(obj)]

    def _concrete(self, exported):
        self.functions.append(exported)
        concrete = self.proto.concrete_functions[exported.name]
        concrete.bound_inputs.extend(self._add(v) for v in exported.captured)
        concrete.canonicalized_input_signature.CopyFrom(_structure.encode(exported.input_signature))
        concrete.output_signature.CopyFrom(_structure.encode(exported.output_signature))
        return exported

    def _add_function(self, node, function):
        specs = list(function.input_signature)
        exported = self._concrete(export(function, specs, self.fdef_name(function.__name__)))
        node.function.concrete_functions.append(exported.name)
        spec = node.function.function_spec
        names = [n for n in (function._signature.parameters if function._signature else [])]
        grouped = getattr(function, "_export_arguments", None)  # (names, flat -> arguments): Note [Keras export]
        if grouped:
            names, specs = grouped[0], grouped[1](specs)
        spec.fullargspec.CopyFrom(_structure.encode(_structure.argspec(names)))
        spec.input_signature.CopyFrom(_structure.encode(tuple(specs)))

    def _add_signatures(self, signatures):
        """signatures: {key: Function with an input_signature}; the saved object's child "signatures"."""
        root = self.proto.nodes[0]
        map_id = len(self.proto.nodes)
        node = self.proto.nodes.add()
        node.user_object.identifier = "signature_map"
        node.user_object.version.producer, node.user_object.version.min_consumer = 1, 1
        root.children.add(node_id=map_id, local_name="signatures")
        self.signatures = {}
        for key, function in sorted(signatures.items()):
            exported = self._concrete(export(function, list(function.input_signature),
                                             self.fdef_name("signature_wrapper_" + function.__name__), signature=True))
            fn_id = len(self.proto.nodes)
            bare = self.proto.nodes.add().bare_concrete_function
            bare.concrete_function_name = exported.name
            bare.argument_keywords.extend(exported.arg_names)
            self.proto.nodes[map_id].children.add(node_id=fn_id, local_name=key)
            self.signatures[key] = exported
