"""Run a generated kernel on the GPU through cuda.core and compare it with the interpreter.

Inputs are the interpreter's (seeded random, or the caller's); outputs start poisoned (all
bits set, NaN for floats) on both sides, so an element the GPU never writes cannot pass.
Integers must match exactly; floating-point outputs within `FLOAT_TOLERANCE` of the
reference's norm (the GPU fuses multiply-adds, numpy does not).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from kernels_ir import Kernel, TensorMap, from_storage, make_arrays, resolve_launch, run
from kernels_ir.stmt_async import tensor_maps

from .compile import Compiled, ToolMissing, compile_kernel

# relative (norm) error allowed between GPU and interpreter float outputs: both compute in
# f32/f64, but the compiler may contract a*b+c into one rounding (FMA); a 16-bit float
# output can then differ by one unit in its last place
FLOAT_TOLERANCE = {"f32": 1e-5, "f64": 1e-12, "f16": 1e-3, "bf16": 8e-3}


@dataclass(frozen=True)
class Mismatch:
    """An output that differs from the interpreter's."""

    array: str
    detail: str


@dataclass(frozen=True)
class GpuRun:
    """One launch on the GPU: what ran, what came back, and how it compares."""

    kernel: str
    device: str
    arch: str
    params: Mapping[str, int | float]
    compiled: Compiled
    registers: int               # the driver's count for the loaded kernel
    static_smem: int             # the driver's static shared memory for it
    driver_blocks_per_sm: int    # cuOccupancyMaxActiveBlocksPerMultiprocessor
    mismatches: tuple[Mismatch, ...]
    outputs: Mapping[str, np.ndarray]

    @property
    def matches(self) -> bool:
        """Every output equals the interpreter's."""
        return not self.mismatches


def gpu_unavailable() -> str | None:
    """None when a GPU and cuda-python are usable, else why not (for skips and messages)."""
    try:
        from cuda.core import Device
    except ImportError:
        return "cuda-python is not installed (pip install 'smemsim[gpu]')"
    try:
        Device().set_current()
    except Exception as err:  # no driver, no device
        return f"no usable CUDA GPU: {err}"
    return None


def _check(result, what: str) -> None:
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        raise RuntimeError(f"{what} failed: CUDA error {err}")


def compare(kernel: Kernel, gpu: Mapping[str, np.ndarray],
            ref: Mapping[str, np.ndarray]) -> tuple[Mismatch, ...]:
    """Differences between GPU outputs and the interpreter's, per written array."""
    out = []
    for g in kernel.globals:
        if g.intent == "in":
            continue
        a, b = gpu[g.name], ref[g.name]
        dtype = _compared_as(kernel, g)
        if a.nbytes % dtype.size:
            dtype = g.dtype
        if dtype is not g.dtype:   # (bytes read as the one type the kernel views them as)
            a, b = a.view(dtype.storage), b.view(dtype.storage)
        if dtype.storage_only:  # compare values, not bits (bf16 arrays hold bits)
            a, b = from_storage(a, dtype), from_storage(b, dtype)
        if dtype.is_float:
            nan_a, nan_b = np.isnan(a), np.isnan(b)
            if (nan_a != nan_b).any():
                i = int(np.flatnonzero(nan_a != nan_b)[0])
                out.append(Mismatch(g.name, f"element {i}: GPU {a[i]}, interpreter {b[i]} "
                                            "(one side never wrote it)"))
                continue
            keep = ~nan_b
            scale = np.linalg.norm(b[keep].astype(np.float64)) or 1.0
            err = np.linalg.norm((a[keep] - b[keep]).astype(np.float64)) / scale
            if err > FLOAT_TOLERANCE[dtype.name]:
                i = int(np.argmax(np.abs(a[keep] - b[keep])))
                out.append(Mismatch(g.name, f"relative error {err:.2e} > "
                                            f"{FLOAT_TOLERANCE[dtype.name]:g} (largest at "
                                            f"element {np.flatnonzero(keep)[i]})"))
        elif not np.array_equal(a, b):
            i = int(np.flatnonzero(a != b)[0])
            out.append(Mismatch(g.name, f"element {i}: GPU {a[i]}, interpreter {b[i]} "
                                        f"({int((a != b).sum())} elements differ)"))
    return tuple(out)


