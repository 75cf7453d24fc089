// smemsim test corpus: a stand-in, not a copy. The corpus's host code includes this header
// of cuBLAS; nvcc builds the files with these declarations (their kernels use none of it;
// CI has no cuBLAS): the types and constants by name, each function a template that takes
// any arguments and does nothing. Written for smemsim.
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <library_types.h>
typedef int cublasStatus_t;
enum { CUBLAS_STATUS_SUCCESS = 0 };
typedef void *cublasHandle_t;
typedef int cublasComputeType_t;
enum { CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77 };
typedef int cublasMath_t;
enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 };
typedef int cublasOperation_t;
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
typedef int cublasGemmAlgo_t;
enum { CUBLAS_GEMM_DEFAULT = -1 };
#define SMEMSIM_CUBLAS_STANDIN(name) \
    template <class... A> inline cublasStatus_t name(A...) { return 0; }
SMEMSIM_CUBLAS_STANDIN(cublasCreate)
SMEMSIM_CUBLAS_STANDIN(cublasDestroy)
SMEMSIM_CUBLAS_STANDIN(cublasSetMathMode)
SMEMSIM_CUBLAS_STANDIN(cublasSgemm)
SMEMSIM_CUBLAS_STANDIN(cublasSgemmStridedBatched)
SMEMSIM_CUBLAS_STANDIN(cublasGemmStridedBatchedEx)
