"""Converting functions: source once per code object, a converted function once per function object.

The converted code is compiled with the original file name and line numbers (tracebacks and
error messages point at the user's source) inside a factory whose parameters are the original's
free variables plus ``ag__``; the function is then rebuilt from the compiled code with the
original's globals, defaults and closure cells, so it reads and writes the same variables.
"""
import ast
import functools
import inspect
import logging
import os
import sysconfig
import textwrap
import types
import weakref

from tapegrad import _core
from tapegrad._ops.array.creation import range as tf_range
from tapegrad._tensor.tensor import cast
from tapegrad.autograph import _operators
from tapegrad.autograph._convert import AG, convert_function_def
from tapegrad.autograph._expressions import Expressions
from tapegrad.autograph._loops import RangeLoop

__all__ = ["convert", "converted_call", "to_code", "to_graph", "do_not_convert", "is_user_function"]

_log = logging.getLogger("tapegrad.autograph")
_DO_NOT_CONVERT = "__tapegrad_autograph_do_not_convert__"
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LIBRARY = tuple({os.path.abspath(p) + os.sep for key in ("stdlib", "platstdlib", "purelib", "platlib")
                  if (p := sysconfig.get_paths().get(key))})

_code_cache = {}                                     # (code object, recursive) -> (code, source)
_function_cache = {True: weakref.WeakKeyDictionary(), False: weakref.WeakKeyDictionary()}
_converted = weakref.WeakSet()                       # functions that are conversions already


class _Namespace:
    """``ag__`` in converted code: the operators, and converted_call with this conversion's options."""

    def __init__(self, recursive):
        for attr in _operators.__all__:
            setattr(self, attr, getattr(_operators, attr))
        self.recursive = recursive
        self.converted_call = functools.partial(converted_call, recursive=recursive)
        self.iterable_call = functools.partial(iterable_call, recursive=recursive)


def is_user_function(f):
    """A Python function of the user's code (not tapegrad's, a library's or the standard library's)."""
    if not isinstance(f, types.FunctionType) or getattr(f, _DO_NOT_CONVERT, False) or f in _converted:
        return False
    code = f.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return False
    path = code.co_filename
    if path.startswith("<"):
        return False
    path = os.path.abspath(path)
    return not path.startswith(_PACKAGE) and not path.startswith(_LIBRARY)


def _transform(f, recursive):
    """The converted code object of f's code and its source text; raises if f has no usable source."""
    key = (f.__code__, recursive)
    hit = _code_cache.get(key)
    if hit is not None:
        return hit
    if f.__code__.co_name == "<lambda>":
        hit = _code_cache[key] = _transform_lambda(f.__code__)
        return hit
    lines, first = inspect.getsourcelines(f.__code__)  # the code itself, not what __wrapped__ points to
    tree = ast.parse(textwrap.dedent("".join(lines)))
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != f.__code__.co_name:
        raise ValueError(f"the source of {f.__qualname__} is not a def statement")
    ast.increment_lineno(tree, first - 1)
    args = fdef.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    freevars = list(f.__code__.co_freevars)
    convert_function_def(fdef, params, "__class__" in freevars, f.__code__.co_filename)
    code = _compile_in_factory([fdef], fdef.name, freevars + [AG], f.__code__.co_filename)
    hit = _code_cache[key] = (code, ast.unparse(fdef))
    return hit


def _compile_in_factory(body, name, params, filename):
    """The code object of the function `name` defined by body inside ``def __ag_factory(params)``
    (so that the names of params are the function's free variables, as in the original)."""
    factory = ast.parse(f"def __ag_factory({', '.join(params)}):\n    pass").body[0]
    factory.body = body + ([ast.Return(value=ast.Name(id=name, ctx=ast.Load()))] if name != "<lambda>" else [])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.copy_location(factory, body[0])
    ast.fix_missing_locations(module)
    compiled = compile(module, filename, "exec")
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    return next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


def _same_code(a, b):
    return (a.co_code, a.co_consts, a.co_names, a.co_varnames) == (b.co_code, b.co_consts, b.co_names, b.co_varnames)


