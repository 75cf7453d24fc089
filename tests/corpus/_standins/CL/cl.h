// smemsim test corpus: a stand-in, not a copy. Parboil's parboil.h includes OpenCL's header
// for the declarations of its OpenCL timers, which its CUDA benchmarks never call; nvcc
// builds them with these type names (CI has no OpenCL). Written for smemsim.
#pragma once
typedef int cl_int;
typedef unsigned int cl_uint;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_context *cl_context;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_platform_id *cl_platform_id;
