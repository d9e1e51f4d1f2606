"""clstencil.dask: chunked filtering equals one-piece filtering bit for bit in every border mode,
chunk edges included, with dask's threads and on a scheduler and two workers started as processes
of their own on loopback."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

import numpy as np
import pytest

da = pytest.importorskip("dask.array")  # the package runs without dask; these tests need it

import clstencil  # noqa: E402
import clstencil.dask  # noqa: E402
from conftest import python_environment  # noqa: E402

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


def test_two_tasks_a_chunk_unless_a_chunk_is_thinner_than_the_halo() -> None:
    """Each chunk's edges and its filtering: two tasks a chunk beside the input's; map_overlap's
    graph where a chunk is thinner than the halo (gaussian:7 reaches 3 columns; these are 2)."""
    x = da.zeros((97, 64), chunks=(20, 17), dtype=np.float32)
    assert len(clstencil.dask.filter(x, "gaussian:7").__dask_graph__()) == 3 * x.npartitions
    thin = da.zeros((97, 64), chunks=(97, 2), dtype=np.float32)
    assert len(clstencil.dask.filter(thin, "gaussian:7").__dask_graph__()) > 3 * thin.npartitions


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


def test_each_thread_filters_in_a_lane_of_its_own() -> None:
    """contexts.lane: one context a thread and device selector, the same one again for the same
    thread; chunks filtered by four threads at once equal one piece."""
    from concurrent.futures import ThreadPoolExecutor

    from clstencil.contexts import context, lane

    together = threading.Barrier(4)  # four threads at once

    def keys_of_a_thread(_: int) -> tuple:
        together.wait()
        return lane(), lane()

    with ThreadPoolExecutor(4) as pool:
        keys = list(pool.map(keys_of_a_thread, range(4)))
    assert all(first == second for first, second in keys)
    assert len({context(first) for first, _ in keys}) == len({first for first, _ in keys}) == 4
    image = np.random.default_rng(9).random((300, 260), dtype=np.float32)
    chunked = clstencil.dask.filter(da.from_array(image, chunks=(64, 50)), "gaussian:5", "mirror")
    np.testing.assert_array_equal(chunked.compute(scheduler="threads", num_workers=4),
                                  clstencil.filter(image, "gaussian:5", "mirror"))


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


def start(arguments: list[str], environment: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", *arguments], env=environment, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def test_scheduler_and_two_workers_on_loopback(tmp_path) -> None:
    """The multi-host set-up of docs/python.md on one machine: a scheduler and two workers started
    as processes of their own on 127.0.0.1, each worker with a cache folder of its own as on a host
    of its own; 1024x1024 in 256x256 chunks, every border mode, equal to one piece."""
    distributed = pytest.importorskip("distributed")
    scheduler_file = tmp_path / "scheduler.json"
    processes = [start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                        "--dashboard-address", ":0", "--scheduler-file", str(scheduler_file)], python_environment())]
    try:
        for k in range(2):
            environment = python_environment(CLSTENCIL_CACHE_DIR=str(tmp_path / f"cache-host-{k}"))
            processes.append(start(["distributed.cli.dask_worker", "--scheduler-file", str(scheduler_file),
                                    "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"], environment))
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        with distributed.Client(scheduler_file=str(scheduler_file), timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            x = da.random.RandomState(6).random_sample((1024, 1024), chunks=(256, 256)).astype(np.float32)
            x = x.persist()  # generated on the workers, once
            image = x.compute()
            for border in BORDERS:
                expected = clstencil.filter(image, "gaussian:5", border, 0.5)
                result = clstencil.dask.filter(x, "gaussian:5", border, 0.5).compute()
                np.testing.assert_array_equal(result, expected, err_msg=border)
            workers = client.run(lambda: __import__("os").getpid())
            assert len(set(workers.values())) == 2
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
