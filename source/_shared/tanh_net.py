# ---- The lab's data and the monitored NTK (shared by Exercises 4.4 and 5.3) ----------
# Student network (notes, eq. (4.40)): f(x) = N^(-gamma) sum_i c_i phi(a_i x), with scalar
# input x, no bias, phi = tanh, and O(1) weights a_i, c_i ~ N(0, 1). Parameters travel as a
# dict of numpy arrays, params = {"a": array (N,), "c": array (N,)}.

ACTIVATIONS = {
    # name: (phi, phi'); the labs use tanh, ReLU appears in Exercise 5.2(b) / 5.3(e)
    "tanh": (np.tanh, lambda u: 1.0 / np.cosh(u) ** 2),
    "relu": (lambda u: np.maximum(u, 0.0), lambda u: (np.asarray(u) > 0).astype(float)),
}


def teacher(x):
    """The two-neuron teacher of the lab, y(x) = 2 tanh(3x) - (3/2) tanh(x)."""
    u = np.asarray(x, dtype=float)
    return 2.0 * np.tanh(3.0 * u) - 1.5 * np.tanh(u)


def lab_data(n=30):
    """The training set of the lab: n equispaced inputs on [-2, 2] and the teacher's labels.

    Returns (x, y), two float arrays of shape (n,).
    """
    x = np.linspace(-2.0, 2.0, n)
    return x, teacher(x)


def ntk(params, x, gamma, x2=None, activation="tanh"):
    """Empirical NTK of the student, notes eq. (4.41):

        Theta(x, x') = N^(-2 gamma) sum_i [ phi(a_i x) phi(a_i x')
                                            + c_i^2 phi'(a_i x) phi'(a_i x') x x' ].

    Args:
        params: dict {"a": array (N,), "c": array (N,)}.
        x: array (m,) of inputs; x2: array (m2,) or None (then x2 = x).
        gamma: the exponent of the prefactor N^(-gamma).
        activation: "tanh" (the lab) or "relu".
    Returns:
        array (m, m2), the matrix Theta(x^mu, x2^nu).
    """
    phi, dphi = ACTIVATIONS[activation]
    a, c = (np.asarray(params[key], dtype=float) for key in ("a", "c"))
    x1 = np.atleast_1d(np.asarray(x, dtype=float))
    x2 = x1 if x2 is None else np.atleast_1d(np.asarray(x2, dtype=float))
    P1, P2 = phi(np.outer(a, x1)), phi(np.outer(a, x2))
    D1, D2 = dphi(np.outer(a, x1)), dphi(np.outer(a, x2))
    readout = P1.T @ P2                                   # d f / d c_i terms
    hidden = (D1 * (c**2)[:, None]).T @ D2 * np.outer(x1, x2)   # d f / d a_i terms
    return (readout + hidden) / a.size ** (2.0 * gamma)
