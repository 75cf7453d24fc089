"""smemsim's verbs as the tools of a Model Context Protocol server (`smemsim mcp`, over
stdio), for kernel-writing agents: analyze, explain, fix, check, occupancy and layout, each
taking what the command line takes and returning the JSON document `smemsim VERB --json`
prints, from one process whose caches stay warm between calls.

A tool's input is a FILE (a `.cu` or a header, a kernels file, an installed example's name: as
the command line takes it; a kernels file is Python that smemsim runs, as it is there) or
`code`, CUDA text, which is written to a private folder as `kernel.cu` (never to a path the
text or a name chooses) and removed after the call. `options` are the command line's words
after the FILE (`["-pN=4096", "--launch-grid", "64"]`), one word each, never read by a shell.
The protocol needs the `mcp` package (`pip install 'smemsim[mcp]'`).
"""
from __future__ import annotations

import io
import json
import os
import threading
from typing import Any

from rich.console import Console

from ..cache import process_copy

TOOLS = ("analyze", "explain", "fix", "check", "occupancy", "layout")
# (calls run one at a time: a verb's run keeps per-command state in this process)
_LOCK = threading.Lock()
# what the server tells a client about itself
INSTRUCTIONS = (
    "smemsim predicts, without a GPU, what a CUDA kernel's shared-memory accesses cost on the "
    "hardware (requests, wavefronts, bank conflicts as excess wavefronts, per access site and "
    "source line), whether it has races or faults (check), how many blocks fit on an SM "
    "(occupancy) and which padding or swizzle removes the conflicts (fix, with a patch of "
    "the .cu). Give a .cu file or CUDA text (`code`) and the launch as the command line "
    "takes it in `options`: -pNAME=VALUE for scalars, --launch-grid/--launch-block, "
    "--length ARRAY=EXPR. Each tool returns the JSON of `smemsim VERB --json`; exit_code 0 "
    "is fine, 1 a gate failed, 2 bad input (see error.message).")


class ToolInputError(ValueError):
    """A call the tools cannot take (neither or both of file and code, a bad option)."""


def call(verb: str, file: str | None = None, code: str | None = None,
         kernel: str | None = None, site: str | None = None,
         options: list[str] | None = None) -> dict[str, Any]:
    """The JSON document `smemsim VERB --json [--kernel=K] OPTIONS -- FILE [SITE]` prints, run
    in this process; with `code`, FILE is a private copy of that CUDA text."""
    from . import run
    if verb not in TOOLS:
        raise ToolInputError(f"no tool {verb!r} (the tools: {', '.join(TOOLS)})")
    options = list(options or [])
    if not all(isinstance(o, str) for o in options):
        raise ToolInputError("options are the command line's words, each a string")
    if verb != "layout":
        if file is not None and code is not None:
            raise ToolInputError(f"{verb}: give a file or CUDA text (code), not both")
        if file is None and code is None and verb != "occupancy":
            raise ToolInputError(f"{verb}: give a file or CUDA text (code)")
    head = [verb, "--json", *([f"--kernel={kernel}"] if kernel is not None else []), *options]
    out, err = io.StringIO(), io.StringIO()
    with _LOCK:
        # (a text at a path its digest names: its build is found in the PTX cache the next
        # time)
        copy = str(process_copy(code, "kernel.cu", "mcp")) if code is not None else None
        where = [w for w in (copy or file, site) if w is not None]
        # (after `--`, a name that begins with '-' is a FILE or a site, never an option)
        status = run(head + (["--", *where] if where else []), _quiet(out), _quiet(err))
    text = out.getvalue()
    if text.strip():
        doc = json.loads(text)
    else:   # (a verb that printed no JSON: its error line is what there is)
        doc = {"schema": "smemsim/1", "results": [], "exit_code": status,
               "error": {"message": err.getvalue().strip()}}
    if copy is not None:   # (the private copy's path means nothing to the caller)
        doc = json.loads(json.dumps(doc).replace(json.dumps(copy)[1:-1], "kernel.cu"))
    return doc


def _quiet(stream) -> Console:
    """A console writing plain text into `stream` (no terminal, no colour, no wrapping)."""
    return Console(file=stream, width=4096, color_system=None, force_terminal=False,
                   no_color=True, highlight=False, soft_wrap=True)


