"""Restoring checkpoint values into an object graph, now or when the objects are created.

Note [Deferred restoration]: a value whose object does not exist yet (a layer not built, a slot not
created) is kept on the deepest existing object of its key, in ``_deferred_restorations``
({relative key: Entry}). When that object gets the missing child -- ``add_weight`` of a layer, an
attribute set on a Module or Checkpoint, ``Sequential.add`` -- ``deliver`` assigns the value, or hands
the entries on to the new child. Slot values whose variable exists but whose optimizer has not built
its slots yet wait in the optimizer's ``_deferred_slots`` and become the slots' initial values. Each
delivery marks its key consumed in the restore's status (``assert_consumed``). Slot values whose
optimizer is not in the graph at restore time are not kept (they stay unconsumed).
"""
import dataclasses
from typing import Any, Optional

import numpy as np

from tapegrad._module import Module
from tapegrad._tensor.tensor import Variable
from tapegrad.train import _graph, checkpoint as _checkpoint


@dataclasses.dataclass
class Entry:
    """One value from a checkpoint: its key in the file, the array, and for a slot its optimizer."""
    key: str
    array: Any
    session: Any
    optimizer: Optional[Any] = None
    slot: Optional[str] = None


class Session:
    """What one restore matched and what it still waits for (read by the status object)."""

    def __init__(self, path, root):
        self.path, self.root = path, root
        self.unconsumed = set()
        self.matched = set()  # id() of every variable given a value


def _checked(entry, var, what):
    """entry.array cast to var's dtype; ValueError naming the file, key and shapes when it does not fit."""
    arr = entry.array
    if tuple(arr.shape) != tuple(var.shape):
        raise ValueError(f"Checkpoint {entry.session.path}: received incompatible tensor with shape "
                         f"{tuple(arr.shape)} for key '{entry.key}' when restoring {what} with shape "
                         f"{tuple(var.shape)} and name {var.name}")
    target = np.dtype(var.dtype.as_numpy_dtype)
    if arr.dtype != target and not np.can_cast(arr.dtype, target, "same_kind"):
        raise ValueError(f"Checkpoint {entry.session.path}: key '{entry.key}' holds {arr.dtype} values, "
                         f"which cannot restore {what} {var.name} of dtype {var.dtype.name}")
    return arr.astype(target, copy=False)


def _defer(objects, relkey, entry, plan):
    """Plans keeping entry on the deepest object on relkey's path that can receive children."""
    parts = relkey.split("/")
    for n in range(len(parts) - 1, -1, -1):
        owner = objects.get("/".join(parts[:n]))
        if owner is not None and (isinstance(owner, Module) or _holds_children(owner)):
            plan.append(("defer", owner, "/".join(parts[n:]), entry))
            return


def _holds_children(obj):
    return isinstance(obj, _checkpoint.Checkpoint)


def apply(root, entries):
    """Restores {relative key: Entry} into the graph under root: checks everything, then assigns.

    Returns nothing; raises ValueError (nothing assigned) when any present variable does not fit."""
    variables, objects = _graph.walk(root)
    slots = _graph.slot_variables(variables, objects)
    plan = []
    for relkey, entry in entries.items():
        if relkey in variables:
            plan.append(("assign", variables[relkey], _checked(entry, variables[relkey], "variable"), entry))
        elif relkey in slots:
            plan.append(("assign", slots[relkey], _checked(entry, slots[relkey], "slot variable"), entry))
        elif _graph.SLOT in relkey:
            var_key, _, rest = relkey.partition(_graph.SLOT)
            if entry.optimizer is None:  # from the file: find the optimizer now
                opt_key, _, name = rest.rpartition("/")
                entry.optimizer, entry.slot = objects.get(opt_key), name
                if entry.optimizer is None:
                    continue  # no such optimizer: left unconsumed
            var = variables.get(var_key)
            if var is not None:
                _checked(entry, var, "a slot of variable")
                plan.append(("slot", entry.optimizer, var, entry))
            else:
                _defer(objects, relkey, entry, plan)
        else:
            _defer(objects, relkey, entry, plan)
    for action, target, value, entry in plan:  # everything fits: now change state
        if action == "assign":
            target.assign(value)
            entry.session.matched.add(id(target))
            entry.session.unconsumed.discard(entry.key)
        elif action == "slot":
            _defer_slot(target, value, entry)
        else:
            target.__dict__.setdefault("_deferred_restorations", {})[value] = entry


def deliver(owner, name, child):
    """owner just got child under name: restore the values waiting for it; see Note [Deferred restoration]."""
    pending = owner.__dict__.get("_deferred_restorations")
    if not pending:
        return
    prefix = name + "/"
    mine = {k: e for k, e in pending.items() if k == name or k.startswith(prefix)}
    if not mine:
        return
    if isinstance(child, Variable):
        entries = {k: e for k, e in mine.items() if k == name or k.startswith(prefix + _graph.SLOT[1:])}
        for key in entries:
            del pending[key]
        slots = [e for k, e in entries.items() if k != name]
        for entry in slots:  # check everything before assigning anything
            _checked(entry, child, "a slot of variable")
        if name in entries:
            child.assign(_checked(entries[name], child, "variable"))
            entries[name].session.matched.add(id(child))
            entries[name].session.unconsumed.discard(entries[name].key)
        for entry in slots:
            _defer_slot(entry.optimizer, child, entry)
            deliver_slots(entry.optimizer, child)
        return
    if not _graph.is_trackable(child) and not isinstance(child, (list, tuple, dict)):
        return
    for key in mine:
        del pending[key]
    sub = {k[len(prefix):]: e for k, e in mine.items() if k != name}
    apply(child, sub)


def _defer_slot(optimizer, var, entry):
    """Keeps a slot value until the optimizer creates var's slots: its add_slots is wrapped (on this
    instance) to hand the values over right after."""
    pending = optimizer.__dict__.get("_deferred_slots")
    if pending is None:
        pending = optimizer.__dict__["_deferred_slots"] = {}
        original = optimizer.add_slots

        def add_slots(var_list, *args, **kwargs):
            out = original(var_list, *args, **kwargs)
            for v in var_list:
                deliver_slots(optimizer, v)
            return out
        optimizer.__dict__["add_slots"] = add_slots
    pending.setdefault(id(var), (var, {}))[1][entry.slot] = entry


def deliver_slots(optimizer, var):
    """The optimizer just made var's slots: assign the slot values restored for them."""
    pending = optimizer.__dict__.get("_deferred_slots", {})
    item = pending.get(id(var))
    slots = optimizer._checkpoint_slots(var)
    if item is None or item[0] is not var or not slots:
        return
    del pending[id(var)]
    for name, slot in slots:
        entry = item[1].get(name)
        if entry is not None:
            slot.assign(_checked(entry, slot, "slot variable"))
            entry.session.matched.add(id(slot))
            entry.session.unconsumed.discard(entry.key)
