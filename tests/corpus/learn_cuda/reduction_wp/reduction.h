// smemsim test corpus: copied verbatim from github:PacktPublishing/Learn-CUDA-Programming (MIT license),
// Chapter03/03_cuda_thread_programming/07_warp_synchronous_programming/reduction.h at commit 10bd9b59bfcc680d608ea1417da5089f73d91b11. Everything after these three lines is that file, unchanged.
//
#ifndef _REDUCTION_H_
#define _REDUCTION_H_

// @reduction_kernel.cu
void reduction(float *g_outPtr, float *g_inPtr, int size, int n_threads);

#endif // _REDUCTION_H_