// smemsim test corpus: copied verbatim from github:PacktPublishing/Learn-CUDA-Programming (MIT license),
// Chapter07/07_parallel_programming_pattern/03_scan/scan.h at commit 10bd9b59bfcc680d608ea1417da5089f73d91b11. Everything after these three lines is that file, unchanged.
//
#ifndef _SCAN_H_
#define _SCAN_H_

#define BLOCK_DIM 512

#define DEBUG_INDEX         0
#define DEBUG_OUTPUT_NUM    16

void scan_v1(float *d_output, float *d_input, int length);
void scan_v2(float *d_output, float *d_input, int length);

#endif // _SCAN_H_