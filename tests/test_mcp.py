"""Issue #55: `smemsim mcp`, the verbs as Model Context Protocol tools. A real client session
(the `mcp` package's own client, over stdio, with `smemsim mcp` as its server process)
calls every tool and gets the JSON document the command line prints for the same input."""
import io
import json
import pathlib
import sys

import pytest

mcp = pytest.importorskip("mcp", reason="the mcp package is not installed (pip install "
                          "'smemsim[mcp]'; the test extra has it)")

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSPOSE_CU = (ROOT / "examples" / "transpose.cu").read_text()


def cli_json(argv: list[str]) -> dict:
    """What `smemsim ARGV --json` prints, run in this process."""
    from smemsim.cli import run
    from smemsim.cli.mcp_server import _quiet
    out = io.StringIO()
    run(argv + ["--json"], _quiet(out), _quiet(io.StringIO()))
    return json.loads(out.getvalue())


def session(calls: list[tuple[str, dict]]):
    """(the server's tool names, each call's result) of one client session."""
    import anyio
    params = mcp.StdioServerParameters(command=sys.executable, args=["-m", "smemsim", "mcp"])

    async def main():
        async with mcp.Client(params) as client:
            tools = await client.list_tools()
            return [t.name for t in tools.tools], [await client.call_tool(name, args)
                                                   for name, args in calls]
    return anyio.run(main)


def test_a_client_session_calls_every_tool_and_gets_the_command_lines_json(tmp_path):
    cu = tmp_path / "kernel.cu"
    cu.write_text(TRANSPOSE_CU)
    calls = [
        ("analyze", {"file": "transpose", "options": ["-pn=256"]}),
        ("analyze", {"code": TRANSPOSE_CU}),
        ("explain", {"file": "transpose", "kernel": "transpose_pad0", "options": ["-pn=64"]}),
        # (a site by its number, as docs/agents.md says: a number, not only its text)
        ("explain", {"file": "transpose", "kernel": "transpose_pad0", "site": 1,
                     "options": ["-pn=64"]}),
        ("fix", {"code": TRANSPOSE_CU}),
        ("check", {"file": "transpose", "kernel": "transpose_pad1", "options": ["-pn=64"]}),
        ("occupancy", {"options": ["--threads", "256", "--regs", "64", "--smem", "32768"]}),
        ("layout", {"layout": "(64,64):(64,1)", "options": ["--dtype", "f16"]}),
    ]
    names, results = session(calls)
    assert names == ["analyze", "explain", "fix", "check", "occupancy", "layout"]
    wanted = [
        cli_json(["analyze", "transpose", "-pn=256"]),
        cli_json(["analyze", str(cu)]),
        cli_json(["explain", "transpose", "--kernel", "transpose_pad0", "-pn=64"]),
        cli_json(["explain", "transpose", "--kernel", "transpose_pad0", "-pn=64", "1"]),
        cli_json(["fix", str(cu)]),
        cli_json(["check", "transpose", "--kernel", "transpose_pad1", "-pn=64"]),
        cli_json(["occupancy", "--threads", "256", "--regs", "64", "--smem", "32768"]),
        cli_json(["layout", "(64,64):(64,1)", "--dtype", "f16"]),
    ]
    for (name, _), result, want in zip(calls, results, wanted):
        assert not result.is_error, (name, result.content)
        got = result.structured_content
        # CUDA text is read from a private copy named kernel.cu, which the results call so
        want = json.loads(json.dumps(want).replace(str(cu), "kernel.cu"))
        assert got == want, name
        assert got["exit_code"] == 0, name
    # what the JSON says, for a reader: the padded transpose's worst store is conflict-free,
    # fix's patch of the CUDA text is a diff of kernel.cu
    fixed = results[4].structured_content["results"][0]
    assert fixed["patch"]["diff"].startswith("--- a/kernel.cu")


def test_bad_input_is_the_command_lines_error_document_and_a_call_without_input_an_error():
    names, (broken, neither, both) = session([
        ("analyze", {"code": "__global__ void k( {"}),
        ("analyze", {}),
        ("check", {"file": "transpose", "code": "__global__ void k() {}"}),
    ])
    # a verb that failed is an error result (isError: an agent checking it sees the failure),
    # its text the command line's error document, located
    # (after the server's "Error executing tool analyze: ")
    assert broken.is_error
    text = broken.content[0].text
    doc = json.loads(text[text.index("{"):])
    assert doc["exit_code"] == 2 and doc["results"] == []
    assert doc["error"]["message"].startswith("nvcc could not build the file: kernel.cu:1:")
    assert (doc["error"]["file"], doc["error"]["line"]) == ("kernel.cu", 1)
    assert neither.is_error and "analyze: give a file or CUDA text (code)" in \
        neither.content[0].text
    assert both.is_error and "not both" in both.content[0].text
