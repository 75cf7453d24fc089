"""Validate imported kernels against nvcc builds of the original CUDA files.

For each case (a .cu, a kernel, the `smemsim import` options): read it from nvcc's build
(smemsim.frontends.ptx) and write it as a kernels file (the GPU machine reads that), write a harness
that #includes the original file and launches the kernel once the way the kernel says
(arrays zeroed, scalars at their defaults), build it with nvcc (-O3, the toolkit's defaults:
no pragma is added), and compare ncu's counters with the analysis of the kernel (instructions
exactly, wavefronts never below) and its registers with ptxas's.

    python3 tools/gpu_original.py prepare DIR        (here: writes the harnesses)
    python3 tools/gpu_original.py prepare-corpus DIR (likewise, for tests/corpus/corpus.json:
                                          each original file compiled as it is, its main()
                                          renamed, one launch of the entry's kernel)
    python3 tools/gpu_original.py prepare-patched DIR [FILE_SUBSTRING ...]
                                          (likewise, for the corpus entries whose `fix`
                                          proposes a change: the original and the file
                                          `fix --patch` would write, each a case)
    python3 tools/gpu_original.py run DIR OUT_DIR [KERNEL ...]
                                          (on a machine with a GPU, nvcc and ncu; KERNEL
                                          names keep only those cases; SHARD=i/n in the
                                          environment, every n-th case from the i-th)

(to judge a new reading against counters a run already measured, without a GPU:
tools/ptx_recount.py)

A validation driver, not part of the library.
"""
from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


GUARD = 1 << 20   # bytes of zeroed margin on each side of a harness's global arrays


def harness(cu: pathlib.Path, name: str, kernel, launch, folder: pathlib.Path,
            callee: str | None = None, rename_main: bool = False, options=None) -> str:
    """C++ (to be written in `folder`) that launches the original kernel once as `launch`
    says (`callee`: the instantiation to launch, `k<32>`; `rename_main`: the original file
    has a main() of its own, renamed away; `options`: the file's -D and -I)."""
    from smemsim.frontends.cuda import signature
    arrays = {g.name: g for g in kernel.globals}
    include = os.path.relpath(cu.resolve(), folder.resolve())
    lines = ["#define main smemsim_original_main"] if rename_main else []
    lines += [f'#include "{include}"', "#undef main" if rename_main else "",
              "#include <cstdio>",
              "// a device pointer that converts to the parameter's own pointer type (uint4*, ...)",
              "struct SmemsimPtr { void* p; template <class U> operator U*() const "
              "{ return (U*)p; } };", "int main()", "{"]
    args = []
    params = signature(str(cu), name, options)   # (the file read once)
    for pname, pointer in params:
        if not pointer and pname in arrays and arrays[pname].texture:
            lines += texture_object(arrays[pname], launch, options)
            args.append(f"{pname}_t")
        elif pointer:
            g = arrays[pname]
            n = int(launch.lengths[pname])
            # zeroed margins of GUARD bytes on both sides: a kernel that reads a little
            # outside its arrays (Rodinia's srad_cuda_2 reads a row past C_cuda's end at the
            # bottom border, its own bug, which `smemsim check` reports) runs as it does in
            # its users' programs instead of faulting, so that ncu has counters to read;
            # in-bounds kernels never see the margins
            c = g.dtype.c_name
            lines += [f"    {c}* {pname}_d;",
                      f"    cudaMalloc(&{pname}_d, {n}ull * sizeof({c}) + 2 * {GUARD});",
                      f"    cudaMemset({pname}_d, 0, {n}ull * sizeof({c}) + 2 * {GUARD});",
                      f"    {pname}_d = ({c}*)((char*){pname}_d + {GUARD});"]
            args.append(f"SmemsimPtr{{{pname}_d}}")
        else:
            args.append(repr(launch.params[pname]))
    g, b = launch.grid, launch.block
    if launch.dynamic_smem > 48 * 1024:
        # past 48 KiB a kernel's dynamic shared memory needs the opt-in, as the original
        # host code asks for it (cuda_hgemm's initMmaBase)
        lines.append(f"    cudaFuncSetAttribute((const void*){callee or name}, "
                     "cudaFuncAttributeMaxDynamicSharedMemorySize, "
                     f"{launch.dynamic_smem});")
    if kernel.cooperative:
        # grid.sync() needs a cooperative launch: each argument's value held in a local,
        # the launch given their addresses
        for k, (pname, pointer) in enumerate(params):
            lines.append(f"    void* arg{k} = {pname}_d;" if pointer else
                         f"    {kernel.param(pname).dtype.c_name} arg{k} = {args[k]};")
        lines += [f"    void* args[] = {{{', '.join(f'&arg{k}' for k in range(len(args)))}}};",
                  f"    cudaLaunchCooperativeKernel((void*){callee or name}, dim3({g[0]}, "
                  f"{g[1]}, {g[2]}), dim3({b[0]}, {b[1]}, {b[2]}), args, "
                  f"{launch.dynamic_smem}, 0);"]
    else:
        lines += [f"    {callee or name}<<<dim3({g[0]}, {g[1]}, {g[2]}), dim3({b[0]}, {b[1]}, "
                  f"{b[2]}), {launch.dynamic_smem}>>>({', '.join(args)});"]
    lines += ["    cudaError_t e = cudaDeviceSynchronize();",
              '    if (e != cudaSuccess) { printf("%s\\n", cudaGetErrorString(e)); return 1; }',
              "    return 0;", "}"]
    return "\n".join(lines) + "\n"


