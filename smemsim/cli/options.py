"""The command's options, each declared once, and the parsers of their values."""
from __future__ import annotations

import argparse
import math

from kernels_ir import KernelError


def add_common(p: argparse.ArgumentParser) -> None:
    """--arch and --json, which every verb takes."""
    p.add_argument("--arch", default="sm_90", type=arch_name,
                   help="architecture (default sm_90)")
    p.add_argument("--json", action="store_true", help="print JSON (schema smemsim/1)")


def add_loop_limit(p: argparse.ArgumentParser) -> None:
    """--loop-limit, for the verbs that run the kernel in the interpreter."""
    from ..launch.trace import LOOP_LIMIT, MAX_LOOP_LIMIT
    p.add_argument("--loop-limit", type=loop_limit, default=LOOP_LIMIT, metavar="N",
                   help="iterations of one entry of a loop with no closed-form end (a while "
                        f"loop) after which it is reported as endless (default {LOOP_LIMIT:,}; "
                        f"at most {MAX_LOOP_LIMIT:,}; counted for-loops are not held to it)")


def loop_limit(text: str) -> int:
    """--loop-limit's value: 1 to MAX_LOOP_LIMIT (smemsim.launch.trace)."""
    from ..launch.trace import MAX_LOOP_LIMIT
    return _whole_number(text, "--loop-limit", MAX_LOOP_LIMIT)