def server():
    """The MCP server: one tool per verb of TOOLS (mcp.server.mcpserver.MCPServer)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from . import _version
    # (warnings only on stderr: a failed call's answer is its error result, not a log line)
    app = MCPServer("smemsim", version=_version(), instructions=INSTRUCTIONS,
                    log_level="WARNING")

    def answer(*args) -> dict[str, Any]:
        try:
            doc = call(*args)
        except ToolInputError as err:   # (the client's mistake: its message, no traceback)
            raise ToolError(str(err)) from None
        if doc.get("error") and not doc.get("results"):
            # (the verb failed: an error result, isError, its text the JSON document with
            # the error's kind, file and line)
            raise ToolError(json.dumps(doc, indent=2))
        return doc

    @app.tool(name="analyze", description=(
        "Shared-memory requests, wavefronts and bank-conflict excess of each access site of "
        "a kernel at its launch (smemsim analyze --json)."))
    def analyze(file: str | None = None, code: str | None = None, kernel: str | None = None,
                options: list[str] | None = None) -> dict[str, Any]:
        return answer("analyze", file, code, kernel, None, options)

    @app.tool(name="explain", description=(
        "Why a site's worst request costs what it does: the lanes, their banks and the "
        "wavefronts, lane by lane (smemsim explain --json); `site` is a site number or "
        "FILE:LINE, the worst site when omitted."))
    def explain(file: str | None = None, code: str | None = None,
                site: int | str | None = None, kernel: str | None = None,
                options: list[str] | None = None) -> dict[str, Any]:
        # (a site's number as a number or as text, or FILE:LINE)
        return answer("explain", file, code, kernel, None if site is None else str(site),
                      options)

    @app.tool(name="fix", description=(
        "Paddings and XOR swizzles of the conflicted shared arrays, each counted as built; "
        "for a .cu, the best change as a checked patch of the file (smemsim fix --json: "
        "results[].patch.diff)."))
    def fix(file: str | None = None, code: str | None = None, site: str | None = None,
            kernel: str | None = None, options: list[str] | None = None) -> dict[str, Any]:
        return answer("fix", file, code, kernel, site, options)

    @app.tool(name="check", description=(
        "Races, barrier misuse and out-of-bounds accesses of one launch, every block "
        "(smemsim check --json)."))
    def check(file: str | None = None, code: str | None = None, kernel: str | None = None,
              options: list[str] | None = None) -> dict[str, Any]:
        return answer("check", file, code, kernel, None, options)

    @app.tool(name="occupancy", description=(
        "Blocks and warps per SM, the limiter and what-if curves (smemsim occupancy --json); "
        "without file or code, from --threads, --regs and --smem in options."))
    def occupancy(file: str | None = None, code: str | None = None,
                  kernel: str | None = None, options: list[str] | None = None
                  ) -> dict[str, Any]:
        return answer("occupancy", file, code, kernel, None, options)

    @app.tool(name="layout", description=(
        "A CuTe layout (as cute::print writes it, or an expression of CuTe's layout "
        "algebra) as a shared tile: its bytes and what common warp reads of it cost "
        "(smemsim layout --json)."))
    def layout(layout: str, options: list[str] | None = None) -> dict[str, Any]:
        return answer("layout", None, None, None, layout, options)

    return app


def serve_stdio(app) -> None:
    """Serve `app` over stdio, answering every request read before stdin closes.

    The MCP package's stdio loop ends at end of input and drops the calls still running: a
    client that writes its requests and closes stdin (a script, `smemsim mcp < calls.jsonl`)
    got two answers of eight. So the server reads a pipe instead, fed line by line from
    stdin, and sees the end of input only once every request (a message with a method and
    an id) has its response (an id and a result or an error) written to stdout."""
    real_in, real_out, saved_out = os.dup(0), os.dup(1), os.dup(1)
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    os.dup2(in_r, 0)
    os.dup2(out_w, 1)
    os.close(in_r)
    os.close(out_w)
    asked, answered = set(), set()
    changed = threading.Condition()

    def feed() -> None:
        with os.fdopen(real_in, "rb") as source, os.fdopen(in_w, "wb", buffering=0) as pipe:
            for line in source:
                with changed:
                    asked.update(_ids(line, request=True))
                    asked.difference_update(_cancelled(line))   # (answered by no one)
                pipe.write(line)
            with changed:   # (the server's end of input, once every answer is out)
                changed.wait_for(lambda: asked <= answered)

    def drain() -> None:
        with os.fdopen(out_r, "rb") as answers, os.fdopen(real_out, "wb", buffering=0) as sink:
            for line in answers:
                sink.write(line)
                with changed:
                    answered.update(_ids(line, request=False))
                    changed.notify_all()

    threads = [threading.Thread(target=f, daemon=True) for f in (feed, drain)]
    for t in threads:
        t.start()
    try:
        app.run("stdio")
    finally:
        # (the server saw the end of input only after every answer was forwarded; the
        # MCP package may hold a copy of the pipe open, so drain is not waited for)
        os.dup2(saved_out, 1)
        os.close(saved_out)


def _messages(line: bytes) -> list[dict]:
    """The JSON-RPC messages of one line (a message or a batch); none where it is no JSON."""
    try:
        doc = json.loads(line)
    except ValueError:
        return []
    return [m for m in (doc if isinstance(doc, list) else [doc]) if isinstance(m, dict)]


def _ids(line: bytes, request: bool) -> set:
    """The ids of the requests (`request`) or of the responses in one line."""
    return {json.dumps(m["id"]) for m in _messages(line) if m.get("id") is not None and
            ("method" in m if request else ("result" in m or "error" in m))}


def _cancelled(line: bytes) -> set:
    """The ids of the requests a `notifications/cancelled` line withdraws (a server need not
    answer them)."""
    return {json.dumps(m["params"]["requestId"]) for m in _messages(line)
            if m.get("method") == "notifications/cancelled" and
            isinstance(m.get("params"), dict) and "requestId" in m["params"]}
