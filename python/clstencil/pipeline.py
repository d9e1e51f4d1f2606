"""clstencil.Pipeline: operators chained on the device (cls_pipeline), no host round trip
between stages; the stages in between keep float32 images."""
from __future__ import annotations

import ctypes
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from ._library import library
from .contexts import context, normalize_selector, on_release
from .errors import check
from .filtering import UNDEFINED_BORDER, prepare_output
from .filters import border_mode, build_goal, library_border_name, stage_spec
from .images import check_image, describe, has_pitched_rows, pointer
from .operators import Operator, OperatorLike, as_operator
from .pixel_types import pixel_type

F32 = 0
NIGHT_RADIUS = 1 + 2 + 4 + 8  # a-trous dilations 1, 2, 4 and 8, then a point operator


@dataclass(frozen=True)
class Stage:
    """One stage: an operator (None for the Night filter's five stages), its border and value."""

    operator: Operator | None
    border: int
    value: float

    @property
    def radius(self) -> tuple[int, int]:
        """(rows, columns) the stage's windows reach from their centre."""
        return (NIGHT_RADIUS, NIGHT_RADIUS) if self.operator is None else self.operator.radius

    @property
    def description(self) -> str:
        name = "night" if self.operator is None else self.operator.name
        return f"{name} ({library_border_name(self.border)})"


_live_pipelines: "weakref.WeakSet[Pipeline]" = weakref.WeakSet()


class Pipeline:
    """Operators applied one after another on the device, like the C library's cls_pipeline.

        smooth_edges = clstencil.Pipeline(["gaussian:5,1.2", "sobel:mag"], border="mirror")
        edges = smooth_edges(image)        # or smooth_edges.run(image, dtype=numpy.float32)

    The first stage reads the input's dtype, the last writes the output's, the stages between
    use float32. The device programs are built on the first run for each pair of dtypes and kept.
    A Pipeline may be shared by threads (runs of one pipeline take turns).
    """

    def __init__(self, stages: Iterable[OperatorLike] = (), border: str = "clamp",
                 value: float = 0.0, *, device: str | None = None,
                 build: str | None = None) -> None:
        self._device = normalize_selector(device)
        self._border = border_mode(border)
        self._value = float(value)
        self._goal = build_goal(build)
        self._stages: list[Stage] = []
        self._built: dict[tuple[int, int], Any] = {}
        self._lock = threading.Lock()
        _live_pipelines.add(self)
        weakref.finalize(self, _release_built, self._built)
        for op in stages:
            self.add(op)

    def add(self, op: OperatorLike, border: str | None = None, value: float | None = None) -> "Pipeline":
        """Appends a stage (border and value default to the pipeline's); returns the pipeline."""
        mode = self._border if border is None else border_mode(border)
        self._append(Stage(as_operator(op), mode, self._value if value is None else float(value)))
        return self

    def add_night(self, border: str | None = None) -> "Pipeline":
        """Appends the Night filter of the ISP paper: a-trous smoothing at dilations 1, 2, 4 and
        8, then the tone mapping v / (1 + v); inputs near 0..1 expected."""
        mode = self._border if border is None else border_mode(border)
        self._append(Stage(None, mode, 0.0))
        return self

    def _append(self, stage: Stage) -> None:
        if stage.border == UNDEFINED_BORDER:
            raise ValueError("a pipeline stage cannot take the undefined border: the stages "
                             "between compute whole images; use clamp, mirror, mirror101, "
                             "repeat or constant")
        with self._lock:
            self._stages.append(stage)
            _release_built(self._built)

    @property
    def stages(self) -> tuple[str, ...]:
        """Each stage as "operator (border)"."""
        return tuple(stage.description for stage in self._stages)

    @property
    def radius(self) -> tuple[int, int]:
        """(rows, columns) that an output pixel depends on around it: the stages' sum."""
        return (sum(stage.radius[0] for stage in self._stages),
                sum(stage.radius[1] for stage in self._stages))

    def _build(self, input_type: int, output_type: int) -> Any:
        lib = library()
        created = ctypes.c_void_p()
        check(lib.cls_pipeline_create(context(self._device), ctypes.byref(created)),
              "creating a pipeline")
        handle = created.value
        try:
            for index, stage in enumerate(self._stages):
                first, last = index == 0, index == len(self._stages) - 1
                reads = input_type if first else F32
                writes = output_type if last else F32
                if stage.operator is None:
                    check(lib.cls_pipeline_add_night(handle, stage.border, reads, writes),
                          f"pipeline stage {index + 1}, night")
                else:
                    spec = stage_spec(stage.operator, stage.border, stage.value, reads, writes,
                                      self._goal)
                    check(lib.cls_pipeline_add(handle, spec),
                          f"pipeline stage {index + 1}, {stage.operator.name}")
        except BaseException:
            lib.cls_pipeline_release(handle)
            raise
        return handle

    def run(self, array: np.ndarray, *, out: np.ndarray | None = None, dtype=None) -> np.ndarray:
        """Runs every stage on a 2-D float32, uint8, uint16, int16 or float16 array; returns the
        last stage's image (in `out` when given, else a new array of `dtype`, default the
        input's)."""
        array = check_image(array, "array")
        input_type = pixel_type(array.dtype, "array")
        result = prepare_output(array.shape, out, dtype, array.dtype, zeroed=False)
        output_type = pixel_type(result.dtype, "out")
        if not self._stages:
            raise ValueError("the pipeline has no stage")
        if array.size == 0:
            return result
        source = array if has_pitched_rows(array) else np.ascontiguousarray(array)
        target = result if has_pitched_rows(result) else np.empty(result.shape, result.dtype)
        with self._lock:
            handle = self._built.get((input_type, output_type))
            if handle is None:
                handle = self._build(input_type, output_type)
                self._built[(input_type, output_type)] = handle
            check(library().cls_pipeline_run_host(handle, pointer(source),
                                                  pointer(target, const=False),
                                                  describe(source, target)),
                  "running the pipeline")
        if target is not result:
            result[...] = target
        return result

    __call__ = run

    @property
    def key(self) -> tuple:
        """What the pipeline computes: stages, device and build goal (equal keys, equal
        pipelines)."""
        return (tuple((None if stage.operator is None else stage.operator.key, stage.border,
                       stage.value) for stage in self._stages), self._device, self._goal)

    @property
    def borders(self) -> tuple[int, ...]:
        """The stages' border modes (cls_border numbers)."""
        return tuple(stage.border for stage in self._stages)

    def __reduce__(self):
        # Pickled as its stages (dask sends pipelines to worker processes); built again there.
        return _rebuild, (tuple(self._stages), self._device, self._goal)

    def __repr__(self) -> str:
        return f"Pipeline({list(self.stages)!r})"


def _rebuild(stages: tuple[Stage, ...], device: str | None, goal: int) -> Pipeline:
    pipeline = Pipeline(device=device)
    pipeline._goal = goal
    for stage in stages:
        pipeline._append(stage)
    return pipeline


def _release_built(built: dict) -> None:
    lib = library()
    for handle in built.values():
        lib.cls_pipeline_release(handle)
    built.clear()


def _release_live_pipelines() -> None:
    for pipeline in list(_live_pipelines):
        with pipeline._lock:
            _release_built(pipeline._built)


on_release(_release_live_pipelines)
