import numpy as np


# %% mistake: elementwise square root of the metric
# function: least_squares
# kind: concept
# truth: least_squares whitens with np.sqrt(g), the elementwise square root of the matrix, which is a square root of g only when g is diagonal; for a general metric use the Cholesky factor (or solve X^T g X theta = X^T g Y).
def least_squares(X, Y, g=None):
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if g is not None:
        S = np.sqrt(np.asarray(g, dtype=float))
        X, Y = S @ X, S @ Y
    theta, *_ = np.linalg.lstsq(X, Y, rcond=None)
    return theta


# %% mistake: ridge lam/2 read off the 0.5 lam |theta|^2 penalty
# function: ridge_parameters
# kind: factor
# truth: ridge_parameters uses lam/2 on the diagonal, reading it off the penalty 0.5 lam |theta|^2, but both terms of the loss carry the 1/2, so the normal equations are (Psi^T Psi + lam I) theta = Psi^T Y.
def ridge_parameters(Psi, Y, lam):
    Psi = np.asarray(Psi, dtype=float)
    P = Psi.shape[1]
    return np.linalg.solve(Psi.T @ Psi + 0.5 * lam * np.eye(P), Psi.T @ np.asarray(Y, dtype=float))


# %% mistake: lam added to every entry of the Gram matrix
# function: kernel_ridge
# kind: concept
# truth: kernel_ridge computes K_train + lam, adding lam to every entry of the Gram matrix, instead of K_train + lam I, which adds it to the diagonal only; the predictions are right only at lam = 0.
def kernel_ridge(K_train, K_test_train, Y, lam):
    K = np.asarray(K_train, dtype=float)
    alpha = np.linalg.solve(K + lam, np.asarray(Y, dtype=float))
    return np.asarray(K_test_train, dtype=float) @ alpha


# %% mistake: eigenvector matrix transposed in the reconstruction
# function: flow_predictions
# kind: transpose
# truth: flow_predictions rebuilds the matrix function as U^T diag(1 - e^{-eta t s2}) U, but np.linalg.eigh returns the eigenvectors as the columns of U, so it must be U diag(...) U^T.
def flow_predictions(K_train, Y, eta_t):
    s2, U = np.linalg.eigh(np.asarray(K_train, dtype=float))
    filt = -np.expm1(-eta_t * s2)
    return U.T @ (filt * (U @ np.asarray(Y, dtype=float)))
