"""tf.function: trace a Python function into a C++ graph once per signature, then replay the graph.

Tracing runs the Python function with the call's real tensors while a C++ tracer records every
op (cpp/graph/trace.h), so the first call's results are the traced run's own results. The graph is
optimized (cpp/graph/optimize.h) and cached; a later call with the same signature runs entirely in C++
(the key lookup included, _core._FunctionBase).
"""
import functools
import inspect
import logging
import weakref

from tapegrad import _core, errors
from tapegrad._autodiff.gradients import recording_for_gradients
from tapegrad._function import signature as sig
from tapegrad._function.concrete_function import ConcreteFunction, _fill
from tapegrad._nest import map_structure
from tapegrad._function.retracing import flush_calls, note_trace
from tapegrad._tensor.tensor import Tensor, TensorShape, TensorSpec, constant
from tapegrad._function.trace_context import _Trace, _trace_stack, leaked_error, note_leaks

__all__ = ["function", "Function", "ConcreteFunction"]

_log = logging.getLogger("tapegrad.function")
_CACHE_LIMIT = 128  # concrete functions kept per Function (by exact call key; oldest dropped first)
_MEMO_LIMIT = 256   # entries of the C++ call cache before it is cleared
_GENERIC_LIMIT = 16  # relaxed graphs kept per call structure (newest first)
_HISTORY_LIMIT = 256  # trace records kept for tracing_report (the first and the newest)