def _transform_lambda(code):
    """A lambda's converted code: its node is found in the source lines by compiling each lambda
    there and comparing with the running code (the lines may hold several lambdas, or end inside
    an enclosing call: the text is cut back until it parses)."""
    lines, first = inspect.getsourcelines(code)
    text = textwrap.dedent("".join(lines))
    tree = None
    for end in range(len(text), max(len(text) - 400, 0), -1):
        try:
            tree = ast.parse(text[:end])
            break
        except SyntaxError:
            continue
    if tree is None:
        raise ValueError("the source of the lambda does not parse")
    ast.increment_lineno(tree, first - 1)
    params = list(code.co_freevars) + [AG]
    for node in (n for n in ast.walk(tree) if isinstance(n, ast.Lambda)):
        body = [ast.Return(value=node)]
        try:
            found = _same_code(_compile_in_factory(body, "<lambda>", params, code.co_filename), code)
        except (SyntaxError, StopIteration):
            continue
        if found:
            node.body = Expressions(set(), None, code.co_filename).visit(node.body)
            converted = _compile_in_factory([ast.Return(value=node)], "<lambda>", params, code.co_filename)
            return converted, ast.unparse(node)
    raise ValueError("the lambda is not found in its source lines")


def _instantiate(f, code, recursive):
    cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
    cells[AG] = _namespaces[recursive]
    closure = tuple(cells[name] for name in code.co_freevars)
    g = types.FunctionType(code, f.__globals__, f.__name__, f.__defaults__, closure)
    g.__kwdefaults__ = f.__kwdefaults__
    g.__qualname__, g.__module__, g.__doc__ = f.__qualname__, f.__module__, f.__doc__
    g.__dict__.update(f.__dict__)
    g.__wrapped__ = f
    _converted.add(g)
    return g


def convert(f, recursive=True, strict=False):
    """The converted form of a function, bound method or functools.partial (cached); other callables,
    library functions and functions opted out come back unchanged. A function whose source cannot
    be converted runs unconverted with a logged warning, or raises with ``strict``."""
    if isinstance(f, functools.partial):
        g = convert(f.func, recursive, strict)
        return f if g is f.func else functools.partial(g, *f.args, **f.keywords)
    if isinstance(f, types.MethodType):
        g = convert(f.__func__, recursive, strict)
        return f if g is f.__func__ else types.MethodType(g, f.__self__)
    if not is_user_function(f):
        return f
    cache = _function_cache[recursive]
    g = cache.get(f)
    if g is None:
        try:
            code, _ = _transform(f, recursive)
        except (OSError, TypeError, SyntaxError, ValueError) as e:
            if strict:
                raise
            _log.warning("AutoGraph could not convert %s (%s); it runs as written", f.__qualname__, e)
            g = f
        else:
            g = _instantiate(f, code, recursive)
        cache[f] = g
    return g


# Builtins that, given a traced tensor, compute in the graph as TF's AutoGraph makes them do
# (``range`` is tf.range, see iterable_call; ``int(x)``/``float(x)`` cast to TF's dtypes).
_CASTS = {int: "int32", float: "float32"}


def converted_call(f, args, kwargs, recursive=True):
    """A call from converted code: user functions are converted first (when ``recursive``)."""
    if recursive and (isinstance(f, (types.FunctionType, types.MethodType, functools.partial))):
        f = convert(f, recursive=True)
    elif f in _CASTS and len(args) == 1 and not kwargs and _operators.is_graph_tensor(args[0]):
        return cast(args[0], _CASTS[f])
    return f(*args, **(kwargs or {}))


def iterable_call(f, args, kwargs, recursive=True):
    """The call that makes a `for` loop's iterable: tf.range inside a traced function (its result is a
    tensor there, so TF loops in the graph whatever the bounds), or Python's range with a traced
    bound, is not materialized; the loop counts in the graph."""
    is_tf_range = f is tf_range
    if is_tf_range or f is range:
        values = list(args) + list((kwargs or {}).values())
        if is_tf_range and _core._tracing() or any(_operators.is_graph_tensor(v) for v in values):
            return RangeLoop(*args, **(kwargs or {}), graph_loop=is_tf_range)
    return converted_call(f, args, kwargs, recursive)


_namespaces = {flag: types.CellType(_Namespace(flag)) for flag in (True, False)}


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """The converted Python function of ``entity`` (a function or method): its ``if``, ``while`` and
    ``for`` on traced tensors become graph control flow when it runs inside a ``tf.function``."""
    if not callable(entity):
        raise TypeError(f"to_graph expects a function or method, got {type(entity).__name__}")
    return convert(entity, recursive=recursive, strict=True)


def to_code(entity, recursive=True, experimental_optional_features=None):
    """The source of the converted function of ``entity``, as a string."""
    f = entity.__func__ if isinstance(entity, types.MethodType) else entity
    if not isinstance(f, types.FunctionType):
        raise TypeError(f"to_code expects a function or method, got {type(entity).__name__}")
    return _transform(f, recursive)[1] + "\n"


def do_not_convert(func=None):
    """Decorator: the function runs as written inside converted code and tf.function."""
    if func is None:
        return do_not_convert

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    setattr(wrapper, _DO_NOT_CONVERT, True)
    return wrapper

