"""One module per verb of the `smemsim` command: HELP, add_arguments(parser), execute(args,
console) -> exit code. VERBS lists them in the order `smemsim --help` shows; `verb(name)`
imports one. A command imports only its own verb's module (and so only the analyses it
runs: `analyze` does not pay for the hazard check, the sweep or the CUDA importer)."""
from __future__ import annotations

import importlib
from types import ModuleType

VERBS = {"analyze": "analyze", "explain": "explain", "occupancy": "occupancy", "fix": "fix",
         "sweep": "sweep", "check": "check", "report": "report", "codegen": "codegen",
         "compile": "compile", "run": "run", "validate": "validate", "import": "importer",
         "layout": "layout", "ncu": "ncu", "mcp": "mcp"}


def verb(name: str) -> ModuleType:
    """The module of the verb `name` (one of VERBS)."""
    return importlib.import_module(f"{__name__}.{VERBS[name]}")
