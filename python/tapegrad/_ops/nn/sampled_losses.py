"""Sampled losses for many classes: tf.nn.nce_loss and sampled_softmax_loss, the candidate samplers they
draw negative classes with, and compute_accidental_hits.

A sampler draws ``num_sampled`` classes from [0, range_max) and gives each class's expected count
under its distribution P:
  uniform       P(c) = 1 / range_max
  log_uniform   P(c) = (log(c + 2) - log(c + 1)) / log(range_max + 1)   (Zipf's law: frequent classes first)
  expected count = num_sampled * P(c), or, when ``unique`` (draws repeated until num_sampled distinct
  classes came up, in `tries` draws), 1 - (1 - P(c))^tries.
The draws run on the host at every call, also inside a tf.function (a numpy_function node), so each
training step sees new negatives. Both losses score the true classes and the sampled ones with
logits x . w_c + b_c, minus log(expected count) (the "subtract log Q" correction):
  nce_loss              sum over columns of sigmoid cross-entropy, true columns labelled 1 / num_true
  sampled_softmax_loss  softmax cross-entropy over [true, sampled] with labels 1 / num_true
"""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import concat, expand_dims
from tapegrad._ops._lib.tensors import select
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.math.elementwise import equal, log
from tapegrad._ops.math.reduction import reduce_any, reduce_sum
from tapegrad._function.py_function import numpy_function
from tapegrad._tensor.tensor import cast, constant, convert_to_tensor, stop_gradient

__all__ = ["nce_loss", "sampled_softmax_loss", "compute_accidental_hits", "uniform_candidate_sampler",
           "log_uniform_candidate_sampler", "all_candidate_sampler"]

_FLOAT32_LOWEST = float(np.finfo(np.float32).min)  # the logit an accidental hit gets, as TF


def _probabilities(kind, classes, range_max):
    classes = np.asarray(classes, np.float64)
    if kind == "uniform":
        return np.full(classes.shape, 1.0 / range_max)
    return (np.log(classes + 2.0) - np.log(classes + 1.0)) / np.log(range_max + 1.0)


def _draw(kind, rng, n, range_max):
    if kind == "uniform":
        return rng.integers(0, range_max, n)
    # inverse transform of the log-uniform CDF: floor(exp(u log(range_max + 1))) - 1
    return np.minimum(np.floor(np.exp(rng.random(n) * np.log(range_max + 1.0))).astype(np.int64) - 1, range_max - 1)


def _sample(kind, true_classes, num_sampled, unique, range_max, seed):
    """(sampled int64 [num_sampled], true expected float32, sampled expected float32) in NumPy."""
    from tapegrad import random as random_
    rng = random_._numpy_generator() if seed is None else np.random.default_rng(int(seed))
    if unique:
        chosen, seen, tries = [], set(), 0
        while len(chosen) < num_sampled:
            for c in _draw(kind, rng, num_sampled, range_max).tolist():
                tries += 1
                if c not in seen:
                    seen.add(c)
                    chosen.append(c)
                    if len(chosen) == num_sampled:
                        break
        sampled = np.array(chosen, np.int64)

        def expected(c):
            return -np.expm1(tries * np.log1p(-_probabilities(kind, c, range_max)))
    else:
        sampled = _draw(kind, rng, num_sampled, range_max).astype(np.int64)

        def expected(c):
            return _probabilities(kind, c, range_max) * num_sampled
    return sampled, expected(true_classes).astype(np.float32), expected(sampled).astype(np.float32)


def _classes(value, fn, arg):
    """An integer tensor argument as int64; TF's error classes, naming fn, for anything else."""
    t = convert_arg(value, "tensor", fn, arg, dtypes.int64)
    if not t.dtype.is_integer:
        raise errors.InvalidArgumentError(None, None, f"{fn}: {arg} must be an integer tensor, got {t.dtype.name}"
                                                      f"{tuple(t.shape)}")
    return cast(t, dtypes.int64)


