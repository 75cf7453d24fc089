// smemsim test fixture (written here): PTX's bfind, as cuda-samples' cdpBitonicSort writes it
// (`asm("bfind.u32 %0, %1;" : "=r"(ret) : "r"(x))`), with its .shiftamt and signed forms.
__device__ unsigned msb(unsigned x) { unsigned r; asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__device__ unsigned shamt(unsigned x) { unsigned r; asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__device__ unsigned smsb(int x) { unsigned r; asm("bfind.s32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__global__ void k(unsigned *out) {
    __shared__ unsigned s[96];
    unsigned t = threadIdx.x;
    s[t] = msb(t * 37u);
    s[32 + t] = shamt(t << 20);
    s[64 + t] = smsb((int)t - 16);
    __syncthreads();
    out[t] = s[t]; out[32 + t] = s[32 + t]; out[64 + t] = s[64 + t];
}
int main()
{
    unsigned *o;
    k<<<1, 32>>>(o);
}