def texture_object(g, launch, options) -> list[str]:
    """Harness lines that make texture object `<name>_t` over zeroed texels, the way the
    importer reads its fetches: point sampling of unnormalized coordinates, clamped (the
    zero-initialized cudaTextureDesc). A 2-D texture lies in a cudaArray of the extent the
    case gives (`--texture NAME=W,H`, integers), a 1-D one in linear memory of its length."""
    extent = (getattr(options, "textures", None) or {}).get(g.name)
    texels = int(launch.lengths[g.name])
    c = g.dtype.c_name
    if extent is None:   # tex1Dfetch: linear memory
        res = [f"    {c}* {g.name}_d;",
               f"    cudaMalloc(&{g.name}_d, {texels}ull * sizeof({c}));",
               f"    cudaMemset({g.name}_d, 0, {texels}ull * sizeof({c}));",
               f"    cudaResourceDesc {g.name}_r = {{}};",
               f"    {g.name}_r.resType = cudaResourceTypeLinear;",
               f"    {g.name}_r.res.linear.devPtr = {g.name}_d;",
               f"    {g.name}_r.res.linear.desc = cudaCreateChannelDesc<{c}>();",
               f"    {g.name}_r.res.linear.sizeInBytes = {texels}ull * sizeof({c});"]
    else:
        width, height = (int(part) for part in extent.split(","))
        if width * height != texels:
            raise ValueError(f"texture {g.name}: {width} x {height} texels of one element "
                             f"each, but its array holds {texels} (texels of vectors are not "
                             "made here)")
        res = [f"    cudaChannelFormatDesc {g.name}_f = cudaCreateChannelDesc<{c}>();",
               f"    cudaArray_t {g.name}_a;",
               f"    cudaMallocArray(&{g.name}_a, &{g.name}_f, {width}, {height});",
               f"    {{ static {c} zeros[{texels}]; cudaMemcpy2DToArray({g.name}_a, 0, 0, "
               f"zeros, {width} * sizeof({c}), {width} * sizeof({c}), {height}, "
               "cudaMemcpyHostToDevice); }",
               f"    cudaResourceDesc {g.name}_r = {{}};",
               f"    {g.name}_r.resType = cudaResourceTypeArray;",
               f"    {g.name}_r.res.array.array = {g.name}_a;"]
    return res + [f"    cudaTextureDesc {g.name}_s = {{}};",
                  f"    cudaTextureObject_t {g.name}_t = 0;",
                  f"    cudaCreateTextureObject(&{g.name}_t, &{g.name}_r, &{g.name}_s, "
                  "nullptr);"]


