"""`smemsim layout`: a CuTe layout (as cute::print writes it, or an expression of CuTe's
layout algebra over such layouts) as a shared tile, and what the common warp reads of it
cost."""
from __future__ import annotations

from rich.console import Console

from kernels_ir import KernelError
from kernels_ir.cute import CuteError
from kernels_ir.cute_algebra import FUNCTIONS, evaluate
from kernels_ir.dtypes import BY_NAME

from ...launch.layout_reads import layout_reads
from .. import jsonout, render
from ..common import EXIT_OK, print_json
from ..options import add_common

HELP = "a CuTe layout as a shared tile: its bytes and what common warp reads of it cost"
EXAMPLES = """\
  smemsim layout 'Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)'
  smemsim layout '(64,64):(64,1)' --dtype f16
  smemsim layout 'Sw<3,3,3> o ((8,8),64):((64,512),1)' --dtype bf16 --json
  smemsim layout 'composition(Sw<3,3,3> o (64,64):(64,1), <16, 64>)'"""


def add_arguments(p) -> None:
    """layout's options."""
    add_common(p)
    p.add_argument("layout", help="the layout in CuTe's notation, or an expression of "
                   f"{', '.join(FUNCTIONS)} over layouts (quote it)")
    p.add_argument("--dtype", default=None,
                   help="element type (default: the smem_ptr's width, else f16)")


def execute(args, console: Console) -> int:
    """Parse the layout, cost its reads, show them."""
    try:
        layout = evaluate(args.layout)
    except CuteError as err:
        raise KernelError(f"layout: {err}") from None
    if not args.json and any(f"{f}(" in args.layout for f in FUNCTIONS):
        console.print(f"{args.layout.strip()} = {layout.text()}", markup=False)
    name = args.dtype or {8: "u8", 16: "f16", 32: "f32", 64: "f64"}.get(
        layout.element_bits, "f16")
    if name not in BY_NAME:
        raise KernelError(f"layout: unknown --dtype {name!r}; one of {', '.join(BY_NAME)}")
    try:
        result = layout_reads(layout, BY_NAME[name].size, args.arch)
    except ValueError as err:
        raise KernelError(f"layout: {err}") from None
    if args.json:
        print_json(console, [jsonout.layout_reads_json(result)])
    else:
        console.print(render.layout_reads_view(result))
    return EXIT_OK
