"""The package's one install step: what importing tapegrad sets up besides defining names.

Run once by ``__init__`` after every public module is loaded, in this order:
  1. the package directory, which the binding uses to find the user's frame for error messages;
  2. Tensor's Python surface (operators, __getitem__, numpy(), ...), whose methods are public ops;
  3. the binding's failure hook, through which a C++-bound op hands a call it cannot take to the
     op's declared fallback or to keras (Note [Op dispatch] in _ops/_dispatch.py).
"""
import importlib.machinery
import importlib.util
import os
import sys

from tapegrad import _core
from tapegrad._ops import _dispatch
from tapegrad._ops.array import computed_attrs
from tapegrad._tensor.tensor import install_tensor_surface

__all__ = ["install", "lazy_module"]


def install(package):
    _core._set_package_dir(os.path.dirname(os.path.abspath(package.__file__)) + os.sep)
    install_tensor_surface()
    _core._set_failure_hook(_dispatch.on_failure)
    _core._set_list_packer(computed_attrs.pack_if_traced)


class _LoadedMeanwhile:
    """A finder (first on sys.meta_path) for the one case where the import system would run a module a
    second time. Importing ``tapegrad.keras.layers`` while ``tapegrad.keras`` is still lazy: the
    import system checks sys.modules, then reads the parent's __path__, which runs keras/__init__,
    which imports ``tapegrad.keras.layers``; the import system would then load that module again,
    and two Layer classes would exist. This finder answers for a module that is in sys.modules by
    then, with the module itself (its own spec kept)."""

    def find_spec(self, name, path=None, target=None):
        module = sys.modules.get(name)
        if module is None or not name.startswith("tapegrad."):
            return None
        spec = importlib.machinery.ModuleSpec(name, self, origin=getattr(module.__spec__, "origin", None),
                                              is_package=hasattr(module, "__path__"))
        spec.loader_state = module.__spec__
        return spec

    def create_module(self, spec):
        return sys.modules[spec.name]

    def exec_module(self, module):
        module.__spec__ = module.__spec__.loader_state or module.__spec__  # the spec it was loaded with


def lazy_module(name):
    """The module ``name`` (a tapegrad submodule), put in sys.modules now and run at its first attribute
    access (importlib's LazyLoader). A module-level __getattr__ on tapegrad would do the same, but
    CPython then stops specializing every ``tf.<name>`` lookup (30-60 ns more per op call)."""
    if name in sys.modules:
        return sys.modules[name]
    if not any(isinstance(f, _LoadedMeanwhile) for f in sys.meta_path):
        sys.meta_path.insert(0, _LoadedMeanwhile())
    parts = name.split(".")
    directory = os.path.join(os.path.dirname(os.path.abspath(sys.modules["tapegrad"].__file__)), *parts[1:-1])
    spec = importlib.machinery.PathFinder.find_spec(name, [directory])
    if spec is None:
        raise ImportError(f"tapegrad: no module {name} in {directory}")
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