def prepare(folder: pathlib.Path) -> None:
    """Write each case's harness and the case list (here: the importer needs tree-sitter,
    which the GPU machine may lack)."""
    from kernels_ir import resolve_launch
    from smemsim.frontends.loader import load_kernels
    from test_cuda_import import IMPORTED
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    cases = []
    for fixture, (cu_name, key, options) in sorted(IMPORTED.items()):
        cu = ROOT / "tests" / "cuda" / cu_name
        kernel = load_kernels(str(ROOT / "tests" / "cuda" / fixture))[key]()
        src = folder / f"{cu.stem}_{key}.cu"
        src.write_text(harness(cu, key, kernel, resolve_launch(kernel), folder))
        # every kernel of the file must compile: the defines of all its cases
        defines = {k: v for _, (name, _, o) in IMPORTED.items() if name == cu_name
                   for k, v in o.defines.items()}
        cases.append({"cu": cu_name, "kernel": key, "fixture": f"tests/cuda/{fixture}",
                      "harness": str(src.relative_to(ROOT)), "defines": defines})
    (folder / "cases.json").write_text(json.dumps(cases, indent=1))


def prepare_corpus(folder: pathlib.Path) -> None:
    """Harnesses and kernels files for every corpus entry that imports and analyzes (the
    GPU machine has no tree-sitter: the IR travels as the kernels file `import` writes,
    read from nvcc's build of the original file with the harness's flags)."""
    from kernels_ir import KernelError, resolve_launch
    from smemsim import analyze
    from smemsim.frontends.cuda import signature
    from smemsim.frontends.ptx.frontend import import_cu, write_kernels_file
    from tools.corpus_status import flags as corpus_flags
    from tools.corpus_status import options
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "include").mkdir(exist_ok=True)
    entries = json.loads((ROOT / "tests" / "corpus" / "corpus.json").read_text())["entries"]
    cases = []
    for n, entry in enumerate(entries):
        if "refused" in entry or "fault" in entry:
            continue
        cu = ROOT / "tests" / "corpus" / entry["file"]
        key = entry["kernel"]
        source = cu.read_text()
        flags = corpus_flags(entry)
        libraries, link, torch = harness_build(cu, source)
        opts = options(entry)
        opts = dataclasses.replace(opts, include_dirs=[
            *opts.include_dirs, str(folder / "include"),
            *(torch_includes({"torch": True}) if torch else [])])
        try:
            kernel = import_cu(str(cu), opts, key, flags=flags)[key]()
        except KernelError as err:   # (torch's headers where this Python has no torch)
            print(f"{key}: skipped ({err})")
            continue
        if analyze(kernel).load.requests + analyze(kernel).store.requests == 0:
            continue  # no shared memory: nothing for the counters to say
        params = {name for name, _ in signature(str(cu), kernel.name, opts)}
        if any(g.texture and g.name not in params for g in kernel.globals):
            # a texture reference (texture<T, N> at file scope), which CUDA 12 removed: the
            # toolkit the harness builds with (13.0) cannot compile the original
            print(f"{key}: skipped (a texture reference: CUDA 12 removed them, nvcc "
                  "cannot build the original)")
            continue
        fixture = folder / f"case{n}.py"
        fixture.write_text(write_kernels_file(str(cu), opts, key, str(folder),
                                              flags=flags)[0])
        src = folder / f"case{n}.cu"
        src.write_text(harness(cu, kernel.name, kernel, resolve_launch(kernel), folder,
                               callee=key, rename_main="main(" in source, options=opts))
        if 'extern "C" bool isPow2' in source:  # defined in the sample's host .cpp
            with src.open("a") as f:
                f.write('extern "C" bool isPow2(unsigned int x) { return (x & (x - 1)) == 0; }\n')
        cases.append({"cu": entry["file"], "kernel": kernel.name, "key": key,
                      "fixture": str(fixture.relative_to(ROOT)),
                      "harness": str(src.relative_to(ROOT)), "defines": entry.get("defines", {}),
                      "includes": [str(cu.parent.relative_to(ROOT))] + [
                          str(pathlib.Path(d).relative_to(ROOT)) for d in opts.include_dirs
                          if pathlib.Path(d).resolve().is_relative_to(ROOT)],
                      "flags": flags, "torch": torch, "libraries": libraries,
                      "link_flags": link, **resources(kernel)})
    (folder / "cases.json").write_text(json.dumps(cases, indent=1))
    print(f"{len(cases)} cases in {folder}")


