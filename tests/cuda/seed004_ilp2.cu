// Seed 004 (../shared/seeds/004_1464119c00482625.txt): the ILP-2 kernel as written.
__global__ void matrixMultiplySharedILPkernel(float* matrixA, float* matrixB,
float* matrixC, int rowsA, int colsB, int commonDim)
{
    int row = blockIdx.y * blockDim.y * 2 + threadIdx.y; // 每个线程块处理两个块
    int col = blockIdx.x * blockDim.x + threadIdx.x; // 列索引
    float value[2] = {0.0f}; // 用于存储两个结果值

    __shared__ float tileA[BLOCK_SIZE][BLOCK_SIZE]; // 共享内存中的子矩阵A
    __shared__ float tileB[BLOCK_SIZE][BLOCK_SIZE]; // 共享内存中的子矩阵B

    int numTiles = (commonDim + BLOCK_SIZE - 1) / BLOCK_SIZE; // 计算需要处理的子矩阵块数
    for(int t = 0; t < numTiles; t++)
    {
        // 从全局内存加载数据到共享内存
        tileA[threadIdx.y][threadIdx.x] = matrixA[row * commonDim + t * BLOCK_SIZE + threadIdx.x];
        tileA[threadIdx.y + 16][threadIdx.x] = matrixA[(row + 16) * commonDim + t * BLOCK_SIZE + threadIdx.x];

        tileB[threadIdx.y][threadIdx.x] = matrixB[(t * BLOCK_SIZE + threadIdx.y) * colsB + col];
        tileB[threadIdx.y + 16][threadIdx.x] = matrixB[(t * BLOCK_SIZE + threadIdx.y + 16) * colsB + col];

        __syncthreads(); // 确保所有线程都完成加载

        // 子矩阵乘法
        for(int j = 0; j < BLOCK_SIZE; j++)
        {
            value[0] += tileA[threadIdx.y][j] * tileB[j][threadIdx.x];
            value[1] += tileA[threadIdx.y + 16][j] * tileB[j][threadIdx.x];
        }

        __syncthreads(); // 确保所有线程都完成计算
    }

    // 将计算结果写入全局内存
    matrixC[row * colsB + col] = value[0];
    matrixC[(row + 16) * colsB + col] = value[1];
}
