"""On the GPU machine: each prepared case (tools/gpu_dsl.py prepare) built and run once under
ncu, its report written to $OUT/NAME.ncu-rep (SourceCounters, LaunchStats and the kernel's
shared-memory counters)."""
import json, os, pathlib, re, subprocess, sys
sys.path.insert(0, "tools")
from gpu_dsl import _base_name
here = pathlib.Path(__file__).parent
out = pathlib.Path(os.environ["OUT"])
for case in json.loads((here / "cases.json").read_text()):
    exe = f"/tmp/{case['name']}"
    subprocess.run(["nvcc", "-arch=sm_90", "-o", exe, str(here / f"{case['name']}.cu"), "-lcuda"],
                   check=True)
    base = re.sub(r"\W", ".", _base_name(case["key"]))
    r = subprocess.run(["ncu", "--section", "SourceCounters", "--section", "LaunchStats",
                        "--metrics", "smsp__inst_executed_op_shared_ld.sum,"
                        "smsp__inst_executed_op_shared_st.sum,"
                        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,"
                        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                        "-k", f"regex:{base}", "-o", str(out / case["name"]), "-f",
                        exe, str(here / f"{case['name']}.cubin")],
                       capture_output=True, text=True)
    print(case["name"], r.returncode, r.stdout[-300:], r.stderr[-300:], flush=True)
