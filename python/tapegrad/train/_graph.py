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
In TF's file format the graph is written with TF + Keras 3's names instead (tf_object_graph, Note
[Keras 3 object graph] in _keras3.py) and read back into these keys (entries_from_tf_graph).
"""
from tapegrad._tensor.tensor import Variable
from tapegrad.train import _keras3
from tapegrad.train._bundle import VALUE_SUFFIX, node_paths

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


def tf_object_graph(root):
    """(nodes, {checkpoint key: array}) of TF's TrackableObjectGraph for everything reachable from root.

    Children are named as TF + Keras 3 name them (Note [Keras 3 object graph] in _keras3.py). Node ids
    follow a breadth-first walk, as TF numbers them; a node reached again is linked, not repeated. A
    variable's value is the attribute "VARIABLE_VALUE" under "<first path>/.ATTRIBUTES/VARIABLE_VALUE"
    (an optimizer's slots are variables in its lists, as Keras 3 keeps them).
    """
    by_id = _keras3.variables_by_id(root)
    nodes, ids, paths, tensors = [{"children": []}], {id(root): 0}, [""], {}
    queue = [root]
    while queue:
        obj = queue.pop(0)
        node = nodes[ids[id(obj)]]
        for name, child in _keras3.children(obj, by_id):
            if child is None or not _containers_hold_trackables(child):
                continue
            if id(child) not in ids:
                ids[id(child)] = len(nodes)
                path = f"{paths[ids[id(obj)]]}/{name}" if ids[id(obj)] else str(name)
                nodes.append({"children": []})
                paths.append(path)
                if isinstance(child, Variable):
                    _add_value(nodes[-1], child, path + VALUE_SUFFIX, tensors)
                else:
                    queue.append(child)
            node["children"].append((ids[id(child)], str(name)))
    return nodes, tensors


def _add_value(node, var, key, tensors):
    node["attributes"] = [("VARIABLE_VALUE", var.name.split(":")[0], key)]
    tensors[key] = var.numpy()


def entries_from_tf_graph(nodes, arrays, root):
    """({tapegrad relative key: checkpoint key}, {checkpoint key: Variable}) for the values in a TF
    checkpoint's object graph; the second holds variables that tapegrad's own keys do not name.

    TF matches values to objects by the graph, not by key: a value belongs to the object reached from
    the root by the same chain of child names (Keras 3's names, Note [Keras 3 object graph]). A node
    reached by several chains is matched by the first that exists in root's graph now; a node matching
    nothing yet keeps its shortest chain, which deferred restoration finds when the chain uses
    tapegrad's own names (Modules, dicts, lists, Checkpoint attributes; not Keras-internal names)."""
    variables, objects = walk(root)
    own = {id(v): k for k, v in list(variables.items()) + list(slot_variables(variables, objects).items())}
    keras_walk = _keras3.walk(root)
    tf_paths = {p: own[id(v)] for p, v in keras_walk.items() if id(v) in own}
    paths = node_paths(nodes)
    out, direct = {}, {}

    def pick(candidates):  # tapegrad's key of the first chain that exists now, else a translated chain
        found = next((tf_paths[p] for p in candidates if p in tf_paths), None)
        if found is None:
            found = next((k for k in map(lambda p: _keras3.tapegrad_key(root, p), candidates) if k), None)
        return found

    var_keys = {}
    for i, node in enumerate(nodes):
        for name, _, key in node["attributes"]:
            if name == "VARIABLE_VALUE" and key in arrays and paths.get(i):
                extra = next((keras_walk[p] for p in paths[i]
                              if p in keras_walk and id(keras_walk[p]) not in own), None)
                if extra is not None:  # only Keras 3 names reach it (an optimizer's learning rate)
                    direct[key] = extra
                else:
                    var_keys[i] = (pick(paths[i]), key)
    slots = _keras3.slot_keys(nodes, paths, root, lambda i: var_keys.get(i, (None,))[0])
    for i, (rel, key) in var_keys.items():
        rel = slots.get(i, rel)
        if rel is not None and (rel not in out or i in slots):
            out[rel] = key
    for i, node in enumerate(nodes):
        for var_id, slot_name, slot_id in node["slots"]:
            keys = [a[2] for a in nodes[slot_id]["attributes"] if a[0] == "VARIABLE_VALUE" and a[2] in arrays]
            if keys and paths.get(var_id) and paths.get(i):
                out[f"{var_keys.get(var_id, (paths[var_id][0],))[0]}{SLOT}{paths[i][0]}/{slot_name}"] = keys[0]
    return out, direct