def harness_build(cu: pathlib.Path, source: str) -> tuple[list, list, bool]:
    """(libraries, link flags, torch) of an original file's harness build, beyond the
    corpus's own build flags (corpus.json: `build` and the entry's `nvcc_flags`)."""
    # the libraries its host code calls (llm.c's common.h includes cuBLAS and creates
    # handles): linked into the harness only
    local = re.findall(r'#include\s+"([^"]+)"', source)
    texts = [source] + [(cu.parent / h).read_text() for h in local
                        if (cu.parent / h).is_file()]
    libraries = ["cublas", "cublasLt"] if any("cublas" in t for t in texts) else []
    # Parboil's host code calls its timer and argument library (libparboil, built from
    # the suite's common/src, which the corpus does not hold): only the renamed main,
    # which the harness never runs, calls it, so its symbols are left unresolved
    # So are OpenGL's, for cuda-samples' nbody (bodysystemcuda.cu draws through GL; the
    # harness launches the kernel alone): its headers go in the folder's include/
    # (docs/validation.md says how), the libraries are not needed
    # And PyTorch's, for flash-attention-minimal's flash.cu (its host function takes
    # torch::Tensor): its headers are the torch of the machine that builds the harness
    # (the GPU machine's image has one)
    torch = any(re.search(r"#include\s*<torch/", t) for t in texts)
    link = ["-Xlinker", "--unresolved-symbols=ignore-all"] \
        if torch or any("<parboil.h>" in t or re.search(r"#include\s*<GL/", t)
                        for t in texts) else []
    return libraries, link, torch


def resources(kernel) -> dict:
    """The registers a launch allocates (ptxas's, at least 16) and the static shared memory
    ptxas allocated in the build the kernel was read from (None: unread), as a case records
    them."""
    from smemsim.launch.occupancy import registers_allocated
    b = kernel.built
    return {"registers_predicted": registers_allocated(b.registers) if b is not None else None,
            "static_smem_predicted": b.static_smem if b is not None else None}


PATCHED_FLAGS = ("-include", "cstdint")   # the patched cases' build (and harness) flags


