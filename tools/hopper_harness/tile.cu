// Runs tests/cuda/wgmma_tile.cu or wgmma_tile_ptx.cu (given with -include) as its own host
// function `launch` launches it, with the tensor maps encoded as --tensor-map describes them
// (f16, [S][S], box 64 x 64, SWIZZLE_128B).
#include "common.h"

static CUtensorMap encode(void* base, int rows, int cols) {
    CUtensorMap m;
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
    cuuint32_t box[2] = {64, 64}, elem[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims,
                                        strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_128B,
                                        CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) { printf("cuTensorMapEncodeTiled: %d\n", (int)r); exit(1); }
    return m;
}

int main(int argc, char** argv) {
    int S = atoi(argv[1]);
    size_t n = (size_t)S * S;
    std::vector<unsigned short> a = read16(argv[2], n), b = read16(argv[3], n);
    void *dA, *dB; float* dC;
    check(cudaMalloc(&dA, n * 2), "malloc"); check(cudaMalloc(&dB, n * 2), "malloc");
    check(cudaMalloc(&dC, n * 4), "malloc");
    check(cudaMemcpy(dA, a.data(), n * 2, cudaMemcpyHostToDevice), "copy");
    check(cudaMemcpy(dB, b.data(), n * 2, cudaMemcpyHostToDevice), "copy");
    launch(S, S, S, dC, encode(dA, S, S), encode(dB, S, S));
    check(cudaDeviceSynchronize(), "kernel");
    std::vector<float> c(n);
    check(cudaMemcpy(c.data(), dC, n * 4, cudaMemcpyDeviceToHost), "copy back");
    write_bytes(argv[4], c.data(), n * 4);
    return 0;
}