class Function(_core._FunctionBase):
    """A Python function traced into graphs (``tf.function``); see ``function``.

    Calls with a signature seen before run the cached graph in C++; a new signature traces
    again, and ``tracing_report()`` says which argument changed and how.
    """

    def __init__(self, python_function, input_signature=None, reduce_retracing=False, name=None, autograph=True):
        super().__init__()
        self._autograph = bool(autograph)
        functools.update_wrapper(self, python_function, updated=())
        self.python_function = python_function
        self.input_signature = None if input_signature is None else list(input_signature)
        if self.input_signature is not None and not all(isinstance(s, TensorSpec) for s in self.input_signature):
            raise TypeError("input_signature must be a list of tf.TensorSpec")
        self.reduce_retracing = bool(reduce_retracing)
        self.__name__ = name or getattr(python_function, "__name__", "function")
        try:
            self._signature = inspect.signature(python_function)
        except (TypeError, ValueError):
            self._signature = None
        self._concrete = {}   # exact call key -> ConcreteFunction (at most _CACHE_LIMIT)
        self._generic = {}    # erased key -> [[ConcreteFunction, verified shapes, allowed shapes]]
        self._history = []    # one record per trace
        self._num_traces = 0
        self._calls_seen = 0  # calls counted by the retracing detector so far (_core counts them all)
        self._bound = weakref.WeakKeyDictionary()

    # -- the slow path: everything the C++ key cannot decide -----------------------------------
    def _call_slow(self, *args, **kwargs):
        call = sig.make_call(self._signature, args, kwargs, self.input_signature)
        cf = self._find(call)
        if cf is None:
            cf, result = self._trace_for(call, dry=False)
        else:
            result = cf._run(call.tensors)
        # The C++ call cache keys tensors by dtype and shape: with an input_signature, a call of
        # tensors alone maps to the graph this call found, whatever the signature converts.
        if call.simple and not kwargs and (self.input_signature is None or all(
                isinstance(a, Tensor) and not a._is_variable for a in args)):
            if self._memo_size >= _MEMO_LIMIT:
                self._memo_clear()
            self._memo_insert(cf._concrete, *args)
        return result

    def _relaxable(self):
        return self.reduce_retracing or (
            self.input_signature is not None and any(not s.shape.is_fully_defined() for s in self.input_signature))

    def _find(self, call):
        cf = self._concrete.get(call.key)
        if cf is None:
            shapes = [t._shape for t in call.tensors]
            for entry in reversed(self._generic.get(call.erased, ())):
                if entry[1] is not None and sig.shapes_fit(entry[1], shapes):
                    cf = self._remember(call.key, entry[0])
                    break
        return cf

    def _remember(self, key, cf):
        self._concrete[key] = cf
        if len(self._concrete) > _CACHE_LIMIT:
            del self._concrete[next(iter(self._concrete))]
        return cf

    def _up_front_shapes(self, call, specs_by_id=None):
        """Per placeholder, the shape the graph must serve when the input_signature (or the
        TensorSpecs given to get_concrete_function) leave dimensions unknown; else None."""
        if specs_by_id:
            shapes = [specs_by_id.get(id(t), TensorShape(t._shape)) for t in call.tensors]
        elif self.input_signature is not None and len(call.tensors) == len(self.input_signature):
            shapes = [s.shape if s.shape.rank is not None else TensorShape(t._shape)
                      for s, t in zip(self.input_signature, call.tensors)]
        else:
            return None
        return shapes if any(None in s for s in shapes) else None

    def _trace_for(self, call, dry, specs_by_id=None):
        """Traces for a call; see Note [Verified relaxation] for how one graph comes to serve many shapes."""
        shapes = [tuple(t._shape) for t in call.tensors]
        entries = self._generic.setdefault(call.erased, [])
        base = next((e for e in reversed(entries) if e[2] is not None and sig.shapes_fit(e[2], shapes)), None)
        if base is None and self._relaxable() and entries:
            base = entries[-1]
        allowed = self._up_front_shapes(call, specs_by_id) or (base[2] if base is not None else None)
        try:
            cf, result = self._trace(call, dry, verifying=base is not None, relaxed_shapes=allowed)
        except errors.OperatorNotAllowedInGraphError as e:
            if allowed is None:
                raise
            # The function needs a static size (tf.zeros(tf.shape(x))): trace for this call's shapes.
            _log.debug("tf.function %s: tracing for concrete shapes: %s", self.__name__, e)
            cf, result = self._trace(call, dry)
            self._history[-1]["relaxed"] = "the function reads a size as a Python value; traced for these shapes"
            base = allowed = None
        record = self._history[-1]
        if base is not None:
            same, why = base[0]._graph.same_structure(cf._graph)
            frozen = base[0]._frozen_size or cf._frozen_size
            if same and frozen:
                same, why = False, frozen
            if same:  # the earlier graph, relaxed in place, serves this call too
                old = base[1] if base[1] is not None else [tuple(s.shape) for s in base[0]._specs]
                base[1] = sig.merge_shapes(old, shapes)
                base[0]._relax(base[1], cf)
                cf = base[0]
                record["relaxed"] = f"the graph does not depend on these shapes; it now serves {_spec_text(cf)}"
                if base[2] is not None:  # a verification within the signature: no new graph, no new trace
                    self._num_traces -= 1
                    record["verification"] = True
            else:
                record["relaxed"] = f"the graph cannot be shared across shapes: {why}"
        elif "relaxed" not in record and (allowed is not None or self._relaxable()):
            entries.append([cf, None, allowed])
        self._remember(call.key, cf)
        if allowed is not None:
            cf._show_signature(allowed)
        del entries[:-_GENERIC_LIMIT]
        if not entries:
            del self._generic[call.erased]
        self._after_trace(call, record)
        return cf, result

    def _trace(self, call, dry, verifying=False, relaxed_shapes=None):
        args, kwargs, views = sig.traced_arguments(call)
        # A relaxed trace may give up (OperatorNotAllowedInGraphError) and be run again for concrete
        # shapes: its tracer saves what it assigns (as a dry one does) so that a failure undoes it.
        tracer = _core._Tracer(dry or relaxed_shapes is not None)
        for view, path in zip(views, call.paths):
            tracer.placeholder(view, path)
        shapes_by_id = None if relaxed_shapes is None else {v._id: s for v, s in zip(views, relaxed_shapes)}
        stack = _trace_stack()
        trace = _Trace(self, dry, shapes_by_id)
        trace.tracer = tracer  # tf.init_scope (_utilities.py) pauses it
        stack.append(trace)
        outer_sizes = _core._set_sizes_at_run_time(relaxed_shapes is not None)  # Note [Sizes in traced rules]
        try:
            with tracer, recording_for_gradients(self.python_function, args, kwargs):  # (and tf.gradients' tape)
                result = self._traced_function()(*args, **kwargs)
                flat, template, single = _flatten_outputs(result)
        except errors.OperatorNotAllowedInGraphError:
            if relaxed_shapes is not None and not dry:
                tracer.restore_variables()
            raise
        finally:
            stack.pop()
            _core._set_sizes_at_run_time(outer_sizes)
            if dry:
                tracer.restore_variables()
        del args, kwargs, views
        graph, stats = tracer.finish([t for t in flat])
        note_leaks()
        if tracer.leak_use:
            raise leaked_error(tracer.leak_use, f" (tf.function {self.__name__!r} used it.)")
        concrete = _core._Concrete(graph, template, single)
        cf = ConcreteFunction(self, concrete, call, stats, tracer.traced_graph, template, single)
        cf._frozen_size = trace.frozen_size
        self._num_traces += 1
        self._history.append({"trace": self._num_traces, "signature": sig.describe(call.desc), "desc": call.desc,
                              "changes": [], "dry": dry, "verifying": verifying})
        if len(self._history) > _HISTORY_LIMIT:
            del self._history[1]
        value = _result_value(result, flat, template, single)
        if self._num_traces == 1 and trace.created_variables:  # Note [Variables on the first trace] (trace_context)
            cf, _ = self._trace(call, True, verifying, relaxed_shapes)
            self._history[-1]["dry"] = dry
        return cf, value

    def _after_trace(self, call, record):
        previous = [r for r in self._history[:-1]]
        if previous:
            # Explain against the closest earlier trace (most recent on ties).
            best = min((sig.differences(r["desc"], call.desc) for r in reversed(previous)), key=_weight)
            record["changes"] = best
            reason = "; ".join(c[2] for c in best) or "same signature (a new trace was requested)"
            _log.debug("tf.function %s: tracing again (trace #%d) because %s%s", self.__name__, record["trace"],
                       reason, f" -- {record['relaxed']}" if "relaxed" in record else "")
        else:
            _log.debug("tf.function %s: first trace for %s", self.__name__, record["signature"])
        if not record["dry"] and not record.get("verification"):  # as TF, get_concrete_function is not a call
            note_trace(self)

    def _retrace_cause(self):
        """The argument that changed most often between traces, and advice; '' if none did."""
        counts = {}
        for r in self._history[1:]:
            for path, category, text in r["changes"]:
                counts.setdefault((path, category), []).append(text)
        if not counts:
            return ""
        (path, category), texts = max(counts.items(), key=lambda kv: len(kv[1]))
        advice = {
            "Python value": f"pass {path} as a tensor (tf.constant) so that its value is not part of the signature",
            "shape": "use reduce_retracing=True or an input_signature with None dimensions",
            "rank": "use an input_signature or keep the rank fixed",
            "string value": "string tensors are traced by value (Note [String arguments]): map them to numbers first",
        }.get(category, "keep this argument's type and structure fixed between calls")
        return (f"{len(texts)} of tf.function {self.__name__!r}'s retraces came from the {category} of {path} "
                f"changing (last: {texts[-1]}); {advice}.")

    def _traced_function(self):
        """What a trace runs: the Python function, converted by AutoGraph unless autograph=False."""
        from tapegrad.autograph._api import convert
        return convert(self.python_function) if self._autograph else self.python_function

    # -- public API --------------------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs):
        """The graph for these arguments (tensors, TensorSpecs or Python values), tracing if needed.

        Tracing for a TensorSpec uses placeholder values (ones, zeros for integers); variable
        assignments made while tracing are undone and ``tf.print`` does not print.
        """
        if not args and not kwargs and self.input_signature is not None:
            args = tuple(self.input_signature)
        specs_by_id = {}
        a, k = map_structure(lambda x: _example(x, specs_by_id), (args, kwargs))
        call = sig.make_call(self._signature, a, k, self.input_signature)
        cf = self._find(call)
        if cf is None:
            cf, _ = self._trace_for(call, dry=True, specs_by_id=specs_by_id)
        return cf

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Each traced signature as TF prints it: input parameters, output type, captures."""
        graphs = {id(cf): cf for cf in self._concrete.values()}  # one per graph, in the order first cached
        return ("\n\n" if verbose else "\n").join(cf.pretty_printed_signature(verbose) for cf in graphs.values())

    def experimental_get_tracing_count(self):
        """How many times the Python function was traced."""
        return self._num_traces

    def tracing_report(self):
        """Every trace so far: the signature, and for each retrace the argument that changed and how."""
        lines = [f"tf.function {self.__name__!r}: {self._num_traces} trace(s), "
                 f"{len(set(map(id, self._concrete.values())))} graph(s)"]
        for r in self._history:
            tag = " (get_concrete_function)" if r["dry"] else ""
            if r.get("verification"):
                lines.append(f"  verification{tag}: the Python function ran again for {r['signature']} (not a new trace)")
            elif r["trace"] == 1:
                lines.append(f"  trace 1{tag}: first call with {r['signature']}")
            else:
                why = "; ".join(c[2] for c in r["changes"]) or "same signature"
                lines.append(f"  trace {r['trace']}{tag}: {why}")
            if "relaxed" in r:
                lines.append(f"    shape relaxation: {r['relaxed']}")
        return "\n".join(lines)

    @property
    def tracing_history(self):
        return [dict(trace=r["trace"], signature=r["signature"], changes=[c[2] for c in r["changes"]],
                     relaxed=r.get("relaxed")) for r in self._history]

    def __get__(self, instance, owner):
        # A method: one Function per instance, so each instance traces with its own variables.
        if instance is None:
            return self
        try:
            f = self._bound.get(instance)
        except TypeError:
            f = None
        if f is None:
            f = Function(functools.partial(self.python_function, instance), self.input_signature,
                         self.reduce_retracing, name=self.__name__, autograph=self._autograph)
            try:
                self._bound[instance] = f
            except TypeError:
                pass
        return f

    def __repr__(self):
        return f"<tapegrad.Function {self.__name__} at {hex(id(self))}>"

    def __del__(self):
        if getattr(self, "_num_traces", 0):  # the retracing warning counts the calls of Functions made in a loop
            flush_calls(self)


# Note [Verified relaxation]: a trace records one run of the Python function with concrete
# tensors, so a graph is known to be right only for the shapes it was traced with: an attribute
# or constant may hold a size (x[-2:] normalises to begin=n-2; zeros_like(x) is a constant of x's
# shape). When an input_signature (or TensorSpecs given to get_concrete_function) leaves a
# dimension unknown, the first trace runs with tf.shape as a run-time op and serves its own shape.
# A call of another shape within the signature runs the Python function again and compares the
# two graphs (same_structure: ops, edges, attributes, constants); when they are the same, the
# dimensions that differed become unknown (Note [Relaxed graphs]) and that one graph serves every
# such call. This second run is a verification, not a trace: it makes no new graph, so it does
# not count in experimental_get_tracing_count (TF traces once, symbolically). When the graphs
# differ, the call keeps its own graph and counts. reduce_retracing without a signature works the
# same way, and there the second run counts, as TF's second, generalising trace does.


def _weight(changes):
    return sum(3 if c[1] in ("type", "structure") else 1 for c in changes)


def _spec_text(cf):
    return ", ".join(f"{s.name}: {s.dtype.name}{s.shape}" for s in cf._specs)


def _example(x, specs_by_id):
    """A value to trace with for a TensorSpec leaf (None dims become 2); records the spec's shape."""
    if not isinstance(x, TensorSpec):
        return x
    shape = [2 if d is None else d for d in (x.shape if x.shape.rank is not None else [])]
    t = sig.example_tensor(shape, x)
    specs_by_id[id(t)] = x.shape if x.shape.rank is not None else TensorShape(shape)
    return t


