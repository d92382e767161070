import numpy as np
import scipy.linalg


def _um_J(params, X, dphi_is_phi=False, fan_in=True):
    a, c = np.asarray(params["a"], dtype=float), np.asarray(params["c"], dtype=float)
    X = np.atleast_2d(np.asarray(X, dtype=float))
    N, d = a.shape
    phi, dphi = ACTIVATIONS[params["activation"]]
    U = X @ a.T / np.sqrt(d)
    Jc = phi(U) / np.sqrt(N)
    D = phi(U) if dphi_is_phi else dphi(U)
    scale = np.sqrt(d) if fan_in else 1.0
    Ja = (D * c[None, :] / np.sqrt(N))[:, :, None] * X[:, None, :] / scale
    return np.concatenate([Jc, Ja.reshape(X.shape[0], N * d)], axis=1)


# %% mistake: fan-in factor missing in the a-gradient
# function: tangent_features
# kind: factor
# truth: d f / d a_ij = N^(-1/2) c_i phi'(a_i.x/sqrt(d)) x_j / sqrt(d); the chain-rule factor 1/sqrt(d) from the preactivation is missing.
def tangent_features(params, X):
    return _um_J(params, X, fan_in=False)


# %% mistake: phi instead of phi' in the hidden-weight gradient
# function: tangent_features
# kind: upstream (tangent_features)
# truth: tangent_features uses phi(u) instead of phi'(u) in the derivative with respect to a_ij; empirical_ntk = J J^T, which is built from it, is right but inherits the wrong features.
def tangent_features(params, X):
    return _um_J(params, X, dphi_is_phi=True)


def empirical_ntk(params, X):
    J = tangent_features(params, X)
    return J @ J.T


# %% mistake: only the NNGP term
# function: infinite_width_ntk
# kind: term
# truth: the second term of the NTK, K1(x, x') E[phi'(u) phi'(u')] from the hidden-layer weights, is missing: what is returned is the NNGP kernel E[phi(u) phi(u')] alone.
def infinite_width_ntk(X, activation, sigma_w=1.0):
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    K = sigma_w * X @ X.T / d
    k = np.diag(K)
    K11, K22 = k[:, None], k[None, :]
    if activation == "relu":
        n = np.sqrt(K11 * K22)
        t = np.arccos(np.clip(K / n, -1, 1))
        return n / (2 * np.pi) * (np.sin(t) + (np.pi - t) * np.cos(t))
    if activation == "erf":
        return 2 / np.pi * np.arcsin(2 * K / np.sqrt((1 + 2 * K11) * (1 + 2 * K22)))
    raise ValueError(activation)


# %% mistake: elementwise exponential of the kernel
# function: lazy_prediction
# kind: concept
# truth: exp(-eta t Theta_train) is taken elementwise (np.exp) instead of as a matrix exponential (scipy.linalg.expm).
def lazy_prediction(Theta_test_train, Theta_train, f0_test, f0_train, y, eta, t):
    Th = np.asarray(Theta_train, dtype=float)
    r = np.asarray(f0_train, dtype=float) - np.asarray(y, dtype=float)
    n = Th.shape[0]
    if np.isinf(t):
        v = np.linalg.solve(Th, r)
    else:
        v = np.linalg.lstsq(Th, (np.eye(n) - np.exp(-eta * t * Th)) @ r, rcond=None)[0]
    return np.asarray(f0_test, dtype=float) - np.asarray(Theta_test_train, dtype=float) @ v


# %% mistake: network output at initialization dropped
# function: lazy_prediction
# kind: ignored-arg
# truth: f0_test is ignored: the prediction is written as -Theta(x, X) Theta^-1 (I - e^(-eta t Theta)) (f0(X) - y) without the initial output f0(x) in front.
def lazy_prediction(Theta_test_train, Theta_train, f0_test, f0_train, y, eta, t):
    Th = np.asarray(Theta_train, dtype=float)
    r = np.asarray(f0_train, dtype=float) - np.asarray(y, dtype=float)
    if np.isinf(t):
        v = np.linalg.solve(Th, r)
    else:
        w, U = np.linalg.eigh(Th)
        filt = np.where(w > 1e-14 * max(w.max(), 1.0), -np.expm1(-eta * t * w) / np.where(w > 0, w, 1.0), eta * t)
        v = U @ (filt * (U.T @ r))
    return -np.asarray(Theta_test_train, dtype=float) @ v
