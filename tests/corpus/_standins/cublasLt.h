// smemsim test corpus: a stand-in, not a copy (see cublas_v2.h here): cuBLASLt's names as
// llm.c's host code uses them. Written for smemsim.
#pragma once
#include "cublas_v2.h"
typedef void *cublasLtHandle_t;
typedef void *cublasLtMatmulDesc_t;
typedef void *cublasLtMatrixLayout_t;
typedef void *cublasLtMatmulPreference_t;
typedef struct { int algo; int state; } cublasLtMatmulHeuristicResult_t;
typedef int cublasLtEpilogue_t;
enum { CUBLASLT_EPILOGUE_DEFAULT = 1, CUBLASLT_EPILOGUE_BIAS = 4, CUBLASLT_EPILOGUE_GELU = 32,
       CUBLASLT_EPILOGUE_GELU_BIAS = 36 };
enum { CUBLASLT_MATMUL_DESC_TRANSA = 3, CUBLASLT_MATMUL_DESC_TRANSB = 4,
       CUBLASLT_MATMUL_DESC_EPILOGUE = 7, CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8 };
enum { CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1 };
SMEMSIM_CUBLAS_STANDIN(cublasLtCreate)
SMEMSIM_CUBLAS_STANDIN(cublasLtDestroy)
SMEMSIM_CUBLAS_STANDIN(cublasLtMatmul)
SMEMSIM_CUBLAS_STANDIN(cublasLtMatmulDescCreate)
SMEMSIM_CUBLAS_STANDIN(cublasLtMatmulDescDestroy)
SMEMSIM_CUBLAS_STANDIN(cublasLtMatmulDescSetAttribute)
SMEMSIM_CUBLAS_STANDIN(cublasLtMatrixLayoutCreate)
SMEMSIM_CUBLAS_STANDIN(cublasLtMatrixLayoutDestroy)
SMEMSIM_CUBLAS_STANDIN(cublasLtMatmulPreferenceCreate)
SMEMSIM_CUBLAS_STANDIN(cublasLtMatmulPreferenceDestroy)
SMEMSIM_CUBLAS_STANDIN(cublasLtMatmulPreferenceSetAttribute)
SMEMSIM_CUBLAS_STANDIN(cublasLtMatmulAlgoGetHeuristic)
