// smemsim test corpus: copied verbatim from github:PacktPublishing/Learn-CUDA-Programming (MIT license),
// Chapter03/03_cuda_thread_programming/03_threadsync_and_reduction/reduction.h at commit 10bd9b59bfcc680d608ea1417da5089f73d91b11. Everything after these three lines is that file, unchanged.
//
#ifndef _REDUCTION_H_
#define _REDUCTION_H_

// @reduction_kernel.cu
void reduction(float *d_out, float *d_in, int n_threads, int size);

// @naive_reduction_kernel.cu
void global_reduction(float *d_out, float *d_in, int n_threads, int size);
// void atomic_reduction(float *d_out, float *d_in, int n_threads, int size);

#endif // _REDUCTION_H_
