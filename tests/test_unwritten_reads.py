"""A load of shared bytes no thread wrote: the GPU gives them any value, so `analyze`
counts the launch with three fills of them and stands where the counts agree (a note names
the read), and refuses, naming the site whose count moved, where they do not; `check`
reports the read either way."""
import numpy as np
import pytest

from kernels_ir import KernelBuilder, KernelRuntimeError, Unwritten, run, threadIdx, u32
from smemsim import analyze
from smemsim.launch.hazards import check


def _reading_past_the_end(name: str, last):
    """Each thread reads the word 32 past its own, which no thread writes (moderngpu's merge
    reads the slot past its keys so), into v; then `last(picks, s, v)` is stored to out."""
    k = KernelBuilder(name)
    picks = k.global_array("picks", u32, 32)
    out = k.global_array("out", u32, 32, intent="out")
    s = k.shared("s", u32, 64)
    s[threadIdx.x] = threadIdx.x
    k.syncthreads()
    v = k.let("v", s[threadIdx.x + 32])
    out[threadIdx.x] = last(picks, s, v)
    k.launch(1, 32)
    return k.build()


def _past_the_end(steer: bool):
    """v, then a word an input picks (a run on values). `steer`: v also picks that address:
    an even v, every lane its pick's word (conflict-free for picks 0..31); an odd one,
    twice it (a 2-way conflict)."""
    return _reading_past_the_end("past_the_end", lambda picks, s, v: v + s[
        picks[threadIdx.x] * ((v & 1) + 1) if steer else picks[threadIdx.x]])


PICKS = {"picks": np.arange(32, dtype=np.uint32)}


def test_a_value_no_count_depends_on_is_counted_with_a_note():
    r = analyze(_past_the_end(False), arrays=PICKS)
    # the store of 32 words, the unwritten read 32 words on, the picked read: one
    # conflict-free request each
    assert [(s.requests, s.wavefronts) for s in r.sites] == [(1, 1), (1, 1), (1, 1)]
    (note,) = r.notes
    assert "reads shared memory no thread has written ('s', byte 128 of the block's " \
           "window) [block (0, 0, 0); thread (0, 0, 0)]" in note
    assert "0x00, 0xff, 0x5a in turn, every count alike" in note
    assert [f.kind for f in check(_past_the_end(False)).faults] == ["uninitialized_read"]


def test_a_value_that_steers_an_address_is_the_fault_it_was():
    with pytest.raises(KernelRuntimeError) as caught:
        analyze(_past_the_end(True), arrays=PICKS)
    text = str(caught.value)
    assert "reads shared memory no thread has written ('s', byte 128" in text
    # 0x00 bytes make v even (words 0..31: 1 wavefront), 0xff odd (words 0, 2, .., 62: 2)
    assert "the counts depend on those bytes (site 2: 1 wavefront with every unwritten " \
           "byte 0x00, 2 wavefronts with 0xff)" in text


def test_the_interpreter_faults_unless_a_fill_is_given():
    k = _past_the_end(False)
    with pytest.raises(KernelRuntimeError, match="no thread has written"):
        run(k, arrays=PICKS)
    record = Unwritten(0x5A)
    out = run(k, arrays=PICKS, unwritten=record)
    # v (the fill's four bytes) plus the picked word, thread t's own t
    assert list(out["out"][:3]) == [0x5A5A5A5A, 0x5A5A5A5B, 0x5A5A5A5C]
    assert "no thread has written ('s', byte 128" in str(record.first)


def test_a_shared_atomic_on_unwritten_bytes_reads_the_fill():
    """An atomic reads the word it adds to: one no thread wrote is the fill's, as a load's."""
    from kernels_ir import u32 as u32_
    k = KernelBuilder("bins")
    out = k.global_array("out", u32_, 32, intent="out")
    s = k.shared("bins", u32_, 32)
    k.atomic(s, threadIdx.x % 4, "add", 1)
    k.syncthreads()
    out[threadIdx.x] = s[threadIdx.x % 4]
    k.launch(1, 32)
    kernel = k.build()
    with pytest.raises(KernelRuntimeError, match="no thread has written"):
        run(kernel)
    out = run(kernel, unwritten=Unwritten(0))["out"]
    assert list(out[:4]) == [8, 8, 8, 8]   # 32 threads, 4 bins, from zero bytes


def test_a_value_that_steers_into_a_fault_is_the_read_that_faulted():
    """Where a fill's bytes take an address out of bounds, the fault said is the unwritten
    read, with what the fill led to."""
    # (0x00 bytes: in bounds; 0xff: 255 words past)
    kernel = _reading_past_the_end("steered_out",
                                   lambda picks, s, v: s[picks[threadIdx.x] + (v & 255)])
    with pytest.raises(KernelRuntimeError) as caught:
        analyze(kernel, arrays=PICKS)
    text = str(caught.value)
    assert "reads shared memory no thread has written ('s', byte 128" in text
    assert "with every unwritten byte 0xff the launch faults later: out of bounds" in text
