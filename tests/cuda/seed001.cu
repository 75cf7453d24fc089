// Seed 001 (../shared/seeds/001_54a44305b3391ce4.txt): its constants, the shared-memory
// kernel and the launch, as written.
const int Nmat = 1000;
const int NT = 32;
const int NB = (Nmat + NT - 1)/NT;

__global__ void glo_matmatMul(int *c_dev, int *a_dev, int *b_dev){
    int i_block = blockIdx.x * blockDim.x;
    int i_local = threadIdx.x;
    int i_global = i_block + i_local;
    int j_local = threadIdx.y;
    int j_global;

    __shared__ int a[NT*NT], b[NT*NT];
    int c_ij, a_ij, b_ij;

    for(int j_block = 0; j_block < Nmat; j_block += NT){
        j_global = j_block + j_local;
        c_ij = 0;
        for(int k_block = 0; k_block < Nmat; k_block += NT){
            //Load local matrices from global mem
            a_ij = 0;
            b_ij = 0;
            if(i_global < Nmat && k_block + j_local < Nmat){
                a_ij = a_dev[i_global*Nmat + k_block+j_local];
            }
            if(j_global < Nmat && k_block + i_local < Nmat){
                b_ij = b_dev[(k_block + i_local)*Nmat + j_global];
            }
            a[NT * i_local + j_local] = a_ij;
            b[NT * i_local + j_local] = b_ij;
            __syncthreads();
            for(int k_local = 0; k_local < NT; k_local++){
                c_ij += a[NT * i_local + k_local] * b[NT * k_local + j_local];
            }
            __syncthreads();
        }
        if(i_global < Nmat && j_global < Nmat){
            c_dev[i_global*Nmat + j_global] = c_ij;
        }
    }
}

void matmatMul(int *c_dev, int *a_dev, int *b_dev){
    dim3 dimThreads(NT, NT, 1);
    glo_matmatMul<<<NB,dimThreads>>>(c_dev, a_dev, b_dev);
}
