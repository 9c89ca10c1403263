"""Configs of keras objects: get_config captured from the constructor, serialize / deserialize, the registry.

Note [Keras object configs]: every layer, optimizer, loss, metric, initializer, regularizer, constraint
and schedule records the arguments it was constructed with (``AutoConfig.__new__`` binds them to the
class's ``__init__`` signature, defaults filled in), so ``get_config`` needs no per-class code: it
returns those arguments (JSON-ready: nested keras objects as their serialized dicts, functions by
module and name, dtypes by name, arrays as lists), updated by the base class with the values that
can change later (``name``, ``trainable``, the learning rate). ``from_config(config)`` is
``cls(**config)`` with nested objects deserialized. A class that overrides get_config keeps its own.
A serialized object is Keras 3's dict ``{"module", "class_name", "config", "registered_name"}``;
classes are found in custom_objects, then the registry (``register_keras_serializable``), then
tapegrad.keras's own namespaces (a "keras.layers" module name finds the same class).
A config read from a file nests at most MAX_CONFIG_DEPTH lists and dicts deep (loads_config):
deserializing recurses once per level or more, and a real model's config is far shallower.
"""
import contextlib
import importlib
import inspect
import json

import numpy as np

import tapegrad as tf
from tapegrad import keras

__all__ = ["AutoConfig", "register_keras_serializable", "get_registered_name", "get_registered_object",
           "serialize_keras_object", "deserialize_keras_object", "custom_object_scope", "CustomObjectScope",
           "loads_config", "MAX_CONFIG_DEPTH"]

# lists and dicts a config may nest; a Dense layer's is 4 deep, each model around another adds 3
MAX_CONFIG_DEPTH = 100

_SIGNATURES = {}
_REGISTERED = {}       # "package>Name" -> class or function
_REGISTERED_NAMES = {}  # class or function -> "package>Name"
_SCOPES = []           # the custom_objects dicts of the enclosing custom_object_scope / load_model calls


def _signature(cls):
    sig = _SIGNATURES.get(cls)
    if sig is None:
        sig = _SIGNATURES[cls] = inspect.signature(cls.__init__)
    return sig


def _json_ready(value):
    """Tuples as lists, in dicts and lists too: what a config becomes when written as JSON."""
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    return value


class AutoConfig:
    """Records the constructor's arguments for get_config; see Note [Keras object configs]."""

    def __init_subclass__(cls, **kwargs):
        # a get_config a class writes itself gives its tuples (kernel_size=(3, 3)) as JSON would
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("get_config")
        if own is not None and not getattr(own, "_json_ready", False):
            def get_config(self, _own=own):
                return _json_ready(_own(self))
            get_config.__doc__, get_config.__qualname__ = own.__doc__, own.__qualname__
            get_config._json_ready = True
            cls.get_config = get_config

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        config = None
        try:
            sig = _signature(cls)
            bound = sig.bind(None, *args, **kwargs)
            bound.apply_defaults()
        except (TypeError, ValueError):
            pass
        else:
            config = {}
            for name, value in list(bound.arguments.items())[1:]:
                kind = sig.parameters[name].kind
                if kind is inspect.Parameter.VAR_KEYWORD:
                    config.update(value)
                elif kind is inspect.Parameter.VAR_POSITIONAL:
                    if value:
                        config = None
                        break
                else:
                    config[name] = value
        object.__setattr__(obj, "_auto_config", config)
        return obj

    def _constructor_config(self):
        config = self.__dict__.get("_auto_config")
        if config is None:
            raise NotImplementedError(f"{type(self).__name__}.get_config: the constructor's arguments could not "
                                      "be recorded (positional *args); override get_config to save this object")
        return {k: serialize_keras_object(v) for k, v in config.items()}

    def get_config(self):
        """The constructor's arguments, JSON-ready (see Note [Keras object configs])."""
        return self._constructor_config()

    @classmethod
    def from_config(cls, config):
        """A new object from ``get_config()``'s dict."""
        config = {k: _deserialize_nested(v) for k, v in dict(config).items()}
        params = _signature(cls).parameters
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            config = {k: v for k, v in config.items() if k in params}
        return cls(**config)