def _candidate_sampler(kind, true_classes, num_true, num_sampled, unique, range_max, seed, fn):
    true_classes = _classes(true_classes, fn, "true_classes")
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(None, None, f"{fn}: true_classes must be an int64 matrix [batch, num_true="
                                                      f"{num_true}], got {true_classes.dtype.name}{tuple(true_classes.shape)}")
    if range_max < 1 or num_sampled < 0 or (unique and num_sampled > range_max):
        raise errors.InvalidArgumentError(None, None, f"{fn}: needs range_max >= 1 and 0 <= num_sampled"
                                                      f"{' <= range_max when unique' if unique else ''}, got "
                                                      f"num_sampled={num_sampled}, range_max={range_max}")
    out = numpy_function(lambda t: _sample(kind, t, num_sampled, bool(unique), range_max, seed), [true_classes],
                         [dtypes.int64, dtypes.float32, dtypes.float32], stateful=True)
    sampled, true_expected, sampled_expected = (stop_gradient(t) for t in out)
    sampled.set_shape([num_sampled])
    return sampled, true_expected, sampled_expected


@dispatch("true_classes:any, num_true:int, num_sampled:int, unique:any, range_max:int, seed:any=None")
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """num_sampled classes drawn uniformly from [0, range_max); (sampled, true expected count, sampled
    expected count) as tf.random.uniform_candidate_sampler."""
    return _candidate_sampler("uniform", true_classes, num_true, num_sampled, unique, range_max, seed,
                              "uniform_candidate_sampler")


@dispatch("true_classes:any, num_true:int, num_sampled:int, unique:any, range_max:int, seed:any=None")
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """num_sampled classes drawn from the log-uniform (Zipfian) distribution over [0, range_max)."""
    return _candidate_sampler("log_uniform", true_classes, num_true, num_sampled, unique, range_max, seed,
                              "log_uniform_candidate_sampler")


@dispatch("true_classes:any, num_true:any, num_sampled:int, unique:any, seed:any=None")
def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class 0 .. num_sampled - 1, each with expected count 1 (a test sampler, as TF's)."""
    true_classes = _classes(true_classes, "all_candidate_sampler", "true_classes")
    n = num_sampled
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"all_candidate_sampler: num_sampled must be >= 0, got {n}")
    sampled = convert_to_tensor(np.arange(n, dtype=np.int64))
    ones = convert_to_tensor(np.ones(tuple(true_classes.shape), np.float32))
    return sampled, ones, convert_to_tensor(np.ones(n, np.float32))


