"""Runs a FunctionDef of a loaded SavedModel on tapegrad tensors, node by node (Note [Imported ops]).

A FunctionDef lists its nodes in any order; they run in an order where each node follows its data and
control inputs. References are read as Note [FunctionDef form] writes them: "arg", "node:output:i"
(the i-th value of that output argument of the node's op, counted with TF's op definition) and
"^node" (a control input, ordering only).
"""
from tapegrad import _protos, errors
from tapegrad._tensor.string_tensor import string_constant
from tapegrad._tensor.tensor import constant
from tapegrad.io._tensor_proto import dtype_of_enum, has_dtype, make_ndarray
from tapegrad.saved_model._import_ops import RULES
from tapegrad.saved_model._tf_op_defs import OP_DEFS


def attr_value(v):
    """An AttrValue as Python: dtypes as tapegrad dtypes, tensors as NumPy arrays, shapes as lists."""
    kind = v.WhichOneof("value")
    if kind == "list":
        lst = v.list
        for field in ("i", "f", "b", "s", "type", "shape", "func", "tensor"):
            if len(getattr(lst, field)):
                return [_one(field, x) for x in getattr(lst, field)]
        return []
    return None if kind is None else _one(kind, getattr(v, kind))


def _one(kind, x):
    if kind == "s":
        return x.decode("utf-8", "replace")
    if kind == "type":  # a dtype tapegrad lacks (DT_RESOURCE, DT_VARIANT in a loop's types) stays its name
        return dtype_of_enum(x) if has_dtype(x) else _protos.DataType.Name(x)
    if kind == "shape":
        return None if x.unknown_rank else [None if d.size < 0 else d.size for d in x.dim]
    if kind == "tensor":
        return make_ndarray(x)
    if kind == "func":
        return x.name
    return x


def _output_counts(op, attrs):
    """(name, number of values) of each output argument of TF op `op` with the node's attributes."""
    counts = []
    for name, _, number_attr, list_attr in OP_DEFS[op][1]:
        if number_attr:
            counts.append((name, int(attrs[number_attr])))
        elif list_attr:
            counts.append((name, len(attrs[list_attr])))
        else:
            counts.append((name, 1))
    return counts


def _order(nodes, function_name):
    """The nodes in an order that runs each after its inputs."""
    by_name = {n.name: n for n in nodes}
    order, state = [], {}

    def visit(node):
        stack = [(node, False)]
        while stack:
            n, done = stack.pop()
            if done:
                state[n.name] = 2
                order.append(n)
                continue
            if state.get(n.name) == 2:
                continue
            if state.get(n.name) == 1:
                raise errors.InvalidArgumentError(None, None, f"tf.saved_model.load: function {function_name!r} "
                                                              f"has a cycle through node {n.name!r}")
            state[n.name] = 1
            stack.append((n, True))
            for ref in n.input:
                src = by_name.get(ref.lstrip("^").split(":")[0])
                if src is not None and state.get(src.name) != 2:
                    stack.append((src, False))
    for n in nodes:
        if state.get(n.name) != 2:
            visit(n)
    return order


class Library:
    """The FunctionDefs of a SavedModel, by name; ``run(name, inputs)`` runs one."""

    def __init__(self, functions):
        self.functions = {f.signature.name: f for f in functions}

    def run(self, name, inputs):
        fdef = self.functions.get(name)
        if fdef is None:
            raise errors.NotFoundError(None, None, f"tf.saved_model.load: no function {name!r} in the SavedModel")
        args = fdef.signature.input_arg
        if len(inputs) != len(args):
            raise errors.InvalidArgumentError(None, None, f"function {name!r} takes {len(args)} inputs, got {len(inputs)}")
        values = {a.name: x for a, x in zip(args, inputs)}
        for node in _order(fdef.node_def, name):
            self._run_node(node, values, name)
        return [values[ref] for ref in (fdef.ret[o.name] for o in fdef.signature.output_arg)]

    def _run_node(self, node, values, function_name):
        attrs = {k: attr_value(v) for k, v in node.attr.items()}
        if node.op == "Const":
            value = attrs["value"]
            outs = [string_constant(value.tolist()) if value.dtype == object else constant(value)]
        else:
            rule = RULES.get(node.op)
            if rule is None or node.op not in OP_DEFS:
                raise errors.UnimplementedError(None, None, f"tf.saved_model.load: function {function_name!r}: TF op "
                                                            f"{node.op!r} (node {node.name!r}) is not one tapegrad runs")
            inputs = [values[r] for r in node.input if not r.startswith("^")]
            try:
                outs = rule(inputs, attrs, self)
            except errors.OpError as e:
                raise type(e)(None, None, f"in node {node.name!r} ({node.op}) of function {function_name!r}: "
                                          f"{e.message}") from e
        values[node.name] = outs[0] if outs else None
        if node.op == "Const":
            values[f"{node.name}:output:0"] = outs[0]
            return
        flat = 0
        for arg, count in _output_counts(node.op, attrs):
            for i in range(count):
                values[f"{node.name}:{arg}:{i}"] = outs[flat] if flat < len(outs) else None
                flat += 1

    def call(self, name, inputs):  # the ctx of a function-call row
        return self.run(name, list(inputs))

