"""Recurrent layers: the cells SimpleRNNCell, LSTMCell, GRUCell; RNN(cell); SimpleRNN, LSTM, GRU; Bidirectional.

Weights are laid out as Keras lays them out (kernel [features, k * units], recurrent_kernel
[units, k * units]; LSTM gates i, f, c, o; GRU gates z, r, h), so weights copied from Keras
give Keras's values. An LSTM with its default activations runs its whole time loop in one fused
op (tf.raw_ops.LSTMSequence: one GEMM for every step's input projection, one per step for the
recurrence, and a fused backward through time), and so does a GRU (reset_after, default
activations: tf.raw_ops.GRUSequence) and a tanh SimpleRNN (tf.raw_ops.RNNSequence); other
cells step in a loop over time.
"""
import tapegrad as tf
from tapegrad.keras import activations, constraints, initializers, regularizers
from tapegrad.keras.layers.base import Layer


def _check_fraction(layer, name, value, supported=True):
    if not 0 <= value < 1:
        raise ValueError(f"{layer}: {name} must be in [0, 1), got {value!r}")
    if value and not supported:
        raise tf.errors.UnimplementedError(None, None, f"{layer}: {name} > 0 is not supported yet, got {value!r}")


def _sizes(cell):
    return list(cell.state_size) if isinstance(cell.state_size, (list, tuple)) else [cell.state_size]


def _zero_states(cell, batch_size, dtype):
    if batch_size is None:
        raise ValueError(f"{getattr(cell, 'name', type(cell).__name__)}: get_initial_state needs batch_size")
    return [tf.zeros([batch_size, s], dtype=dtype) for s in _sizes(cell)]


