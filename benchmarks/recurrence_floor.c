/* recurrence_floor.c -- the matrix products of bench_recurrence.py's workload alone, in C, by the
 * OpenBLAS tapegrad links (scipy-openblas32): a lower bound for any framework that uses it.
 *
 * The cheapest order: x_t W for all steps as one product before the loop, and x_t^T dz for all
 * steps as one after it; per step h U forward, then h^T dz and dz U^T backward (600 products of
 * 16 x 64 x 64 in a chain, each needing the last). Nothing else (no tanh, no bias): the time
 * printed is below what the whole step can take. Built and run by recurrence_floor.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cblas.h>

enum { T = 200, B = 16, F = 32, U = 64 };

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 1, reps = argc > 2 ? atoi(argv[2]) : 300;
  scipy_openblas_set_num_threads(threads);
  float* X = calloc(T * B * F, 4); float* W = calloc(F * U, 4); float* Um = calloc(U * U, 4);
  float* XW = calloc(T * B * U, 4); float* H = calloc((T + 1) * B * U, 4); float* dZ = calloc(T * B * U, 4);
  float* dh = calloc(B * U, 4); float* dW = calloc(F * U, 4); float* dU = calloc(U * U, 4);
  double* times = malloc(sizeof(double) * reps);
  for (int i = 0; i < T * B * F; ++i) X[i] = (float)(i % 7) * 0.1f - 0.3f;
  for (int i = 0; i < F * U; ++i) W[i] = (float)(i % 5) * 0.01f;
  for (int i = 0; i < U * U; ++i) Um[i] = (float)(i % 3) * 0.01f;
  for (int i = 0; i < T * B * U; ++i) dZ[i] = 1e-3f;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_ms();
    scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T * B, U, F, 1, X, F, W, U, 0, XW, U);
    for (int t = 0; t < T; ++t) {
      memcpy(H + (t + 1) * B * U, XW + t * B * U, sizeof(float) * B * U);
      scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, U, U, 1, H + t * B * U, U, Um, U, 1,
                        H + (t + 1) * B * U, U);
    }
    memset(dU, 0, sizeof(float) * U * U);
    for (int t = T - 1; t >= 0; --t) {
      scipy_cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, U, U, B, 1, H + t * B * U, U, dZ + t * B * U, U, 1,
                        dU, U);
      scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, U, U, 1, dZ + t * B * U, U, Um, U, 0, dh, U);
    }
    scipy_cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, F, U, T * B, 1, X, F, dZ, U, 0, dW, U);
    times[r] = now_ms() - t0;
  }
  qsort(times, reps, sizeof(double), cmp);
  printf("%.4f %.4f\n", times[reps / 2], times[0]);  /* median and best, ms */
  return 0;
}
