// Shared by the harnesses of tools/gpu_hopper_import.py: read two 16-bit matrices, write C.
#include <cstdio>
#include <cstdlib>
#include <vector>

static std::vector<unsigned short> read16(const char* path, size_t n) {
    std::vector<unsigned short> v(n);
    FILE* f = fopen(path, "rb");
    if (!f || fread(v.data(), 2, n, f) != n) { printf("cannot read %s\n", path); exit(1); }
    fclose(f);
    return v;
}

static void write_bytes(const char* path, const void* data, size_t bytes) {
    FILE* f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { printf("cannot write %s\n", path); exit(1); }
    fclose(f);
}

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) { printf("%s: %s\n", what, cudaGetErrorString(e)); exit(1); }
}
