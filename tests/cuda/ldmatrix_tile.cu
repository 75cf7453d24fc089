// examples/ldmatrix_tile.py's roundtrip kernel as CUDA code writes it: ldmatrix.x4 and
// stmatrix.x4 in inline PTX on __cvta_generic_to_shared addresses of a swizzled 64 x 64 tile
// of 16-bit elements (chunk c of row r at chunk c ^ (r % 8)). The tile is staged element by
// element here (the example stages 16-byte chunks), and the fragments are also written out.
#define ROWS 64
#define COLS 64
#ifndef SWIZZLE
#define SWIZZLE 1
#endif

__global__ void ldmatrix_tile(const unsigned short *src, unsigned int *frags,
                              unsigned short *out, int tiles) {
    __shared__ __align__(128) unsigned short tile[ROWS * COLS];
    __shared__ __align__(128) unsigned short back[ROWS * COLS];
    int t = threadIdx.x;
    int base = blockIdx.x * (ROWS * COLS);
    for (int e = t; e < ROWS * COLS; e += 128) {
        int r = e / COLS, c = e % COLS / 8;
        tile[r * COLS + (c ^ (SWIZZLE ? r % 8 : 0)) * 8 + e % 8] = src[base + e];
    }
    __syncthreads();
    int warp = t / 32, lane = t % 32;
    for (int kk = 0; kk < COLS / 16; ++kk) {
        int r = 16 * warp + lane % 16, c = 2 * kk + lane / 16;
        int place = r * COLS + (c ^ (SWIZZLE ? r % 8 : 0)) * 8;
        unsigned addr = __cvta_generic_to_shared(&tile[place]);
        unsigned f0, f1, f2, f3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(f0), "=r"(f1), "=r"(f2), "=r"(f3) : "r"(addr));
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
                     :: "r"((unsigned)__cvta_generic_to_shared(&back[place])),
                        "r"(f0), "r"(f1), "r"(f2), "r"(f3));
        int at = (((blockIdx.x * 4 + warp) * 4 + kk) * 32 + lane) * 4;
        frags[at] = f0;
        frags[at + 1] = f1;
        frags[at + 2] = f2;
        frags[at + 3] = f3;
    }
    __syncthreads();
    for (int e = t; e < ROWS * COLS; e += 128)
        out[base + e] = back[e];
}

void run_tiles(const unsigned short *src, unsigned int *frags, unsigned short *out, int tiles) {
    ldmatrix_tile<<<tiles, 128>>>(src, frags, out, tiles);
}
