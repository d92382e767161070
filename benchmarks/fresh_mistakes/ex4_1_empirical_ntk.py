import numpy as np
import scipy.linalg


# %% mistake: a-gradients flattened column-major
# function: tangent_features
# kind: transpose
# truth: tangent_features flattens the (N, d) block of df/da_ij in column-major (Fortran) order, but theta is concatenate([c, a.ravel()]) with a.ravel() row-major, so the a-columns of J are permuted; flatten the gradient with the same row-major order.
def tangent_features(params, X):
    a, c = np.asarray(params["a"], dtype=float), np.asarray(params["c"], dtype=float)
    X = np.atleast_2d(np.asarray(X, dtype=float))
    n, d = X.shape
    N = c.size
    phi, dphi = ACTIVATIONS[params["activation"]]
    U = X @ a.T / np.sqrt(d)                                   # (n, N)
    Jc = phi(U) / np.sqrt(N)
    Ja = (c[None, :] * dphi(U))[:, :, None] * X[:, None, :] / np.sqrt(N * d)   # (n, N, d)
    return np.concatenate([Jc, Ja.reshape(n, N * d, order="F")], axis=1)


# %% mistake: readout-weight block left out of the kernel
# function: empirical_ntk
# kind: term
# truth: empirical_ntk sums only the first-layer gradients df/da_ij; the NTK is J J^T over all parameters, so the readout part sum_i phi(u_i) phi(u_i')/N (the c-columns of J) is missing.
def empirical_ntk(params, X):
    J = np.asarray(tangent_features(params, X))
    N = np.asarray(params["c"]).size
    Ja = J[:, N:]
    return Ja @ Ja.T


# %% mistake: unknown activation silently treated as erf
# function: infinite_width_ntk
# kind: branch
# truth: infinite_width_ntk uses the erf closed forms for every activation that is not "relu", so "tanh" (or a typo) silently returns the erf kernel instead of raising ValueError as the docstring asks.
def infinite_width_ntk(X, activation, sigma_w=1.0):
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    K = sigma_w * X @ X.T / d
    k = np.diag(K)
    if activation == "relu":
        norm = np.sqrt(k[:, None] * k[None, :])
        theta = np.arccos(np.clip(K / norm, -1.0, 1.0))
        e_phi = norm / (2 * np.pi) * (np.sin(theta) + (np.pi - theta) * np.cos(theta))
        e_dphi = (np.pi - theta) / (2 * np.pi)
    else:
        D = (1 + 2 * k[:, None]) * (1 + 2 * k[None, :])
        e_phi = 2 / np.pi * np.arcsin(np.clip(2 * K / np.sqrt(D), -1.0, 1.0))
        e_dphi = 4 / np.pi / np.sqrt(D - 4 * K**2)
    return e_phi + K * e_dphi


# %% mistake: correction added instead of subtracted
# function: lazy_prediction
# kind: term
# truth: lazy_prediction adds the kernel correction to f0 instead of subtracting it (f0 + Theta Theta^-1 (I - e^{-eta t Theta})(f0 - y)), so the residual grows away from the labels; the sign in front of the correction must be minus.
def lazy_prediction(Theta_test_train, Theta_train, f0_test, f0_train, y, eta, t):
    Th = np.asarray(Theta_train, dtype=float)
    r = np.asarray(f0_train, dtype=float) - np.asarray(y, dtype=float)
    w, V = np.linalg.eigh(Th)
    if np.isinf(t):
        filt = np.where(w > 1e-12 * max(w.max(), 1e-300), 1.0 / np.where(w > 0, w, 1.0), 0.0)
    else:
        x = eta * t * w
        filt = np.where(np.abs(w) > 1e-300, -np.expm1(-x) / np.where(np.abs(w) > 1e-300, w, 1.0), eta * t)
    coef = V @ (filt * (V.T @ r))
    return np.asarray(f0_test, dtype=float) + np.asarray(Theta_test_train, dtype=float) @ coef
