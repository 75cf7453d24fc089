"""One module per verb of the `smemsim` command: HELP, add_arguments(parser), execute(args,
console) -> exit code. VERBS lists them in the order `smemsim --help` shows."""
from . import (
    analyze, check, codegen, compile, explain, fix, importer, occupancy, run, sweep, validate,
)

VERBS = {"analyze": analyze, "explain": explain, "occupancy": occupancy, "fix": fix,
         "sweep": sweep, "check": check, "codegen": codegen, "compile": compile, "run": run,
         "validate": validate, "import": importer}
