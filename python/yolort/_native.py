"""ctypes bindings of the C API in yolort.h that the package uses (no compiled extension).

The structs mirror yolort.h; the growable ones carry struct_size = their ctypes size, so a newer
library reads exactly these fields (yolort.h: "Growth without breaking callers")."""
import ctypes
import ctypes.util
import os

from ._paths import LIBDIR

c_float_p = ctypes.POINTER(ctypes.c_float)


class Error(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * 512)]


class ModelInfo(ctypes.Structure):
    _fields_ = [("input_w", ctypes.c_int), ("input_h", ctypes.c_int), ("num_classes", ctypes.c_int),
                ("num_inputs", ctypes.c_int), ("num_outputs", ctypes.c_int), ("num_nodes", ctypes.c_int),
                ("num_tensors", ctypes.c_int), ("num_int8_nodes", ctypes.c_int), ("synthetic", ctypes.c_int),
                ("end2end", ctypes.c_int), ("arena_bytes", ctypes.c_size_t), ("weight_bytes", ctypes.c_size_t),
                ("file_bytes", ctypes.c_size_t)]


class Frame(ctypes.Structure):
    _fields_ = [("format", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("plane", ctypes.c_void_p * 3), ("stride", ctypes.c_size_t * 3), ("color", ctypes.c_int),
                ("crop_x", ctypes.c_int), ("crop_y", ctypes.c_int), ("crop_w", ctypes.c_int),
                ("crop_h", ctypes.c_int), ("struct_size", ctypes.c_size_t)]


class Detection(ctypes.Structure):
    _fields_ = [("x0", ctypes.c_float), ("y0", ctypes.c_float), ("x1", ctypes.c_float), ("y1", ctypes.c_float),
                ("score", ctypes.c_float), ("class_id", ctypes.c_int), ("name", ctypes.c_char_p)]


class PostprocessParams(ctypes.Structure):
    _fields_ = [("conf_threshold", ctypes.c_float), ("iou_threshold", ctypes.c_float),
                ("max_detections", ctypes.c_int), ("class_agnostic", ctypes.c_int),
                ("classes", ctypes.POINTER(ctypes.c_int)), ("num_classes", ctypes.c_int),
                ("struct_size", ctypes.c_size_t)]


class Image(ctypes.Structure):
    _fields_ = [("w", ctypes.c_int), ("h", ctypes.c_int), ("rgb", ctypes.POINTER(ctypes.c_uint8))]


class ClassProb(ctypes.Structure):
    _fields_ = [("class_id", ctypes.c_int), ("prob", ctypes.c_float), ("name", ctypes.c_char_p)]


class SessionOptions(ctypes.Structure):
    """yrt_session_options up to isa_cap, struct_size = its size (set by the Model). A library older
    than isa_cap accepts the struct when the fields it does not know are zero (yolort.h)."""
    _fields_ = [("num_threads", ctypes.c_int), ("arena", ctypes.c_void_p), ("arena_bytes", ctypes.c_size_t),
                ("max_arena_bytes", ctypes.c_size_t), ("struct_size", ctypes.c_size_t),
                ("thread_pool", ctypes.c_void_p), ("oversubscribe", ctypes.c_int),
                ("allocator", ctypes.c_void_p), ("isa_cap", ctypes.c_char_p)]


PIX_RGB888, PIX_BGR888, PIX_GRAY8 = 1, 2, 8


def _candidates():
    env = os.environ.get("YOLORT_LIB")
    if env:
        yield env
        return
    for d in (os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib"), LIBDIR):
        if d:
            for name in ("libyolort.so", "libyolort.so.0.1", "libyolort.dylib"):
                yield os.path.join(d, name)
    found = ctypes.util.find_library("yolort")
    if found:
        yield found


def load_library():
    """The yolort shared library: $YOLORT_LIB, the copy installed inside the package (cmake
    --install), the install prefix recorded at install time, or the system's (ldconfig)."""
    tried = []
    for path in _candidates():
        tried.append(path)
        if os.path.sep in path and not os.path.exists(path):
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        _declare(lib)
        return lib
    raise OSError("yolort: the shared library libyolort.so was not found (tried: %s). Install yolort with "
                  "cmake --install, or set YOLORT_LIB to its path" % ", ".join(tried or ["nothing"]))


def _declare(lib):
    P = ctypes.c_void_p
    st = ctypes.c_int
    E = ctypes.POINTER(Error)
    sig = {
        "yrt_version": (ctypes.c_char_p, []),
        "yrt_status_name": (ctypes.c_char_p, [st]),
        "yrt_model_load_file": (st, [ctypes.c_char_p, ctypes.POINTER(P), E]),
        "yrt_model_free": (None, [P]),
        "yrt_model_get_info": (st, [P, ctypes.POINTER(ModelInfo)]),
        "yrt_model_class_name": (ctypes.c_char_p, [P, ctypes.c_int]),
        "yrt_model_task": (ctypes.c_char_p, [P]),
        "yrt_model_postprocess_defaults": (st, [P, ctypes.POINTER(PostprocessParams)]),
        "yrt_session_create": (st, [P, ctypes.POINTER(SessionOptions), ctypes.POINTER(P), E]),
        "yrt_session_free": (None, [P]),
        "yrt_session_detect": (st, [P, ctypes.POINTER(Frame), ctypes.POINTER(PostprocessParams),
                                    ctypes.POINTER(Detection), ctypes.c_int, ctypes.POINTER(ctypes.c_int), E]),
        "yrt_model_mask_channels": (ctypes.c_int, [P]),
        "yrt_session_mask": (st, [P, ctypes.c_int, ctypes.POINTER(ctypes.c_uint8), ctypes.c_int, ctypes.c_int,
                                  ctypes.c_size_t, E]),
        "yrt_session_classify": (st, [P, ctypes.POINTER(Frame), ctypes.c_int, ctypes.POINTER(ClassProb),
                                      ctypes.c_int, ctypes.POINTER(ctypes.c_int), E]),
    }
    if hasattr(lib, "yrt_image_load_jpeg"):  # the package's library carries the JPEG decoder
        sig["yrt_image_load_jpeg"] = (st, [ctypes.c_char_p, ctypes.POINTER(Image), E])
        sig["yrt_image_free"] = (None, [ctypes.POINTER(Image)])
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