def _compared_as(kernel: Kernel, g):
    """The element type an array's outputs are compared as: its own, or for an array of
    bytes (a kernel read from PTX) the type its source declares it with, else the one type
    its views read it as, where they agree (a float array's rounding is then compared as
    floats)."""
    if g.dtype.size != 1:
        return g.dtype
    declared = getattr(g, "declared", None)
    if declared is not None and declared.size > 1:
        return declared
    kinds = {v.dtype for v in kernel.global_views if v.base is g}
    if len(kinds) != 1:
        return g.dtype
    (dtype,) = kinds
    return dtype if dtype.size > 1 else g.dtype


# element type -> cuTensorMapEncodeTiled's data type (integers by size: TMA moves bits)
_TMA_TYPES = {"f16": "FLOAT16", "bf16": "BFLOAT16", "f32": "FLOAT32", "f64": "FLOAT64",
              "i32": "INT32", "u32": "UINT32", "i64": "INT64", "u64": "UINT64",
              "u8": "UINT8", "i8": "UINT8", "u16": "UINT16", "i16": "UINT16"}


def encode_tensor_map(driver, m: TensorMap, address: int, params: Mapping):
    """cuTensorMapEncodeTiled of a tensor map over the device buffer at `address`."""
    from kernels_ir.launch import eval_param_expr
    shape = [int(eval_param_expr(e, params)) for e in m.shape]
    size = m.dtype.size
    dims = [driver.cuuint64_t(x) for x in reversed(shape)]          # innermost first
    # globalStrides: every dimension but the innermost, in bytes, innermost first
    strides = [driver.cuuint64_t(int(eval_param_expr(e, params)) * size)
               for e in reversed(m.strides)]
    box = [driver.cuuint32_t(x) for x in reversed(m.box)]
    ones = [driver.cuuint32_t(1)] * m.rank
    dtype = getattr(driver.CUtensorMapDataType,
                    f"CU_TENSOR_MAP_DATA_TYPE_{_TMA_TYPES[m.dtype.name]}")
    swizzle = getattr(driver.CUtensorMapSwizzle, "CU_TENSOR_MAP_SWIZZLE_" + (
        "NONE" if m.swizzle is None else m.swizzle.split("_")[1]))
    err, tmap = driver.cuTensorMapEncodeTiled(
        dtype, m.rank, address, dims, strides, box, ones,
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
        driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
        driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    _check(err, f"cuTensorMapEncodeTiled of '{m.name}'")
    return tmap


def _launch_with_tensor_maps(driver, kernel, launch_, k, stream, args, buffers, maps) -> None:
    """cuLaunchKernel with every argument by address: the tensor maps are 128-byte
    `__grid_constant__` parameters (the cuda.core launch here takes scalars and buffers)."""
    import ctypes
    keep = []
    pointers = (ctypes.c_void_p * (len(args) + len(maps)))()
    for i, a in enumerate(args):
        value = np.array([int(a.handle)], np.uint64) if hasattr(a, "handle") else np.array([a])
        keep.append(value)
        pointers[i] = value.ctypes.data
    for j, m in enumerate(maps):
        tmap = encode_tensor_map(driver, m, int(buffers[m.array.name].handle),
                                 dict(launch_.params))
        keep.append(tmap)
        pointers[len(args) + j] = tmap.getPtr()
    err, function = driver.cuKernelGetFunction(k.handle)
    _check(err, "cuKernelGetFunction")
    _check(driver.cuLaunchKernel(function, *launch_.grid, *launch_.block, launch_.dynamic_smem,
                                 stream.handle, ctypes.addressof(pointers), 0), "cuLaunchKernel")


def run_on_gpu(kernel: Kernel, params: Mapping | None = None,
               arrays: Mapping[str, np.ndarray] | None = None, seed: int = 0,
               check: bool = True) -> GpuRun:
    """Compile for the current GPU, launch once, copy back, compare with the interpreter."""
    try:
        from cuda.bindings import driver
        from cuda.core import Device, LaunchConfig, ObjectCode, launch
    except ImportError as err:
        raise ToolMissing("running on a GPU needs cuda-python: pip install 'smemsim[gpu]'") \
            from err
    launch_ = resolve_launch(kernel, params)
    host = make_arrays(launch_, seed)
    # (a typed array given for a kernel's byte array, one read from PTX: its bytes)
    sizes = {g.name: g.dtype.size for g in kernel.globals}
    host.update({k: np.ascontiguousarray(v).view(np.uint8)
                 if sizes.get(k) == 1 and np.asarray(v).dtype.itemsize > 1
                 else np.ascontiguousarray(v) for k, v in (arrays or {}).items()})
    dev = Device()
    dev.set_current()
    stream = dev.create_stream()
    arch = f"sm_{dev.arch}"
    compiled = compile_kernel(kernel, arch)
    k = ObjectCode.from_cubin(compiled.cubin).get_kernel(kernel.name)
    if launch_.dynamic_smem and launch_.smem_window > 48 * 1024:
        # beyond 48 KiB a block's shared memory, static and dynamic together, needs the
        # dynamic size opted in (as the user's cudaFuncSetAttribute does)
        _check(driver.cuKernelSetAttribute(
            driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            launch_.dynamic_smem, k.handle, driver.CUdevice(dev.device_id)),
            "raising the dynamic shared-memory limit")
    buffers = {}
    for g in kernel.globals:
        data = host[g.name]
        buf = dev.allocate(max(data.nbytes, 1), stream=stream)
        stream.sync()
        if data.nbytes:
            _check(driver.cuMemcpyHtoD(int(buf.handle), data, data.nbytes), "copy to device")
        buffers[g.name] = buf
    args = []
    maps = tensor_maps(kernel)
    map_names = {m.name for m in maps}
    for name in compiled.generated.arguments:
        if name in map_names:
            continue  # encoded at launch, after the other arguments (codegen's order)
        if name in buffers:
            args.append(buffers[name])
        else:
            p = kernel.param(name)
            args.append(p.dtype.np.type(launch_.params[name]))
    if maps:
        _launch_with_tensor_maps(driver, kernel, launch_, k, stream, args, buffers, maps)
    else:
        # a kernel that synchronizes its grid needs every block resident: a cooperative
        # launch, which the driver refuses for a grid larger than that
        cooperative = {"is_cooperative": True} if kernel.cooperative else {}
        config = LaunchConfig(grid=launch_.grid, block=launch_.block,
                              shmem_size=launch_.dynamic_smem, **cooperative)
        launch(stream, config, k, *args)
    stream.sync()
    outputs = {}
    for g in kernel.globals:
        data = np.empty_like(host[g.name])
        if data.nbytes:
            _check(driver.cuMemcpyDtoH(data, int(buffers[g.name].handle), data.nbytes),
                   "copy to host")
        outputs[g.name] = data
    for buf in buffers.values():
        buf.close(stream)
    stream.sync()
    mismatches = ()
    if check:
        ref = run(kernel, dict(launch_.params), host)
        mismatches = compare(kernel, outputs, ref)
    blocks = k.occupancy.max_active_blocks_per_multiprocessor(launch_.threads_per_block,
                                                              launch_.dynamic_smem)
    return GpuRun(kernel.name, dev.name, arch, dict(launch_.params), compiled,
                  int(k.attributes.num_regs), int(k.attributes.shared_size_bytes),
                  int(blocks), mismatches, outputs)
