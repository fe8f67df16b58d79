"""Checks of python/tlx_sim/calibrate.py with a synthetic objective (no tlx-sim run): grid parsing, coordinate
descent finding the grid minimum, and the model-file rewrite keeping every other byte.

Plain unittest: ``python3 tests/python/test_calibrate.py``; exit code 0 when everything passes."""
import json
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

from tlx_sim import calibrate, kernel_module  # noqa: E402


class CalibrateTest(unittest.TestCase):
    def test_parse_knob(self):
        self.assertEqual(calibrate.parse_knob("a=10:20:5"), ("a", [10.0, 15.0, 20.0]))
        self.assertEqual(calibrate.parse_knob("b=0.1:0.3:0.1")[1], [0.1, 0.2, 0.3])
        for bad in ("a", "a=1:2", "a=2:1:1", "a=1:2:0", "=1:2:1"):
            with self.assertRaises(kernel_module.UsageError):
                calibrate.parse_knob(bad)

    def test_coordinate_descent_finds_grid_minimum(self):
        # Separable bowl with its minimum at x=14, y=3 (both on the grids).
        f = lambda v: ((v["x"] - 14) ** 2 + (v["y"] - 3) ** 2, 0.0)
        grids = {"x": [10, 12, 14, 16], "y": [1, 2, 3, 4, 5]}
        best, score, log = calibrate.coordinate_descent(f, {"x": 10, "y": 5}, grids, rounds=3)
        self.assertEqual(best, {"x": 14, "y": 3})
        self.assertEqual(score, (0, 0.0))
        self.assertEqual(log[0][0], {"x": 10, "y": 5})  # the starting point is evaluated first
        self.assertEqual(len({tuple(sorted(v.items())) for v, _ in log}), len(log))  # no point evaluated twice

    def test_objective(self):
        report = {"records": [{"error": 0.1}, {"error": -0.3}, {"error": None}, {"error": 0.2}]}
        med, mean = calibrate.objective(report)
        self.assertAlmostEqual(med, 0.2)
        self.assertAlmostEqual(mean, 0.2)

    def test_rewrite_params_changes_only_the_knob_lines(self):
        text = (ROOT / "models" / "h200.json").read_text()
        out = calibrate.rewrite_params(text, {"cta_launch_cycles": 640.0}, "fitted: test")
        doc = json.loads(out)
        self.assertEqual(doc["params"]["cta_launch_cycles"]["value"], 640)
        self.assertEqual(doc["params"]["cta_launch_cycles"]["source"], "fitted: test")
        changed = [(a, b) for a, b in zip(text.splitlines(), out.splitlines()) if a != b]
        self.assertEqual(len(changed), 1)
        self.assertEqual(len(text.splitlines()), len(out.splitlines()))
        with self.assertRaises(kernel_module.UsageError):
            calibrate.rewrite_params(text, {"no_such_knob": 1}, "x")


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
