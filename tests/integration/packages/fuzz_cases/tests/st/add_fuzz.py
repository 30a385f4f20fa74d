# Fuzz function of the fuzz_cases fixture (aopt's own test data): each call draws a row count
# and two float32 operands from numpy's seeded generator; fuzz_shapes.py (beside this file)
# checks that the script's directory is on sys.path.
import numpy as np

from fuzz_shapes import row_shape


def random_rows():
    shape = row_shape(np.random.randint(3, 9))
    x = np.random.uniform(-2.0, 2.0, shape).astype(np.float32)
    y = np.random.uniform(-2.0, 2.0, shape).astype(np.float32)
    print("random_rows: shape", shape)  # goes to stderr, not into the JSON
    return {
        "input_desc": {"x": {"shape": list(x.shape), "value": x.tolist()},
                       "y": {"shape": list(y.shape), "value": y}},
        "output_desc": {"z": {"shape": list(x.shape)}},
    }
