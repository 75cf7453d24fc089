// smemsim test corpus: copied verbatim from github:PacktPublishing/Learn-CUDA-Programming (MIT license),
// Chapter07/07_parallel_programming_pattern/05_n-body/n_body.h at commit 10bd9b59bfcc680d608ea1417da5089f73d91b11. Everything after these three lines is that file, unchanged.
//

#define BLOCK_SIZE 128
#define SOFTENING 1e-9f


typedef struct {
        float4 *pos, *vel;
} NBodySystem;

void generateRandomizeBodies(float *data, int n);
__global__ void calculateBodyForce(float4 *p, float4 *v, float dt, int n);
