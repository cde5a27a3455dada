"""The Python package against the C tools it wraps: same library, same tools, the shared data.

Run by ctest (test_python) with PYTHONPATH=python, YOLORT_LIB = the build's libyolort.so and
YOLORT_BIN = the build's tools/. Data: $YOLORT_DATA or YOLORT_DEFAULT_DATA (../shared); missing
data skips on a developer machine and fails under CI=true."""
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

import yolort

DATA = os.environ.get("YOLORT_DATA") or os.environ.get("YOLORT_DEFAULT_DATA", "../shared")
MODEL_ONNX = os.path.join(DATA, "models", "yolo11n-320.qdq.onnx")
VAL = os.path.join(DATA, "data", "coco", "val")


def need_data():
    if os.path.exists(MODEL_ONNX) and os.path.isdir(VAL):
        return
    if os.environ.get("CI") == "true":
        raise AssertionError("test data not found at %s (YOLORT_DATA); CI=true requires it" % DATA)
    raise unittest.SkipTest("no test data at %s" % DATA)


def iou(a, b):
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / u if u > 0 else 0.0


class PackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_data()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.yrt = os.path.join(cls.tmp.name, "m.yrt")
        cls.summary = yolort.convert(MODEL_ONNX, cls.yrt)
        imgs = sorted(f for f in os.listdir(os.path.join(VAL, "images")) if f.endswith(".jpg"))
        cls.images = [os.path.join(VAL, "images", f) for f in imgs[:3]]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_version(self):
        v = yolort.version()
        out = subprocess.run([yolort.tool_path("yolort-convert"), "--version"], stdout=subprocess.PIPE, text=True)
        self.assertIn(v, out.stdout)

    def test_convert_summary(self):
        self.assertIn("converted:", self.summary)
        self.assertTrue(os.path.getsize(self.yrt) > 0)

    def test_detect_matches_cli(self):
        """Python's detect (the camera frame path on the decoded pixels) finds what yolort-detect
        finds (its float letterbox): same classes, boxes IoU >= 0.9, scores within 0.05."""
        with yolort.Model(self.yrt, threads=1) as m:
            self.assertEqual(m.task, "detect")
            self.assertEqual(m.num_classes, 80)
            self.assertEqual(m.names[0], "person")
            for path in self.images:
                rgb = yolort.load_jpeg(path)
                self.assertEqual(rgb.dtype, np.uint8)
                self.assertEqual(rgb.ndim, 3)
                ours = [d for d in m.detect(rgb) if d.score >= 0.4]
                cli = subprocess.run([yolort.tool_path("yolort-detect"), self.yrt, path, "--json"],
                                     stdout=subprocess.PIPE, text=True, check=True)
                ref = json.loads(cli.stdout.splitlines()[0])
                self.assertEqual((ref["width"], ref["height"]), (rgb.shape[1], rgb.shape[0]))
                for d in ours:
                    best = max((iou(d.box, r["box"]) for r in ref["detections"] if r["class"] == d.class_id),
                               default=0.0)
                    self.assertGreaterEqual(best, 0.9, "%s: %s has no match in yolort-detect" % (path, d))
                self.assertEqual(len(ours) > 0, any(r["score"] >= 0.45 for r in ref["detections"]))

    def test_detect_views_and_orders(self):
        """A strided crop view equals its contiguous copy; BGR input with bgr=True equals RGB."""
        rgb = yolort.load_jpeg(self.images[0])
        with yolort.Model(self.yrt, threads=2) as m:
            crop = rgb[10:-10, 20:-20]
            self.assertEqual(m.detect(crop), m.detect(np.ascontiguousarray(crop)))
            self.assertEqual(m.detect(rgb), m.detect(rgb[:, :, ::-1].copy(), bgr=True))
            few = m.detect(rgb, conf=0.5, max_det=2, classes=[0, 41])
            self.assertLessEqual(len(few), 2)
            self.assertTrue(all(d.score > 0.5 and d.class_id in (0, 41) for d in few))

    def test_isa_cap(self):
        """isa_cap (yrt_session_options.isa_cap): the scalar references give the same detections
        as the CPU's best kernels (every variant is bit-exact); an unknown name is refused naming it."""
        rgb = yolort.load_jpeg(self.images[0])
        with yolort.Model(self.yrt, threads=1) as best, yolort.Model(self.yrt, threads=1, isa_cap="scalar") as ref:
            self.assertEqual(best.detect(rgb), ref.detect(rgb))
        with self.assertRaises(yolort.YolortError) as e:
            yolort.Model(self.yrt, isa_cap="sse9")
        self.assertIn("YRT_ERR_INVALID_ARG", str(e.exception))
        self.assertIn('isa_cap "sse9"', str(e.exception))

    def test_errors_are_clear(self):
        with self.assertRaises(yolort.YolortError) as e:
            yolort.Model(os.path.join(self.tmp.name, "missing.yrt"))
        self.assertIn("missing.yrt", str(e.exception))
        bad = os.path.join(self.tmp.name, "bad.yrt")
        with open(bad, "wb") as f:
            f.write(b"not a model" * 10)
        with self.assertRaises(yolort.YolortError) as e:
            yolort.Model(bad)
        self.assertIn("YRT_ERR_FORMAT", str(e.exception))
        with yolort.Model(self.yrt, threads=1) as m:
            with self.assertRaises(TypeError):
                m.detect(np.zeros((32, 32, 3), np.float32))
            with self.assertRaises(ValueError):
                m.detect(np.zeros((32, 32, 4), np.uint8))
            with self.assertRaises(yolort.YolortError) as e:
                m.classify(np.zeros((32, 32, 3), np.uint8))
            self.assertIn("YRT_ERR_UNSUPPORTED", str(e.exception))
        with self.assertRaises(ValueError):
            m.detect(np.zeros((32, 32, 3), np.uint8))  # closed
        with self.assertRaises(yolort.ToolError) as e:
            yolort.convert(os.path.join(self.tmp.name, "missing.onnx"), os.path.join(self.tmp.name, "x.yrt"))
        self.assertNotEqual(e.exception.returncode, 0)
        self.assertIn("missing.onnx", str(e.exception))
        with self.assertRaises(yolort.ToolError) as e:
            yolort.evaluate(self.yrt, VAL, VAL, no_such_flag=1)
        self.assertEqual(e.exception.returncode, 2)  # a usage error

    def test_segment_masks(self):
        """A segment model's masks: one per detection, inside its box, at the image's size."""
        seg = os.path.join(DATA, "models", "wild", "yolov8n-seg-320.dynamic.onnx")
        yrt = os.path.join(self.tmp.name, "seg.yrt")
        yolort.convert(seg, yrt)
        rgb = yolort.load_jpeg(self.images[0])
        with yolort.Model(yrt, threads=1) as m:
            self.assertEqual(m.task, "segment")
            self.assertEqual(m.mask_channels, 32)
            dets = m.detect(rgb)
            self.assertTrue(dets)
            for i, d in enumerate(dets[:3]):
                mk = m.mask(i)
                self.assertEqual(mk.shape, rgb.shape[:2])
                ys, xs = np.nonzero(mk)
                if len(xs):
                    self.assertGreaterEqual(xs.min(), int(d.box[0]) - 1)
                    self.assertLessEqual(xs.max(), int(d.box[2]) + 1)
            with self.assertRaises(yolort.YolortError):
                m.mask(len(dets))
        with yolort.Model(self.yrt, threads=1) as m:
            self.assertEqual(m.mask_channels, 0)
            m.detect(rgb)
            with self.assertRaises(yolort.YolortError) as e:
                m.mask(0)
            self.assertIn("YRT_ERR_UNSUPPORTED", str(e.exception))

    def test_evaluate(self):
        r = yolort.evaluate(self.yrt, os.path.join(VAL, "images"), os.path.join(VAL, "labels"), n=4)
        self.assertEqual(r["num_images"], 4)
        self.assertTrue(0.0 <= r["map50_95"] <= r["map50"] <= 1.0)

    def test_quantize(self):
        out = os.path.join(self.tmp.name, "q.qdq.onnx")
        yq = os.path.join(self.tmp.name, "q.yrt")
        fp32 = os.path.join(DATA, "models", "yolo11n-320.onnx")
        yolort.quantize(fp32, os.path.join(DATA, "data", "coco", "calib", "images"), out, yrt=yq, n=4, q=True)
        with yolort.Model(yq, threads=1) as m:
            self.assertEqual(m.input_size, (320, 320))


if __name__ == "__main__":
    unittest.main()
