# %% [markdown]
# # ex0_smoke: a smoke test
#
# Square numbers.

# %% tags=["setup"]
import numpy as np

# %% tags=["graded"]
def square(x):
    """Return x**2 elementwise (array in, array out)."""
    return np.asarray(x, dtype=float) ** 2


def norm2(x):
    """Return the squared Euclidean norm of a vector (float)."""
    return float(np.sum(np.square(x)))

# %% tags=["check"]
@check
def check_square():
    "square(3) is 9"
    assert square(3.0) == 9.0

# %% tags=["figure"]
import matplotlib.pyplot as plt
xs = np.linspace(-1, 1, 11)
plt.plot(xs, square(xs)); plt.show()

# %% tags=["solution"]
print("independent check:", norm2([3, 4]) == 25)

# %% [markdown] tags=["answer"]
# Squares are non-negative.

# %% tags=["tests"]
@points(2)
def test_square(student):
    """square on random arrays"""
    x = rng_for("square").normal(size=7)
    assert_close(student.square(x), ref.square(x), name="square(x)")


def test_norm2(student):
    """norm2 on a random vector"""
    x = rng_for("norm2").normal(size=5)
    assert_close(student.norm2(x), ref.norm2(x), name="norm2(x)")
