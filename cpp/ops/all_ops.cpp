// all_ops.cpp -- registers every op family in a fixed order, then the kernels of each ISA level.
#include "engine/registry.h"

namespace tg {

#define TG_FAMILIES(X) X(unary) X(binary) X(activation)
#define TG_DECLARE(f) void register_##f##_ops(); void f##_kernels_baseline(); void f##_kernels_v3(); void f##_kernels_v4();
TG_FAMILIES(TG_DECLARE)
void register_reduce_ops();
void register_shape_ops();
void register_linalg_ops();
void register_nn_ops();
void register_einsum_ops();
void register_index_ops();
void register_optim_ops();
void register_random_ops();
void register_conv_ops();
void register_pooling_ops();
void register_recurrent_ops();
void register_sort_ops();
void register_matrix_ops();
void register_svd_ops();
void register_rows_ops();
void register_set_ops();
void register_sized_by_values_ops();
void register_nms_ops();
void drop_refused_half_types();

void register_all_ops() {
  static bool done = false;
  if (done) return;
  done = true;
#define TG_REGISTER(f) register_##f##_ops(); f##_kernels_baseline(); f##_kernels_v3(); f##_kernels_v4();
  TG_FAMILIES(TG_REGISTER)
  register_reduce_ops();
  register_shape_ops();
  register_linalg_ops();
  register_nn_ops();
  register_einsum_ops();
  register_index_ops();
  register_optim_ops();
  register_random_ops();
  register_conv_ops();
  register_pooling_ops();
  register_recurrent_ops();
  register_sort_ops();
  register_matrix_ops();
  register_svd_ops();
  register_rows_ops();
  register_set_ops();
  register_sized_by_values_ops();
  register_nms_ops();
  drop_refused_half_types();
}

}  // namespace tg
