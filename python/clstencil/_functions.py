"""The functions of include/clstencil.h that the Python package calls, as ctypes prototypes.

Each entry gives the result type and the argument types, so ctypes converts Python values and
checks the number of arguments. cls_status and the other enums are C ints; opaque handles
(cls_context *, cls_filter *, cl_mem, cl_event, ...) are void pointers, which ctypes returns as
Python ints (None for NULL); an out-parameter `T **out` is a pointer to such a pointer.
"""
from __future__ import annotations

import ctypes
from ctypes import POINTER, c_char_p, c_int, c_size_t, c_uint, c_void_p

from ._structs import CacheStatus, DeviceCaps, ImageDesc, Spec, cl_uint

handle = c_void_p
handle_out = POINTER(c_void_p)
status = c_int

# name: (result type, [argument types])
PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "cls_last_error": (c_char_p, []),
    "cls_status_name": (c_char_p, [status]),
    "cls_version": (c_char_p, []),

    "cls_devices_query": (status, [handle_out]),
    "cls_device_list_release": (None, [handle]),
    "cls_device_list_count": (c_size_t, [handle]),
    "cls_device_list_get": (POINTER(DeviceCaps), [handle, c_size_t]),
    "cls_device_select": (status, [handle, c_char_p, POINTER(c_size_t)]),
    "cls_device_select_list": (status, [handle, c_char_p, POINTER(c_size_t), c_size_t, POINTER(c_size_t)]),
    "cls_vendor_name": (c_char_p, [c_int]),
    "cls_device_type_name": (c_char_p, [c_int]),

    "cls_border_parse": (status, [c_char_p, POINTER(c_int)]),
    "cls_border_name": (c_char_p, [c_int]),
    "cls_pixel_type_name": (c_char_p, [c_int]),
    "cls_spec_validate": (status, [POINTER(Spec)]),

    "cls_context_create": (status, [c_char_p, handle_out]),
    "cls_context_wrap": (status, [handle, handle, handle, handle_out]),
    "cls_context_release": (None, [handle]),
    "cls_context_device": (POINTER(DeviceCaps), [handle]),
    "cls_context_cl": (handle, [handle]),
    "cls_context_queue": (handle, [handle]),
    "cls_host_alloc": (c_void_p, [handle, c_size_t]),
    "cls_host_free": (None, [handle, c_void_p]),

    "cls_filter_create": (status, [handle, POINTER(Spec), handle_out]),
    "cls_filter_release": (None, [handle]),
    "cls_filter_output_count": (c_uint, [handle]),
    "cls_filter_run_host": (status, [handle, c_void_p, c_void_p, POINTER(ImageDesc)]),
    "cls_filter_run_host_spread": (status, [POINTER(c_void_p), c_size_t, c_void_p, c_void_p,
                                            POINTER(ImageDesc)]),
    "cls_filter_enqueue": (status, [handle, handle, handle, POINTER(ImageDesc), cl_uint,
                                    POINTER(c_void_p), POINTER(c_void_p)]),

    "cls_operator_parse": (status, [c_char_p, handle_out]),
    "cls_operator_user": (status, [c_char_p, c_uint, c_uint, POINTER(ctypes.c_float), handle_out]),
    "cls_operator_user_volume": (status, [c_char_p, c_uint, c_uint, c_uint, POINTER(ctypes.c_float), handle_out]),
    "cls_operator_weights": (status, [POINTER(ctypes.c_float), c_uint, c_uint, c_uint, POINTER(c_int),
                                      handle_out]),
    "cls_operator_footprint": (status, [c_char_p, ctypes.c_double, POINTER(ctypes.c_ubyte), c_uint,
                                        c_uint, c_uint, POINTER(c_int), handle_out]),
    "cls_operator_spec": (POINTER(Spec), [handle]),
    "cls_operator_name": (c_char_p, [handle]),
    "cls_operator_release": (None, [handle]),

    "cls_pipeline_create": (status, [handle, handle_out]),
    "cls_pipeline_release": (None, [handle]),
    "cls_pipeline_add": (status, [handle, POINTER(Spec)]),
    "cls_pipeline_add_night": (status, [handle, c_int, c_int, c_int]),
    "cls_pipeline_add_input": (status, [handle, c_char_p, c_int]),
    "cls_pipeline_add_stage": (status, [handle, c_char_p, POINTER(Spec), c_char_p]),
    "cls_pipeline_add_elementwise": (status, [handle, c_char_p, c_char_p, c_int]),
    "cls_pipeline_run_host_inputs": (status, [handle, c_size_t, POINTER(c_void_p), c_void_p,
                                              POINTER(ImageDesc)]),
    "cls_pipeline_stage_count": (c_size_t, [handle]),
    "cls_pipeline_run_host": (status, [handle, c_void_p, c_void_p, POINTER(ImageDesc)]),
    "cls_pipeline_enqueue": (status, [handle, handle, handle, POINTER(ImageDesc), cl_uint,
                                      POINTER(c_void_p), POINTER(c_void_p), POINTER(c_void_p)]),

    "cls_cache_query": (status, [POINTER(CacheStatus)]),
}


def declare(library: ctypes.CDLL) -> None:
    """Sets every prototype on the loaded library; a function the library lacks (an older
    build) is left out and raises AttributeError only where it is called."""
    for name, (result, arguments) in PROTOTYPES.items():
        try:
            function = getattr(library, name)
        except AttributeError:
            continue
        function.restype = result
        function.argtypes = arguments
