"""A traced graph written as TF's FunctionDef, the form a SavedModel keeps its functions in.

Note [FunctionDef form]: a FunctionDef's signature lists the function's arguments (the traced
placeholders, then one DT_RESOURCE argument per variable the graph reads or assigns) and its outputs;
its nodes name their inputs "arg" for an argument and "node:output_arg:index" for a node's output
(the output argument's name from TF's op definition, _tf_op_defs), and "^node" for a control input.
Each node carries every attribute of its TF op: the type attributes ("T", "Tidx", ...) found from the
dtypes of its inputs, the rest from the rule (Note [Exported ops]) or TF's default. TF runs a
function's nodes in data-flow order only, so the order the trace recorded for variables is kept with
control inputs, as TF's automatic control dependencies keep it: each read or assignment of a variable
waits for the one before it, random ops wait for each other, and every assignment is a control output
(so it runs even when no result depends on it).
"""
import re

import numpy as np

from tapegrad import _protos, dtypes, errors
from tapegrad.io._tensor_proto import datatype_enum, tensor_proto
from tapegrad.saved_model._symbolic_dims import Sym
from tapegrad.saved_model._tf_nodes import RULES
from tapegrad.saved_model._tf_op_defs import OP_DEFS

_ASSIGNS = {"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"}
SPECIAL_OPS = {"Placeholder", "Const", "ReadVariableOp"} | _ASSIGNS  # written by the writer itself, not a rule
_DT_RESOURCE = _protos.DataType.Value("DT_RESOURCE")


def arg_name(text, taken):
    """A FunctionDef argument name ([a-z][a-z0-9_]*, as TF requires) made from text, unique among taken."""
    base = re.sub(r"[^a-z0-9_]", "_", text.lower()) or "arg"
    if not base[0].isalpha():
        base = "arg_" + base
    name, k = base, 1
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    taken.add(name)
    return name


def shape_proto(shape):
    """TensorShapeProto of a shape (None: unknown rank; a None dimension: -1)."""
    if shape is None:
        return _protos.TensorShapeProto(unknown_rank=True)
    return _protos.TensorShapeProto(dim=[_protos.TensorShapeProto.Dim(size=-1 if d is None else int(d)) for d in shape])


def _attr_value(kind, value):
    v = _protos.AttrValue()
    if kind == "type":
        v.type = value
    elif kind == "bool":
        v.b = bool(value)
    elif kind == "int":
        v.i = int(value)
    elif kind == "float":
        v.f = float(value)
    elif kind == "string":
        v.s = value.encode() if isinstance(value, str) else bytes(value)
    elif kind == "list(int)":
        v.list.i.extend(int(x) for x in value)
    elif kind == "list(type)":
        v.list.type.extend(value)
    elif kind == "list(shape)":
        v.list.shape.extend(shape_proto(s) for s in value)
    elif kind == "shape":
        v.shape.CopyFrom(shape_proto(value))
    elif kind == "tensor":
        v.tensor.CopyFrom(value)
    elif kind == "func":
        v.func.name = value
    else:
        raise ValueError(f"tapegrad.saved_model: no writer for TF attribute kind {kind!r}")
    return v


def _default_value(kind, default):
    value = default[1]
    if default[0] == "type":
        return _protos.DataType.Value(value)
    if default[0] == "list" and kind == "list(type)":
        return [_protos.DataType.Value(t) for t in value]
    return value


