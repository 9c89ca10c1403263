"""keras.optimizers.Optimizer: slots, learning rate (float or schedule), clipping, weight decay, iterations.

Subclasses give ``build(var_list)`` (create slots with ``add_slots``) and an ``update_step(grad, var, lr)``
that runs one fused update op of ``tf.raw_ops`` (ResourceApplyAdam, ...) updating the variable and its
slots in place (Note [Fused optimizer updates]); everything shared happens here once, per step:
  1. drop (None, var) pairs with a warning naming the variables (all None: ValueError, as Keras 3);
  2. clip: clipvalue, then clipnorm (per gradient), then global_clipnorm (all gradients together);
  3. lr: the learning-rate Variable, or a schedule evaluated at ``iterations``; the scalar tensors the
     update ops read (``_step_values``: hyperparameters, coefficients of the step t = iterations + 1);
  4. decoupled weight decay (var -= lr * weight_decay * var), then update_step, per variable;
  5. variable constraints (``var.constraint``) projected; iterations += 1.
The state (slots, ``iterations``, the learning rate) lives in Variables, so the same calls traced inside a
``tf.function`` replay the whole update in the graph.
"""
import math
import warnings

import numpy as np

import tapegrad as tf

from tapegrad.keras.optimizers import _sparse
from tapegrad.keras.optimizers.schedules import LearningRateSchedule
from tapegrad.keras.saving._serialization import AutoConfig, serialize_keras_object

__all__ = ["Optimizer"]

_Tensor = tf.Tensor


def as_keras_constant(value):
    """A Python float hyperparameter as Keras uses it where it casts it to the variable's dtype: through
    a float32 constant, so a float64 variable sees it rounded to float32 (SGD's momentum, Adagrad's
    initial accumulator, the weight decay; checked against TF 2.21)."""
    return float(np.float32(value))


