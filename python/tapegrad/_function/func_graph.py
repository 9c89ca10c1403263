"""Looking inside a traced function: ``ConcreteFunction.graph`` with TF's Graph inspection API.

The operations are the graph as traced (before the optimizing passes, as TF's FuncGraph is
before Grappler), named as TF names them (Note [Node names] in cpp/graph/trace.cpp): "x",
"add", "add_1", one "Identity" per output; ``as_graph_def()`` gives them as TF's GraphDef message
(saved_model/_concrete_protos.py). Everything else (``to_text``, ``to_dot``, ``ops``,
``num_nodes``, ``relaxed``) is the optimized graph that runs.
"""
from tapegrad import dtypes
from tapegrad._function import graph_protos
from tapegrad._tensor.tensor import TensorShape
from tapegrad._function.trace_context import graph_name

__all__ = ["FuncGraph", "Operation", "GraphTensor"]


class GraphTensor:
    """A value of the graph: ``name`` "add:0", ``op``, ``shape`` (None for unknown dims), ``dtype``."""

    def __init__(self, op, shape, dtype, value_index=0):
        self.op, self.shape, self.dtype = op, shape, dtype
        self.value_index = value_index

    @property
    def name(self):
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self):
        return self.op.graph

    def get_shape(self):
        return self.shape

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __str__(self):
        return f'Tensor("{self.name}", shape={self.shape}, dtype={self.dtype.name})'


class Operation:
    """A node of the graph: ``name``, ``type`` (TF's op type), ``inputs``, ``outputs``."""

    def __init__(self, graph, name, type_, inputs, row=None):
        self.graph, self.name, self.type, self.inputs = graph, name, type_, list(inputs)
        self.outputs = []
        self._row = row  # the traced graph's node it shows (None for the output Identities)

    @property
    def node_def(self):
        """This node of ``graph.as_graph_def()`` (a NodeDef message)."""
        return next(n for n in self.graph.as_graph_def().node if n.name == self.name)

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class FuncGraph:
    """The graph of one ConcreteFunction (see the module docstring)."""

    def __init__(self, name, traced, optimized):
        self.name = name
        self._optimized, self._traced = optimized, traced
        self._ops, self._by_name, self._control = [], {}, {}
        rows = traced.nodes()
        value_of = []  # per node: the tensor it produces (None for assignments, prints, If, While)
        for name_, type_, inputs, shape, dtype, has_value in rows:
            if type_ == "Identity" and len(inputs) == 1 and rows[inputs[0]][1] in ("If", "While"):
                # one result of a conditional or loop: that operation's next output ("while:1")
                ctl = self._control[inputs[0]]
                value_of.append(GraphTensor(ctl, TensorShape(shape), dtypes.from_code(dtype), len(ctl.outputs)))
                ctl.outputs.append(value_of[-1])
                continue
            if type_ == "Placeholder":
                name_ = self._unique(graph_name(name_))
            op = Operation(self, name_, type_, [value_of[i] for i in inputs], len(value_of))
            if has_value:
                op.outputs.append(GraphTensor(op, TensorShape(shape), dtypes.from_code(dtype)))
            if type_ in ("If", "While"):
                self._control[len(value_of)] = op
            value_of.append(op.outputs[0] if has_value else None)
            self._add(op)
        self.inputs = [op.outputs[0] for op in self._ops if op.type == "Placeholder"]
        self.outputs = []
        for i in traced.outputs:
            src = value_of[i]
            op = Operation(self, self._unique("Identity"), "Identity", [src])
            op.outputs.append(GraphTensor(op, src.shape, src.dtype))
            self._add(op)
            self.outputs.append(op.outputs[0])

    def _unique(self, base):
        name, k = base, 1
        while name in self._by_name:
            name, k = f"{base}_{k}", k + 1
        return name

    def _add(self, op):
        self._ops.append(op)
        self._by_name[op.name] = op

    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        op = self._by_name.get(name)
        if op is None:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
        return op

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        op_name, _, index = name.rpartition(":")
        if not op_name or not index.isdigit():
            raise ValueError(f"The name {name!r} looks a like an Operation name, not a Tensor name; "
                             f"Tensor names must be of the form \"<op_name>:<output_index>\".")
        op = self._by_name.get(op_name)
        if op is None:
            raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation, "
                           f"{op_name!r}, does not exist in this graph.")
        if int(index) >= len(op.outputs):
            raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation, "
                           f"{op_name!r}, exists but only has {len(op.outputs)} outputs.")
        return op.outputs[int(index)]

    def as_graph_def(self):
        """The operations as a GraphDef message, TF's attributes on placeholders and constants."""
        return graph_protos.graph_def(self)

    def __getattr__(self, attr):  # the optimized graph: to_text, to_dot, ops, num_nodes, relaxed, ...
        if attr.startswith("__") or attr in ("_optimized", "_traced"):
            raise AttributeError(attr)
        return getattr(self._optimized, attr)

    def __str__(self):
        return str(self._optimized)

    def __repr__(self):
        return f"<FuncGraph {self.name}: {len(self._ops)} operations>"
