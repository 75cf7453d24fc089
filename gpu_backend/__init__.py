"""gpu_backend: the real GPU side of smemsim (code generation, NVRTC, launch, measurement).

The only package that imports `cuda.*`, and only lazily, inside the functions that need it.
"""