def prepare_patched(folder: pathlib.Path, wanted=()) -> None:
    """Cases for the corpus entries fix proposes a change for: the original file, and the
    file with fix's patch applied (written under DIR/patched), so that a GPU run measures
    what the patch check predicts as built for both."""
    from kernels_ir import resolve_launch
    from smemsim.frontends.cuda.patch import LayoutChange, layout_patch
    from smemsim.search.fix_built import SourceFile, search_source
    from smemsim.frontends.ptx.frontend import import_cu, write_kernels_file
    from tools.corpus_status import options
    folder = folder.resolve()
    (folder / "include").mkdir(parents=True, exist_ok=True)
    (folder / "include" / "cublas_v2.h").touch()  # SGEMM_CUDA includes it; kernels do not use it
    entries = json.loads((ROOT / "tests" / "corpus" / "corpus.json").read_text())["entries"]
    cases = []
    for n, entry in enumerate(entries):
        if "refused" in entry or "fault" in entry or \
                (wanted and not any(w in entry["file"] for w in wanted)):
            continue
        cu = ROOT / "tests" / "corpus" / entry["file"]
        opts = options(entry)
        opts = dataclasses.replace(opts, include_dirs=[*opts.include_dirs,
                                                       str(folder / "include")])
        key = entry["kernel"]
        kernel = import_cu(str(cu), opts, key, flags=PATCHED_FLAGS)[key]()
        if not any(s.excess for s in __import__("smemsim").analyze(kernel).sites):
            continue
        # fix's own search: each change patched into the file, built and counted
        f = search_source(kernel, SourceFile(str(cu), key, opts, PATCHED_FLAGS), jobs=1)
        if not f.best:
            continue
        try:
            patch = layout_patch(str(cu), kernel.name, [
                LayoutChange(c.array, c.kind, c.pad, c.swizzle) for c in f.best])
        except Exception as err:  # noqa: BLE001 - a file the patch cannot rewrite: said
            print(f"{key}: no patch: {err}")
            continue
        patched = folder / "patched" / entry["file"]
        patched.parent.mkdir(parents=True, exist_ok=True)
        patched.write_text(patch.patched)
        popts = dataclasses.replace(opts, include_dirs=[*opts.include_dirs, str(cu.parent)])
        for tag, source, o in (("original", cu, opts), ("patched", patched, popts)):
            k = import_cu(str(source), o, key, flags=PATCHED_FLAGS)[key]()
            stem = f"case{n}_{tag}"
            fixture = folder / f"{stem}.py"
            fixture.write_text(write_kernels_file(str(source), o, key, str(folder),
                                                  flags=PATCHED_FLAGS)[0])
            src = folder / f"{stem}.cu"
            src.write_text(harness(source, k.name, k, resolve_launch(k), folder, callee=key,
                                   rename_main="main(" in source.read_text(), options=o))
            cases.append({"cu": entry["file"], "kernel": k.name, "key": key, "tag": tag,
                          "source": str(source.resolve().relative_to(ROOT)),
                          "fixture": str(fixture.relative_to(ROOT)),
                          "harness": str(src.relative_to(ROOT)),
                          "defines": entry.get("defines", {}),
                          "includes": [str(cu.parent.relative_to(ROOT))] + [
                              str(pathlib.Path(d).resolve().relative_to(ROOT))
                              for d in opts.include_dirs
                              if pathlib.Path(d).resolve().is_relative_to(ROOT)],
                          "flags": list(PATCHED_FLAGS),
                          **resources(k),
                          "fix": [c.label for c in f.best],
                          "predicted_source_width": f.combined.wavefronts if f.combined
                          else f.best[0].wavefronts})
    (folder / "cases.json").write_text(json.dumps(cases, indent=1))
    print(f"{len(cases)} cases in {folder}")


def run(folder: pathlib.Path, out: pathlib.Path, wanted=()) -> None:
    """Build each harness with nvcc and compare ncu with the analysis of the fixture (the
    kernel read from the original file's nvcc build, as built), with the harness's zeroed
    inputs; registers with those ptxas allocated in that build."""
    from gpu_backend.measure import compare_counts, measure_command
    from smemsim import analyze
    from smemsim.frontends.loader import load_kernels
    out.mkdir(parents=True, exist_ok=True)
    results = []
    cases = [c for c in json.loads((folder / "cases.json").read_text())
             if not wanted or c["kernel"] in wanted or c.get("key") in wanted]
    if os.environ.get("SHARD"):  # SHARD=i/n: every n-th case from the i-th (one GPU call each)
        i, n = map(int, os.environ["SHARD"].split("/"))
        cases = cases[i::n]

    def build_one(case):
        """nvcc -O3 of one harness (every core builds one at a time: a toolkit's headers make
        a build take seconds)."""
        exe = out / pathlib.Path(case["harness"]).stem
        flags = [f"-D{k}={v}" for k, v in case["defines"].items()]
        flags += [f"-I{ROOT / d}" for d in case.get("includes", [])]
        if (folder / "include").is_dir():  # headers the originals' build finds elsewhere
            flags.append(f"-I{folder / 'include'}")
        flags += [f"-I{d}" for d in torch_includes(case)]
        flags += case.get("flags", [])
        try:  # cuBLAS, where the wheel put it (SGEMM_CUDA and llm.c include and call it)
            import nvidia.cublas
            home = pathlib.Path(list(nvidia.cublas.__path__)[0])
            flags += [f"-I{home / 'include'}", f"-L{home / 'lib'}", "-lcublas", "-lcublasLt"]
        except ImportError:  # the toolkit's own, where the case's host code calls it
            flags += [f"-l{name}" for name in case.get("libraries", [])]
        flags += case.get("link_flags", [])
        return case["harness"], (exe, subprocess.run(
            ["nvcc", "-arch=sm_90", "-O3", "-lineinfo", *flags, "-o", str(exe),
             str(ROOT / case["harness"])], capture_output=True, text=True))
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        built = dict(pool.map(build_one, cases))
    for case in cases:
        key = case["kernel"]
        exe, build = built[case["harness"]]
        if build.returncode:
            case["error"] = build.stderr[-2000:]
            print(f"{key}: BUILD FAILED {case['error'][-300:]}", flush=True)
        else:
            try:
                kernel = load_kernels(str(ROOT / case["fixture"]))[case.get("key", key)]()
                report = analyze(kernel, arrays=zeroed(kernel))
                measured = measure_command([str(exe)], key)
                agreement = compare_counts(report, measured)
                case.update(registers_measured=measured.registers,
                            static_smem_measured=measured.static_smem)
            except Exception as err:  # noqa: BLE001 - one case's failure is its result
                import traceback
                case["error"] = f"{type(err).__name__}: {err}"[-2000:]
                case["traceback"] = traceback.format_exc()[-3000:]
                print(f"{case.get('key', key)}: ERROR {case['error'][-300:]}\n"
                      f"{case['traceback'][-1200:]}", flush=True)
            else:
                case.update(counters_ok=agreement.ok, compiler=list(report.compiler),
                            counters=[dataclasses.asdict(c) for c in agreement.checks])
                print(f"{case.get('key', key)} ({case['cu']}{' ' + case.get('tag', '')}, nvcc): "
                      "counters "
                      f"{'ok' if agreement.ok else 'DISAGREE'}: " +
                      "; ".join(f"{c.what} {c.predicted}/{c.measured}"
                                for c in agreement.checks) +
                      f"; registers {case.get('registers_predicted')}/"
                      f"{case['registers_measured']}; static smem "
                      f"{case.get('static_smem_predicted')}/{case['static_smem_measured']}",
                      flush=True)
        results.append(case)
        (out / "results.json").write_text(json.dumps(results, indent=1))


