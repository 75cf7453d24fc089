// smemsim test corpus: copied verbatim from github:yuhc/gpu-rodinia (Rodinia license: University of Virginia, redistribution with notice),
// cuda/nw/needle.h at commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4. Everything after these three lines is that file, unchanged.
//
#ifdef RD_WG_SIZE_0_0
	#define BLOCK_SIZE RD_WG_SIZE_0_0
#elif defined(RD_WG_SIZE_0)
	#define BLOCK_SIZE RD_WG_SIZE_0
#elif defined(RD_WG_SIZE)
	#define BLOCK_SIZE RD_WG_SIZE
#else
	#define BLOCK_SIZE 16
#endif
//#define TRACE

