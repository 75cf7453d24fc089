"""Occupancy against NVIDIA's own calculator (cuda_occupancy.h) and the seed's worked cases."""
import glob
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from smemsim import get_arch
from smemsim.engine.arch import ARCHS
from smemsim.launch.occupancy import (
    INT_MAX, OccupancyError, _max_dynamic, available_dynamic_smem, best_block_size, occupancy,
    registers_allocated, what_if,
)

ORACLE = pathlib.Path(__file__).parent / "oracle" / "occupancy_oracle.cpp"
BITS = {"warps": 1, "registers": 2, "shared_memory": 4, "blocks": 8, "barriers": 16}


def _toolkit_include():
    candidates = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(str(pathlib.Path(os.path.realpath(nvcc)).parent.parent))
    candidates += sorted(glob.glob("/usr/local/cuda*"), reverse=True)
    for c in candidates:
        if c and (pathlib.Path(c) / "include" / "cuda_occupancy.h").exists():
            return pathlib.Path(c) / "include"
    return None


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    include = _toolkit_include()
    if include is None:
        pytest.skip("cuda_occupancy.h not found (no CUDA toolkit): the oracle needs it")
    compiler = shutil.which("nvcc") or shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler (nvcc or g++) to build the occupancy oracle")
    exe = tmp_path_factory.mktemp("oracle") / "occ"
    cmd = [compiler, "-O1", f"-I{include}", str(ORACLE), "-o", str(exe)]
    if compiler.endswith("nvcc"):
        cmd[1:1] = ["-x", "c++"]
    subprocess.run(cmd, check=True, capture_output=True)
    return exe


def random_configs(n, seed=7):
    """Random configurations over every architecture, biased so every limiter shows up."""
    rng = np.random.default_rng(seed)
    archs = list(ARCHS.values())
    for _ in range(n):
        a = archs[rng.integers(len(archs))]
        kind = rng.integers(4)
        block = int([rng.integers(1, 1025), 32 * rng.integers(1, 33), 32 * rng.integers(1, 5),
                     rng.integers(1, 129)][kind])
        regs = int(rng.choice([rng.integers(0, 256), 8 * rng.integers(1, 17),
                               rng.integers(0, 33)]))
        opt_in = bool(rng.integers(2))
        static = int(rng.choice([0, rng.integers(0, 49153), 128 * rng.integers(0, 65),
                                 rng.integers(0, 2049)]))
        top = a.smem_per_block_optin if opt_in else 49152
        dyn = int(rng.choice([0, rng.integers(0, top + 2048), 1024 * rng.integers(0, 64),
                              rng.integers(0, 4097)]))
        carveout = None if a.major < 7 else rng.choice([None, 0, 25, 50, 100,
                                                        int(rng.integers(0, 101))])
        nblocks = int(rng.integers(1, 9))
        yield a, block, regs, static, dyn, None if carveout is None else int(carveout), \
            opt_in, nblocks


def run_oracle(exe, configs):
    lines = []
    for a, block, regs, static, dyn, carveout, opt_in, nblocks in configs:
        lines.append(" ".join(str(v) for v in (
            a.major, a.minor, a.threads_per_sm, a.regs_per_block, a.regs_per_sm, a.smem_per_sm,
            a.smem_per_block_optin, a.reserved_smem_per_block, block, regs, static, dyn,
            _max_dynamic(a, static, opt_in), -1 if carveout is None else carveout, 1,
            nblocks)))
    out = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert len(out) == len(lines)
    return [line.split() for line in out]


def as_limit(v):
    return None if int(v) == INT_MAX else int(v)


@pytest.mark.slow
def test_matches_cuda_occupancy_h_on_20000_configurations(oracle):
    configs = list(random_configs(20000))
    results = run_oracle(oracle, configs)
    checked = rejected = 0
    seen = set()
    for cfg, row in zip(configs, results):
        a, block, regs, static, dyn, carveout, opt_in, nblocks = cfg
        assert row[0] != "error", cfg
        try:
            r = occupancy(a, block, regs, static, dyn, carveout, opt_in)
        except OccupancyError:
            # inputs no launch can have: the calculator finds no block fits either
            assert int(row[0]) == 0, (cfg, row)
            rejected += 1
            continue
        checked += 1
        names = tuple(f for f in BITS if int(row[1]) & BITS[f])
        seen.update(names)
        assert (r.active_blocks, set(r.limiters)) == (int(row[0]), set(names)), (cfg, row)
        assert [r.limits[f] for f in ("warps", "registers", "shared_memory", "blocks",
                                      "barriers")] == [as_limit(v) for v in row[2:7]], (cfg, row)
        assert (r.registers_per_block, r.smem_per_block) == (int(row[7]), int(row[8])), cfg
    assert checked >= 15000 and checked + rejected == 20000
    assert seen >= set(BITS), seen  # every limiting factor was exercised


