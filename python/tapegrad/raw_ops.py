"""``tf.raw_ops``: TF's fused training ops, which update a Variable and its slots in place, and the
fused recurrent time loops the Keras RNN layers run on.

Each is the registry op of the same name (cpp/ops/optim.cpp) bound to TF's argument list; as in TF,
every argument is keyword-only. ``var`` and the slots are Variables; the hyperparameters are scalars
(Python numbers or tensors). The result is an empty tensor: the ops exist for their effect. Keras's
optimizers run their update steps through these.

>>> var, accum = tf.Variable([1.0, 2.0]), tf.Variable([0.0, 0.0])
>>> _ = tf.raw_ops.ResourceApplyKerasMomentum(var=var, accum=accum, lr=0.1, grad=[1.0, 1.0], momentum=0.9)
>>> var.numpy()
array([0.9, 1.9], dtype=float32)
"""
from tapegrad._ops._wrap import public_op

_LOCK = "use_locking:bool=False"
# name -> (TF's argument list, the update rule).
_OPS = {
    "ResourceApplyGradientDescent": (
        f"*, var, alpha, delta, {_LOCK}",
        "var -= alpha * delta"),
    "ResourceApplyKerasMomentum": (
        f"*, var, accum, lr, grad, momentum, {_LOCK}, use_nesterov:bool=False",
        "accum = momentum * accum - lr * grad; var += accum (nesterov: var += momentum * accum - lr * grad)"),
    "ResourceApplyAdam": (
        f"*, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, {_LOCK}, use_nesterov:bool=False",
        "m += (grad - m)(1 - beta1); v += (grad^2 - v)(1 - beta2); "
        "var -= lr sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + epsilon)"),
    "ResourceApplyAdamWithAmsgrad": (
        f"*, var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, {_LOCK}",
        "as ResourceApplyAdam with vhat = max(vhat, v) in place of v in the step"),
    "ResourceApplyRMSProp": (
        f"*, var, ms, mom, lr, rho, momentum, epsilon, grad, {_LOCK}",
        "ms = rho ms + (1 - rho) grad^2; mom = momentum mom + lr grad / sqrt(ms + epsilon); var -= mom"),
    "ResourceApplyCenteredRMSProp": (
        f"*, var, mg, ms, mom, lr, rho, momentum, epsilon, grad, {_LOCK}",
        "as ResourceApplyRMSProp with mg = rho mg + (1 - rho) grad and sqrt(ms - mg^2 + epsilon)"),
    "ResourceApplyAdagradV2": (
        f"*, var, accum, lr, epsilon, grad, {_LOCK}, update_slots:bool=True",
        "accum += grad^2; var -= lr grad / (sqrt(accum) + epsilon)"),
    # tapegrad's own: Keras's Adam rounded as Keras's ops round it (Note [Keras's Adam] in cpp/ops/optim.cpp).
    "ResourceApplyKerasAdam": (
        f"*, var, m, v, local_step, lr, beta1, beta2, epsilon, grad, {_LOCK}",
        "Keras's Adam at step t = local_step >= 1: m += (grad - m)(1 - beta1); v += (grad^2 - v)(1 - beta2); "
        "var -= lr sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + epsilon), the betas' powers in the "
        "variable's dtype"),
    "ResourceApplyKerasAdamWithAmsgrad": (
        f"*, var, m, v, vhat, local_step, lr, beta1, beta2, epsilon, grad, {_LOCK}",
        "as ResourceApplyKerasAdam with vhat = max(vhat, v) in place of v in the step"),
    # tapegrad's own: TF has no fused Nadam.
    "ResourceApplyNadam": (
        f"*, var, m, v, local_step, lr, beta1, beta2, epsilon, grad, {_LOCK}",
        "Keras's Nadam (Dozat's momentum schedule u_t = beta1 (1 - 0.5 * 0.96^t)) at step t = local_step >= 1"),
    # tapegrad's fused recurrent time loops (TF has none: its Keras layers loop in a graph); gate
    # orders and weight layouts as Keras's
    "LSTMSequence": (
        "*, x, h0, c0, kernel, recurrent_kernel, bias",
        "the LSTM over x [batch, time, features] (gates i, f, c, o); returns [batch, time, 6 * units]: per "
        "step h, c and the activated gates i, f, c~, o (kept for the backward)"),
    "GRUSequence": (
        "*, x, h0, kernel, recurrent_kernel, bias",
        "Keras's reset_after GRU over x [batch, time, features] (gates z, r, h; bias [2, 3 * units]); returns "
        "the hidden states [batch, time, units]"),
    "RNNSequence": (
        "*, x, h0, kernel, recurrent_kernel, bias",
        "h_t = tanh(x_t kernel + h_{t-1} recurrent_kernel + bias) over x [batch, time, features]; returns the "
        "hidden states [batch, time, units]"),
}

for _name, (_args, _rule) in _OPS.items():
    globals()[_name] = public_op(_name, _name, _args, f"{_name}({_args.replace(':bool', '')}, name=None): {_rule}.")
__all__ = list(_OPS)
del _name, _args, _rule
