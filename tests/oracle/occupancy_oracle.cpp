// NVIDIA's occupancy calculator (the CUDA toolkit's cuda_occupancy.h) as a test oracle.
// Reads one configuration per line from stdin:
//   major minor threadsPerSM blocksPerSM... (see fields below)
// and prints: activeBlocks limitingFactors limitWarps limitRegs limitSmem limitBlocks
//             limitBarriers allocatedRegs allocatedSmem availableDynamic bestBlockSize bestBlocks
#include <cstdio>
#include <cuda_occupancy.h>

int main() {
    int major, minor, thrSM, regsBlock, regsSM, numBlocksForAvail;
    long smemSM, optin, reserved, staticSmem, dynSmem, maxDyn;
    int blockSize, regs, carveout, optinConfig;
    while (scanf("%d %d %d %d %d %ld %ld %ld %d %d %ld %ld %ld %d %d %d", &major, &minor,
                 &thrSM, &regsBlock, &regsSM, &smemSM, &optin, &reserved, &blockSize, &regs,
                 &staticSmem, &dynSmem, &maxDyn, &carveout, &optinConfig,
                 &numBlocksForAvail) == 16) {
        cudaOccDeviceProp prop;
        prop.computeMajor = major;
        prop.computeMinor = minor;
        prop.maxThreadsPerBlock = 1024;
        prop.maxThreadsPerMultiprocessor = thrSM;
        prop.regsPerBlock = regsBlock;
        prop.regsPerMultiprocessor = regsSM;
        prop.warpSize = 32;
        prop.sharedMemPerBlock = 49152;
        prop.sharedMemPerMultiprocessor = smemSM;
        prop.numSms = 132;
        prop.sharedMemPerBlockOptin = optin;
        prop.reservedSharedMemPerBlock = reserved;
        cudaOccFuncAttributes attr;  // as the driver's cudaFuncAttributes convert
        attr.maxThreadsPerBlock = 1024;
        attr.numRegs = regs;
        attr.sharedSizeBytes = staticSmem;
        attr.partitionedGCConfig = PARTITIONED_GC_OFF;
        attr.shmemLimitConfig = optinConfig ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
        attr.maxDynamicSharedSizeBytes = maxDyn;
        attr.numBlockBarriers = 1;
        attr.virtualResourceCount = 0;
        cudaOccDeviceState state;
        state.carveoutConfig = carveout;
        cudaOccResult r;
        cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state,
                                                                   blockSize, dynSmem);
        if (err != CUDA_OCC_SUCCESS) { printf("error %d\n", (int)err); continue; }
        size_t avail = 0;
        cudaOccError e2 = cudaOccAvailableDynamicSMemPerBlock(&avail, &prop, &attr, &state,
                                                              numBlocksForAvail, blockSize);
        int minGrid = 0, best = 0;
        cudaOccMaxPotentialOccupancyBlockSize(&minGrid, &best, &prop, &attr, &state, dynSmem);
        printf("%d %u %d %d %d %d %d %d %zu %ld %d %d\n", r.activeBlocksPerMultiprocessor,
               r.limitingFactors, r.blockLimitWarps, r.blockLimitRegs, r.blockLimitSharedMem,
               r.blockLimitBlocks, r.blockLimitBarriers, r.allocatedRegistersPerBlock,
               r.allocatedSharedMemPerBlock, e2 == CUDA_OCC_SUCCESS ? (long)avail : -1L,
               best, minGrid / 132);
    }
    return 0;
}
