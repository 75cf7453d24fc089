"""Validate numba.cuda and Triton kernels read through their compilers' PTX against an
H200's counters.

Neither numba nor Triton is installed on the GPU machine, so the build is made here: the
DSL's PTX of each kernel (as `smemsim analyze FILE.py` makes it), the cubin of that PTX
(the toolkit's ptxas for numba; Triton's own ptxas with its build's options for Triton:
the build whose SASS the analysis counts), and a C++ harness that loads the cubin (the
file its command line names) with the CUDA driver API and launches the kernel once as the analysis does (every array zeroed, with
a zeroed margin on each side, but for the input data launches.json gives a corpus entry,
copied from a file beside the cubin: tools/corpus_data.py; numba's array parameters
meminfo, parent, nitems, itemsize, data, shape, strides, Triton's scratch pointers, as the
analysis gives them).

    python3 tools/gpu_dsl.py prepare DIR FILE.py[:KERNEL[:HOST;HOST...[:GRID[/BLOCK]]]] ...
                                  (here; DIR inside the checkout, so that it travels to the
                                  GPU machine; HOST: --host's NAME=VALUE, or p.NAME=VALUE
                                  for -p, l.NAME=N for --length, smem=BYTES for
                                  --launch-smem; GRID, BLOCK: X[,Y,Z];
                                  a cupy or pycuda program's strings, or a .cu, as
                                  `--frontend ptx` builds them)
    python3 tools/gpu_dsl.py run DIR OUT_DIR                   (GPU machine: nvcc, ncu)
    python3 tools/gpu_dsl.py judge DIR OUT_DIR/results.json OUT.json   (here)
    python3 tools/gpu_dsl.py analyze SPEC ...       (here: each build's analysis with the
                                  harness's zeroed arrays, to check a launch first)

`corpus:WORD,...` specs launch each entry as tests/corpus_ptx/launches.json says its
library does (SMEMSIM_CORPUS_LAUNCHES: another file of that form).

A validation driver, not part of the library.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

GUARD = 1 << 20   # bytes of zeroed margin on each side of a global array

_C_TYPES = {"i8": "int8_t", "u8": "uint8_t", "i16": "int16_t", "u16": "uint16_t",
            "i32": "int32_t", "u32": "uint32_t", "i64": "int64_t", "u64": "uint64_t",
            "f32": "float", "f64": "double"}


CORPUS = ROOT / "tests" / "corpus_ptx"
STAND_IN_INT, STAND_IN_FLOAT = 64, 1.0   # every scalar of a corpus kernel's stand-in launch


def corpus_builds(words: str):
    """(file, key, build, ptxas command) of the first kernel with shared memory of each
    nvcc entry of the PTX corpus whose file contains one of `words` (comma-separated): the
    PTX path's build (the entry's own flags), launched as its library's host code launches
    it (tests/corpus_ptx/launches.json; SMEMSIM_CORPUS_LAUNCHES names another such file),
    else as a stand-in (1 block of 128 threads, every integer scalar 64, every float 1.0,
    arrays of the default length): the files launch none of them with values they state.
    Arrays are zeroed (the harness's)."""
    import dataclasses
    import sys as _sys
    _sys.path.insert(0, str(ROOT / "tools"))
    from ptx_corpus_status import launched_options, launches, options_of

    from smemsim.frontends.ptx import frontend as fe
    from smemsim.frontends.ptx.declarations import param_slots, pointer_params
    from smemsim.frontends.ptx.lower import Launch, Lowering, _param_pointers
    from smemsim.frontends.ptx.parse import parse
    from smemsim.frontends.ptx.sass import ptxas_options
    from smemsim.toolrun import find_tool
    entries = json.loads((CORPUS / "corpus.json").read_text())["entries"]
    given = launches()
    for e in entries:
        if not (e.get("ptx_ok") and e.get("kernels_using_shared")) or \
                not any(w in e["file"] for w in words.split(",")):
            continue
        launch = given.get(e["file"])
        opts, flags = launched_options(e, launch) if launch else options_of(e)
        path = str(CORPUS / e["file"])
        text = fe._ptx(path, opts, "sm_90", flags)
        module = parse(text)
        keys = {pretty: symbol for symbol, pretty in fe.readable(list(module.entries)).items()}
        key = (launch or {}).get("kernel") or e["kernels_using_shared"][0]
        symbol = keys.get(key) or next((s for k, s in keys.items() if key in (k, s)), None)
        if symbol is None:
            print(f"{e['file']}: no kernel {key!r} in the build")
            continue
        if launch is None:
            entry = _param_pointers(module.entries[symbol])   # (as lower() reads it)
            names = fe._declared_names(path, key, opts, len(entry.params))
            probe = Lowering(module, entry, Launch(grid=(1,), block=(128,),
                                                   names=names or ()), None, None)
            slots, pointers = param_slots(probe), pointer_params(probe)
            params = {name: (STAND_IN_FLOAT if t.startswith("f") else STAND_IN_INT)
                      for k, name, t in slots if k not in pointers}
            opts = dataclasses.replace(opts, grid="1", block="128", smem="0", params=params)
        try:
            made = cu_build(module, text, symbol, key, opts, flags, path)
        except Exception as err:  # noqa: BLE001 - a kernel not lowered is left out, said
            print(f"{e['file']}: {key}: not lowered: {' '.join(str(err).split())[:300]}")
            continue
        yield path, key, made, [find_tool("ptxas"), "-arch=sm_90", "-lineinfo",
                                *ptxas_options(flags)]


def cu_build(module, text: str, symbol: str, key: str, opts, flags, path=None):
    """The PTX path's KernelBuild of one entry of nvcc's build (of the file at `path`), with
    its parameter layout, the parameters named as the kernel is (its declaration's names)."""
    from smemsim.frontends.ptx import frontend as fe
    from smemsim.frontends.ptx.declarations import param_slots
    from smemsim.frontends.ptx.lower import Launch, Lowering, _param_pointers
    from smemsim.frontends.ptx.operands import _aggregate
    from smemsim.frontends.ptx.python_kernel import KernelBuild
    entry = _param_pointers(module.entries[symbol])   # (as lower() reads it)
    names = fe._declared_names(path, key, opts, len(entry.params))
    slots = param_slots(Lowering(module, entry, Launch(grid=(1,), block=(128,),
                                                       names=names or ()), None, None))
    kernel = fe._entry_kernel(module, text, symbol, key, opts, "sm_90", flags, path)
    layout = []   # per PTX parameter: a slot name, or ("struct", bytes, ((off, name)..))
    for n, p in enumerate(entry.params):
        if _aggregate(p):
            fields = tuple((k[1], name) for k, name, _ in slots
                           if isinstance(k, tuple) and k[0] == n)
            layout.append(("struct", p.nbytes, fields))
        else:
            layout.append(next(name for k, name, _ in slots if k == n))
    return KernelBuild(kernel, text, symbol, tuple(layout))


def builds_of(spec: str):
    """(file, key, the frontend's build, the ptxas command that makes its cubin: [ptxas,
    options...]) of `FILE.py[:KERNEL]`'s kernels, or of `corpus:WORD[,WORD]` (corpus_builds)."""
    from smemsim.frontends.loader import dsl_of
    from smemsim.toolrun import find_tool
    if spec.startswith("corpus:"):
        yield from corpus_builds(spec.partition(":")[2])
        return
    path, _, rest = spec.partition(":")
    wanted, _, rest = rest.partition(":")
    hosts, _, grid = rest.partition(":")
    grid, _, block = grid.partition("/")
    from smemsim.frontends.cuda import Options
    pairs = [h.split("=", 1) for h in hosts.split(";") if h]
    options = Options(hosts={k: v for k, v in pairs if not k.startswith("p.") and k != "smem"},
                      params={k[2:]: int(v) for k, v in pairs if k.startswith("p.")},
                      grid=grid or None, block=block or None,
                      smem=next((v for k, v in pairs if k == "smem"), None))
    if path.endswith(".cu"):   # a CUDA file as `--frontend ptx` builds it (l.NAME=N: lengths)
        from smemsim.frontends.ptx import frontend as fe
        from smemsim.frontends.ptx.parse import parse
        from smemsim.frontends.ptx.sass import ptxas_options
        options = dataclasses.replace(options, lengths={k[2:]: v for k, v in pairs
                                                        if k.startswith("l.")},
                                      hosts={k: v for k, v in options.hosts.items()
                                             if not k.startswith("l.")})
        text = fe._ptx(path, options, "sm_90", [])
        module = parse(text)
        for symbol, key in fe.readable(list(module.entries)).items():
            if not wanted or key == wanted:
                yield path, key, cu_build(module, text, symbol, key, options, [], path), [
                    find_tool("ptxas"), "-arch=sm_90", "-lineinfo", *ptxas_options(())]
        return
    from smemsim.frontends.loader import embeds_cuda
    if embeds_cuda(path):   # a cupy or pycuda program's strings, as nvcc builds them
        from smemsim.frontends.ptx import strings_frontend as sf
        from smemsim.frontends.ptx.sass import ptxas_options
        found = sf.program(path, sf.pk.given_values(options))
        for key in found.kernels:
            if not wanted or key == wanted:
                made = sf.build(path, key, found, options)
                made = dataclasses.replace(made, kernel=dataclasses.replace(
                    made.kernel, defaults={**made.kernel.defaults, **options.params}))
                yield path, key, made, [find_tool("ptxas"), "-arch=sm_90", "-lineinfo",
                                        *ptxas_options(())]
        return
    if dsl_of(path) == "triton":
        from smemsim.frontends.ptx import triton_frontend as tf
        kernels = tf.triton_kernels(path, tf.pk.given_values(options))
        for key, k in kernels.items():
            if k.launches and (not wanted or key == wanted):
                made = tf.build(path, key, kernels, options)
                launch = kernels[key].launches[0]
                ptxas, options = tf._triton_ptxas(dict(
                    (n, v) for n, (v, _) in launch.keywords.items() if n in tf._OPTIONS),
                    "sm_90")
                yield path, key, made, [ptxas, "-lineinfo", *options,
                                        f"--gpu-name={tf._target_arch(made.ptx, 'sm_90')}"]
        return
    from smemsim.frontends.ptx import numba_frontend as nf
    kernels = nf.numba_kernels(path)
    for key, k in kernels.items():
        if k.device or (wanted and key != wanted):
            continue
        yield path, key, nf.build(path, key, kernels, options), [
            find_tool("ptxas"), "-arch=sm_90", "-O3"]


def prepare(folder: pathlib.Path, specs: list[str]) -> None:
    from kernels_ir import resolve_launch
    folder.mkdir(parents=True, exist_ok=True)
    cases = []
    for spec in specs:
        for path, key, made, ptxas in builds_of(spec):
            kernel, ptx = made.kernel, made.ptx
            # (a symbol the demangler did not read is the key itself: a file name's worth)
            short = re.sub(r"\W+", "_", key.split("<")[0].split("::")[-1])[:40]
            name = f"{pathlib.Path(path).stem}_{short}".replace("-", "_")
            name += f"_{len(cases)}" if any(c["name"] == name for c in cases) else ""
            (folder / f"{name}.ptx").write_text(ptx)
            subprocess.run([*ptxas, str(folder / f"{name}.ptx"),
                            "-o", str(folder / f"{name}.cubin")], check=True)
            symbol = made.symbol
            launch = resolve_launch(kernel)
            lines = []
            params = []
            arrays = {g.name for g in kernel.globals}
            data = data_of(path)
            for array, values in data.items():   # (read by the harness beside its cubin)
                (folder / f"{name}.{array}.bin").write_bytes(values)
            for n, slot in enumerate(made.params):
                if isinstance(slot, tuple):   # a struct by value: its fields' bytes
                    _, size, fields = slot
                    lines.append(f"  unsigned char p{n}[{max(size, 1)}] = {{0}};")
                    for off, field in fields:
                        lines += _field(kernel, launch, arrays, field, f"p{n}", off, data)
                    params.append(f"p{n}")
                    continue
                if slot in arrays:
                    lines.append(_allocation(kernel, launch, slot, data))
                else:
                    p = next(p for p in kernel.params if p.name == slot)
                    value = launch.params[slot]
                    lines.append(f"  {_C_TYPES[p.dtype.name]} {slot} = {value!r};")
                params.append(f"&{slot}")
            grid, block = launch.grid, launch.block
            smem = launch.dynamic_smem
            harness = HARNESS.format(
                symbol=symbol,
                setup="\n".join(lines), args=", ".join(params) or "0",
                grid=", ".join(str(d) for d in grid), block=", ".join(str(d) for d in block),
                smem=smem, optin=(f"  CK(cuFuncSetAttribute(f, "
                                  f"CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, {smem}));"
                                  if smem > 48 * 1024 else ""))
            (folder / f"{name}.cu").write_text(harness)
            cases.append({"file": str(pathlib.Path(path).resolve().relative_to(ROOT))
                          if str(pathlib.Path(path).resolve()).startswith(str(ROOT))
                          else path, "key": key, "name": name, "symbol": symbol,
                          "spec": f"corpus:{pathlib.Path(path).relative_to(CORPUS)}"
                          if spec.startswith("corpus:") else spec.partition(":")[2]})
            print(f"{name}: {symbol[:60]}... grid {grid} block {block}", flush=True)
    (folder / "cases.json").write_text(json.dumps(cases, indent=1))


def _allocation(kernel, launch, name: str, data: dict) -> str:
    """C++ that allocates one array with its margins, zeroed, and copies its data (the
    file beside the cubin) where launches.json gives it."""
    size = int(launch.lengths[name]) * next(g.dtype.size for g in kernel.globals
                                            if g.name == name)
    line = (f"  CUdeviceptr {name}; CK(cuMemAlloc(&{name}, {size} + 2 * {GUARD})); "
            f"CK(cuMemsetD8({name}, 0, {size} + 2 * {GUARD})); {name} += {GUARD};")
    if name in data:
        if len(data[name]) > size:
            raise ValueError(f"{name}: {len(data[name])} bytes of data for {size} allocated")
        line += f" CK(load(argv[1], \"{name}\", {name}, {len(data[name])}));"
    return line


def _field(kernel, launch, arrays: set, name: str, buffer: str, offset: int,
           data: dict) -> list[str]:
    """C++ that writes one field of a struct parameter into its bytes."""
    if name in arrays:
        return [_allocation(kernel, launch, name, data) +
                f" memcpy({buffer} + {offset}, &{name}, 8);"]
    p = next((p for p in kernel.params if p.name == name), None)
    if p is None:
        return []
    return [f"  {{ {_C_TYPES[p.dtype.name]} v = {launch.params[name]!r}; "
            f"memcpy({buffer} + {offset}, &v, sizeof v); }}"]


HARNESS = r"""// generated by tools/gpu_dsl.py: one launch of a DSL's kernel from ptxas's cubin
#include <cuda.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#define CK(x) do {{ CUresult r_ = (x); if (r_) {{ const char *s_ = 0; cuGetErrorString(r_, &s_); \
  fprintf(stderr, "%s: %s\n", #x, s_ ? s_ : "?"); return 1; }} }} while (0)
// an array's data: the file NAME.ARRAY.bin beside the cubin NAME.cubin, `n` bytes
static CUresult load(const char *cubin, const char *array, CUdeviceptr p, size_t n) {{
  char path[4096];
  snprintf(path, sizeof path, "%.*s.%s.bin", (int)(strlen(cubin) - 6), cubin, array);
  FILE *f = fopen(path, "rb");
  if (!f) {{ fprintf(stderr, "%s: cannot open\n", path); return CUDA_ERROR_FILE_NOT_FOUND; }}
  unsigned char *h = (unsigned char *)malloc(n);
  size_t got = fread(h, 1, n, f);
  fclose(f);
  CUresult r = got == n ? cuMemcpyHtoD(p, h, n) : CUDA_ERROR_INVALID_VALUE;
  free(h);
  return r;
}}
int main(int argc, char **argv) {{   // argv[1]: the cubin
  if (argc != 2) {{ fprintf(stderr, "usage: %s FILE.cubin\n", argv[0]); return 2; }}
  CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  CUmodule mod; CK(cuModuleLoad(&mod, argv[1])); CUfunction f;
  CK(cuModuleGetFunction(&f, mod, "{symbol}"));
{optin}
{setup}
  void *args[] = {{{args}}};
  unsigned g[3] = {{{grid}}}, b[3] = {{{block}}};
  CK(cuLaunchKernel(f, g[0], g[1] ? g[1] : 1, g[2] ? g[2] : 1, b[0], b[1] ? b[1] : 1,
                    b[2] ? b[2] : 1, {smem}, 0, args, 0));
  CK(cuCtxSynchronize());
  printf("launched\n");
  return 0;
}}
"""


def run(folder: pathlib.Path, out: pathlib.Path) -> None:
    """Build each harness (nvcc, -lcuda) and read ncu's counters of its one launch."""
    import dataclasses

    from gpu_backend.measure import measure_command
    out.mkdir(parents=True, exist_ok=True)
    results = []
    cases = json.loads((folder / "cases.json").read_text())
    if os.environ.get("SHARD"):  # SHARD=i/n: every n-th case from the i-th (one GPU call each)
        i, n = map(int, os.environ["SHARD"].split("/"))
        cases = cases[i::n]
    if os.environ.get("CASES"):  # CASES=WORD,...: the cases whose name holds one of them
        cases = [c for c in cases if any(w in c["name"] for w in os.environ["CASES"].split(","))]
    for case in cases:
        exe = out / case["name"]
        built = subprocess.run(["nvcc", "-arch=sm_90", "-o", str(exe),
                                str(folder / f"{case['name']}.cu"), "-lcuda"],
                               capture_output=True, text=True)
        if built.returncode:
            case["error"] = built.stderr[-2000:]
        else:
            try:
                base = re.sub(r"\W", ".", _base_name(case["key"]))
                measured = measure_command([str(exe), str(folder / f"{case['name']}.cubin")],
                                           f"regex:{base}")
                case["counters"] = dataclasses.asdict(measured)
            except Exception as err:  # noqa: BLE001 - one case's failure is its result
                case["error"] = f"{type(err).__name__}: {err}"[-2000:]
        print(case["name"], case.get("counters") or case.get("error"), flush=True)
        results.append(case)
        (out / "results.json").write_text(json.dumps(results, indent=1))   # (as it goes)


def _base_name(key: str) -> str:
    """A kernel's name without namespaces and template arguments, as ncu's --kernel-name
    matches it: `launch_box_cta_k` of `mgpu::launch_box_cta_k<...>`, and of a symbol the
    demangler did not read (`_ZN4mgpu16launch_box_cta_kI...`: its last name before the
    template arguments)."""
    if key.startswith("_ZN"):
        rest, last = key[3:], key
        while (m := re.match(r"(\d+)", rest)) is not None:
            length = int(m.group(1))
            last, rest = rest[m.end():m.end() + length], rest[m.end() + length:]
        return last
    return key.split("<")[0].split("::")[-1]


def judge(folder: pathlib.Path, results: pathlib.Path, out: pathlib.Path) -> None:
    """The analysis here against the counters the GPU run read."""
    from gpu_backend.measure import Measured, compare_counts
    from smemsim.launch.analysis import analyze
    from smemsim.launch.occupancy import registers_allocated
    from smemsim.frontends.ptx.sass import sass_of
    rows = []
    for case in json.loads(results.read_text()):
        spec = case["spec"] if case["spec"].startswith("corpus:") else \
            f"{ROOT / case['file']}:{case['spec']}"
        made_path, made, ptxas = next((f, m, p) for f, k, m, p in builds_of(spec)
                                      if k == case["key"])
        if "counters" not in case:
            rows.append({**case, "ok": False})
            print(case["name"], "no counters:", case.get("error", "")[-300:])
            continue
        try:
            # with the harness's inputs: every array zeroed (the interpreter's own are seeded
            # random values; a data-dependent kernel, moderngpu's merge sort, then takes
            # other paths than the GPU did)
            report = analyze(made.kernel, arrays=zeroed(made.kernel, data_of(made_path)))
        except Exception as err:  # noqa: BLE001 - a stand-in launch that faults here
            rows.append({**case, "ok": False, "error": f"{type(err).__name__}: {err}"[-500:]})
            print(case["name"], "analysis failed:", " ".join(str(err).split())[-200:])
            continue
        agreement = compare_counts(report, Measured(**case["counters"]))
        registers = sass_of(made.ptx, "sm_90", ptxas[3:])[made.symbol].registers \
            if "-arch=sm_90" in ptxas else \
            sass_of(made.ptx, ptxas[-1].split("=")[1], ptxas[2:-1],
                    ptxas=ptxas[0])[made.symbol].registers
        # a launch allocates at least 16 (smemsim.launch.occupancy.registers_allocated)
        registers = registers_allocated(registers, made.kernel.built is not None and
                                        made.kernel.built.runtime_calls)
        ok = agreement.ok and registers == case["counters"]["registers"]
        rows.append({**case, "ok": ok, "registers_predicted": registers,
                     "checks": [dataclasses_asdict(c) for c in agreement.checks]})
        print(f"{case['name']}: {'ok' if ok else 'DISAGREE'}: " +
              "; ".join(f"{c.what} {c.predicted}/{c.measured}" for c in agreement.checks) +
              f"; registers {registers}/{case['counters']['registers']}")
    out.write_text(json.dumps(rows, indent=1))


def analyze_builds(specs: list[str]) -> None:
    """Each build's analysis with the harness's zeroed arrays, as `judge` will make it (no
    GPU): its launch, counts, notes and seconds, to check a launch before a GPU run."""
    import time

    from kernels_ir import resolve_launch
    from smemsim.launch.analysis import analyze
    for spec in specs:
        start = time.perf_counter()
        for path, key, made, _ in builds_of(spec):
            try:
                launch = resolve_launch(made.kernel)
                r = analyze(made.kernel, arrays=zeroed(made.kernel, data_of(path)))
            except Exception as err:  # noqa: BLE001 - each kernel's outcome is the report
                print(f"FAILED {pathlib.Path(path).name} {key[:60]}: "
                      f"{' '.join(str(err).split())[:400]}", flush=True)
            else:
                print(f"ok {pathlib.Path(path).name} {key[:60]}: grid {launch.grid} block "
                      f"{launch.block} smem {launch.dynamic_smem}; " + "; ".join(
                          f"{c} {t.requests:,}/{t.wavefronts:,}"
                          for c, t in r.classes.items()) +
                      f"; {len(made.kernel.notes)} notes; "
                      f"{time.perf_counter() - start:.1f} s", flush=True)
                for note in made.kernel.notes[:6]:
                    print(f"    note: ...{' '.join(note.split())[-240:]}")
            start = time.perf_counter()


def zeroed(kernel, data: dict | None = None) -> dict:
    """Every global array of the kernel at the launch's lengths, as the harness allocates
    them: zeroed, but for the leading bytes `data` gives an array (data_of)."""
    import numpy as np

    from kernels_ir import resolve_launch
    launch = resolve_launch(kernel)
    arrays = {g.name: np.zeros(int(launch.lengths[g.name]), g.dtype.np)
              for g in kernel.globals}
    for name, values in (data or {}).items():
        raw = arrays[name].view(np.uint8)
        raw[:len(values)] = np.frombuffer(values, np.uint8)
    return arrays


def data_of(path) -> dict:
    """Array -> bytes of the input data launches.json gives a corpus file's launch (none for
    other files: every array zeroed)."""
    from corpus_data import inputs
    from ptx_corpus_status import launches
    try:
        relative = str(pathlib.Path(path).resolve().relative_to(CORPUS.resolve()))
    except ValueError:
        return {}
    return inputs(launches().get(relative) or {})


def dataclasses_asdict(c):
    import dataclasses
    return dataclasses.asdict(c)


if __name__ == "__main__":
    verb = sys.argv[1] if len(sys.argv) > 1 else ""
    if verb == "prepare" and len(sys.argv) > 3:
        prepare(pathlib.Path(sys.argv[2]), sys.argv[3:])
    elif verb == "run" and len(sys.argv) == 4:
        run(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]))
    elif verb == "analyze" and len(sys.argv) > 2:
        analyze_builds(sys.argv[2:])
    elif verb == "judge" and len(sys.argv) == 5:
        judge(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4]))
    else:
        print(__doc__)
        sys.exit(2)
    os._exit(0)
