"""`smemsim report`: the page's figures equal `analyze --json`, user text stays text, the
layout maps say which bank each element is in, and the page opens in a browser."""
import html.parser
import json
import pathlib
import re
import shutil
import subprocess

import pytest

from smemsim import analyze, warp_request
from smemsim.launch.layoutmap import layout_map
from smemsim.frontends.loader import load_kernels
from tests.test_cli import cli, cli_streams

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSPOSE_CU = str(ROOT / "examples" / "transpose.cu")
TRANSPOSE = str(ROOT / "examples" / "transpose.py")


class _Rows(html.parser.HTMLParser):
    """The source rows of a page that carry counts, and every script element's start."""

    def __init__(self):
        super().__init__()
        self.rows, self.scripts = {}, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts.append(a)
        if tag == "tr" and "data-excess" in a:
            line = int(a["id"].rpartition("-L")[2])
            self.rows[(a["data-kernel"], line)] = {
                "requests": int(a["data-requests"]), "wavefronts": int(a["data-wavefronts"]),
                "excess": int(a["data-excess"]), "sites": a["data-sites"]}


def _page(path) -> _Rows:
    p = _Rows()
    p.feed(pathlib.Path(path).read_text(encoding="utf-8"))
    return p


def _data(path) -> dict:
    from smemsim.cli.page import page_data
    return page_data(pathlib.Path(path).read_text(encoding="utf-8"))


def test_the_margin_figures_are_analyze_json(tmp_path):
    out = tmp_path / "t.html"
    code, text = cli("report", TRANSPOSE_CU, "--regs", "32", "-o", str(out))
    assert code == 0 and f"wrote {out}" in text
    rows = _page(out).rows
    # 8 x 8 blocks of 32 warps issue one load and one store each; the transposed read puts
    # all 32 lanes of a warp in one bank: 32 wavefronts per request
    assert rows[("0", 16)] == {"requests": 2048, "wavefronts": 2048, "excess": 0, "sites": "0"}
    assert rows[("0", 20)] == {"requests": 2048, "wavefronts": 65536, "excess": 63488,
                               "sites": "1"}
    code, text = cli("analyze", TRANSPOSE_CU, "--regs", "32", "--json")
    (analysis,) = json.loads(text)["results"]
    (item,) = _data(out)["results"]
    assert item["analysis"] == analysis
    for s in analysis["sites"]:
        assert rows[("0", s["line"])]["wavefronts"] == s["wavefronts"]
    code, text = cli("report", TRANSPOSE_CU, "--regs", "32", "--json")
    assert json.loads(text)["results"] == _data(out)["results"]


def test_user_text_cannot_become_markup_or_script(tmp_path):
    cu = tmp_path / "evil.cu"
    cu.write_text("""// </script><script>alert(1)</script> <b>bold</b> & more
__global__ void k(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x * 2] = 1.0f;   // "</script>" in a comment of a counted line
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}
void launch(float *out) { k<<<1, 32>>>(out); }
""")
    out = tmp_path / "evil.html"
    code, text = cli("report", str(cu), "-o", str(out), "--svg", str(tmp_path / "figs"))
    assert code == 0, text
    page = out.read_text()
    parsed = _page(out)
    # ours only: the JSON document and the one script that shows and hides
    assert [s.get("type") for s in parsed.scripts] == ["application/octet-stream", None]
    assert "alert(1)</script>" not in page and "<b>bold</b>" not in page
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page
    # the document travels gzipped in base64: no character of the file's text is in it
    assert _data(out)["results"][0]["sources"][0]["lines"][0].startswith("// </script>")


def test_layout_map_banks_and_marked_request():
    kernel = load_kernels(TRANSPOSE)["naive"]()
    r = analyze(kernel)
    site = r.site(1)  # tile[threadIdx.x][threadIdx.y]: lane i reads row i, column 0
    request = {"site": 1, "line": site.loc.line, "offsets": site.worst.offsets, "width": 4,
               "op": "load", "matrices": None}
    m = layout_map(kernel, "tile", request=request)
    assert (m.rows, m.cols) == (32, 32)
    assert all(m.banks[row][col] == col for row in range(32) for col in range(32))
    assert m.request.cells == tuple((lane, 0, lane) for lane in range(32))
    assert (m.request.wavefronts, m.request.ideal) == (32, 1)
    padded = load_kernels(TRANSPOSE)["padded"]()
    p = layout_map(padded, "tile", request=request, original=kernel, label="pad 1")
    # rows of 33 floats: element (r, c) at word 33 r + c
    assert all(p.banks[row][col] == (33 * row + col) % 32 for row in range(32)
               for col in range(32))
    assert p.request.cells == m.request.cells and p.request.wavefronts == 1


