"""`smemsim mcp` in an agent's loop (issue #55): one client session (the mcp package's own
client over stdio), the server's start, then each tool call's wall time as the client sees
it, the first (cold: nvcc's PTX and SASS cache empty) and the median of the next RUNS (warm).

Target: a warm analyze well under a second.

    python3 benchmarks/bench_mcp.py
"""
import os
import pathlib
import statistics
import sys
import tempfile
import time

RUNS = 5
ROOT = pathlib.Path(__file__).resolve().parent.parent
CU = (ROOT / "examples" / "transpose.cu").read_text()
CALLS = [("analyze of a kernels file (transpose)", "analyze", {"file": "transpose"}),
         ("analyze of CUDA text (transpose.cu)", "analyze", {"code": CU}),
         ("explain of CUDA text", "explain", {"code": CU}),
         ("check of CUDA text", "check", {"code": CU}),
         ("fix of CUDA text (patch built)", "fix", {"code": CU}),
         ("occupancy of CUDA text", "occupancy", {"code": CU})]


def main() -> None:
    import anyio
    import mcp
    with tempfile.TemporaryDirectory() as cache:
        params = mcp.StdioServerParameters(
            command=sys.executable, args=["-m", "smemsim", "mcp"],
            env=dict(os.environ, SMEMSIM_CACHE=cache))

        async def session():
            t = time.perf_counter()
            async with mcp.Client(params) as client:
                await client.list_tools()
                print(f"server start and first list_tools: {time.perf_counter() - t:.2f} s")
                print(f"{'call':<40} {'first':>7} {'warm':>7}  (seconds, warm: median of "
                      f"{RUNS})")
                for label, tool, args in CALLS:
                    times = []
                    for _ in range(RUNS + 1):
                        t = time.perf_counter()
                        result = await client.call_tool(tool, args)
                        times.append(time.perf_counter() - t)
                        assert not result.is_error and \
                            result.structured_content["exit_code"] in (0, 1), result
                    print(f"{label:<40} {times[0]:7.2f} {statistics.median(times[1:]):7.2f}")
        anyio.run(session)


if __name__ == "__main__":
    main()
