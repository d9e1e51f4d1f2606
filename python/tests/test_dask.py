"""clstencil.dask: chunked filtering equals one-piece filtering bit for bit in every border mode,
chunk edges included, with dask's threads and on a LocalCluster of two worker processes."""
from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")  # the package runs without dask; these tests need it

import clstencil  # noqa: E402
import clstencil.dask  # noqa: E402

BORDERS = ["clamp", "mirror", "mirror101", "repeat", "constant", "undefined"]
ASYMMETRIC = "convolve:5x3,1,-2,3,-4,5,6,-7,8,-9,10,-11,12,-13,14,-15"


@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("chunks", [(20, 17), (5, 64), (97, 2), (97, 64)],
                         ids=["uneven", "rows-thinner-than-the-window", "narrow-columns", "one-chunk"])
def test_chunked_equals_one_piece(border: str, chunks: tuple[int, int]) -> None:
    image = np.random.default_rng(4).random((97, 64), dtype=np.float32)
    x = da.from_array(image, chunks=chunks)
    for op in (ASYMMETRIC, "gaussian:7"):
        expected = clstencil.filter(image, op, border, 0.25)
        result = clstencil.dask.filter(x, op, border, 0.25).compute(scheduler="threads")
        np.testing.assert_array_equal(result, expected, err_msg=f"{op}, {border}, chunks {chunks}")


def test_integer_types_and_pipelines_in_chunks() -> None:
    image = np.random.default_rng(5).integers(0, 65535, (70, 90), dtype=np.uint16, endpoint=True)
    x = da.from_array(image, chunks=(16, 25))
    result = clstencil.dask.filter(x, "laplace", "mirror", dtype=np.uint8)
    assert result.dtype == np.uint8
    np.testing.assert_array_equal(result.compute(scheduler="threads"),
                                  clstencil.filter(image, "laplace", "mirror", dtype=np.uint8))
    for border in ("mirror101", "repeat"):
        pipeline = clstencil.Pipeline(["gaussian:5", "sobel:mag"], border=border)
        np.testing.assert_array_equal(
            clstencil.dask.run_pipeline(x, pipeline, dtype=np.float32).compute(scheduler="threads"),
            pipeline.run(image, dtype=np.float32), err_msg=border)


def test_dask_errors() -> None:
    with pytest.raises(TypeError, match="dask array, not ndarray"):
        clstencil.dask.filter(np.zeros((4, 4), np.float32), "box:3")
    with pytest.raises(TypeError, match="int32"):
        clstencil.dask.filter(da.zeros((4, 4), dtype=np.int32), "box:3")
    with pytest.raises(clstencil.InvalidArgumentError, match="odd SIZE"):
        clstencil.dask.filter(da.zeros((4, 4), dtype=np.float32), "box:4")
    mixed = clstencil.Pipeline().add("box:3", "repeat").add("box:3", "clamp")
    with pytest.raises(ValueError, match="mixes the repeat border"):
        clstencil.dask.run_pipeline(da.zeros((4, 4), dtype=np.float32), mixed)


def test_local_cluster_of_two_worker_processes() -> None:
    """4096x4096 in 512x512 chunks, every border mode (about 15 s on 2 PoCL cores)."""
    distributed = pytest.importorskip("distributed")
    shape, chunks = (4096, 4096), (512, 512)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        x = da.random.RandomState(6).random_sample(shape, chunks=chunks).astype(np.float32)
        x = x.persist()  # generated on the workers, once
        image = x.compute()
        for border in BORDERS:
            expected = clstencil.filter(image, "gaussian:5", border, 0.5)
            result = clstencil.dask.filter(x, "gaussian:5", border, 0.5).compute()
            np.testing.assert_array_equal(result, expected, err_msg=border)
        workers = client.run(lambda: __import__("os").getpid())
        assert len(set(workers.values())) == 2
