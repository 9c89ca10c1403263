"""The object graph a checkpoint saves: every Variable reachable from a Checkpoint, keyed by its path.

Note [Checkpoint keys]: each trackable object names its children in ``_checkpoint_children()``:
  Checkpoint      its keyword arguments (and attributes set later), then "save_counter";
  keras Layer     its weights by add_weight name ("kernel", "bias"; "name_1" for a repeated name), then
                  its public attributes, then (Sequential) its layers as "layer-0", "layer-1", ...;
  tf.Module       its attributes (sorted; lists, tuples and dicts inside are walked by index and key);
  Optimizer       "iter" (``iterations``); its slots (``_checkpoint_slots(var)``) are keyed under each
                  variable they belong to: "<variable key>/.OPTIMIZER_SLOT/<optimizer key>/<slot name>";
  list, tuple     "0", "1", ...; dict: its keys.
An object reached twice is saved once, under the first key. Restoring walks the same graph, so a model
rebuilt by the same code finds its values; values for objects that do not exist yet are kept and
assigned when the objects are created (see Note [Deferred restoration] in _restore.py).
"""
from tapegrad._tensor import Variable

SLOT = "/.OPTIMIZER_SLOT/"


def is_trackable(obj):
    """Whether a checkpoint walks into obj: a Variable, or an object naming its children through
    ``_checkpoint_children()`` (tf.Module, keras layers and optimizers, Checkpoint)."""
    return isinstance(obj, Variable) or hasattr(type(obj), "_checkpoint_children")


def children(obj):
    """(name, child) pairs of obj; see Note [Checkpoint keys]."""
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items()]
    if isinstance(obj, Variable):
        return []
    return obj._checkpoint_children() if hasattr(type(obj), "_checkpoint_children") else []


def _containers_hold_trackables(value):
    if isinstance(value, (list, tuple)):
        return any(_containers_hold_trackables(v) for v in value)
    if isinstance(value, dict):
        return any(_containers_hold_trackables(v) for v in value.values())
    return is_trackable(value)


def walk(root):
    """({key: Variable}, {key: object}) for everything reachable from root (root itself is key "")."""
    variables, objects, seen = {}, {"": root}, {id(root)}
    stack = [("", root)]
    while stack:
        prefix, obj = stack.pop(0)
        for name, child in children(obj):
            if id(child) in seen or not _containers_hold_trackables(child):
                continue
            seen.add(id(child))
            key = f"{prefix}/{name}" if prefix else str(name)
            if isinstance(child, Variable):
                variables[key] = child
            else:
                objects[key] = child
                stack.append((key, child))
    return variables, objects


def slot_variables(variables, objects):
    """{slot key: slot Variable} for every optimizer in objects and every variable it holds slots for."""
    out = {}
    for opt_key, opt in objects.items():
        if not hasattr(type(opt), "_checkpoint_slots"):
            continue
        for var_key, var in variables.items():
            for name, slot in opt._checkpoint_slots(var):
                out[f"{var_key}{SLOT}{opt_key}/{name}"] = slot
    return out
