// recurrent.h -- fused LSTM, GRU and SimpleRNN time loops (forward, backward through time, forward-mode tangents).
//
// Layout (as Keras): x [B, T, F], h0 and c0 [B, U], kernel W [F, 4U], recurrent kernel R [U, 4U],
// bias b [4U], gate order i, f, c (candidate), o. The forward output packs what the backward
// needs, [B, T, 6U]: out[:, t] = [h_t, c_t, i_t, f_t, c~_t, o_t] (the gates activated).
#pragma once
#include "core/tensor.h"

namespace tg {

// out [B, T, 6U] from x, h0, c0, W, R, b (float32 or float64, shapes already checked).
void lstm_sequence_forward(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& W, const Tensor& R,
                           const Tensor& b, Tensor& out);

// The gradients of sum(g * out) with respect to x, h0, c0, W, R, b, packed one after another
// (each flattened row-major) into the 1-D `packed`.
void lstm_sequence_backward(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& W, const Tensor& R,
                            const Tensor& b, const Tensor& out, const Tensor& g, Tensor& packed);

// The tangent of out [B, T, 6U] along the tangents tx, th0, tc0, tW, tR, tb (same shapes as the inputs).
void lstm_sequence_jvp(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& W, const Tensor& R,
                       const Tensor& b, const Tensor& out, const Tensor& tx, const Tensor& th0, const Tensor& tc0,
                       const Tensor& tW, const Tensor& tR, const Tensor& tb, Tensor& tout);

// GRU with reset_after (Keras's default): x [B, T, F], h0 [B, U], kernel W [F, 3U], recurrent
// kernel R [U, 3U], bias [2, 3U] (input bias, recurrent bias), gate order z, r, h. out [B, T, U]:
// z = sigmoid(x W_z + b_z + h R_z + b'_z), r likewise, h~ = tanh(x W_h + b_h + r (h R_h + b'_h)),
// h_t = z h_{t-1} + (1 - z) h~.
void gru_sequence_forward(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor& b,
                          Tensor& out);
// Gradients of sum(g * out) for x, h0, W, R, bias, packed one after another.
void gru_sequence_backward(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor& b,
                           const Tensor& out, const Tensor& g, Tensor& packed);
// The tangent of out along tx, th0, tW, tR, tb.
void gru_sequence_jvp(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor& b,
                      const Tensor& out, const Tensor& tx, const Tensor& th0, const Tensor& tW, const Tensor& tR,
                      const Tensor& tb, Tensor& tout);

// SimpleRNN with tanh: x [B, T, F], h0 [B, U], kernel W [F, U], recurrent kernel R [U, U], bias [U];
// out [B, T, U] with h_t = tanh(x_t W + h_{t-1} R + b).
void rnn_sequence_forward(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor& b,
                          Tensor& out);
void rnn_sequence_backward(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor& b,
                           const Tensor& out, const Tensor& g, Tensor& packed);
void rnn_sequence_jvp(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor& b,
                      const Tensor& out, const Tensor& tx, const Tensor& th0, const Tensor& tW, const Tensor& tR,
                      const Tensor& tb, Tensor& tout);

}  // namespace tg