def test_available_dynamic_smem_and_best_block_size_match(oracle):
    configs = list(random_configs(1500, seed=11))
    results = run_oracle(oracle, configs)
    compared = 0
    for cfg, row in zip(configs, results):
        a, block, regs, static, dyn, carveout, opt_in, nblocks = cfg
        try:
            occupancy(a, block, regs, static, dyn, carveout, opt_in)
        except OccupancyError:
            continue
        compared += 1
        try:
            avail = available_dynamic_smem(a, block, regs, nblocks, static, carveout, opt_in)
        except OccupancyError:
            avail = -1
        assert avail == int(row[9]), (cfg, row)
        best = best_block_size(a, regs, static, dyn, carveout, opt_in)
        assert (best.block_size, best.blocks_per_sm) == (int(row[10]), int(row[11])), (cfg, row)
    assert compared > 1000


def test_seed004_occupancy_discussion():
    """Seed 004: 256 threads at 128 registers and 32 KiB give 16 active warps on sm_80.

    Registers: 128 x 32 = 4096 per warp; a sub-partition's 16384 registers hold 4 warps, the
    SM's four hold 16, so 2 blocks of 8 warps fit (16 warps). Shared memory would allow 4
    blocks (32 KiB + 1 KiB reserved each in 164 KiB), warps 8, blocks 32: registers limit.
    The seed's other option, 128 threads at about 180 registers, gets 8 warps (25%).
    """
    r = occupancy("sm_80", 256, 128, static_smem=32 * 1024)
    assert (r.active_blocks, r.active_warps, r.limiters) == (2, 16, ("registers",))
    assert r.occupancy == 0.25
    r = occupancy("sm_80", 128, 180)
    assert (r.active_warps, r.occupancy) == (8, 0.125)


def test_errors_name_the_limit_and_value():
    with pytest.raises(OccupancyError, match="1025 threads"):
        occupancy("sm_90", 1025, 32)
    with pytest.raises(OccupancyError, match="256 registers per thread: the limit is 255"):
        occupancy("sm_90", 128, 256)
    with pytest.raises(OccupancyError, match="exceed the opt-in maximum of 232448"):
        occupancy("sm_90", 128, 32, dynamic_smem=232449)
    with pytest.raises(OccupancyError, match="default limit without opt-in"):
        occupancy("sm_90", 128, 32, dynamic_smem=60000, opt_in=False)
    with pytest.raises(OccupancyError, match="a carveout applies from sm_70"):
        occupancy("sm_61", 128, 32, carveout=50)


def test_carveout_and_reserved_shared_memory():
    # 100 KiB per block on sm_90: the default carveout (228 KiB) holds two blocks of 101 KiB
    r = occupancy("sm_90", 128, 32, dynamic_smem=100 * 1024)
    assert r.smem_per_block == 101 * 1024 and r.active_blocks == 2
    # a 50% carveout asks for 114 KiB, aligned up to 132 KiB: one block
    r = occupancy("sm_90", 128, 32, dynamic_smem=100 * 1024, carveout=50)
    assert (r.smem_per_sm, r.active_blocks) == (132 * 1024, 1)


def test_what_if_curves_mark_the_current_point():
    base = occupancy("sm_90", 256, 64)
    blocks, regs, smem = what_if(base)
    assert blocks.knob == "block_size" and blocks.current == 256
    assert blocks.occupancy[blocks.xs.index(256)] == base.occupancy
    assert regs.occupancy[regs.xs.index(64)] == base.occupancy
    assert max(smem.occupancy) == 1.0 or max(smem.occupancy) == base.occupancy


def test_a_current_point_between_the_samples_is_on_its_curve():
    """47 registers (sm_90, 256 threads, 24 KiB): 62.5% at the kernel's own value; the
    curve's row of 40 (75%) was marked current. Every curve holds its current value."""
    base = occupancy("sm_90", 256, 47, static_smem=24576)
    assert base.occupancy == 0.625
    for curve in what_if(base):
        assert curve.current in curve.xs
        i = curve.xs.index(curve.current)
        assert curve.occupancy[i] == base.occupancy, curve.knob


def test_arch_names():
    assert get_arch("90a").name == "sm_90" and get_arch("8.6").name == "sm_86"
    with pytest.raises(ValueError, match="unknown architecture"):
        get_arch("sm_42")


