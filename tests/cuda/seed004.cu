// Seed 004 (../shared/seeds/004_1464119c00482625.txt), as written there: the defines,
// the host launch and the double 16x16 kernel, then the float tiled kernel.
#define BLOCK_SIZE 16          // 定义块大小为16
#define MATRIX_DIM 256         // 定义矩阵维度为256

__global__ void multiply(const double * __restrict__ A_mat, const double * __restrict__ B_mat, double * __restrict__ C_mat);
void host(double *A_mat_d, double *B_mat_d, double *C_mat_d)
{
    dim3 Block_dim(BLOCK_SIZE, BLOCK_SIZE);
    dim3 Grid_dim(MATRIX_DIM / BLOCK_SIZE, MATRIX_DIM / BLOCK_SIZE);
    
    // 启动核函数进行矩阵乘法运算
    multiply <<< Grid_dim, Block_dim >>> (A_mat_d, B_mat_d, C_mat_d);
}

__global__ void multiply(const double * __restrict__ A_mat, const double * __restrict__ B_mat, double * __restrict__ C_mat)
{
    int i, j;
    double temp = 0;

    // 定义共享内存,用于存储块内的子矩阵
    __shared__ double A_shared[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ double B_shared[BLOCK_SIZE][BLOCK_SIZE];

    // 计算当前线程对应的全局行和列索引
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    // 循环遍历每个子矩阵块
    for (int tileNUM = 0; tileNUM < MATRIX_DIM / BLOCK_SIZE; tileNUM++)
    {
        // 计算子矩阵块内的索引
        j = tileNUM * BLOCK_SIZE + threadIdx.x;
        i = tileNUM * BLOCK_SIZE + threadIdx.y;

        // 将子矩阵块的数据加载到共享内存中
        A_shared[threadIdx.y][threadIdx.x] = A_mat[row * MATRIX_DIM + j];
        B_shared[threadIdx.y][threadIdx.x] = B_mat[i * MATRIX_DIM + col];
        __syncthreads();  // 同步,确保所有线程都完成加载

        // 进行子矩阵块的乘法运算
        for (int k = 0; k < BLOCK_SIZE; k++)
        {
            temp += A_shared[threadIdx.y][k] * B_shared[k][threadIdx.x];
        }
        __syncthreads();  // 再次同步,确保所有线程都完成计算
    }

    // 将计算结果写入全局内存
    C_mat[row * MATRIX_DIM + col] = temp;
}

__global__ void matrixMultiplySharedKernel(float* matrixA, float* matrixB, float* matrixC, int rowsA, int colsB, int commonDim) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float value = 0.0f;
    // 矩阵A和B的共享内存块
    __shared__ float tileA[TILE_SIZE][TILE_SIZE];
    __shared__ float tileB[TILE_SIZE][TILE_SIZE];
    // 矩阵分块的数量
    int numTiles = (commonDim + TILE_SIZE - 1) / TILE_SIZE;

    for(int t = 0; t < numTiles; t++) {
        // 将全局内存中的矩阵分块至共享内存中
        if(row < rowsA && t * TILE_SIZE + threadIdx.x < commonDim)
            tileA[threadIdx.y][threadIdx.x] = matrixA[row * commonDim + t * TILE_SIZE + threadIdx.x];
        else
            tileA[threadIdx.y][threadIdx.x] = 0.0f;

        if(t * TILE_SIZE + threadIdx.y < commonDim && col < colsB)
            tileB[threadIdx.y][threadIdx.x] = matrixB[(t * TILE_SIZE + threadIdx.y) * colsB + col];
        else
            tileB[threadIdx.y][threadIdx.x] = 0.0f;

        __syncthreads();
        // 每个线程计算block块中的乘积并累加
        for(int i = 0; i < TILE_SIZE; i++) {
            value += tileA[threadIdx.y][i] * tileB[i][threadIdx.x];
        }

        __syncthreads();
    }

    if(row < rowsA && col < colsB) {
        matrixC[row * colsB + col] = value;
    }
}
