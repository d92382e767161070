import numpy as np
import scipy.linalg
from scipy import special


# %% mistake: a-gradient flattened column-major
# function: tangent_features
# kind: transpose
# truth: the d f / d a_ij columns must follow a.ravel() (row-major, i slowest); the code flattens the (d, N) transpose, so the a-columns are permuted (j slowest).
def tangent_features(params, X):
    a, c = np.asarray(params["a"], dtype=float), np.asarray(params["c"], dtype=float)
    X = np.atleast_2d(np.asarray(X, dtype=float))
    n, d = X.shape
    N = c.size
    phi, dphi = ACTIVATIONS[params["activation"]]
    u = X @ a.T / np.sqrt(d)                      # (n, N)
    Jc = phi(u) / np.sqrt(N)
    Ja = (c * dphi(u) / np.sqrt(N * d))[:, :, None] * X[:, None, :]   # (n, N, d)
    return np.concatenate([Jc, Ja.transpose(0, 2, 1).reshape(n, N * d)], axis=1)


# %% mistake: NTK averaged over the parameters
# function: empirical_ntk
# kind: factor
# truth: the empirical NTK is the plain sum J J^T over all parameters; dividing by the number of parameters N + N d makes it too small by that factor.
def empirical_ntk(params, X):
    J = tangent_features(params, X)
    return J @ J.T / J.shape[1]


# %% mistake: sigma_w missing from the K1 in front of the derivative term
# function: infinite_width_ntk
# kind: factor
# truth: the second term is K1(x, x') E[phi' phi'] with K1 = sigma_w x.x'/d; the code multiplies by x.x'/d, without sigma_w (the expectations themselves use the right K1).
def infinite_width_ntk(X, activation, sigma_w=1.0):
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    G = X @ X.T / d
    K = sigma_w * G
    k = np.diag(K)
    if activation == "relu":
        s = np.sqrt(np.outer(k, k))
        th = np.arccos(np.clip(K / s, -1, 1))
        E0 = s * (np.sin(th) + (np.pi - th) * np.cos(th)) / (2 * np.pi)
        E1 = (np.pi - th) / (2 * np.pi)
    elif activation == "erf":
        D = np.outer(1 + 2 * k, 1 + 2 * k)
        E0 = (2 / np.pi) * np.arcsin(2 * K / np.sqrt(D))
        E1 = (4 / np.pi) / np.sqrt(D - 4 * K ** 2)
    else:
        raise ValueError(activation)
    return E0 + G * E1


# %% mistake: matrix exponential evaluated at t = inf
# function: lazy_prediction
# kind: branch
# truth: at t = inf the factor I - exp(-eta t Theta) is the identity, but the code evaluates scipy.linalg.expm(-inf * Theta), which gives nan; t = inf needs its own branch.
def lazy_prediction(Theta_test_train, Theta_train, f0_test, f0_train, y, eta, t):
    Theta_train = np.asarray(Theta_train, dtype=float)
    n = Theta_train.shape[0]
    r = np.asarray(f0_train, dtype=float) - np.asarray(y, dtype=float)
    with np.errstate(all="ignore"):
        P = np.eye(n) - scipy.linalg.expm(-eta * t * Theta_train)
        v = np.linalg.lstsq(Theta_train, P @ r, rcond=None)[0]
    return np.asarray(f0_test, dtype=float) - np.asarray(Theta_test_train, dtype=float) @ v