class Optimizer(AutoConfig):
    """Base optimizer.

    Args:
      learning_rate: a float, a LearningRateSchedule or a callable taking no arguments (``lr`` is an alias).
      weight_decay: decoupled weight decay (var -= lr * weight_decay * var before each update).
      clipnorm: clip each gradient to this L2 norm.
      clipvalue: clip each gradient element to [-clipvalue, clipvalue].
      global_clipnorm: clip all gradients together to this global L2 norm.
      name: the optimizer's name.
    """

    # Set by tf.distribute.MultiWorkerMirroredStrategy: sums the gradients over the ranks inside its replica
    # context (distribute/_multi_worker.py), as Keras aggregates under a strategy; None: no strategy did.
    _cross_replica_sum = None

    def __init__(self, learning_rate=0.001, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        if "lr" in kwargs:  # Keras 2's name, kept as an alias (Keras 3 refuses it: not recognized)
            learning_rate = kwargs.pop("lr")
        if kwargs.pop("decay", None) is not None:  # Keras 2's time decay: Keras 3 warns and ignores it
            warnings.warn("Argument `decay` is no longer supported and will be ignored.", UserWarning, stacklevel=2)
        if kwargs:  # Keras 3's error, for Keras 2's jit_compile and is_legacy_optimizer too
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        config = self.__dict__.get("_auto_config")
        if config is not None:  # get_config gives learning_rate, and no decay (as Keras 3)
            for arg in ("lr", "decay"):
                config.pop(arg, None)
        if clipnorm is not None and global_clipnorm is not None:
            raise ValueError("Only one of clipnorm and global_clipnorm can be set")
        for arg, value in (("clipnorm", clipnorm), ("clipvalue", clipvalue), ("global_clipnorm", global_clipnorm)):
            if value is not None and not value > 0:
                raise ValueError(f"{type(self).__name__}: {arg} must be positive, got {value}")
        if use_ema:
            raise NotImplementedError("use_ema is not supported")
        self.name = name or type(self).__name__
        # Keras's learning-rate Variable, of floatx's dtype (float32 by default, so a float64 variable's
        # update uses the rate rounded to float32, as in Keras): what ``learning_rate`` returns for a
        # number (.numpy() and .assign() work on it), read by every step, eager or traced.
        from tapegrad.keras import backend
        self._lr_var = tf.Variable(0.0, trainable=False, name="learning_rate", dtype=backend.floatx())
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.loss_scale_factor = loss_scale_factor
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self._iterations = tf.Variable(np.int64(0), trainable=False, name="iteration")
        self._slots = {}          # id(var) -> tuple of slot Variables
        self._slot_names = {}     # id(var) -> the slots' names ("m", "v")
        self._var_dtypes = {}     # id(var) -> its dtype (a Variable's dtype never changes)
        self._per_step = {}       # values read once per step (see _step)
        self._values = ()         # this step's _step_values()
        self._scalars = {}        # Python number -> its float64 scalar tensor (see _scalar)
        self._variables = []
        self._exclude_ids, self._exclude_names = set(), ()
        self.built = False

    # ---- learning rate
    @property
    def learning_rate(self):
        """The learning rate: for a number, Keras's Variable (``.assign()`` sets it); for a schedule,
        its value at ``iterations`` as a tensor of that dtype; for a callable, what it returns."""
        lr = self._learning_rate
        if lr is None:
            return self._lr_var
        if tf.inside_function():  # the graph evaluates it at each call
            return tf.cast(self._lr_tensor(), self._lr_var.dtype)
        if isinstance(lr, LearningRateSchedule):
            return tf.constant(float(lr(int(self._iterations.numpy()))), self._lr_var.dtype)
        return float(lr())

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(getattr(self, "_learning_rate", None), LearningRateSchedule):
            raise TypeError("This optimizer was created with a `LearningRateSchedule` object as its `learning_rate` "
                            "constructor argument, hence its learning rate is not settable. If you need the learning "
                            "rate to be settable, you should instantiate the optimizer with a float `learning_rate` "
                            "argument.")
        if isinstance(value, (tf.Tensor, tf.Variable, np.generic)):
            value = float(value)
        if not (isinstance(value, LearningRateSchedule) or callable(value) or isinstance(value, (int, float))):
            raise TypeError(f"{type(self).__name__}: learning_rate must be a float, a schedule or a callable, "
                            f"got {value!r}")
        if isinstance(value, (int, float)):
            self._lr_var.assign(np.asarray(value, self._lr_var.dtype.as_numpy_dtype))
            value = None  # the Variable holds it
        self._learning_rate = value

    lr = learning_rate

    def _lr_tensor(self):
        """This step's learning rate as a scalar tensor: the Variable (a graph sees later changes), or
        the schedule at ``iterations`` (with tensor ops while tracing, so each call evaluates it)."""
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            if tf.inside_function():
                return tf.cast(lr(tf.cast(self._iterations, tf.float64)), tf.float64)
            return tf.constant(float(lr(int(self._iterations.numpy()))), tf.float64)
        if callable(lr):  # evaluated per step eagerly; once (while tracing) in a tf.function, as in TF
            return tf.constant(float(lr()), tf.float64)
        return tf.cast(self._lr_var, tf.float64)

    @property
    def iterations(self):
        """The number of steps taken (a Variable, as in Keras)."""
        return self._iterations

    @iterations.setter
    def iterations(self, value):
        self._iterations.assign(np.int64(int(value)))

    # ---- slots
    def build(self, var_list):
        """Creates the slots of every variable; subclasses call ``add_slots``."""
        self.built = True

    def add_slots(self, var_list, names, initial_value=0.0, shapes=None):
        """One zero (or ``initial_value``: a number, or one per name) Variable per name for each variable
        in ``var_list``, of the variable's shape and dtype; ``shapes(var)`` lists other shapes, one per name."""
        values = initial_value if isinstance(initial_value, (list, tuple)) else [initial_value] * len(names)
        for var in var_list:
            if id(var) in self._slots:
                continue
            dims = shapes(var) if shapes is not None else [var.shape] * len(names)
            slots = tuple(tf.Variable(np.full(tuple(d), x, var.dtype.as_numpy_dtype), trainable=False,
                                      name=f"{_var_name(var)}_{n}") for n, x, d in zip(names, values, dims))
            self._slots[id(var)] = slots
            self._slot_names[id(var)] = tuple(names)  # checkpoint keys (train/_graph.py)
            self._var_dtypes[id(var)] = var.dtype
            self._variables.extend(slots)

    def slots(self, var):
        return self._slots[id(var)]

    # What tf.train.Checkpoint saves of an optimizer (Note [Checkpoint keys] in train/_graph.py).
    def _checkpoint_children(self):
        return [("iter", self._iterations)]

    def _checkpoint_slots(self, var):
        """[(slot name, slot Variable)] of var (empty when it has none yet)."""
        return list(zip(self._slot_names.get(id(var), ()), self._slots.get(id(var), ())))

    @property
    def variables(self):
        return [self._iterations] + list(self._variables)

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        self._exclude_ids |= {id(v) for v in var_list or ()}
        self._exclude_names = tuple(var_names or ())

    def _decay_for(self, var):
        """var's decoupled weight decay (0 when var is excluded)."""
        if not self.weight_decay or id(var) in self._exclude_ids:
            return 0.0
        if any(n in _var_name(var) for n in self._exclude_names):
            return 0.0
        return float(self.weight_decay)

    # ---- applying gradients
    def update_step(self, grad, var, lr):
        """Updates var and its slots in place from grad (lr is a scalar tensor): one ``tf.raw_ops`` op."""
        raise NotImplementedError(f"{type(self).__name__} must define update_step")

    def sparse_update_step(self, terms, var, lr):
        """The step for an IndexedSlices gradient (terms: _sparse.Terms; Note [Sparse updates]): the dense
        step on the rows summed, unless the update squares the gradient (those optimizers override it)."""
        self.update_step(terms.dense, var, lr)

    @staticmethod
    def _as_sparse_grad(g, v):
        shape = None if g.dense_shape is None else [int(d) for d in np.asarray(g.dense_shape)]
        if shape is not None and shape != list(v.shape):
            raise ValueError(f"apply_gradients: gradient of shape {tuple(shape)} does not match variable "
                             f"'{_var_name(v)}' of shape {tuple(v.shape)}")
        return g

    def _step_values(self):
        """The scalar tensors update_step reads (hyperparameters, step-dependent coefficients), computed
        once per step into ``self._values``."""
        return ()

    def _scalar(self, value):
        """A hyperparameter as a float64 scalar tensor, made once per value: the update ops take
        scalar tensors, and converting a Python float per variable and step would cost more."""
        t = self._scalars.get(value)
        if t is None:
            t = self._scalars[value] = tf.convert_to_tensor(float(value), tf.float64)
        return t

    def _step(self):
        """This step's t = iterations + 1, read once per step: a float, or a float64 tensor while tracing."""
        t = self._per_step.get("t")
        if t is None:
            t = self._per_step["t"] = (tf.cast(self._iterations + 1, tf.float64) if tf.inside_function()
                                       else float(self._iterations.numpy()) + 1.0)
        return t

    def _step_tensor(self):
        """This step's t as a float64 scalar tensor."""
        t = self._step()
        return tf.convert_to_tensor(t, tf.float64) if isinstance(t, float) else t

    def scale_loss(self, loss):
        """The loss times ``loss_scale_factor`` when one is set (apply_gradients divides the gradients by it)."""
        return loss if self.loss_scale_factor is None else loss * self.loss_scale_factor

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False, **kwargs):
        """Applies one step: ``apply_gradients(zip(grads, vars))``. Returns ``iterations``."""
        if self._cross_replica_sum is not None and not skip_gradients_aggregation:
            grads_and_vars = self._cross_replica_sum(grads_and_vars)
        if self.loss_scale_factor is not None:
            grads_and_vars = [(_sparse.divided(g, self.loss_scale_factor), v) for g, v in grads_and_vars]
        grads, variables, missing, given = [], [], [], []
        for g, v in grads_and_vars:  # one pass: every step goes through here
            given.append(v)
            if g is None:
                missing.append(v)
            else:
                grads.append(g)
                variables.append(v)
        if missing:  # as Keras 3: slots for every variable given, then None skipped (all None: refused)
            self._build_for(given)
            if not variables:
                raise ValueError("No gradients provided for any variable.")
            names = [getattr(v, "path", None) or v.name for v in missing]  # Keras's: a tf.Variable's "b:0"
            warnings.warn(f"Gradients do not exist for variables {names} when minimizing the loss. If using "
                          "`model.compile()`, did you forget to provide a `loss` argument?", UserWarning, stacklevel=2)
        if not variables:  # an empty list: nothing to do
            return self._iterations
        self._build_for(variables)
        # A tensor of the variable's dtype goes as it is (the update op checks its shape; DTypes are unique).
        var_dtypes = self._var_dtypes
        clipping = self.clipvalue is not None or self.clipnorm is not None or self.global_clipnorm is not None
        grads = [g if type(g) is _Tensor and g.dtype is var_dtypes.get(id(v)) else
                 _sparse.Terms(self._as_sparse_grad(g, v), v) if isinstance(g, tf.IndexedSlices) and not clipping
                 else self._as_grad(g, v) for g, v in zip(grads, variables)]  # (Note [Sparse updates])
        if clipping:  # (an IndexedSlices is clipped as the dense tensor it stands for)
            grads = self._clip(grads)
        lr = self._lr_tensor()
        self._per_step.clear()
        self._values = self._step_values()
        try:
            for g, v in zip(grads, variables):
                decay = self._decay_for(v) if self.weight_decay else 0.0
                if decay:  # as Keras: var * weight_decay * lr, the decay through a float32 constant
                    v.assign_sub(v * tf.cast(self._scalar(as_keras_constant(decay)), v.dtype) * tf.cast(lr, v.dtype))
                if type(g) is _sparse.Terms:
                    self.sparse_update_step(g, v, lr)
                else:
                    self.update_step(g, v, lr)
        except tf.errors.InvalidArgumentError:
            for g, v in zip(grads, variables):
                if type(g) is not _sparse.Terms:
                    self._as_grad(g, v)  # a gradient of another shape: say which variable (the variables before
            raise                    # it are updated, as in Keras)
        for v in variables:  # as Keras: constraints project each variable right after its update
            if getattr(v, "constraint", None) is not None:
                v.assign(v.constraint(v))
        self._iterations.assign_add(1)
        return self._iterations

    def _build_for(self, variables):
        """Builds the slots of any of ``variables`` that has none yet."""
        slots = self._slots
        if not self.built or any(id(v) not in slots for v in variables):
            for v in variables:
                if not isinstance(v, tf.Variable):
                    raise TypeError(f"{self.name}: apply_gradients needs Variables, got {type(v).__name__}")
            self.build(variables)
            self.built = True

    def minimize(self, loss, var_list, tape=None):
        """Computes the gradients of ``loss`` (a callable, or a tensor with ``tape``) and applies them."""
        if tape is None:
            with tf.GradientTape() as tape:
                value = loss()
        else:
            value = loss
        var_list = var_list() if callable(var_list) else list(var_list)
        grads = tape.gradient(value, var_list)
        self.apply_gradients(zip(grads, var_list))
        return self._iterations

    @staticmethod
    def _as_grad(g, v):
        if isinstance(g, tf.Tensor) and g.dtype == v.dtype and g.shape == v.shape:
            return g
        g = tf.convert_to_tensor(g)
        if g.dtype != v.dtype:
            g = tf.cast(g, v.dtype)
        if tuple(g.shape) != tuple(v.shape):
            raise ValueError(f"apply_gradients: gradient of shape {tuple(g.shape)} does not match variable "
                             f"'{_var_name(v)}' of shape {tuple(v.shape)}")
        return g

    def _clip(self, grads):
        if self.clipvalue is not None:
            grads = [tf.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        if tf.inside_function():  # norms as tensor ops, so each call of the graph measures its own gradients
            if self.clipnorm is not None:
                grads = [_scaled_traced(g, self.clipnorm, tf.sqrt(tf.reduce_sum(g * g))) for g in grads]
            if self.global_clipnorm is not None:
                total = tf.sqrt(tf.add_n([tf.reduce_sum(tf.cast(g * g, tf.float64)) for g in grads]))
                grads = [_scaled_traced(g, self.global_clipnorm, total) for g in grads]
            return grads
        if self.clipnorm is not None:
            grads = [_scaled(g, self.clipnorm, _norm(g)) for g in grads]
        if self.global_clipnorm is not None:
            total = math.sqrt(sum(_norm(g) ** 2 for g in grads))
            grads = [_scaled(g, self.global_clipnorm, total) for g in grads]
        return grads

    def get_config(self):
        """The constructor's arguments with the current values of the shared ones; Note [Keras object configs]."""
        return {**self._constructor_config(), "name": self.name,
                "learning_rate": (float(self._lr_var.numpy()) if self._learning_rate is None
                                  else serialize_keras_object(self._learning_rate)),
                "weight_decay": self.weight_decay,
                "clipnorm": self.clipnorm, "clipvalue": self.clipvalue, "global_clipnorm": self.global_clipnorm}


# Note [Fused optimizer updates]
# An update_step is one stateful C++ op per variable, TF's fused training ops of tf.raw_ops
# (cpp/ops/optim.cpp: ResourceApplyAdam, ...), updating the variable and its slots in place: written
# with other public ops, an Adam step would be a dozen ops and temporaries per variable. Their
# hyperparameters are scalar inputs, so a traced step reads this call's learning rate and step.
# Adagrad, Adamax, Ftrl, Lion and Adafactor have no fused op yet and write their rule in public ops
# (assign, assign_add, assign_sub on the slots), as Keras does, which a traced step replays the same way.
def _var_name(v):
    return getattr(v, "path", None) or v.name.split(":")[0]


def _norm(g):
    return float(np.linalg.norm(np.asarray(g.numpy(), dtype=np.float64)))


def _scaled(g, limit, norm):
    """g * limit / max(norm, limit): unchanged when within the limit."""
    return g if norm <= limit else g * tf.constant(limit / norm, dtype=g.dtype)


def _scaled_traced(g, limit, norm):
    """_scaled with the norm a traced tensor."""
    return g * tf.cast(limit / tf.maximum(tf.cast(norm, tf.float64), limit), g.dtype)