def test_from_a_kernel_uses_its_block_and_shared_memory():
    from examples import reed_solomon, transpose
    from smemsim.launch.occupancy import kernel_occupancy
    r = kernel_occupancy(transpose.transpose(pad=1), "sm_90", 32)
    assert (r.block_size, r.static_smem, r.dynamic_smem) == (1024, 32 * 33 * 4, 0)
    assert r.active_blocks == 2 and r.limiters == ("warps", "registers")
    g = reed_solomon.general()
    r = kernel_occupancy(g, "sm_80", 40, {"tileWidthRow": 16, "tileWidthCol": 64})
    assert r.block_size == 16 * 64 and r.dynamic_smem == 16 * 16 + 16 * 64


def _cccl_arch_traits():
    """The folder holding CCCL's cuda/__device/arch_traits.h (the nvidia-cuda-cccl wheel's,
    a dependency of smemsim), or None."""
    import site
    import sysconfig
    roots = {sysconfig.get_paths()["purelib"], *site.getsitepackages()}
    for root in roots:
        for found in glob.glob(os.path.join(root, "nvidia", "*", "include", "cccl",
                                            "cuda", "__device", "arch_traits.h")):
            return pathlib.Path(found).parents[2]
    return None


def test_the_device_figures_of_every_architecture_equal_cccls_arch_traits(tmp_path):
    """Threads, blocks, registers and shared memory per SM, the opt-in maximum and the
    reservation of each architecture CCCL's arch_traits knows (sm_88, sm_110 and sm_121
    among them: the figures cuda_occupancy.h takes from the driver) equal the table's."""
    cccl = _cccl_arch_traits()
    compiler = shutil.which("g++") or shutil.which("c++")
    if cccl is None or compiler is None:
        pytest.skip("CCCL's arch_traits.h (nvidia-cuda-cccl) or a C++ compiler is missing")
    import re
    known = set(re.findall(r"arch_traits<arch_id::(sm_\d+)>\(\) noexcept",
                           (cccl / "cuda" / "__device" / "arch_traits.h").read_text()))
    names = [a for a in ARCHS if a in known]
    assert {"sm_88", "sm_110", "sm_121"} <= set(names), sorted(known)
    src = tmp_path / "traits.cpp"
    src.write_text("#include <cstdio>\n#include <cuda/__device/arch_traits.h>\nint main() {\n" +
                   "".join(f"  {{ auto t = cuda::arch_traits<cuda::arch_id::{n}>(); printf("
                           f"\"{n} %d %d %d %zu %zu %zu\\n\", t.max_threads_per_multiprocessor, "
                           "t.max_blocks_per_multiprocessor, t.max_registers_per_block, "
                           "t.max_shared_memory_per_multiprocessor, "
                           "t.max_shared_memory_per_block_optin, "
                           "t.reserved_shared_memory_per_block); }\n" for n in names) + "}\n")
    exe = tmp_path / "traits"
    built = subprocess.run([compiler, "-std=c++17", f"-I{cccl}", f"-I{cccl.parent}", str(src),
                            "-o", str(exe)], capture_output=True, text=True)
    if built.returncode:
        pytest.skip(f"this CCCL's arch_traits.h does not build here: {built.stderr[-300:]}")
    rows = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    got = {line.split()[0]: tuple(int(v) for v in line.split()[1:])
           for line in rows.splitlines()}
    assert set(got) == set(names)
    for n in names:
        a = ARCHS[n]
        assert got[n] == (a.threads_per_sm, a.blocks_per_sm, a.regs_per_block, a.smem_per_sm,
                          a.smem_per_block_optin, a.reserved_smem_per_block), n


def test_registers_allocated_are_what_the_h200_launched():
    """ptxas's count, at least 16: ncu's launch__registers_per_thread for each corpus kernel
    the H200 ran (the old corpus as built, the new at its libraries' launches)."""
    root = pathlib.Path(__file__).parent.parent / "docs" / "validation"
    import json
    pairs = [(c["registers_predicted"], c["registers_measured"]) for c in json.loads(
        (root / "h200-2026-11-30-corpus-built.json").read_text())["cases"]
        if c.get("registers_measured") is not None]
    pairs += [(c["registers_predicted"], c["counters"]["registers"]) for c in json.loads(
        (root / "h200-2026-11-30-corpus-ptx-launches.json").read_text())]
    # the stored predictions are ptxas's own counts; 19 of them below 16
    assert len(pairs) == 158 and sum(p < 16 for p, _ in pairs) == 19
    assert [registers_allocated(p) for p, _ in pairs] == [m for _, m in pairs]
    o = occupancy("sm_90", 256, 10)
    assert (o.registers_per_thread, o.registers_allocated) == (10, 16)
    # no occupancy moves: 10 registers a thread are a warp's 256-register unit x2, as 16 are
    assert o.registers_per_block == occupancy("sm_90", 256, 16).registers_per_block == 4096