# ---- registry
def register_keras_serializable(package="Custom", name=None):
    """Registers a class (or function) under "package>name" so that load_model finds it without custom_objects."""
    def decorator(obj):
        key = f"{package}>{name or obj.__name__}"
        if inspect.isclass(obj) and not hasattr(obj, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _REGISTERED[key] = obj
        _REGISTERED_NAMES[obj] = key
        return obj
    return decorator


def get_registered_name(obj):
    return _REGISTERED_NAMES.get(obj, getattr(obj, "__name__", None))


def get_registered_object(name, custom_objects=None, module_objects=None):
    for table in [custom_objects or {}] + list(reversed(_SCOPES)) + [_REGISTERED, module_objects or {}]:
        if name in table:
            return table[name]
    return None


class CustomObjectScope:
    """``with custom_object_scope({"MyLayer": MyLayer}):`` makes the names known to deserialization."""

    def __init__(self, *custom_objects):
        self._objects = {}
        for d in custom_objects:
            self._objects.update(d or {})

    def __enter__(self):
        _SCOPES.append(self._objects)
        return self

    def __exit__(self, *exc):
        _SCOPES.remove(self._objects)
        return False


custom_object_scope = CustomObjectScope


def _builtin_classes():
    table = {}
    for space in (keras.constraints, keras.regularizers, keras.initializers, keras.metrics, keras.losses,
                  keras.optimizers.schedules, keras.optimizers, keras.layers, keras.models):
        for attr in dir(space):
            value = getattr(space, attr)
            if inspect.isclass(value) and attr[0].isupper():
                table.setdefault((space.__name__.rsplit(".", 1)[-1], value.__name__), value)
                table.setdefault(value.__name__, value)
    return table


# ---- serialize / deserialize
def serialize_keras_object(obj):
    """obj as JSON-ready data: keras objects and functions as Keras 3's dicts; see Note [Keras object configs]."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (np.generic,)):
        return obj.item()
    if isinstance(obj, (np.ndarray, tf.Tensor)):
        return np.asarray(obj).tolist()
    if isinstance(obj, tf.DType):
        return obj.name
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): serialize_keras_object(v) for k, v in obj.items()}
    if not hasattr(obj, "get_config") and callable(obj) and hasattr(obj, "__name__") and not inspect.isclass(obj):
        return {"module": _public_module(obj), "class_name": "function", "config": obj.__name__,
                "registered_name": get_registered_name(obj)}
    if hasattr(obj, "get_config") and not inspect.isclass(obj):
        cls = type(obj)
        return {"module": cls.__module__, "class_name": cls.__name__, "config": obj.get_config(),
                "registered_name": get_registered_name(cls)}
    raise TypeError(f"Cannot serialize {obj!r} of type {type(obj).__name__}: it has no get_config")


def _public_module(fn):
    """The public namespace a function is reached from (tf.nn.relu is bound in a private module)."""
    from tapegrad.keras import activations
    for space in (activations, tf.nn, tf.math, tf):
        if getattr(space, fn.__name__, None) is fn:
            return space.__name__
    return getattr(fn, "__module__", None)


def _is_serialized(value):
    return isinstance(value, dict) and "class_name" in value and "config" in value


def _deserialize_nested(value):
    if _is_serialized(value):
        return deserialize_keras_object(value)
    if isinstance(value, list):
        return [_deserialize_nested(v) for v in value]
    return value


def _find(config, custom_objects):
    class_name, registered = config["class_name"], config.get("registered_name")
    module = config.get("module") or ""
    if class_name == "function":
        name = config["config"]
        found = get_registered_object(registered, custom_objects) or get_registered_object(name, custom_objects)
        if found is None and (module == "tapegrad" or module.startswith("tapegrad.")) and not name.startswith("_"):
            try:  # only tapegrad's own modules are imported, and only a function is taken from them
                found = getattr(importlib.import_module(module), name, None)
            except ImportError:
                found = None
            found = found if callable(found) and not inspect.isclass(found) and not inspect.ismodule(found) else None
        if found is None and module.startswith("keras"):
            from tapegrad.keras import activations, losses, metrics
            found = next((getattr(m, name) for m in (activations, losses, metrics) if hasattr(m, name)), None)
        return found
    found = get_registered_object(registered, custom_objects) or get_registered_object(class_name, custom_objects)
    if found is None and module.startswith("tapegrad.keras"):  # our own modules: the class named there
        try:
            found = getattr(importlib.import_module(module), class_name, None)
        except ImportError:
            found = None
        found = found if inspect.isclass(found) else None
    if found is None and (module.startswith("tapegrad.keras") or module.startswith("keras")):
        table = _builtin_classes()
        space = module.split(".")[-1] if module.startswith("keras.") and "src" not in module else None
        found = table.get((space, class_name)) if space else None
        found = found or table.get(class_name)
    return found


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The object a ``serialize_keras_object`` dict describes (a plain value is returned as it is)."""
    if not _is_serialized(config):
        return _deserialize_nested(config)
    with CustomObjectScope(custom_objects or {}):
        found = _find(config, custom_objects)
        if found is None:
            what = "function" if config["class_name"] == "function" else "class"
            name = config["config"] if what == "function" else config.get("registered_name") or config["class_name"]
            raise TypeError(f"Could not locate {what} '{name}' (module "
                            f"{config.get('module')!r}). Make sure custom classes are decorated with "
                            "`@keras.saving.register_keras_serializable()` or passed in custom_objects.")
        if config["class_name"] == "function":
            return found
        if not hasattr(found, "from_config"):
            raise TypeError(f"{found.__name__} has no from_config")
        return found.from_config(config["config"])


def _depth(value):
    """How many lists and dicts deep value nests (0 for a plain value), without recursing."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((c, depth + 1) for c in (v.values() if isinstance(v, dict) else v))
    return deepest


def loads_config(text):
    """The JSON text (str or bytes) of a config as Python values; a ValueError whose message follows the
    config's name when it is not JSON or nests deeper than MAX_CONFIG_DEPTH (Python's JSON parser
    would recurse until RecursionError)."""
    too_deep = ValueError(f"nests lists and dicts more than {MAX_CONFIG_DEPTH} deep (a damaged or hostile "
                          "file: a model's config is much shallower)")
    try:
        value = json.loads(text)
    except RecursionError:
        raise too_deep from None
    except ValueError as e:  # json's errors and UnicodeDecodeError
        raise ValueError(f"is not valid JSON ({type(e).__name__}: {e})") from None
    if _depth(value) > MAX_CONFIG_DEPTH:
        raise too_deep
    return value
