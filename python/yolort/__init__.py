"""yolort for Python: run a .yrt model on numpy images, and the offline tools as functions.

    import numpy as np, yolort
    yolort.convert("yolo11n.onnx", "yolo11n.yrt")
    model = yolort.Model("yolo11n.yrt", threads=2)
    for d in model.detect(rgb):          # rgb: numpy uint8 [H, W, 3], RGB order
        print(d.name, d.score, d.box)    # box: (x0, y0, x1, y1) in image pixels

The runtime is the C library (libyolort.so) through ctypes: results are the C API's, bit for
bit, with no compiled extension. Tools: convert, quantize, evaluate (yolort-* command line
tools). docs/python.md has the details."""
import ctypes
import functools
from collections import namedtuple

from . import _native
from ._tools import ToolError, convert, evaluate, quantize, tool_path

__all__ = ["Model", "Detection", "ClassProb", "YolortError", "ToolError", "convert", "quantize", "evaluate",
           "load_jpeg", "version", "tool_path"]

Detection = namedtuple("Detection", "box score class_id name")
Detection.__doc__ = "One detection: box (x0, y0, x1, y1) in image pixels, score, class id, class name or None."
ClassProb = namedtuple("ClassProb", "class_id prob name")

@functools.lru_cache(maxsize=None)
def _library():
    """The C library, loaded once and shared by every Model."""
    return _native.load_library()


class YolortError(RuntimeError):
    """A C API call failed: .status is the yrt_status name, the message names what and where."""

    def __init__(self, status, msg):
        super().__init__("%s: %s" % (status, msg))
        self.status = status


def _check(lib, st, err):
    if st != 0:
        raise YolortError(lib.yrt_status_name(st).decode(), err.msg.decode("utf-8", "replace"))


def version():
    """The linked library's version string."""
    return _library().yrt_version().decode()


def load_jpeg(path):
    """A JPEG file as a numpy uint8 [H, W, 3] RGB array, decoded as yolort-detect / yolort-eval
    decode it (libjpeg-turbo, with their size limits)."""
    import numpy as np
    lib = _library()
    if not hasattr(lib, "yrt_image_load_jpeg"):
        raise YolortError("YRT_ERR_UNSUPPORTED", "this libyolort has no JPEG decoder (built without YOLORT_IMAGE)")
    img = _native.Image()
    err = _native.Error()
    _check(lib, lib.yrt_image_load_jpeg(str(path).encode(), ctypes.byref(img), ctypes.byref(err)), err)
    try:
        return np.ctypeslib.as_array(img.rgb, shape=(img.h, img.w, 3)).copy()
    finally:
        lib.yrt_image_free(ctypes.byref(img))


def _frame(image, bgr):
    import numpy as np
    a = np.asarray(image)
    if a.dtype != np.uint8:
        raise TypeError("image must be uint8, got %s" % a.dtype)
    if a.ndim == 2:
        fmt, ch = _native.PIX_GRAY8, 1
    elif a.ndim == 3 and a.shape[2] == 3:
        fmt, ch = (_native.PIX_BGR888 if bgr else _native.PIX_RGB888), 3
    else:
        raise ValueError("image must be [H, W, 3] (RGB, or BGR with bgr=True) or [H, W] gray, got shape %s"
                         % (a.shape,))
    if a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError("image is empty: shape %s" % (a.shape,))
    # rows may be strided (a crop of a larger array); pixels within a row must be packed
    if a.strides[-1] != 1 or (ch == 3 and a.strides[1] != 3):
        a = np.ascontiguousarray(a)
    f = _native.Frame()
    f.format, f.width, f.height = fmt, a.shape[1], a.shape[0]
    f.plane[0] = a.ctypes.data
    f.stride[0] = a.strides[0]
    f.struct_size = ctypes.sizeof(f)
    return f, a  # a keeps the pixels alive for the call


