"""ConcreteFunction: one traced graph of a tf.function, for one input signature."""
import inspect

import numpy as np

from tapegrad import _core
from tapegrad._function import graph_protos
from tapegrad._function import signature as sig
from tapegrad._function.func_graph import FuncGraph
from tapegrad._function.function_type import FunctionType, InferenceFunction, VariableCapture, parameters_of
from tapegrad._function.trace_type import PlaceholderContext, TraceType, trace_type_of
from tapegrad._nest import sequence_like
from tapegrad._tensor.tensor import Tensor, TensorShape, TensorSpec, constant
from tapegrad._function.trace_context import graph_name

__all__ = ["ConcreteFunction"]


class ConcreteFunction:
    """One traced graph for one signature. ``graph`` has TF's inspection API (get_operations,
    get_tensor_by_name, as_graph_def) and prints the optimized graph as text (``to_dot()`` too)."""

    def __init__(self, function, concrete, call, stats, traced_graph, template, single):
        self._function = function
        self._concrete = concrete
        self._graph = concrete.graph            # the optimized graph that runs
        self._traced_graph = traced_graph       # the graph as recorded (inspection)
        self._func_graph = None
        self._template, self._single = template, single
        self.optimizations = stats  # nodes folded, simplified, merged, pruned and fused by the passes
        self._paths = list(call.paths)
        self._specs = [TensorSpec(t._shape, t.dtype, name=p) for t, p in zip(call.tensors, call.paths)]
        self._python_desc = {p: d for p, d in call.desc.items() if d[0] != "tensor"}
        self._shown = None  # the signature's shapes when it leaves dims unknown (_show_signature)
        self._function_def = None
        # The bound arguments with each tensor as its TensorSpec (no tensor kept alive) and each argument
        # keyed by __tf_tracing_type__ as its TraceType; the specs are filled in from self._specs when
        # asked for, as relaxing changes them.
        it, types = iter(self._specs), call.trace_types
        if call.bound is None:
            self._skeleton = {f"arg{i}": _specs_like(v, it, types) for i, v in enumerate(call.args)}
            self._skeleton.update((k, _specs_like(call.kwargs[k], it, types)) for k in sorted(call.kwargs))
            self._py_signature = None
        else:
            self._skeleton = {n: _specs_like(v, it, types) for n, v in call.bound.arguments.items()}
            self._py_signature = call.bound.signature

    @property
    def graph(self):
        if self._func_graph is None:
            self._func_graph = FuncGraph(self._function.__name__, self._traced_graph, self._graph)
        return self._func_graph

    @property
    def name(self):
        return self._function.__name__

    @property
    def structured_input_signature(self):
        """(args, kwargs) as TF gives them: a TensorSpec (named after its parameter) per tensor
        argument, Python arguments as the values they were traced with."""
        args, kwargs, _ = self._structured_inputs()
        return args, kwargs

    def _shown_specs(self):
        """Per placeholder, its TensorSpec with the dims the signature allows (None: any size)."""
        return self._specs if self._shown is None else [
            TensorSpec(shape, s.dtype, name=s.name) for shape, s in zip(self._shown, self._specs)]

    def _structured_inputs(self, specs=None, leaf=None):
        """(args, kwargs, [(parameter, kind, value)]) with each tensor argument as its TensorSpec (from
        ``specs``, in placeholder order; by default the signature's), or as ``leaf(spec)`` if given."""
        it = iter(self._shown_specs() if specs is None else specs)
        values = {n: _specs_like(v, it, {}, leaf) for n, v in self._skeleton.items()}
        if self._py_signature is None:
            kinds = ["POSITIONAL_ONLY" if n.startswith("arg") and n[3:].isdigit() else "KEYWORD_ONLY" for n in values]
            args = tuple(v for v, k in zip(values.values(), kinds) if k == "POSITIONAL_ONLY")
            kwargs = {n: v for (n, v), k in zip(values.items(), kinds) if k == "KEYWORD_ONLY"}
            return args, kwargs, [(n, k, v) for (n, v), k in zip(values.items(), kinds)]
        bound = inspect.BoundArguments(self._py_signature, values)
        params = self._py_signature.parameters
        return bound.args, bound.kwargs, [(n, params[n].kind.name, v) for n, v in values.items()]

    def _arguments_with(self, specs):
        """(args, kwargs) that get_concrete_function traces this signature with, the tensors as ``specs``."""
        args, kwargs, _ = self._structured_inputs(specs)
        return tuple(_traced_value(a) for a in args), {k: _traced_value(v) for k, v in kwargs.items()}

    @property
    def function_type(self):
        """TF's FunctionType: each parameter's TraceType (TensorSpec, Literal[...], List[...], ...),
        the output's (``output``) and the captured variables (``captures``)."""
        structured = [(n, kind, trace_type_of(v)) for n, kind, v in self._structured_inputs()[2]]
        captures = {id(v): VariableCapture(v) for v in self._captured_variables()}
        return FunctionType(parameters_of(structured), captures,
                            return_annotation=trace_type_of(_output_specs(self.structured_outputs)))

    def _captured_variables(self):
        """The variables the graph reads or assigns, in the order it first meets them."""
        seen = {}
        for n in self._traced_graph.export_nodes():
            if n["type"] == "ReadVariableOp" or n["type"].startswith("Assign"):
                seen.setdefault(id(n["value"]), n["value"])
        return list(seen.values())

    @property
    def function_def(self):
        """The graph as TF's FunctionDef message (saved_model/_concrete_protos.py); raises
        UnimplementedError naming an op TF has no counterpart for."""
        if self._function_def is None:
            self._function_def = graph_protos.function_def(self)
        return self._function_def

    @property
    def inference_fn(self):
        """The graph as a callable of every parameter of ``function_type`` (TF's AtomicFunction)."""
        return InferenceFunction(self)

    @property
    def structured_outputs(self):
        """The outputs' structure with the graph's symbolic output tensors ("Identity:0", ...)."""
        outs = iter(self.graph.outputs)
        if self._single:
            return next(outs)
        return _fill(self._template, outs)

    @property
    def inputs(self):
        return list(self.graph.inputs)

    @property
    def outputs(self):
        return list(self.graph.outputs)

    @property
    def backward_graph(self):
        """The graph computing this function's gradients, built at the first call under a
        GradientTape after the trace (None before, and for graphs whose calls replay op by op)."""
        return self._concrete.backward_graph

    def _relax(self, shapes, other):
        self._specs = [TensorSpec(s, spec.dtype, name=spec.name) for s, spec in zip(shapes, self._specs)]
        dims = [[-1 if d is None else d for d in s] for s in shapes]
        self._graph.relax(dims, other._graph)
        self._traced_graph.relax(dims, other._traced_graph)
        self._func_graph = self._function_def = None

    def _show_signature(self, shapes):
        """The shapes the signature allows (None: any size), as structured_input_signature shows them;
        the placeholders of the inspected graph show them too. Calls still need verified shapes."""
        self._shown = [TensorShape(s) for s in shapes]
        dims = [[-1 if d is None else d for d in s] for s in shapes]
        self._traced_graph.relax(dims, self._traced_graph)
        self._func_graph = self._function_def = None

    def _run(self, tensors):
        return self._concrete.run(tensors)

    def __call__(self, *args):
        """Runs the graph on its tensor arguments (Python arguments were fixed by the trace)."""
        if len(args) != len(self._specs):
            raise TypeError(f"this concrete function takes {len(self._specs)} tensor arguments "
                            f"({', '.join(self._paths)}), got {len(args)}")
        tensors, verified = [], True
        for a, spec, allowed in zip(args, self._specs, self._shown_specs()):
            t = a if isinstance(a, Tensor) else constant(a, dtype=spec.dtype)
            if t.dtype != spec.dtype or not allowed.shape.is_compatible_with(t.shape):
                raise _core.InvalidArgumentError(
                    f"concrete function of {self._function.__name__}: argument {spec.name} must be "
                    f"{spec.dtype.name}{allowed.shape}, got {t.dtype.name}{t.shape}")
            verified = verified and spec.shape.is_compatible_with(t.shape)
            tensors.append(t)
        return self._run(tensors) if verified else self._call_within_signature(tensors)

    def _call_within_signature(self, tensors):
        """A call the signature's unknown dims allow but no verified shape covers yet: the Function
        verifies the graph for it (Note [Verified relaxation]) or, if the graph depends on the size,
        serves it with the graph of these shapes."""
        args, kwargs, _ = self._structured_inputs(tensors, leaf=lambda t: t)
        args = tuple(_traced_value(a) for a in args)
        kwargs = {k: _traced_value(v) for k, v in kwargs.items()}
        function = self._function
        call = sig.make_call(function._signature, args, kwargs, function.input_signature)
        cf = function._find(call)
        if cf is not None:
            return cf._run(call.tensors)
        return function._trace_for(call, dry=False)[1]

    def pretty_printed_signature(self, verbose=True):
        """TF's text: "Input Parameters:", one line per parameter, "Output Type:", "Captures:" (verbose);
        else the one-line ``(x: TensorSpec(...)) -> TensorSpec(...)``."""
        ft = self.function_type
        return repr(ft) if verbose else str(ft)

    def pretty_printed_graph(self):
        return str(self._graph)

    def __repr__(self):
        specs = ", ".join(f"{s.name}: {s.dtype.name}{s.shape}" for s in self._specs)
        return f"<ConcreteFunction {self._function.__name__}({specs}) with {self._graph.num_nodes} nodes>"