def _output_leaf(v, flat):
    """A leaf of the traced result: a tensor, or a Python number made a constant, is appended to flat and
    becomes a _core._OUT slot; any other leaf (None, a string) stays in the template."""
    if isinstance(v, (bool, int, float)):
        v = constant(v)
    if isinstance(v, Tensor):
        flat.append(v)
        return _core._OUT
    return v


def _flatten_outputs(result):
    """Tensors of the traced result in order, its structure with _core._OUT slots, single?"""
    if isinstance(result, Tensor):
        return [result], _core._OUT, True
    flat = []
    template = map_structure(lambda v: _output_leaf(v, flat), result)
    return flat, template, template is _core._OUT


def _result_value(result, flat, template, single):
    """The first call's result, as later calls will return it (numbers as tensors, variables read)."""
    values = [_core.Variable.read_value(t) if t._is_variable else t for t in flat]  # a plain copy
    if single:
        return values[0]
    if template is None or not flat:
        return template
    return _fill(template, iter(values))


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_relax_shapes=None, name=None, **kwargs):
    """Compiles a Python function into a graph-backed callable (as a call or a decorator).

    The function is traced once per signature: the dtypes and shapes of its tensor arguments
    and the values of its Python arguments (each new Python value traces again). Python side
    effects run only while tracing; ``tf.print`` prints at every call. Branching in Python on a
    traced tensor raises ``OperatorNotAllowedInGraphError``.

    Args:
      func: the function to compile.
      input_signature: a list of ``tf.TensorSpec``; ``None`` dimensions accept any size, and one
        trace serves them all (``tf.shape`` of such a dimension is a run-time value). A call that
        does not fit raises TypeError.
      reduce_retracing: on a call whose tensor shapes differ from a traced one, trace once more
        and, if the graph does not depend on those shapes, keep one graph for all of them.

    >>> @tf.function
    ... def cube(x):
    ...     return x ** 3
    >>> cube(tf.constant(2.0))
    <tf.Tensor: shape=(), dtype=float32, numpy=8.0>
    """
    relax = reduce_retracing or bool(experimental_relax_shapes)

    def decorate(f):
        return Function(f, input_signature=input_signature, reduce_retracing=relax, name=name, autograph=autograph)

    return decorate if func is None else decorate(func)