class Model:
    """A .yrt model and one session over it (the C library's model + session).

    threads: 0 = one per online CPU (the library's default). isa_cap: None = every instruction set
    the CPU has; else the highest our kernels may use ("avx2", "avxvnni", "avx512", "avx512vnni",
    "amx", "neon", "neondot" or "scalar": yrt_session_options.isa_cap), the same outputs on a
    smaller CPU's path. A Model is not thread-safe: use one per thread (they may share nothing but
    the file). The C API's caller allocator (yrt_session_options.allocator) is C-only."""

    def __init__(self, path, threads=0, isa_cap=None):
        lib = _library()
        self._lib = lib
        self._model = ctypes.c_void_p()
        self._session = ctypes.c_void_p()
        err = _native.Error()
        _check(lib, lib.yrt_model_load_file(str(path).encode(), ctypes.byref(self._model), ctypes.byref(err)), err)
        opts = _native.SessionOptions()
        opts.struct_size = ctypes.sizeof(opts)
        opts.num_threads = int(threads)
        if isa_cap is not None:
            opts.isa_cap = str(isa_cap).encode()
        st = lib.yrt_session_create(self._model, ctypes.byref(opts), ctypes.byref(self._session), ctypes.byref(err))
        if st != 0:
            self.close()
            _check(lib, st, err)
        info = _native.ModelInfo()
        lib.yrt_model_get_info(self._model, ctypes.byref(info))
        self.input_size = (info.input_w, info.input_h)
        self.num_classes = info.num_classes
        self.task = lib.yrt_model_task(self._model).decode() or "detect"
        self.mask_channels = lib.yrt_model_mask_channels(self._model)
        self.names = [self._name(i) for i in range(info.num_classes)]
        self._cap = 0
        self._dets = None
        self._frame_size = None  # (w, h) of the last detect: the masks' size

    def _name(self, i):
        n = self._lib.yrt_model_class_name(self._model, i)
        return n.decode("utf-8", "replace") if n else None

    def close(self):
        """Free the session and the model (also done when the object is collected)."""
        if getattr(self, "_session", None):
            self._lib.yrt_session_free(self._session)
            self._session = None
        if getattr(self, "_model", None):
            self._lib.yrt_model_free(self._model)
            self._model = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if not self._session:
            raise ValueError("yolort.Model is closed")

    def detect(self, image, conf=None, iou=None, max_det=None, classes=None, agnostic=None, bgr=False):
        """Detections on a numpy uint8 image ([H, W, 3] RGB, or BGR with bgr=True; [H, W] gray),
        sorted by score. Unset thresholds are the model's own defaults (yrt_model_postprocess_defaults)."""
        self._live()
        lib = self._lib
        p = _native.PostprocessParams()
        lib.yrt_model_postprocess_defaults(self._model, ctypes.byref(p))
        p.struct_size = ctypes.sizeof(p)
        if conf is not None:
            p.conf_threshold = conf
        if iou is not None:
            p.iou_threshold = iou
        if max_det is not None:
            p.max_detections = int(max_det)
        if agnostic is not None:
            p.class_agnostic = int(bool(agnostic))
        keep = None
        if classes is not None:
            keep = (ctypes.c_int * len(classes))(*[int(c) for c in classes])
            p.classes = keep
            p.num_classes = len(classes)
        cap = max(1, p.max_detections)
        if cap > self._cap:
            self._dets = (_native.Detection * cap)()
            self._cap = cap
        f, pixels = _frame(image, bgr)
        self._frame_size = (f.width, f.height)
        n = ctypes.c_int(0)
        err = _native.Error()
        st = lib.yrt_session_detect(self._session, ctypes.byref(f), ctypes.byref(p), self._dets, self._cap,
                                    ctypes.byref(n), ctypes.byref(err))
        del pixels, keep
        _check(lib, st, err)
        out = []
        for d in self._dets[:n.value]:
            name = d.name.decode("utf-8", "replace") if d.name else None
            out.append(Detection((d.x0, d.y0, d.x1, d.y1), d.score, d.class_id, name))
        return out

    def mask(self, index):
        """The binary mask (numpy uint8 [H, W], 1 on the instance) of detection `index` of the
        last detect() of a segment model (m.mask_channels > 0), at that image's size."""
        import numpy as np
        self._live()
        if not self._frame_size:
            raise ValueError("mask(): call detect() first")
        w, h = self._frame_size
        out = np.zeros((h, w), np.uint8)
        err = _native.Error()
        st = self._lib.yrt_session_mask(self._session, int(index), out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)),
                                        w, h, w, ctypes.byref(err))
        _check(self._lib, st, err)
        return out

    def classify(self, image, top_k=5, bgr=False):
        """The top_k classes of a classifier (task "classify") with their probabilities."""
        self._live()
        lib = self._lib
        k = max(1, int(top_k))
        out = (_native.ClassProb * k)()
        f, pixels = _frame(image, bgr)
        n = ctypes.c_int(0)
        err = _native.Error()
        st = lib.yrt_session_classify(self._session, ctypes.byref(f), k, out, k, ctypes.byref(n), ctypes.byref(err))
        del pixels
        _check(lib, st, err)
        return [ClassProb(c.class_id, c.prob, c.name.decode("utf-8", "replace") if c.name else None)
                for c in out[:n.value]]