def _whole_number(text: str, option: str, most: int | None = None) -> int:
    """An option's whole-number value, from 1 (to `most`, if given)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or (most is not None and value > most):
        bounds = ">= 1" if most is None else f"from 1 to {most:,}"
        raise argparse.ArgumentTypeError(f"{option} takes a whole number {bounds}, not "
                                         f"{text!r}")
    return value


def add_kernels(p: argparse.ArgumentParser, file_required: bool = True,
                one: bool = False) -> None:
    """A kernels FILE, --kernel to pick one of its kernels, and --param for the launch
    (`one`: the verb works on one kernel)."""
    what = ("a CUDA file (.cu or a header, .cuh, .h, .hpp: read, never run), a numba, Triton, "
            "cupy or pycuda program (read, never run), a kernels file (.py with a KERNELS "
            "dict: Python that smemsim runs) or an installed example's name")
    if file_required:
        p.add_argument("file", help=what)
    else:
        p.add_argument("file", nargs="?", help=what + " (block and smem from its kernel)")
    p.add_argument("--kernel", help="the kernel, where the file has several" if one else
                   "one kernel of the file (default: all)")
    p.add_argument("-p", "--param", action="append", default=[], metavar="K=V",
                   help="a launch parameter (repeatable); defaults come from the file")
    p.add_argument("--data", action="append", default=[], metavar="ARRAY=FILE.npy",
                   help="input data for a global array (repeatable), over the file's ARRAYS "
                        "and the seeded random default")
    add_cuda(p)


def add_cuda(p: argparse.ArgumentParser) -> None:
    """What a CUDA FILE (.cu) does not say: macros, launch, global array lengths."""
    g = p.add_argument_group("a CUDA FILE (.cu: imported first, as by `smemsim import`)")
    g.add_argument("-D", "--define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a macro, as nvcc -D defines it (repeatable)")
    g.add_argument("-I", "--include", action="append", default=[], metavar="DIR",
                   help="a folder of the file's own #include \"...\" headers (repeatable)")
    g.add_argument("--launch-grid", metavar="X[,Y,Z]",
                   help="grid of the launch (C expressions of parameters and macros), "
                        "when the file has no <<<...>>> for the kernel")
    g.add_argument("--launch-block", metavar="X[,Y,Z]", help="block of the launch, likewise")
    g.add_argument("--launch-smem", metavar="BYTES", help="dynamic shared memory, likewise")
    g.add_argument("--launch-at", metavar="FILE:LINE[:COL]",
                   help="of several launches of the kernel in the host code, the one to "
                        "read (as the notes name them: `scan.cu:123:9`); the first by "
                        "default")
    g.add_argument("--host", action="append", default=[], metavar="EXPR=VALUE",
                   help="the value of a host expression the launch computes and the file "
                        "cannot say (`--host 'x.size(0)=4096'`, a variable read from argv; "
                        "VALUE a C expression, as --length's; repeatable)")
    g.add_argument("--host-file", action="append", default=[], metavar="FILE",
                   help="another file of the program whose host code launches the "
                        "kernels (`nvcc kernels.cu main.cu`): its launches are read after "
                        "the kernel's own file's (read, never run; repeatable)")
    g.add_argument("--length", action="append", default=[], metavar="ARRAY=EXPR",
                   help="a global array's length in elements (the CUDA has none)")
    g.add_argument("--tensor-map", action="append", default=[],
                   metavar="PARAM='TENSOR TYPE[D1][D0] box[B1][B0] SWIZZLE'",
                   help="what the host encoded into a CUtensorMap kernel parameter: the "
                        "tensor's name, element type and extents (outermost first, C "
                        "expressions), the box, and none, 32B, 64B or 128B (repeatable)")
    g.add_argument("--null", action="append", default=[], metavar="NAME",
                   help="a pointer parameter the host passes NULL, where the file has no "
                        "launch that says so (`p != NULL` is then false; repeatable)")
    g.add_argument("--texture", action="append", default=[], metavar="NAME=WIDTH[,HEIGHT]",
                   help="a texture's extent in texels, as the host allocated it (C "
                        "expressions; a 2-D texture read by tex2D needs it; repeatable)")
    g.add_argument("--frontend", type=_frontend, default=None, metavar="ptx",
                   help="how a .cu's kernels are read: ptx, the only reading (nvcc builds "
                        "your file to PTX, with -D, -I and --nvcc-flag, and the program nvcc "
                        "compiled is counted); accepted so that scripts giving it still run")
    g.add_argument("--nvcc-flag", action="append", default=[], metavar="FLAG",
                   help="a flag of your nvcc build (repeatable; --nvcc-flag=-use_fast_math): "
                        "a .cu is read from nvcc's build with -D, -I and these")


def cuda_options(args, with_params: bool = False):
    """smemsim.frontends.cuda.Options from the command line (`with_params`: --param values as the
    kernels' defaults, for `smemsim import`; other verbs apply --param themselves). None for
    a kernels file (.py), which takes none of these options: given there, they are an
    error, not ignored."""
    from ..frontends.loader import is_cuda
    if not with_params and not is_cuda(args.file):
        given = cuda_flags_given(args)
        if given:
            raise KernelError(f"{', '.join(given)}: only for a CUDA file (.cu), and "
                              f"{args.file} is a kernels file")
        return None  # and smemsim.frontends.cuda (~40 ms to import) is not loaded
    from ..frontends.cuda import Options

    def pairs(items, option, value_required=True):
        out = {}
        for item in items:
            name, sep, value = item.partition("=")
            if not name or (value_required and (not sep or not value)):
                raise KernelError(f"{option} takes NAME=VALUE, got {item!r}")
            if name in out:
                raise KernelError(f"{option} {name} is given twice ({out[name]!r} and "
                                  f"{value!r}): give it once")
            out[name] = value if sep else "1"
        return out
    params = {}
    if with_params:
        params = parse_params(args.param)
    return Options(defines=pairs(args.define, "-D", value_required=False),
                   include_dirs=list(args.include), grid=args.launch_grid,
                   block=args.launch_block, smem=args.launch_smem,
                   launch_at=getattr(args, "launch_at", None),
                   lengths=pairs(args.length, "--length"), params=params,
                   hosts=pairs(args.host, "--host"),
                   kernel=getattr(args, "kernel", None),
                   tensor_maps=pairs(args.tensor_map, "--tensor-map"),
                   textures=pairs(args.texture, "--texture"), nulls=list(args.null),
                   host_files=list(args.host_file),
                   data_lengths=_data_lengths(getattr(args, "data", None) or []))


def _data_lengths(items) -> dict[str, int]:
    """The elements of each --data ARRAY=FILE.npy, read from the file's header (a file that
    cannot be read is said where its values are read: smemsim.cli.common.inputs)."""
    import numpy as np
    out = {}
    for item in items:
        name, sep, path = item.partition("=")
        try:
            with open(path, "rb") as f:
                version = np.lib.format.read_magic(f)
                read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                    np.lib.format.read_array_header_2_0
                shape, _, _ = read(f)
        except (OSError, ValueError):
            continue
        out[name] = int(np.prod(shape, dtype=np.int64))
    return out


def _frontend(value: str) -> str:
    """--frontend's value: ptx; cpp (smemsim's own C++ reading) was removed."""
    if value == "ptx":
        return value
    if value == "cpp":
        raise argparse.ArgumentTypeError(
            "cpp was removed: smemsim reads a .cu through nvcc's build of it (PTX, with the "
            "SASS of the same build), which needs nvcc (pip install -e . brings it) and a "
            "host C++ compiler")
    raise argparse.ArgumentTypeError(f"{value!r}: the one reading is ptx")


def cuda_flags_given(args) -> list[str]:
    """The options of add_cuda given on this command line."""
    return [flag for flag, value in (
        ("-D", args.define), ("-I", args.include), ("--launch-grid", args.launch_grid),
        ("--launch-block", args.launch_block), ("--launch-smem", args.launch_smem),
        ("--launch-at", getattr(args, "launch_at", None)), ("--length", args.length),
        ("--host", args.host), ("--tensor-map", args.tensor_map),
        ("--texture", args.texture), ("--null", args.null), ("--host-file", args.host_file),
        ("--nvcc-flag", getattr(args, "nvcc_flag", None)),
        ("--frontend ptx", getattr(args, "frontend", None) == "ptx"))
        if value]


def add_regs(p: argparse.ArgumentParser, helptext: str, required: bool = False) -> None:
    """--regs N|compile."""
    p.add_argument("--regs", type=parse_regs, metavar="N|compile", required=required,
                   help=helptext)


def add_sweep(p: argparse.ArgumentParser, what: str) -> None:
    """--sweep K=START:STOP[:STEP], and --jobs for its points."""
    p.add_argument("--sweep", metavar="K=START:STOP[:STEP]", type=parse_sweep,
                   help=f"{what} at every value of one parameter (STOP excluded)")
    add_jobs(p)


def add_jobs(p: argparse.ArgumentParser) -> None:
    """--jobs N: worker processes (smemsim.search.pool)."""
    p.add_argument("--jobs", type=jobs, metavar="N",
                   help="worker processes for independent analyses (default: every core; "
                        "used when the work is heavy enough to pay for starting them)")


def jobs(text: str) -> int:
    """A number of worker processes, at least 1."""
    return _whole_number(text, "--jobs")


def parse_sweep(text: str) -> tuple[str, range]:
    """`K=START:STOP[:STEP]` as (K, range)."""
    try:
        key, spec = text.split("=", 1)
        parts = [int(x, 0) for x in spec.split(":")]
        values = range(*parts) if len(parts) in (2, 3) else None
    except ValueError:
        values = None
    if not values:
        raise argparse.ArgumentTypeError(f"--sweep takes K=START:STOP[:STEP] with at least one "
                                         f"value, not {text!r}")
    return key, values


def block_list(text: str) -> list[int]:
    """`0,5,8:16`: linear block ids and ranges (STOP excluded)."""
    out = []
    try:
        for part in text.split(","):
            if ":" in part:
                out += list(range(*[int(x, 0) for x in part.split(":")]))
            else:
                out.append(int(part, 0))
    except (ValueError, TypeError):
        out = []
    if not out:
        raise argparse.ArgumentTypeError(f"--blocks takes linear block ids and ranges, as "
                                         f"0,5,8:16, not {text!r}")
    return out


MAX_REGS = 255  # registers per thread, on every architecture from sm_50 to sm_120


def parse_regs(text: str) -> int | str:
    """A register count a thread can have (1 to 255), or 'compile'."""
    if text == "compile":
        return text
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--regs takes a number or 'compile', not {text!r}")
    if not 1 <= value <= MAX_REGS:
        raise argparse.ArgumentTypeError(f"--regs {text}: a thread has 1 to {MAX_REGS} "
                                         "registers on every architecture")
    return value


def top_count(text: str) -> int:
    """sweep's --top: rows to print, 0 for all (a negative count means nothing)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"--top takes a whole number >= 0 (0: all), not "
                                         f"{text!r}")
    return value


