import numpy as np
import scipy.linalg


# %% mistake: metric left out of the right-hand side
# function: least_squares
# kind: term
# truth: the weighted normal equations are X^T g X theta = X^T g Y; the code solves X^T g X theta = X^T Y, dropping g on the right, so any g other than the identity gives a wrong fit.
def least_squares(X, Y, g=None):
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if g is None:
        return np.linalg.pinv(X) @ Y
    g = np.asarray(g, dtype=float)
    return np.linalg.pinv(X.T @ g @ X) @ (X.T @ Y)


# %% mistake: lam added to every entry of Psi^T Psi
# function: ridge_parameters
# kind: concept
# truth: the ridge term is lam times the identity I_P, added to the diagonal of Psi^T Psi; `Psi.T @ Psi + lam` adds lam to every entry (numpy broadcasting of a scalar), which is a different matrix and not the ridge solution.
def ridge_parameters(Psi, Y, lam):
    Psi = np.asarray(Psi, dtype=float)
    Y = np.asarray(Y, dtype=float)
    return np.linalg.solve(Psi.T @ Psi + lam, Psi.T @ Y)


# %% mistake: predictions at the training points, not the test points
# function: kernel_ridge
# kind: ignored-arg
# truth: the prediction at the test inputs is K_test_train (K + lam I)^{-1} Y; the code multiplies by K_train instead, ignoring K_test_train, so it returns the fitted training values (right only when the test points are the training points).
def kernel_ridge(K_train, K_test_train, Y, lam):
    K = np.asarray(K_train, dtype=float)
    Y = np.asarray(Y, dtype=float)
    alpha = np.linalg.solve(K + lam * np.eye(K.shape[0]), Y)
    return K @ alpha


# %% mistake: eigenvector matrix used the wrong way round
# function: flow_predictions
# kind: transpose
# truth: with K = U diag(s2) U^T (eigenvectors in the columns of U), f(t) = U diag(1 - e^{-eta t s2}) U^T Y; the code computes U^T diag(...) U Y, projecting on the rows of U, which is wrong for any non-diagonal K.
def flow_predictions(K_train, Y, eta_t):
    s2, U = np.linalg.eigh(np.asarray(K_train, dtype=float))
    Y = np.asarray(Y, dtype=float)
    return U.T @ (-np.expm1(-eta_t * s2) * (U @ Y))


# %% mistake: c_i instead of c_i^2 in the hidden-layer term
# function: tangent_kernel
# kind: factor
# truth: the gradient with respect to a_i is c_i phi'(a_i . x) x, so the second term of the kernel carries c_i^2; the code uses c_i, a wrong power that can even make the kernel indefinite (negative c_i).
def tangent_kernel(c, a, X, phi, dphi):
    c = np.asarray(c, dtype=float)
    a = np.asarray(a, dtype=float)
    X = np.asarray(X, dtype=float)
    U = X @ a.T                                   # (n, N)
    F, Dv = phi(U), dphi(U)
    return F @ F.T + ((Dv * c[None, :]) @ Dv.T) * (X @ X.T)
