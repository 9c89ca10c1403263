"""The object graph a checkpoint saves: every Variable reachable from a Checkpoint, keyed by its path.

Note [Checkpoint keys]: the children of an object, in this order, are
  Checkpoint      its keyword arguments (and attributes set later), then "save_counter";
  keras Layer     its weights by add_weight name ("kernel", "bias"; "name_1" for a repeated name), then
                  Sequential's layers as "layer-0", "layer-1", ..., then public attributes;
  tf.Module       its attributes (sorted; lists, tuples and dicts inside are walked by index and key);
  Optimizer       "iter" (``iterations``); its slots are keyed under each variable they belong to:
                  "<variable key>/.OPTIMIZER_SLOT/<optimizer key>/<slot name>";
  list, tuple     "0", "1", ...; dict: its keys.
An object reached twice is saved once, under the first key. Restoring walks the same graph, so a model
rebuilt by the same code finds its values; values for objects that do not exist yet are kept and
assigned when the objects are created (see Note [Deferred restoration] in _restore.py).
"""
from tapegrad._module import Module
from tapegrad._tensor import Variable

SLOT = "/.OPTIMIZER_SLOT/"


def _is_optimizer(obj):
    from tapegrad.keras.optimizers.base import Optimizer
    return isinstance(obj, Optimizer)


def is_trackable(obj):
    from tapegrad.train.checkpoint import Checkpoint
    return isinstance(obj, (Variable, Module, Checkpoint)) or _is_optimizer(obj)


def _attribute_items(obj, public_only):
    for key in sorted(vars(obj)):
        if key.startswith("_") and (public_only or key in Module._MODULE_IGNORED):
            continue
        yield key, vars(obj)[key]


def children(obj):
    """(name, child) pairs of obj; see Note [Checkpoint keys]."""
    from tapegrad.train.checkpoint import Checkpoint
    if isinstance(obj, Checkpoint):
        items = list(obj._children.items())
        if obj._save_counter is not None:
            items.append(("save_counter", obj._save_counter))
        return items
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items()]
    if _is_optimizer(obj):
        return [("iter", obj.iterations)]
    if isinstance(obj, Module):
        if hasattr(obj, "_weight_keys"):  # a keras Layer
            items = list(obj._weight_keys)
            from tapegrad.keras.models import Sequential
            if isinstance(obj, Sequential):
                items += [(f"layer-{i}", layer) for i, layer in enumerate(obj.layers)]
            return items + list(_attribute_items(obj, True))
        return list(_attribute_items(obj, False))
    return []


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
        if not _is_optimizer(opt):
            continue
        for var_key, var in variables.items():
            slots = opt._slots.get(id(var))
            if slots:
                for name, slot in zip(opt._slot_names[id(var)], slots):
                    out[f"{var_key}{SLOT}{opt_key}/{name}"] = slot
    return out
