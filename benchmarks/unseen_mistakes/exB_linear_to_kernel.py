import numpy as np


# %% mistake: metric ignored
# function: least_squares
# kind: ignored-arg
# truth: the metric g is ignored: the fit solves the Euclidean normal equations X^T (X theta - Y) = 0 instead of X^T g (X theta - Y) = 0.
def least_squares(X, Y, g=None):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    return np.linalg.pinv(X) @ Y


# %% mistake: normal equations solved directly
# function: least_squares
# kind: branch
# truth: it solves (X^T g X) theta = X^T g Y with np.linalg.solve, which fails when the columns of X are dependent; that case needs the minimum-norm solution (pseudo-inverse).
def least_squares(X, Y, g=None):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    G = np.eye(len(Y)) if g is None else np.asarray(g, dtype=float)
    return np.linalg.solve(X.T @ G @ X, X.T @ G @ Y)


# %% mistake: test-train kernel transposed
# function: kernel_ridge
# kind: transpose
# truth: the predictions use K_test_train.T @ alpha; K_test_train (m, n) already maps the n training coefficients to the m test points, so no transpose.
def kernel_ridge(K_train, K_test_train, Y, lam):
    K = np.asarray(K_train, dtype=float)
    alpha = np.linalg.solve(K + lam * np.eye(K.shape[0]), np.asarray(Y, dtype=float))
    return np.asarray(K_test_train, dtype=float).T @ alpha


# %% mistake: filter of the part not fit
# function: ridge_filter
# kind: term
# truth: it returns lam / (s2 + lam), the fraction of the mode that is NOT fit, instead of s2 / (s2 + lam).
def ridge_filter(s2, lam):
    s2 = np.asarray(s2, dtype=float)
    out = lam / (s2 + lam)
    return float(out) if out.ndim == 0 else out


# %% mistake: effective ridge inverted
# function: effective_ridge
# kind: concept
# truth: lam_eff is s2 / (exp(eta_t s2) - 1); it returns the reciprocal (exp(eta_t s2) - 1) / s2, confusing a ridge with a precision.
def effective_ridge(s2, eta_t):
    s2 = np.asarray(s2, dtype=float)
    out = np.expm1(eta_t * s2) / s2
    return float(out) if out.ndim == 0 else out


# %% mistake: input-weight term without x . x'
# function: tangent_kernel
# kind: factor
# truth: the input-weight term is sum_i c_i^2 phi'(a_i.x) phi'(a_i.x') (x . x'); the factor x . x' from the chain rule is missing.
def tangent_kernel(c, a, X, phi, dphi):
    c, a, X = (np.asarray(v, dtype=float) for v in (c, a, X))
    U = X @ a.T
    F, D = phi(U), dphi(U)
    return F @ F.T + (D * c**2) @ D.T