@dispatch
def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Where a sampled class is one of a row's true classes: (row indices int32, positions in
    sampled_candidates int64, weights = float32's lowest), row by row, true class by true class.
    Inside a tf.function the number of hits is the trace's (a call with another count raises)."""
    true_classes = _classes(true_classes, "compute_accidental_hits", "true_classes")
    sampled_candidates = _classes(sampled_candidates, "compute_accidental_hits", "sampled_candidates")

    def hits(t, s):
        rows, ids = [], []
        for i, row in enumerate(t.tolist()):
            for c in row:
                for j in np.flatnonzero(s == c).tolist():
                    rows.append(i)
                    ids.append(j)
        return (np.array(rows, np.int32), np.array(ids, np.int64),
                np.full(len(rows), _FLOAT32_LOWEST, np.float32))
    return tuple(numpy_function(hits, [true_classes, sampled_candidates], [dtypes.int32, dtypes.int64, dtypes.float32]))


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                    remove_accidental_hits, seed, fn):
    """(logits [batch, num_true + num_sampled], labels alike) for the true and the sampled classes."""
    if isinstance(weights, (list, tuple)):
        if len(weights) != 1:
            raise errors.UnimplementedError(None, None, f"{fn}: weights split into {len(weights)} shards is not "
                                                        "supported; pass one [num_classes, dim] tensor")
        weights = weights[0]
    weights = convert_arg(weights, "tensor", fn, "weights")
    biases = convert_arg(biases, "tensor", fn, "biases", weights.dtype)
    labels = _classes(labels, fn, "labels")
    num_true = convert_arg(num_true, "int", fn, "num_true")  # None refused (an int kind would pass it on)
    if labels.ndim == 1:
        labels = expand_dims(labels, 1)
    if not (weights.dtype.is_floating and inputs.dtype == weights.dtype == biases.dtype):
        raise errors.InvalidArgumentError(None, None, f"{fn}: weights, biases and inputs must be floats of one dtype, got "
                                                      f"{weights.dtype.name}, {biases.dtype.name} and {inputs.dtype.name}")
    if inputs.ndim != 2 or weights.ndim != 2 or inputs.shape[1] != weights.shape[1] or biases.ndim != 1 or \
            labels.ndim != 2 or labels.shape[0] != inputs.shape[0] or labels.shape[1] != num_true:
        raise errors.InvalidArgumentError(None, None, f"{fn}: needs inputs [batch, dim], weights [num_classes, dim], "
                                                      f"biases [num_classes] and labels [batch, num_true={num_true}], got "
                                                      f"{tuple(inputs.shape)}, {tuple(weights.shape)}, "
                                                      f"{tuple(biases.shape)} and {tuple(labels.shape)}")
    batch = inputs.shape[0]
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed)
    sampled, true_expected, sampled_expected = (stop_gradient(convert_to_tensor(v)) for v in sampled_values)
    sampled = cast(sampled, dtypes.int64)
    ids = concat([_raw.Reshape(labels, shape=[-1]), sampled], 0)
    w, b = _raw.GatherV2(weights, ids, axis=0, batch_dims=0), _raw.GatherV2(biases, ids, axis=0, batch_dims=0)
    n_true = batch * num_true
    true_w = _raw.Reshape(w[:n_true], shape=[batch, num_true, weights.shape[1]])
    true_logits = reduce_sum(expand_dims(inputs, 1) * true_w, -1) + _raw.Reshape(b[:n_true], shape=[batch, num_true])
    sampled_logits = _raw.MatMul(inputs, w[n_true:], transpose_a=False, transpose_b=True) + b[n_true:]
    if remove_accidental_hits:  # compute_accidental_hits's weights added as a dense mask: a fixed shape in graphs
        hit = reduce_any(equal(expand_dims(labels, 2), _raw.Reshape(sampled, shape=[1, 1, -1])), 1)
        sampled_logits += select(hit, constant(_FLOAT32_LOWEST, sampled_logits.dtype),
                                 constant(0.0, sampled_logits.dtype))
    true_logits -= log(cast(true_expected, true_logits.dtype))
    sampled_logits -= log(cast(sampled_expected, sampled_logits.dtype))
    logits = concat([true_logits, sampled_logits], 1)
    targets = concat([true_logits * 0.0 + 1.0 / num_true, sampled_logits * 0.0], 1)
    return logits, stop_gradient(targets)


@dispatch("weights:any, biases:any, labels:any, inputs, num_sampled:int, num_classes:int, num_true:any=1, "
          "sampled_values:any=None, remove_accidental_hits:bool=False")
def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, name="nce_loss"):
    """Noise-contrastive estimation loss per example [batch]: sigmoid cross-entropy of the true classes
    (labelled 1 / num_true) and num_sampled sampled classes (labelled 0), logits corrected by log Q."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                      sampled_values, remove_accidental_hits, None, "nce_loss")
    return reduce_sum(_raw.SigmoidCrossEntropyWithLogits(logits, targets), 1)  # targets: logits' shape


@dispatch("weights:any, biases:any, labels:any, inputs, num_sampled:int, num_classes:int, num_true:any=1, "
          "sampled_values:any=None, remove_accidental_hits:bool=True, seed:any=None")
def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
                         remove_accidental_hits=True, seed=None, name="sampled_softmax_loss"):
    """Softmax cross-entropy per example [batch] over the true classes and num_sampled sampled ones,
    logits corrected by log Q (an estimate of the full softmax loss for training only)."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                      sampled_values, remove_accidental_hits, seed, "sampled_softmax_loss")
    return -reduce_sum(targets * _raw.LogSoftmax(logits, axis=-1), axis=-1)  # softmax cross-entropy
