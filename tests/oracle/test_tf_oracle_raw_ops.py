"""tf.raw_ops's fused training ops agree with TensorFlow's: the same argument lists, and the same
variable and slot values after one update from the same inputs.

Needs TensorFlow (the oracle venv of .ci/run); skipped without it, or fails when TAPEGRAD_REQUIRE_TF is set.
"""
import inspect

import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

tf = import_tensorflow()

# op -> (Variables: value range, other inputs: a range or a scalar, attributes). Ranges: "s" signed,
# "p" positive, "m" small.
_ADAM = dict(beta1_power=0.9 ** 3, beta2_power=0.999 ** 3, lr=0.05, beta1=0.9, beta2=0.999, epsilon=1e-7, grad="s")
_RMS = dict(lr=0.05, rho=0.9, momentum=0.3, epsilon=1e-7, grad="s")
CASES = {
    "ResourceApplyGradientDescent": (dict(var="s"), dict(alpha=0.05, delta="s"), {}),
    "ResourceApplyKerasMomentum": (dict(var="s", accum="s"), dict(lr=0.05, grad="s", momentum=0.9), {}),
    "ResourceApplyKerasMomentum:nesterov": (dict(var="s", accum="s"), dict(lr=0.05, grad="s", momentum=0.9),
                                            dict(use_nesterov=True)),
    "ResourceApplyAdam": (dict(var="s", m="s", v="p"), _ADAM, {}),
    "ResourceApplyAdamWithAmsgrad": (dict(var="s", m="s", v="p", vhat="p"), _ADAM, {}),
    "ResourceApplyRMSProp": (dict(var="s", ms="p", mom="s"), _RMS, {}),
    "ResourceApplyCenteredRMSProp": (dict(var="s", mg="m", ms="p", mom="s"), _RMS, {}),
    "ResourceApplyAdagradV2": (dict(var="s", accum="p"), dict(lr=0.05, epsilon=1e-7, grad="s"), {}),
}
TAPEGRAD_ONLY = {"ResourceApplyNadam": "TF has no fused Nadam (Keras computes it with other ops)",
                 **{op: "Keras's Adam as Keras's ops round it (TF's fused Adam rounds 1 - beta otherwise); "
                        "tests/keras/test_keras_optimizers.py compares it with TF-Keras's values"
                    for op in ("ResourceApplyKerasAdam", "ResourceApplyKerasAdamWithAmsgrad")},
                 **{op: "TF has no fused recurrent time loop (its Keras layers loop in a graph); "
                        "tests/keras/test_keras_rnn.py compares the layers with TF-Keras's values"
                    for op in ("LSTMSequence", "GRUSequence", "RNNSequence")}}


# Ops whose values equal TF's exactly: Adam's step size lr_t is computed in the variable's dtype, as TF's
# kernel computes it (in float64 a float32 variable's update differed in the last bits).
BIT_FOR_BIT = {"ResourceApplyAdam", "ResourceApplyAdamWithAmsgrad", "ResourceApplyGradientDescent",
               "ResourceApplyKerasMomentum", "ResourceApplyAdagradV2"}


def _values(rng, kind):
    return {"s": rng.uniform(-1, 1, (2, 3)), "p": rng.uniform(0.1, 1, (2, 3)),
            "m": rng.uniform(-0.1, 0.1, (2, 3))}[kind]


def test_every_raw_op_is_compared():
    assert set(tg.raw_ops.__all__) == {c.split(":")[0] for c in CASES} | set(TAPEGRAD_ONLY)


@pytest.mark.parametrize("name", sorted(set(tg.raw_ops.__all__) - set(TAPEGRAD_ONLY)))
def test_arguments_as_tf(name):
    ours = [p.name for p in inspect.signature(getattr(tg.raw_ops, name)).parameters.values()]
    assert ours == list(inspect.signature(getattr(tf.raw_ops, name)).parameters)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_update_as_tf(case, dtype):
    name = case.split(":")[0]
    variables, inputs, attrs = CASES[case]
    rng = np.random.default_rng(0)
    start = {k: _values(rng, kind).astype(dtype) for k, kind in variables.items()}
    others = {k: _values(rng, v).astype(dtype) if isinstance(v, str) else dtype(v) for k, v in inputs.items()}
    theirs = {k: tf.Variable(v) for k, v in start.items()}
    getattr(tf.raw_ops, name)(**{k: v.handle for k, v in theirs.items()}, **others, **attrs)
    ours = {k: tg.Variable(v) for k, v in start.items()}
    getattr(tg.raw_ops, name)(**ours, **others, **attrs)
    for k in start:
        if name in BIT_FOR_BIT:
            np.testing.assert_array_equal(ours[k].numpy(), theirs[k].numpy(), err_msg=k)
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-6 if dtype == np.float32 else 1e-14,
                                   atol=1e-7 if dtype == np.float32 else 1e-15, err_msg=k)