class _Cell(Layer):
    """What the three cells share: arguments, weights and the shape check of one step's input."""

    gates = 1

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"{type(self).__name__}: units must be a positive int, got {units!r}")
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        _check_fraction(type(self).__name__, "dropout", dropout)
        _check_fraction(type(self).__name__, "recurrent_dropout", recurrent_dropout, supported=False)
        self.dropout, self.recurrent_dropout, self.seed = dropout, recurrent_dropout, seed

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def _bias_shape(self):
        return (self.gates * self.units,)

    def _bias_init(self):
        return self.bias_initializer

    def build(self, input_shape):
        features = input_shape[-1]
        if features is None:
            raise ValueError(f"{self.name}: the last axis of the input must be known, got shape {tuple(input_shape)}")
        n = self.gates * self.units
        self.kernel = self.add_weight(shape=(features, n), initializer=self.kernel_initializer, name="kernel",
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(shape=(self.units, n), initializer=self.recurrent_initializer,
                                                name="recurrent_kernel", regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        self.bias = self.add_weight(shape=self._bias_shape(), initializer=self._bias_init(), name="bias",
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def get_initial_state(self, batch_size=None, dtype=None):
        """Zeros [batch_size, size] per state (Keras 3 passes batch_size by keyword)."""
        return _zero_states(self, batch_size, dtype or self.dtype)

    def get_config(self):
        return {**super().get_config(), "units": self.units, "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias, "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
                "seed": self.seed}


class SimpleRNNCell(_Cell):
    """h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias)."""

    @property
    def fused(self):
        """Whether the fused RNNSequence op computes this cell (activation tanh, Keras's default)."""
        return self.activation is activations.tanh

    def call(self, inputs, states, training=None):
        h = states[0] if isinstance(states, (list, tuple)) else states
        z = tf.matmul(inputs, self.kernel) + tf.matmul(h, self.recurrent_kernel)
        if self.bias is not None:
            z = z + self.bias
        out = self.activation(z)
        return out, [out]


class LSTMCell(_Cell):
    """Gates i, f, c, o from x_t @ kernel + h_{t-1} @ recurrent_kernel + bias; c_t = f c_{t-1} + i c̃; h_t = o tanh(c_t).

    unit_forget_bias=True starts the forget gate's bias at 1 (Keras's default).
    """

    gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 unit_forget_bias=True, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_init(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, u = self.bias_initializer, self.units

        def init(shape, dtype=None):
            b = base((u,), dtype=dtype)
            return tf.concat([b, tf.ones([u], dtype=b.dtype), base((2 * u,), dtype=dtype)], 0)
        return init

    @property
    def fused(self):
        """Whether the fused LSTMSequence op computes this cell (Keras's default activations)."""
        return self.activation is activations.tanh and self.recurrent_activation is activations.sigmoid

    def call(self, inputs, states, training=None):
        h, c = states
        z = tf.matmul(inputs, self.kernel) + tf.matmul(h, self.recurrent_kernel)
        if self.bias is not None:
            z = z + self.bias
        zi, zf, zc, zo = tf.split(z, 4, axis=-1)
        i, f, o = self.recurrent_activation(zi), self.recurrent_activation(zf), self.recurrent_activation(zo)
        c = f * c + i * self.activation(zc)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        return {**super().get_config(), "recurrent_activation": activations.serialize(self.recurrent_activation),
                "unit_forget_bias": self.unit_forget_bias}


class GRUCell(_Cell):
    """Gates z, r, h. reset_after=True (Keras's default): bias [2, 3 * units] (input and recurrent)
    and h̃ = activation(x W_h + b_h + r * (h_{t-1} R_h + b'_h)); h_t = z h_{t-1} + (1 - z) h̃."""

    gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True, reset_after=True,
                 **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after

    def _bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    @property
    def fused(self):
        """Whether the fused GRUSequence op computes this cell (reset_after and Keras's default activations)."""
        return self.reset_after and self.activation is activations.tanh and \
            self.recurrent_activation is activations.sigmoid

    def call(self, inputs, states, training=None):
        h = states[0] if isinstance(states, (list, tuple)) else states
        u = self.units
        x = tf.matmul(inputs, self.kernel)
        bias_in = bias_rec = None
        if self.bias is not None:
            bias_in, bias_rec = (self.bias[0], self.bias[1]) if self.reset_after else (self.bias, None)
            x = x + bias_in
        xz, xr, xh = tf.split(x, 3, axis=-1)
        if self.reset_after:
            rec = tf.matmul(h, self.recurrent_kernel)
            if bias_rec is not None:
                rec = rec + bias_rec
            rz, rr, rh = tf.split(rec, 3, axis=-1)
            z = self.recurrent_activation(xz + rz)
            r = self.recurrent_activation(xr + rr)
            hh = self.activation(xh + r * rh)
        else:
            rec = tf.matmul(h, self.recurrent_kernel[:, :2 * u])
            rz, rr = tf.split(rec, 2, axis=-1)
            z = self.recurrent_activation(xz + rz)
            r = self.recurrent_activation(xr + rr)
            hh = self.activation(xh + tf.matmul(r * h, self.recurrent_kernel[:, 2 * u:]))
        out = z * h + (1 - z) * hh
        return out, [out]

    def get_config(self):
        return {**super().get_config(), "recurrent_activation": activations.serialize(self.recurrent_activation),
                "reset_after": self.reset_after}


class RNN(Layer):
    """Runs a cell over the time axis of [batch, timesteps, features] inputs.

    Args:
      cell: a cell (``call(inputs, states) -> (output, new_states)``, ``state_size``).
      return_sequences: return every step's output [batch, timesteps, units] (else the last, [batch, units]).
      return_state: also return the final states (a list: output, then the states).
      go_backwards: process the steps in reverse order (returned sequences are in that order).
      stateful: each batch starts from the final states of the previous one (``reset_states()`` clears them).
      unroll: accepted (the loop runs the same either way).

    The cell's ``dropout`` drops input features in training with one mask per sequence (as Keras);
    ``recurrent_dropout`` > 0 is not supported (UnimplementedError).
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, **kwargs):
        super().__init__(**kwargs)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(f"RNN: cell must be a layer with call(inputs, states) and state_size, got {cell!r}")
        self.cell = cell
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.stateful, self.unroll = go_backwards, stateful, unroll
        self._states = None

    def _check_inputs(self, inputs):
        shape = tuple(inputs.shape)
        if len(shape) != 3:
            raise ValueError(f"{self.name}: expected inputs of rank 3 [batch, timesteps, features], got shape {shape}")
        kernel = getattr(self.cell, "kernel", None)
        if kernel is not None and kernel.shape[0] != shape[-1]:
            raise ValueError(f"{self.name}: expected inputs with last axis {kernel.shape[0]}, got shape {shape}")
        return shape

    def build(self, input_shape):
        if len(input_shape) != 3:
            raise ValueError(f"{self.name}: expected inputs of rank 3 [batch, timesteps, features], "
                             f"got shape {tuple(input_shape)}")
        if not self.cell.built:
            self.cell.build((input_shape[0], input_shape[2]))
            self.cell.built = True
        self.built = True

    def get_initial_state(self, batch_size):
        """The cell's initial states for a batch: its get_initial_state(batch_size=...) as Keras 3 calls
        it (a custom cell may define it), else zeros [batch_size, size] per state."""
        make = getattr(self.cell, "get_initial_state", None)
        if make is None:
            return _zero_states(self.cell, batch_size, getattr(self.cell, "dtype", None) or self.dtype)
        states = make(batch_size=batch_size)
        return list(states) if isinstance(states, (list, tuple)) else [states]

    def _initial_state(self, inputs, initial_state):
        batch = inputs.shape[0]
        if initial_state is None and self.stateful and self._states is not None:
            initial_state = self._states
        if initial_state is None:
            states = [tf.convert_to_tensor(s) for s in
                      self.get_initial_state(tf.shape(inputs)[0] if batch is None else batch)]
            return [s if s.dtype == inputs.dtype else tf.cast(s, inputs.dtype) for s in states]
        states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        sizes = _sizes(self.cell)
        if len(states) != len(sizes):
            raise ValueError(f"{self.name}: expected {len(sizes)} initial states, got {len(states)}")
        states = [tf.convert_to_tensor(s, dtype=inputs.dtype) for s in states]
        for s, n in zip(states, sizes):
            if tuple(s.shape) != (batch, n):
                raise ValueError(f"{self.name}: an initial state must have shape {(batch, n)}, got {tuple(s.shape)}")
        return states

    def _run(self, inputs, states):
        """(sequence [batch, timesteps, units], final states), stepping the cell over time."""
        steps = inputs.shape[1]
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        outputs = []
        for t in order:
            out, states = self.cell(inputs[:, t, :], states)
            states = list(states) if isinstance(states, (list, tuple)) else [states]
            outputs.append(out)
        if not outputs:
            raise ValueError(f"{self.name}: the inputs have no timesteps, got shape {tuple(inputs.shape)}")
        return tf.stack(outputs, axis=1), states

    def _run_masked(self, inputs, states, mask):
        """As _run, but a masked step (mask[:, t] False) keeps the states and repeats the previous
        output (Keras with zero_output_for_mask=False): one cell call per step."""
        steps = inputs.shape[1]
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        mask = tf.cast(mask, tf.bool)
        outputs, previous = [], None
        for t in order:
            keep = tf.expand_dims(mask[:, t], 1)
            out, new = self.cell(inputs[:, t, :], states)
            new = list(new) if isinstance(new, (list, tuple)) else [new]
            states = [tf.where(keep, n, s) for n, s in zip(new, states)]
            previous = tf.where(keep, out, tf.zeros_like(out) if previous is None else previous)
            outputs.append(previous)
        if not outputs:
            raise ValueError(f"{self.name}: the inputs have no timesteps, got shape {tuple(inputs.shape)}")
        return tf.stack(outputs, axis=1), states

    def compute_mask(self, inputs, mask=None):
        """The input's mask on the output sequence (return_sequences; as given, even with go_backwards,
        as Keras), else none."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        return mask if mask is not None and self.return_sequences else None

    def call(self, inputs, initial_state=None, mask=None, training=None):
        self._check_inputs(inputs)
        if mask is not None:
            if isinstance(mask, (list, tuple)):
                mask = mask[0]
            if tuple(mask.shape) != tuple(inputs.shape[:2]):
                raise ValueError(f"{self.name}: the mask must have shape (batch, timesteps) = "
                                 f"{tuple(inputs.shape[:2])}, got {tuple(mask.shape)}")
        states = self._initial_state(inputs, initial_state)
        rate = getattr(self.cell, "dropout", 0)
        if training and rate:
            # as Keras: one dropout mask per sequence, the same at every step
            shape = tf.shape(inputs)
            inputs = tf.nn.dropout(inputs, rate, noise_shape=[shape[0], 1, shape[2]], seed=self.cell.seed)
        seq, states = self._run(inputs, states) if mask is None else self._run_masked(inputs, states, mask)
        if self.stateful:
            self._states = [tf.stop_gradient(s) for s in states]
        out = seq if self.return_sequences else seq[:, -1, :]
        return [out] + list(states) if self.return_state else out

    def reset_states(self, states=None):
        self._states = None if states is None else [tf.convert_to_tensor(s) for s in states]

    def compute_output_shape(self, input_shape):
        units = self.cell.output_size
        out = (input_shape[0], input_shape[1], units) if self.return_sequences else (input_shape[0], units)
        if not self.return_state:
            return out
        return [out] + [(input_shape[0], n) for n in _sizes(self.cell)]

    def get_config(self):
        return {**super().get_config(), "return_sequences": self.return_sequences, "return_state": self.return_state,
                "go_backwards": self.go_backwards, "stateful": self.stateful, "unroll": self.unroll}


class _KerasRNN(RNN):
    """SimpleRNN, LSTM and GRU: built from their constructor arguments, which are their config;
    the cell's attributes (units, activation, kernel, ...) read through the layer, as in Keras."""

    _cell_class = None  # the subclass's cell; _fused_run(x, states) is its one-op time loop

    def __init__(self, units, **kwargs):
        self._init_args = dict(units=units, **kwargs)
        layer, cell = _split_kwargs(dict(kwargs))
        super().__init__(self._cell_class(units, **cell), **layer)

    def __getattr__(self, name):
        cell = self.__dict__.get("cell")
        if name.startswith("_") or cell is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(cell, name)

    def get_config(self):
        config = {k: v for k, v in self._init_args.items() if not callable(v) or isinstance(v, str)}
        return {**super().get_config(), **self.cell.get_config(), **config, "name": self.name}

    def _run(self, inputs, states):
        if not self.cell.fused:
            return super()._run(inputs, states)
        if inputs.shape[1] == 0:
            raise ValueError(f"{self.name}: the inputs have no timesteps, got shape {tuple(inputs.shape)}")
        return self._fused_run(tf.reverse(inputs, [1]) if self.go_backwards else inputs, states)


_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll", "name", "dtype", "trainable")


def _split_kwargs(kwargs):
    layer = {k: kwargs.pop(k) for k in list(kwargs) if k in _RNN_ARGS}
    if "dtype" in layer:  # the cell's weights take the layer's dtype
        kwargs["dtype"] = layer["dtype"]
    return layer, kwargs


class SimpleRNN(_KerasRNN):
    """A fully connected recurrent layer: RNN(SimpleRNNCell(units, ...)).

    With activation tanh (the default) the time loop is one fused op (tf.raw_ops.RNNSequence).
    """

    _cell_class = SimpleRNNCell

    def _fused_run(self, x, states):
        cell = self.cell
        bias = cell.bias if cell.bias is not None else tf.zeros([cell.units], dtype=x.dtype)
        seq = tf.raw_ops.RNNSequence(x=x, h0=states[0], kernel=cell.kernel, recurrent_kernel=cell.recurrent_kernel,
                                     bias=bias)
        return seq, [seq[:, -1, :]]


class GRU(_KerasRNN):
    """Gated recurrent unit (Keras's layout; reset_after=True by default): RNN(GRUCell(units, ...)).

    With reset_after and the default activations the time loop is one fused op (tf.raw_ops.GRUSequence).
    """

    _cell_class = GRUCell

    def _fused_run(self, x, states):
        cell = self.cell
        bias = cell.bias if cell.bias is not None else tf.zeros([2, 3 * cell.units], dtype=x.dtype)
        seq = tf.raw_ops.GRUSequence(x=x, h0=states[0], kernel=cell.kernel, recurrent_kernel=cell.recurrent_kernel,
                                     bias=bias)
        return seq, [seq[:, -1, :]]


class LSTM(_KerasRNN):
    """Long short-term memory (Keras's layout, gates i, f, c, o): RNN(LSTMCell(units, ...)).

    With the default activations the time loop is one fused op (tf.raw_ops.LSTMSequence).

    >>> layer = keras.layers.LSTM(4, return_state=True)
    >>> [t.shape for t in layer(tf.ones([2, 5, 3]))]
    [TensorShape([2, 4]), TensorShape([2, 4]), TensorShape([2, 4])]
    """

    _cell_class = LSTMCell

    def _fused_run(self, x, states):
        cell = self.cell
        u = cell.units
        bias = cell.bias if cell.bias is not None else tf.zeros([4 * u], dtype=x.dtype)
        packed = tf.raw_ops.LSTMSequence(x=x, h0=states[0], c0=states[1], kernel=cell.kernel,
                                         recurrent_kernel=cell.recurrent_kernel, bias=bias)
        seq = packed[:, :, :u]
        return seq, [packed[:, -1, :u], packed[:, -1, u:2 * u]]


class Bidirectional(Layer):
    """Runs a recurrent layer forwards and a copy of it backwards and merges their outputs.

    merge_mode: "concat" (default), "sum", "mul", "ave", or None (a list of the two outputs).
    backward_layer: the backward layer (default: a copy of ``layer`` with go_backwards flipped).
    """

    _MERGE = ("concat", "sum", "mul", "ave", None)

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, RNN):
            raise ValueError(f"Bidirectional: layer must be a recurrent layer (RNN, LSTM, GRU, SimpleRNN), got {layer!r}")
        if merge_mode not in self._MERGE:
            raise ValueError(f"Bidirectional: merge_mode must be one of {self._MERGE}, got {merge_mode!r}")
        if backward_layer is None:
            if not hasattr(layer, "_init_args"):
                raise ValueError("Bidirectional: pass backward_layer for a generic RNN(cell) layer")
            args = dict(layer._init_args)
            args["go_backwards"] = not layer.go_backwards
            args.pop("name", None)
            backward_layer = type(layer)(**args)
        self.forward_layer, self.backward_layer = layer, backward_layer
        self.merge_mode = merge_mode
        self.return_sequences, self.return_state = layer.return_sequences, layer.return_state
        if weights is not None:
            raise tf.errors.UnimplementedError(None, None, "Bidirectional: weights= is not supported; use set_weights")

    def build(self, input_shape):
        for layer in (self.forward_layer, self.backward_layer):
            if not layer.built:
                layer.build(input_shape)
        self.built = True

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        return mask if mask is not None and self.return_sequences else None

    def call(self, inputs, initial_state=None, mask=None, training=None):
        fw_init = bw_init = None
        if initial_state is not None:
            half = len(initial_state) // 2
            fw_init, bw_init = initial_state[:half], initial_state[half:]
        fw = self.forward_layer(inputs, initial_state=fw_init, mask=mask)
        bw = self.backward_layer(inputs, initial_state=bw_init, mask=mask)
        fw_states = bw_states = []
        if self.return_state:
            fw, fw_states = fw[0], fw[1:]
            bw, bw_states = bw[0], bw[1:]
        if self.return_sequences:
            bw = tf.reverse(bw, [1])
        if self.merge_mode == "concat":
            out = tf.concat([fw, bw], axis=-1)
        elif self.merge_mode == "sum":
            out = fw + bw
        elif self.merge_mode == "mul":
            out = fw * bw
        elif self.merge_mode == "ave":
            out = (fw + bw) / 2
        else:
            out = [fw, bw]
        if self.return_state:
            out = (out if isinstance(out, list) else [out]) + list(fw_states) + list(bw_states)
        return out

    def get_config(self):
        return {**super().get_config(), "merge_mode": self.merge_mode}
