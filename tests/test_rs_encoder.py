"""The Reed-Solomon encoder: parity from the kernel, data recovered from any k chunks."""
import itertools

import numpy as np
import pytest

from examples import gf256, rs_encoder


def test_cauchy_submatrices_are_invertible():
    c = rs_encoder.cauchy_matrix(3, 5)
    for rows in itertools.combinations(range(3), 2):
        for cols in itertools.combinations(range(5), 2):
            sub = c[np.ix_(rows, cols)]
            assert np.array_equal(gf256.matmul(sub, gf256.inverse(sub)),
                                  np.eye(2, dtype=np.uint8))


def test_kernel_parity_equals_the_gf_product():
    rng = np.random.default_rng(4)
    data = rng.integers(0, 256, (8, 256), dtype=np.uint8)
    parity = rs_encoder.encode(data, 4)
    assert np.array_equal(parity, gf256.matmul(rs_encoder.cauchy_matrix(4, 8), data))


@pytest.mark.parametrize("erased", [(0, 1, 2, 3), (2, 5, 8, 11), (7, 9), (8, 9, 10, 11)])
def test_any_k_chunks_recover_the_data(erased):
    rng = np.random.default_rng(5)
    k, m = 8, 4
    data = rng.integers(0, 256, (k, 128), dtype=np.uint8)
    chunks = dict(enumerate([*data, *rs_encoder.encode(data, m)]))
    for i in erased:
        del chunks[i]
    assert np.array_equal(rs_encoder.recover(chunks, k, m), data)


def test_too_many_erasures_is_an_error():
    with pytest.raises(ValueError, match="3 chunks survive; 4 are needed"):
        rs_encoder.recover({0: np.zeros(4, np.uint8), 1: np.zeros(4, np.uint8),
                            5: np.zeros(4, np.uint8)}, 4, 2)


@pytest.mark.gpu
def test_gpu_encoder_recovers():
    from gpu_backend.device import gpu_unavailable, run_on_gpu
    reason = gpu_unavailable()
    if reason:
        pytest.skip(f"needs a GPU: {reason}")
    rng = np.random.default_rng(6)
    k, m = 10, 4
    data = rng.integers(0, 256, (k, 1 << 16), dtype=np.uint8)
    parity = rs_encoder.encode(
        data, m, launch=lambda kern, params, arrays: run_on_gpu(kern, params, arrays,
                                                                check=False).outputs)
    chunks = dict(enumerate([*data, *parity]))
    for i in (0, 3, 11, 13):
        del chunks[i]
    assert np.array_equal(rs_encoder.recover(chunks, k, m), data)