def test_report_page_lists_fixes_and_layouts(tmp_path):
    out = tmp_path / "n.html"
    code, text = cli("report", TRANSPOSE, "--kernel", "naive", "--no-check", "-o", str(out))
    assert code == 0, text
    (item,) = _data(out)["results"]
    (lay,) = item["layouts"]
    labels = [(m["label"], m["request"]["wavefronts"]) for m in lay["maps"]]
    # declared: the costliest site's worst request (32-way); fix's best swizzle and padding
    assert labels[0] == ("declared", 32)
    assert {lbl.split("<")[0] for lbl, _ in labels[1:]} == {"Swizzle", "pad 1"}
    assert all(w == 1 for _, w in labels[1:])
    assert item["hazards"] is None and "Not checked" in out.read_text()


def test_output_is_never_an_input_nor_a_file_smemsim_did_not_write(tmp_path):
    code, text = cli("report", TRANSPOSE_CU)
    assert code == 2 and "needs -o FILE.html" in text
    code, text = cli("report", TRANSPOSE_CU, "-o", TRANSPOSE_CU)
    assert code == 2 and "give a .html name" in text
    mine = tmp_path / "notes.html"
    mine.write_text("<html>my notes</html>")
    code, text = cli("report", TRANSPOSE_CU, "--no-check", "--no-fix", "-o", str(mine))
    assert code == 2 and "`smemsim report` did not write it" in text
    assert mine.read_text() == "<html>my notes</html>"
    page = tmp_path / "page.html"
    for _ in range(2):  # a page smemsim wrote is replaced
        assert cli("report", TRANSPOSE_CU, "--no-check", "--no-fix", "-o", str(page))[0] == 0
    assert cli("report", TRANSPOSE_CU, "--no-check", "--no-fix", "-o", str(mine),
               "--force")[0] == 0
    assert not list(tmp_path.glob("*.tmp"))  # no temporary file left behind


def test_svg_files_and_sweep_scatter(tmp_path):
    code, text = cli("sweep", TRANSPOSE, "--kernel", "naive", "--pad", "tile=0:3:1",
                     "--json", "--no-cache", "--regs", "32")
    assert code == 0
    sweep = tmp_path / "sweep.json"
    sweep.write_text(text)
    figs = tmp_path / "figs"
    code, text = cli("report", TRANSPOSE, "--kernel", "naive", "--regs", "32", "--no-check",
                     "--sweep-result", str(sweep), "--svg", str(figs), "-o",
                     str(tmp_path / "s.html"))
    assert code == 0, text
    names = sorted(p.name for p in figs.iterdir())
    assert "transpose_pad0-sweep.svg" in names
    assert "transpose_pad0-site1-banks.svg" in names
    assert {f"transpose_pad0-occupancy-{k}.svg" for k in
            ("block_size", "registers_per_thread", "smem_per_block")} <= set(names)
    sweep_svg = (figs / "transpose_pad0-sweep.svg").read_text()
    assert sweep_svg.count("<circle") == 3 and "tile pad 1: excess 0" in sweep_svg
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": "smemsim/1", "results": [{"kind": "analysis"}]}))
    code, _, err = cli_streams("report", TRANSPOSE, "--kernel", "naive", "--sweep-result",
                               str(bad), "-o", str(tmp_path / "x.html"))
    assert code == 2 and "not the output of `smemsim sweep --json`" in err


def test_notebook_html():
    kernel = load_kernels(TRANSPOSE)["naive"]()
    r = analyze(kernel)
    page = r._repr_html_()
    assert page.startswith('<div class="smemsim">') and "<script" not in page
    # the worst site's bank map is open without any script
    assert re.search(r'<div class="detail" data-kernel="0" data-site="1">', page)
    req = warp_request([128 * lane for lane in range(32)], 4)
    assert req._repr_html_().startswith("<svg") and "32 wavefronts" in req._repr_html_()
    from smemsim.launch.occupancy import occupancy
    html_text = occupancy("sm_90", 256, 32, 0)._repr_html_()
    assert html_text.count("<svg") == 3 and "limited by" in html_text


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or \
    shutil.which("google-chrome")


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (Debian: apt install chromium);"
                    " docs/validation.md records the run")
@pytest.mark.parametrize("example", [
    "transpose.cu", "transpose", "causal_attention", "cp_async_gemm", "histogram",
    "int_matmul_nt32", "ldmatrix_tile", "matmul_128x128", "matmul_double16",
    "matmul_float_tiled", "matmul_naive", "persistent_gemm", "reed_solomon", "softmax"])
def test_page_opens_in_a_browser_without_errors(tmp_path, example):
    name = str(ROOT / "examples" / example) if example.endswith(".cu") else example
    out = tmp_path / "page.html"
    code, text = cli("report", name, "--regs", "64", "-o", str(out))
    assert code == 0, text
    dom, log = _chromium(out, tmp_path)
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-ready="1"' in body and "data-error" not in body, body
    assert not [line for line in log.splitlines() if "CONSOLE" in line]


def _chromium(page: pathlib.Path, tmp: pathlib.Path) -> tuple[str, str]:
    """The DOM after the page's script ran, and Chromium's log (console messages)."""
    run = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                          f"--user-data-dir={tmp / 'profile'}", "--enable-logging=stderr",
                          "--v=0", "--virtual-time-budget=10000", "--dump-dom",
                          page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    return run.stdout, run.stderr