class FunctionWriter:
    """Builds one FunctionDef: the ``ctx`` of the rules in _tf_nodes (input, rank, const, emit, ...)."""

    def __init__(self, name, function_name):
        self.fdef = _protos.FunctionDef()
        self.fdef.signature.name = name
        self._function_name = function_name  # the Python function's name, for errors
        self._names, self._args = set(), set()
        self._dtype = {}     # reference -> DataType enum of the value it names
        self._last = {}      # variable id -> the last node that read or assigned it
        self._last_random = None
        self.captured = []   # the variables, in the order of their resource arguments
        self._resource = {}  # variable id -> its argument's name
        self._node, self._refs = None, None
        self.plan, self.dim_sources, self._dims = None, [], {}  # Note [Exported shapes]: Syms and their sources

    # -- the rules' context (Note [Exported ops]) --
    def input(self, i):
        return self._refs[self._node["inputs"][i]]

    def rank(self, i):
        return len(self._input_node(i)["shape"])

    def numpy_dtype(self, i):
        return np.dtype(dtypes.from_code(self._input_node(i)["dtype"]).as_numpy_dtype)

    def numpy_dtype_of(self, code):
        return np.dtype(dtypes.from_code(code).as_numpy_dtype)

    def datatype(self, code):
        return datatype_enum(dtypes.from_code(code))

    def refuse(self, why):
        raise errors.UnimplementedError(None, None, f"tf.saved_model.save: function {self._function_name!r}: "
                                                    f"{why}; TensorFlow has no such op to export it as")

    def const(self, array, name="Const"):
        array = np.asarray(array)
        dtype = dtypes.as_dtype(array.dtype)
        return self.emit("Const", [], name=name, value=tensor_proto(array, dtype), dtype=datatype_enum(dtype))

    def ints(self, values, shape=None):
        """An int32 input holding values (an int or a nested list of ints and Syms, Note [Exported shapes]):
        a Const, or a Pack of the Syms' computed sizes (reshaped to shape)."""
        flat = list(np.asarray(values, dtype=object).reshape(-1)) if isinstance(values, (list, tuple)) else [values]
        if not any(isinstance(v, Sym) for v in flat):
            array = np.asarray(values, np.int32)
            return self.const(array if shape is None else array.reshape(shape))
        if not isinstance(values, (list, tuple)):
            return self._sym(values)
        packed = self.emit("Pack", [self._sym(v) if isinstance(v, Sym) else self.const(np.asarray(v, np.int32))
                                    for v in flat], N=len(flat), axis=0)
        return packed if shape is None else self.emit("Reshape", [packed, self.const(np.asarray(shape, np.int32))])

    def _sym(self, sym):
        """The int32 scalar a * size_k + b, size_k read from tf.shape of its argument."""
        if sym.k not in self._dims:
            arg, d = self.dim_sources[sym.k]
            shape = self.emit("Shape", [arg], out_type=_protos.DataType.Value("DT_INT32"))
            self._dims[sym.k] = self.emit("StridedSlice", [shape] + [self.const(np.asarray([v], np.int32))
                                                                     for v in (d, d + 1, 1)], shrink_axis_mask=1)
        ref = self._dims[sym.k]
        if sym.a != 1:
            ref = self.emit("Mul", [ref, self.const(np.asarray(sym.a, np.int32))])
        if sym.b:
            ref = self.emit("AddV2", [ref, self.const(np.asarray(sym.b, np.int32))])
        return ref

    def static_dim(self, i, d):
        """Dimension d of input i's traced shape; refused when it follows a None dimension's size."""
        size = self.plan.shapes[self._node["inputs"][i]][d] if self.plan else self._input_node(i)["shape"][d]
        if not isinstance(size, (int, np.integer)):
            self.refuse(f"{self._node['type']} (node {self._node['name']!r}) over a dimension of unknown size "
                        f"(dimension {d} of its input {i})")
        return int(size)

    def emit(self, op, inputs, name=None, control=(), **attrs):
        """Adds a node of TF op `op` on input references; returns the reference of its first output."""
        in_args, out_args, attr_defs, _ = OP_DEFS[op]
        node = self.fdef.node_def.add(name=self._unique(name or op), op=op)
        node.input.extend(inputs)
        node.input.extend("^" + c for c in control)
        resolved = dict(attrs)
        pos = 0
        for _, type_attr, number_attr, _ in in_args:  # a list argument's length is its number attribute
            count = int(resolved[number_attr]) if number_attr else 1
            if type_attr in attr_defs and type_attr not in resolved and count:
                resolved[type_attr] = self._dtype[inputs[pos]]
            pos += count
        for key, value in resolved.items():
            if isinstance(value, Sym) or (isinstance(value, list) and any(isinstance(v, Sym) for v in value)):
                self.refuse(f"attribute {key!r} of {op} (node {node.name!r}) depends on the size of a None "
                            f"dimension of the input_signature, and TF keeps it as an attribute")
        for key, (kind, default) in attr_defs.items():
            if key in resolved:
                node.attr[key].CopyFrom(_attr_value(kind, resolved[key]))
            elif default is not None:
                node.attr[key].CopyFrom(_attr_value(kind, _default_value(kind, default)))
            else:
                raise ValueError(f"tapegrad.saved_model: {op} node {node.name!r} lacks attribute {key!r}")
        arg, type_attr, _, _ = out_args[0] if out_args else (None, None, None, None)
        if arg is None:
            return node.name
        ref = f"{node.name}:{arg}:0"
        self._dtype[ref] = (resolved[type_attr] if type_attr in attr_defs else _protos.DataType.Value(type_attr))
        return ref

    # -- building --
    def _input_node(self, i):
        return self._nodes[self._node["inputs"][i]]

    def _unique(self, base):
        base = re.sub(r"[^A-Za-z0-9_.\-/]", "_", base) or "node"
        name, k = base, 1
        while name in self._names:
            name, k = f"{base}_{k}", k + 1
        self._names.add(name)
        return name

    def add_argument(self, name, dtype_enum, shape=None):
        arg = self.fdef.signature.input_arg.add(name=arg_name(name, self._args), type=dtype_enum)
        if dtype_enum != _DT_RESOURCE:
            index = len(self.fdef.signature.input_arg) - 1
            attrs = self.fdef.arg_attr[index].attr
            attrs["_user_specified_name"].s = name.encode()
            attrs["_output_shapes"].list.shape.add().CopyFrom(shape_proto(shape))
        self._dtype[arg.name] = dtype_enum
        return arg.name

    def _resource_of(self, var):
        if id(var) not in self._resource:
            self._resource[id(var)] = None  # filled by add_resources once the user arguments are in
            self.captured.append(var)
        return id(var)

    def write_graph(self, nodes, outputs, arg_names):
        """The nodes of a traced graph (Graph.export_nodes()), its output node indices and the names of
        its arguments (per placeholder, in order) into this FunctionDef; returns the captured variables."""
        self._nodes, self._refs = nodes, [None] * len(nodes)
        for n in nodes:  # resource arguments come after the user's, in the order the graph meets them
            if n["type"] == "ReadVariableOp" or n["type"] in _ASSIGNS:
                self._resource_of(n["value"])
        for var in self.captured:
            self._resource[id(var)] = self.add_argument(var.name.split(":")[0] + "_resource", _DT_RESOURCE)
        placeholders = [n for n in nodes if n["type"] == "Placeholder"]
        for n, name in zip(placeholders, arg_names):
            self._refs[nodes.index(n)] = name
        for i, n in enumerate(nodes):
            if self.plan is not None and i in self.plan.attrs:
                n = dict(n, attrs={**n["attrs"], **self.plan.attrs[i]})
            self._node = n
            if self.plan is not None and i in self.plan.fills:
                shape, value = self.plan.fills[i]
                self._refs[i] = self.emit("Fill", [self.ints(shape), self.const(value)])
            elif self.plan is not None and i in self.plan.sized:
                entries, dtype = self.plan.sized[i]
                ref = self.ints(entries)
                self._refs[i] = ref if dtype == np.int32 else self.emit(
                    "Cast", [ref], DstT=datatype_enum(dtypes.as_dtype(dtype)), Truncate=False)
            elif n["type"] != "Placeholder":
                self._refs[i] = self._write_node(n)
        for k, index in enumerate(outputs):
            out = arg_name("identity", set(a.name for a in self.fdef.signature.output_arg))
            self.fdef.signature.output_arg.add(name=out, type=self._dtype[self._refs[index]])
            self.fdef.ret[out] = self.emit("Identity", [self._refs[index]], name="Identity")
        return self.captured

    def _write_node(self, n):
        kind = n["type"]
        if kind == "Const":
            value = n["value"]
            return self.const(np.asarray(value), name=n["name"] or "Const")
        if kind == "ReadVariableOp" or kind in _ASSIGNS:
            var = n["value"]
            control = [self._last[id(var)]] if id(var) in self._last else []
            resource = self._resource[id(var)]
            if kind == "ReadVariableOp":
                ref = self.emit(kind, [resource], control=control, dtype=datatype_enum(var.dtype))
                self._last[id(var)] = ref.split(":")[0]
                return ref
            name = self.emit(kind, [resource, self.input(0)], control=control, dtype=datatype_enum(var.dtype))
            self._last[id(var)] = name
            self.fdef.control_ret[name] = name
            self.fdef.signature.control_output.append(name)
            return None
        rule = RULES.get(kind)
        if rule is None:
            self.refuse(f"op {kind!r} (node {n['name']!r})")
        ref = rule(n, self)
        if kind.startswith("Random"):
            node = self.fdef.node_def[-1]
            if self._last_random:
                node.input.append("^" + self._last_random)
            self._last_random = node.name
        return ref