def register_count(text: str) -> int:
    """check's --regs: a whole number >= 1 (more than the limit is a finding, not an
    input error)."""
    return _whole_number(text, "--regs")


def ratio(text: str) -> float:
    """A gate threshold: a finite number >= 0 (NaN would make every comparison pass)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"a threshold must be a finite number >= 0, not "
                                         f"{text!r}")
    return value


def fraction(text: str) -> float:
    """An occupancy threshold: a number from 0 to 1."""
    value = ratio(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"occupancy is a fraction from 0 to 1, not {text!r}")
    return value


def parse_params(items: list[str]) -> dict[str, int | float]:
    """`--param K=V` items as a mapping (ints in any C base, else finite floats; a value is a
    number, never an expression, and each K is given once)."""
    out = {}
    for item in items:
        if "=" not in item:
            raise KernelError(f"--param takes K=V, got {item!r}")
        key, value = item.split("=", 1)
        if key in out:
            raise KernelError(f"--param {key} is given twice ({out[key]!r} and {value!r}): "
                              "give it once")
        try:
            out[key] = int(value, 0)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                raise KernelError(f"--param {key}: {value!r} is not a number") from None
            if not math.isfinite(out[key]):
                raise KernelError(f"--param {key}: {value!r} is not a finite number")
    return out


# the options that shape a kernel's analysis, which `explain` takes as well: (flag, dest)
_REPEATED = (("-p", "param"), ("--data", "data"), ("-D", "define"), ("-I", "include"),
             ("--host", "host"), ("--host-file", "host_file"), ("--length", "length"),
             ("--tensor-map", "tensor_map"), ("--null", "null"), ("--texture", "texture"))
_SINGLE = (("--launch-grid", "launch_grid"), ("--launch-block", "launch_block"),
           ("--launch-smem", "launch_smem"), ("--launch-at", "launch_at"))


def explain_options(args) -> list[str]:
    """The options a verb was given that shaped its kernels (parameters, macros, the launch,
    the frontend, ...), as `smemsim explain` takes them: its hint then explains the kernel
    that was analyzed, not another launch of it."""
    from ..launch.trace import LOOP_LIMIT
    out = []
    if getattr(args, "arch", "sm_90") != "sm_90":
        out += ["--arch", args.arch]
    for flag, dest in _REPEATED:
        for value in getattr(args, dest, None) or ():
            out += [flag, value]
    for flag, dest in _SINGLE:
        if getattr(args, dest, None):
            out += [flag, getattr(args, dest)]
    if getattr(args, "frontend", None) is not None:   # (as given: the default needs none)
        out += ["--frontend", args.frontend]
    if getattr(args, "loop_limit", LOOP_LIMIT) != LOOP_LIMIT:
        out += ["--loop-limit", str(args.loop_limit)]
    return out


def add_format(p: argparse.ArgumentParser) -> None:
    """--format: the report as tables (default) or as compiler diagnostics."""
    p.add_argument("--format", choices=("table", "gcc"), default="table",
                   help="table (default), or gcc: one `FILE:LINE:COL: warning: ...` line a "
                        "finding, as compilers write them (editors' problem matchers read "
                        "them; the same findings and levels as --sarif)")


def arch_name(text: str) -> str:
    """An --arch the bank rules and occupancy know (sm_90, sm_90a, 90), refused with the
    list of those before any build (nvcc would answer with its own error)."""
    from ..engine.arch import ArchError, get_arch
    try:
        get_arch(text)
    except ArchError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text

