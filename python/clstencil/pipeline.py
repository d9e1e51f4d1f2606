"""clstencil.Pipeline: operators on the device (cls_pipeline), no host round trip between
stages; the stages in between keep float32 images. A plain chain names nothing; named stages,
element-wise stages and several inputs make a graph."""
from __future__ import annotations

import ctypes
import re
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from ._library import library
from .contexts import context, normalize_selector, on_release
from .errors import check
from .filtering import UNDEFINED_BORDER, prepare_output
from .filters import (border_mode, build_goal, compute_method, library_border_name, stage_spec,
                      volume_size_class)
from .images import check_image, describe, has_pitched_rows, pointer
from .operators import Operator, OperatorLike, as_operator
from .pixel_types import pixel_type

F32 = 0
NIGHT_RADIUS = 1 + 2 + 4 + 8  # a-trous dilations 1, 2, 4 and 8, then a point operator


@dataclass(frozen=True)
class Stage:
    """One stage: an operator (None for the Night filter's five stages), its border and value;
    or an element-wise expression. name and source are None in a plain chain."""

    operator: Operator | None
    border: int
    value: float
    name: str | None = None
    source: str | None = None
    expression: str | None = None
    method: int = 0  # cls_method: auto

    @property
    def radius(self) -> tuple[int, int]:
        """(rows, columns) the stage's windows reach from their centre."""
        if self.expression is not None:
            return (0, 0)
        return (NIGHT_RADIUS, NIGHT_RADIUS) if self.operator is None else self.operator.radius

    @property
    def description(self) -> str:
        prefix = f"{self.name} = " if self.name else ""
        if self.expression is not None:
            return f"{prefix}{self.expression}"
        name = "night" if self.operator is None else self.operator.name
        source = f" of {self.source}" if self.source else ""
        return f"{prefix}{name}{source} ({library_border_name(self.border)})"


_IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b(?!\s*\()")


def _names_read(expression: str, known: Iterable[str]) -> list[str]:
    """The images an element-wise expression reads: identifiers that are no function call and
    name an image (the library refuses any other name)."""
    known = set(known)
    return [word for word in dict.fromkeys(_IDENTIFIER.findall(expression)) if word in known]


_live_pipelines: "weakref.WeakSet[Pipeline]" = weakref.WeakSet()


class Pipeline:
    """Operators applied one after another on the device, like the C library's cls_pipeline.

        smooth_edges = clstencil.Pipeline(["gaussian:5,1.2", "sobel:mag"], border="mirror")
        edges = smooth_edges(image)        # or smooth_edges.run(image, dtype=numpy.float32)

    The first stage reads the input's dtype, the last writes the output's, the stages between
    use float32. The device programs are built on the first run for each pair of dtypes and kept.
    A Pipeline may be shared by threads (runs of one pipeline take turns).

    Stages may be named and read any earlier image by name; element-wise stages combine up to
    four images with an OpenCL C expression; `inputs` names several input images:

        sharpen = clstencil.Pipeline(border="mirror")
        sharpen.add("gaussian:5", name="blur", source="input")
        sharpen.add_elementwise("sharp", "input + 1.5f * (input - blur)")
        both = clstencil.Pipeline(inputs=("a", "b")).add_elementwise("m", "max(a, b)")
        brightest = both(first, second)
    """

    def __init__(self, stages: Iterable[OperatorLike] = (), border: str = "clamp",
                 value: float = 0.0, *, device: str | None = None,
                 build: str | None = None, inputs: Iterable[str] = ("input",)) -> None:
        self._inputs = tuple(inputs)
        if not self._inputs:
            raise ValueError("a pipeline reads at least one input image")
        self._device = normalize_selector(device)
        self._border = border_mode(border)
        self._value = float(value)
        self._goal = build_goal(build)
        self._stages: list[Stage] = []
        self._built: dict[tuple[int, int, int], Any] = {}  # (input, output, a volume's size class)
        self._lock = threading.Lock()
        _live_pipelines.add(self)
        weakref.finalize(self, _release_built, self._built)
        for op in stages:
            self.add(op)

    def add(self, op: OperatorLike, border: str | None = None, value: float | None = None, *,
            name: str | None = None, source: str | None = None,
            method: str | None = None) -> "Pipeline":
        """Appends a stage (border and value default to the pipeline's), named `name` and
        reading the image `source` (an input or an earlier stage; default the last image),
        computed by `method` ("direct", "fft" or None/"auto", as for clstencil.filter); returns
        the pipeline."""
        mode = self._border if border is None else border_mode(border)
        operator = as_operator(op)
        volume = len(operator.window) == 3
        if self.volume is not None and self.volume != volume:
            raise ValueError(f"{operator.name} is a {'volume' if volume else '2-D'} operator and the pipeline's "
                             f"stages are {'volume' if self.volume else '2-D'} ones: a pipeline's stencil stages "
                             f"are all 2-D (images) or all volumes' (3-D arrays)")
        self._append(Stage(operator, mode, self._value if value is None else float(value),
                           name, source, method=compute_method(method)))
        return self

    def add_elementwise(self, name: str | None, expression: str) -> "Pipeline":
        """Appends an element-wise stage: an OpenCL C expression of up to four earlier images
        by name, such as "input - blur" or "hypot(gx, gy)", computed pixel by pixel in float;
        returns the pipeline."""
        self._append(Stage(None, self._border, 0.0, name, None, str(expression)))
        return self

    def add_night(self, border: str | None = None) -> "Pipeline":
        """Appends the Night filter of the ISP paper: a-trous smoothing at dilations 1, 2, 4 and
        8, then the tone mapping v / (1 + v); inputs near 0..1 expected."""
        mode = self._border if border is None else border_mode(border)
        if self.volume:
            raise ValueError("the Night filter's stages are 2-D and the pipeline's are volumes' operators")
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
    def inputs(self) -> tuple[str, ...]:
        """The input images' names, in the order run takes them."""
        return self._inputs

    @property
    def radius(self) -> tuple[int, ...]:
        """(rows, columns), for volumes' operators (slices, rows, columns), that an output depends
        on around it: the largest sum of the stages' reaches along any path from an input."""
        zero = (0, 0, 0) if self.volume else (0, 0)
        reach = {name: zero for name in self._inputs}
        last = self._inputs[0]
        for number, stage in enumerate(self._stages, 1):
            if stage.expression is not None:
                read = [reach[name] for name in _names_read(stage.expression, reach)] or [zero]
                here = tuple(max(axis) for axis in zip(*read))
            else:
                base = reach.get(stage.source or last, zero)
                here = tuple(b + r for b, r in zip(base, stage.radius))
            last = stage.name or f"stage{number}"
            reach[last] = here
        return reach[last]

    def _build(self, input_type: int, output_type: int,
               volume_shape: tuple[int, int, int] | None) -> Any:
        lib = library()
        created = ctypes.c_void_p()
        check(lib.cls_pipeline_create(context(self._device), ctypes.byref(created)),
              "creating a pipeline")
        handle = created.value
        try:
            for name in self._inputs:
                check(lib.cls_pipeline_add_input(handle, name.encode(), input_type),
                      f"pipeline input {name!r}")
            previous = self._inputs[0]
            for index, stage in enumerate(self._stages):
                last = index == len(self._stages) - 1
                reads = input_type if (stage.source or previous) in self._inputs else F32
                writes = output_type if last else F32
                previous = stage.name or f"stage{index + 1}"
                encoded = None if stage.name is None else stage.name.encode()
                if stage.expression is not None:
                    check(lib.cls_pipeline_add_elementwise(handle, encoded, stage.expression.encode(),
                                                           writes),
                          f"pipeline stage {index + 1}, {stage.description}")
                elif stage.operator is None:
                    check(lib.cls_pipeline_add_night(handle, stage.border, reads, writes),
                          f"pipeline stage {index + 1}, night")
                else:
                    spec = stage_spec(stage.operator, stage.border, stage.value, reads, writes,
                                      self._goal, stage.method, volume_shape)
                    source = None if stage.source is None else stage.source.encode()
                    check(lib.cls_pipeline_add_stage(handle, encoded, spec, source),
                          f"pipeline stage {index + 1}, {stage.operator.name}")
        except BaseException:
            lib.cls_pipeline_release(handle)
            raise
        return handle

    @property
    def volume(self) -> bool | None:
        """Whether the stencil stages are volumes' operators (3-D arrays), 2-D ones (images), or
        None while the pipeline has none."""
        for stage in self._stages:
            if stage.expression is None:  # the Night filter's stages are 2-D
                return stage.operator is not None and len(stage.operator.window) == 3
        return None

    def run(self, array: np.ndarray, *more: np.ndarray, out: np.ndarray | None = None,
            dtype=None) -> np.ndarray:
        """Runs every stage on a float32, uint8, uint16, int16 or float16 array (one per input,
        of one shape and dtype): 2-D, or 3-D (slices, rows, columns) where the stages are
        volumes' operators; returns the last stage's image (in `out` when given, else a new
        array of `dtype`, default the input's)."""
        volume = bool(self.volume)
        array = check_image(array, "array", volume)
        input_type = pixel_type(array.dtype, "array")
        if len(more) + 1 != len(self._inputs):
            raise ValueError(f"the pipeline reads {len(self._inputs)} image(s) "
                             f"({', '.join(self._inputs)}), {len(more) + 1} given")
        others = [np.ascontiguousarray(check_image(extra, f"input {name!r}", volume))
                  for extra, name in zip(more, self._inputs[1:])]
        for extra, name in zip(others, self._inputs[1:]):
            if extra.shape != array.shape or extra.dtype != array.dtype:
                raise ValueError(f"input {name!r} is {extra.dtype} {extra.shape}; the pipeline's "
                                 f"inputs share one shape and dtype: {array.dtype} {array.shape}")
        if others:
            array = np.ascontiguousarray(array)
        result = prepare_output(array.shape, out, dtype, array.dtype, False, self._device)
        output_type = pixel_type(result.dtype, "out")
        if not self._stages:
            raise ValueError("the pipeline has no stage")
        if array.size == 0:
            return result
        source = array if has_pitched_rows(array) else np.ascontiguousarray(array)
        target = result if has_pitched_rows(result) else np.empty(result.shape, result.dtype)
        # a volume's pipeline is built for its size class (auto's walks: docs/api.md)
        size_class = volume_size_class(array.shape) if volume else 0
        with self._lock:
            handle = self._built.get((input_type, output_type, size_class))
            if handle is None:
                handle = self._build(input_type, output_type, array.shape if volume else None)
                self._built[(input_type, output_type, size_class)] = handle
            sources = (ctypes.c_void_p * (1 + len(others)))(
                pointer(source), *(pointer(extra) for extra in others))
            check(library().cls_pipeline_run_host_inputs(handle, len(sources), sources,
                                                         pointer(target, const=False),
                                                         describe(source, target)),
                  "running the pipeline")
        if target is not result:
            result[...] = target
        return result

    __call__ = run

    @property
    def key(self) -> tuple:
        """What the pipeline computes: stages (their methods included), device and build goal
        (equal keys, equal pipelines)."""
        return (tuple((None if stage.operator is None else stage.operator.key, stage.border,
                       stage.value, stage.name, stage.source, stage.expression, stage.method)
                      for stage in self._stages), self._inputs, self._device, self._goal)

    @property
    def borders(self) -> tuple[int, ...]:
        """The stages' border modes (cls_border numbers)."""
        return tuple(stage.border for stage in self._stages)

    def __reduce__(self):
        # Pickled as its stages (dask sends pipelines to worker processes); built again there.
        return _rebuild, (tuple(self._stages), self._device, self._goal, self._inputs)

    def __repr__(self) -> str:
        return f"Pipeline({list(self.stages)!r})"


def _rebuild(stages: tuple[Stage, ...], device: str | None, goal: int,
             inputs: tuple[str, ...] = ("input",)) -> Pipeline:
    pipeline = Pipeline(device=device, inputs=inputs)
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