def _specs_like(value, it, trace_types, leaf=None):
    """A bound argument with each tensor replaced by its spec (in placeholder order; ``leaf(spec)`` if
    given) and each argument keyed by ``__tf_tracing_type__`` by its TraceType (trace_types: id ->
    TraceType); the traversal of signature._key."""
    if isinstance(value, TensorSpec) or (isinstance(value, Tensor) and not value._is_variable):
        spec = next(it)
        return leaf(spec) if leaf is not None else TensorSpec(spec.shape, spec.dtype, name=graph_name(spec.name))
    if isinstance(value, np.ndarray):
        return _specs_like(constant(value), it, trace_types, leaf)
    if isinstance(value, TraceType):
        return value
    if id(value) in trace_types:
        return trace_types[id(value)]
    if isinstance(value, (list, tuple)):
        return sequence_like(value, [_specs_like(v, it, trace_types, leaf) for v in value])
    if isinstance(value, dict):
        filled = {k: _specs_like(value[k], it, trace_types, leaf) for k in _sorted(value)}
        return {k: filled[k] for k in value}  # the caller's order, as TF shows a dict
    return value


def _traced_value(value):
    """A structured input as get_concrete_function takes it (a TraceType as a value of that type)."""
    if isinstance(value, TraceType) and not isinstance(value, TensorSpec):
        return value.placeholder_value(PlaceholderContext())
    if isinstance(value, (list, tuple)):
        return sequence_like(value, [_traced_value(v) for v in value])
    if isinstance(value, dict):
        return {k: _traced_value(v) for k, v in value.items()}
    return value


def _sorted(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _fill(template, outs):
    """template with its _core._OUT slots filled by outs in order (Note [Nest order])."""
    return _core._nest_pack(template, list(outs), _core._OUT)


def _output_specs(value):
    if hasattr(value, "op") and hasattr(value, "shape") and hasattr(value, "dtype"):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, (list, tuple)):
        return sequence_like(value, [_output_specs(v) for v in value])
    if isinstance(value, dict):
        return {k: _output_specs(v) for k, v in value.items()}
    return value