def torch_includes(case: dict) -> list[str]:
    """PyTorch's include folders, where the case's file includes its headers: those of the
    torch this Python imports (none where it has none: nvcc then names the missing header)."""
    from tools.corpus_status import torch_includes as of_this_python
    return of_this_python() if case.get("torch") else []


def zeroed(kernel) -> dict:
    """The harness's inputs: every global array zeroed (scalars at their defaults)."""
    import numpy as np

    from kernels_ir import resolve_launch
    launch = resolve_launch(kernel)
    return {g.name: np.zeros(int(launch.lengths[g.name]), g.dtype.np_type)
            for g in kernel.globals}


def judged(report, counters: list[dict]) -> list:
    """The checks of `report` against a run's stored counters: those counters as Measured
    (what the run did not keep: unmeasured), so that gpu_backend.measure.compare_counts
    judges them as the run did."""
    from gpu_backend.measure import Measured, compare_counts
    # a stored check's name -> Measured's field (the rest: spaces as underscores)
    names = {"tma_ld requests": "tma_requests", "tma_ld bytes": "tma_bytes"}
    kept = {names.get(c["what"], c["what"].replace(" ", "_")): c["measured"]
            for c in counters}
    if "ldgsts_wavefronts" in kept and "shared_wavefronts" not in kept:
        # stored as derived (all shared wavefronts less the other classes'): the parts that
        # give it back
        others = [kept.get(k) or 0 for k in ("load_wavefronts", "store_wavefronts",
                                             "atom_wavefronts")]
        kept.update(shared_wavefronts=kept["ldgsts_wavefronts"] + sum(others),
                    misc_wavefronts=0, atom_wavefronts=kept.get("atom_wavefronts") or 0)
    fields = [f.name for f in dataclasses.fields(Measured)]
    return compare_counts(report, Measured(**{f: kept.get(f) for f in fields})).checks


if __name__ == "__main__":
    if sys.argv[1:2] == ["prepare"]:
        prepare(pathlib.Path(sys.argv[2]))
    elif sys.argv[1:2] == ["prepare-corpus"]:
        prepare_corpus(pathlib.Path(sys.argv[2]))
    elif sys.argv[1:2] == ["prepare-patched"]:
        prepare_patched(pathlib.Path(sys.argv[2]), sys.argv[3:])
    else:
        run(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), sys.argv[4:])
