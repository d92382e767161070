import numpy as np
import scipy.linalg


# %% mistake: a-block flattened column-major
# function: tangent_features
# kind: transpose
# truth: tangent_features builds the derivatives d f / d a_ij as an array of shape (n, d, N) (input index first) before flattening, so the first-layer columns come in the order of a.T.ravel() instead of the row-major a.ravel() of theta = concatenate([c, a.ravel()]).
def tangent_features(params, X):
    a, c = np.asarray(params["a"], dtype=float), np.asarray(params["c"], dtype=float)
    X = np.atleast_2d(np.asarray(X, dtype=float))
    N, d = a.shape
    phi, dphi = ACTIVATIONS[params["activation"]]
    u = X @ a.T / np.sqrt(d)
    Jc = phi(u) / np.sqrt(N)
    g = c[None, :] * dphi(u) / np.sqrt(N)
    Ja = X[:, :, None] / np.sqrt(d) * g[:, None, :]
    return np.concatenate([Jc, Ja.reshape(X.shape[0], -1)], axis=1)


# %% mistake: no sigma_w in the (u, u') covariance
# function: infinite_width_ntk
# kind: ignored-arg
# truth: infinite_width_ntk uses sigma_w only in the prefactor K1(x, x') of the second term but takes the covariance of (u, u') as x.x'/d, ignoring sigma_w there; (u, u') ~ N(0, K1) with K1 = sigma_w x.x'/d, so the Gaussian expectations are wrong whenever sigma_w != 1.
def infinite_width_ntk(X, activation, sigma_w=1.0):
    X = np.atleast_2d(np.asarray(X, dtype=float))
    d = X.shape[1]
    G = X @ X.T / d
    K1 = sigma_w * G
    diag = np.diag(G)
    norm = np.sqrt(diag[:, None] * diag[None, :])
    if activation == "relu":
        rho = np.clip(G / norm, -1.0, 1.0)
        th = np.arccos(rho)
        Epp = norm / (2 * np.pi) * (np.sin(th) + (np.pi - th) * rho)
        Edd = (np.pi - th) / (2 * np.pi)
    elif activation == "erf":
        A = (1 + 2 * diag[:, None]) * (1 + 2 * diag[None, :])
        Epp = 2 / np.pi * np.arcsin(np.clip(2 * G / np.sqrt(A), -1.0, 1.0))
        Edd = 4 / np.pi / np.sqrt(A - 4 * G**2)
    else:
        raise ValueError(f"unknown activation {activation!r}")
    return Epp + K1 * Edd


# %% mistake: t = inf not special-cased
# function: lazy_prediction
# kind: branch
# truth: lazy_prediction always evaluates expm(-eta t Theta_train), which is nan at t = np.inf (inf times the zero entries of Theta), so the t = inf prediction is nan; at t = inf the factor (I - exp(-eta t Theta)) must be replaced by the identity (the interpolating solution).
def lazy_prediction(Theta_test_train, Theta_train, f0_test, f0_train, y, eta, t):
    Th = np.asarray(Theta_train, dtype=float)
    r0 = np.asarray(f0_train, dtype=float) - np.asarray(y, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        E = scipy.linalg.expm(-eta * t * Th)
    r = r0 - E @ r0
    coef = np.linalg.lstsq(Th, r, rcond=None)[0]
    return np.asarray(f0_test, dtype=float) - np.asarray(Theta_test_train, dtype=float) @ coef
