"""Configs as Keras 3 writes and reads them in ``config.json``: tapegrad's configs to Keras's and back.

Note [Keras 3 configs]: tapegrad's serialized objects already have Keras 3's shape (Note [Keras object
configs]); what differs is spelled here, once per direction.
  to_keras:   a builtin class's "module" becomes its Keras namespace ("keras.layers", "keras.optimizers",
              ..., a Sequential "keras", a Functional "keras.src.models.functional") with
              "registered_name" null (Functional: "Functional"), as Keras writes them; a registered class
              keeps its "package>Name". An InputLayer's config becomes Keras's {"batch_shape", "dtype",
              "sparse", "name"}; a layer's input_shape, batch_input_shape
              and input_dim are left out when None.
  from_keras: a DTypePolicy dict becomes its dtype name; "shared_object_id" and a nested layer's
              "build_config" (the model's own builds it) are dropped, and so is a call's mask=None in
              "inbound_nodes"; arguments Keras writes that tapegrad's constructors lack are dropped by
              from_config when the class takes no **kwargs, else here (KERAS_ONLY, and NONE_ONLY when
              None).
"""

__all__ = ["to_keras", "from_keras"]

_NAMESPACES = ("layers", "optimizers", "initializers", "losses", "metrics", "regularizers", "constraints",
               "activations")
# arguments Keras 3 writes that tapegrad's constructors do not take (Keras's defaults)
KERAS_ONLY = {"quantization_config", "synchronized", "renorm", "renorm_clipping", "renorm_momentum", "optional",
              "ragged", "sparse", "lora_rank", "lora_alpha", "loss_scale_factor", "gradient_accumulation_steps",
              "use_ema", "ema_momentum", "ema_overwrite_frequency", "input_axes", "output_axes",
              "zero_output_for_mask"}
# arguments dropped when None (their default), since not every tapegrad constructor takes them
NONE_ONLY = {"activity_regularizer"}


_SHAPE_ARGS = ("input_shape", "batch_input_shape", "input_dim")


def _keras_module(module, class_name):
    if class_name == "Sequential":
        return "keras"
    if class_name == "Functional":
        return "keras.src.models.functional"
    parts = (module or "").split(".")
    if parts[:2] == ["tapegrad", "keras"]:
        if "schedules" in parts:
            return "keras.optimizers.schedules"
        for part in parts[2:]:
            if part in _NAMESPACES:
                return "keras." + part
        if len(parts) > 2 and parts[2] == "models":
            return "keras.models"
    return module


def _input_layer(config):
    shape = config.get("batch_shape")
    if shape is None:
        inner = config.get("shape") if config.get("shape") is not None else config.get("input_shape")
        shape = None if inner is None else [config.get("batch_size")] + list(inner)
    return {"batch_shape": shape, "dtype": config.get("dtype", "float32"), "sparse": False,
            "name": config.get("name")}


def to_keras(value):
    """A tapegrad config (nested serialized dicts) as Keras 3 writes it."""
    if isinstance(value, list):
        return [to_keras(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: to_keras(v) for k, v in value.items()}
    if "class_name" in value and "config" in value and "module" in value:
        module, cls = value["module"], value["class_name"]
        builtin = isinstance(module, str) and module.startswith("tapegrad.keras")
        out["module"] = _keras_module(module, cls)
        if builtin:
            out["registered_name"] = "Functional" if cls == "Functional" else None
        if cls == "InputLayer" and builtin and isinstance(value["config"], dict):
            out["config"] = _input_layer(value["config"])
        elif builtin and isinstance(out["config"], dict):  # Keras's Layer takes no batch_input_shape
            out["config"] = {k: v for k, v in out["config"].items() if not (k in _SHAPE_ARGS and v is None)}
    return out


def from_keras(value, top=True):
    """A Keras 3 config as tapegrad's deserialization reads it (``top``: the model's own, whose
    build_config stays)."""
    if isinstance(value, list):
        return [from_keras(v, False) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get("class_name") in ("DTypePolicy", "FloatDTypePolicy") and isinstance(value.get("config"), dict):
        return value["config"].get("name", "float32")
    out = {}
    for k, v in value.items():
        if k in ("shared_object_id",):
            continue
        out[k] = from_keras(v, False)
    if "class_name" in out and isinstance(out.get("config"), dict):
        if not top:
            out.pop("build_config", None)
        for node in out.get("inbound_nodes") or []:  # a call's mask=None is every layer's default
            kwargs = node.get("kwargs") if isinstance(node, dict) else None
            if isinstance(kwargs, dict) and "mask" in kwargs and kwargs["mask"] is None:
                node["kwargs"] = {k: v for k, v in kwargs.items() if k != "mask"}
        out["config"] = {k: v for k, v in out["config"].items()
                         if k not in KERAS_ONLY and not (k in NONE_ONLY and v is None)}
    return out