def test_a_retry_loops_lines_say_at_least(tmp_path):
    """retry_histogram.cu's tag-and-retry loop (lines 14, 16, 17 of add_tagged): its margin
    figures are marked ≥ and the note says why; the other lines are not marked, and a page
    without such a loop has neither."""
    cu = pathlib.Path(__file__).resolve().parent / "cuda" / "retry_histogram.cu"
    out = tmp_path / "r.html"
    code, text = cli("report", str(cu), "--kernel", "one_bin", "--no-check", "--no-fix",
                     "-o", str(out))
    assert code == 0, text
    page = out.read_text(encoding="utf-8")
    marked = {int(m) for m in re.findall(r'id="k0-L(\d+)"[^>]*>(?:(?!</tr>).)*?≥\d', page)}
    assert marked == {14, 16, 17}
    assert "≥: at least these: a loop that retries until a store to shared memory" in page
    plain = tmp_path / "t.html"
    assert cli("report", TRANSPOSE_CU, "--no-check", "--no-fix", "-o", str(plain))[0] == 0
    assert "≥" not in plain.read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("node") is None, reason="no node here: the page's script is "
                    "run in a browser by the Chromium tests instead")
def test_the_pages_script_decodes_its_data_and_says_when_it_cannot(tmp_path):
    """The page's own script, run by node (which has the browser's atob, Blob, Response and
    DecompressionStream) against a stand-in of the page's elements: it gunzips and parses
    the document and marks the body ready; a truncated document marks it with the error."""
    from smemsim.cli.page import JS
    out = tmp_path / "t.html"
    assert cli("report", TRANSPOSE_CU, "-o", str(out))[0] == 0
    data = re.search(r'id="smemsim-data">([^<]*)<', out.read_text()).group(1)

    def run(text: str) -> dict:
        script = tmp_path / "page.js"
        script.write_text(
            "var attrs = {}; globalThis.window = globalThis;\n"
            "window.addEventListener = function(){};\n"
            "globalThis.document = {body: {setAttribute: function(k, v){ attrs[k] = v; }},\n"
            f"  getElementById: function(){{ return {{textContent: {json.dumps(text)}}}; }},\n"
            "  querySelectorAll: function(){ return []; },\n"
            "  querySelector: function(){ return null; }};\n" + JS +
            "\nsetTimeout(function(){ console.log(JSON.stringify(attrs)); }, 300);\n")
        done = subprocess.run(["node", str(script)], capture_output=True, text=True,
                              timeout=60)
        return json.loads(done.stdout)
    assert run(data) == {"data-ready": "1"}
    assert "data-error" in run(data[:-40])


def test_a_page_of_several_kernels_opens_on_the_one_with_the_most_excess(tmp_path):
    """A file whose first kernel has no shared memory and whose second reads a 32 x 32 tile
    by columns (32 warps, 32-way: 1,024 - 32 = 992 excess): the page's overview lists the
    conflicted kernel first and its section comes first."""
    cu = tmp_path / "two.cu"
    cu.write_text("__global__ void plain(float *o) { o[threadIdx.x] = 1.0f; }\n"
                  "__global__ void tiled(float *o)\n{\n"
                  "    __shared__ float t[32][32];\n"
                  "    t[threadIdx.y][threadIdx.x] = threadIdx.x;\n    __syncthreads();\n"
                  "    o[threadIdx.y * 32 + threadIdx.x] = t[threadIdx.x][threadIdx.y];\n}\n"
                  "void go(float *o) { plain<<<1, 32>>>(o); tiled<<<1, dim3(32, 32)>>>(o); }\n")
    out = tmp_path / "two.html"
    code, text = cli("report", str(cu), "-o", str(out), "--no-check", "--no-fix")
    assert code == 0, text
    page = out.read_text()
    sections = re.findall(r'<h2 id="k\d">([^<]*)</h2>', page)
    assert sections == ["tiled", "plain"]
    overview = re.findall(r'<tr><td><a href="#k\d">(\w+)</a></td><td>(\d+)</td><td>([\d,]+)'
                          r'</td><td>([\d,]+)</td></tr>', page)
    assert overview == [("tiled", "2", "1,056", "992"), ("plain", "0", "0", "0")]


def test_a_cu_page_has_its_occupancy_without_regs(tmp_path):
    """A .cu is read from nvcc's build, whose registers are known: the page has occupancy
    without --regs, as `occupancy` does (a new user's report said "Not computed: give
    --regs" though fix had just named the build's 128 registers). examples/transpose.cu:
    1,024 threads of 14 registers (16 allocated), 4 KiB: two blocks, 64 warps per SM."""
    page = tmp_path / "page.html"
    assert cli("report", TRANSPOSE_CU, "--no-check", "--no-fix", "-o", str(page))[0] == 0
    text = page.read_text()
    assert "Not computed" not in text
    assert "1024 threads x 14 registers (a launch allocates 16)" in text
    assert "2 blocks, 64 of 64 warps per SM" in text
