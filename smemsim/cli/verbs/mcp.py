"""`smemsim mcp`: serve analyze, explain, fix, check, occupancy and layout as the tools of a
Model Context Protocol server over stdio (smemsim.cli.mcp_server), for agents."""
from __future__ import annotations

from rich.console import Console

from kernels_ir import KernelError

HELP = "serve the verbs as Model Context Protocol tools over stdio, for agents"
EXAMPLES = """\
  smemsim mcp                  (an MCP client starts it: docs/agents.md shows the settings)"""


def add_arguments(p) -> None:
    """mcp takes no options."""


def execute(args, console: Console) -> int:
    """Serve until the client closes stdin."""
    try:
        from ..mcp_server import serve_stdio, server
        app = server()
    except ImportError as err:
        if "mcp" not in str(err):
            raise
        raise KernelError("smemsim mcp needs the Model Context Protocol package: pip install "
                          "'smemsim[mcp]' (or pip install 'mcp>=2,<3')") from None
    serve_stdio(app)
    return 0
