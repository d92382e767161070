import numpy as np


# %% mistake: weighted by g, not by sqrt(g)
# function: least_squares
# kind: concept
# truth: least_squares turns the weighted problem into an ordinary one by multiplying X and Y by g itself and calling lstsq, which minimizes |g (X theta - Y)|^2 = Delta^T g^2 Delta, the metric g^2; the loss Delta^T g Delta needs a square root of g (e.g. a Cholesky factor L^T with g = L L^T), so weighted fits are wrong (g = identity is right).
def least_squares(X, Y, g=None):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    if g is not None:
        g = np.asarray(g, dtype=float)
        X, Y = g @ X, g @ Y
    return np.linalg.lstsq(X, Y, rcond=None)[0]


# %% mistake: ridge lam/2 from the penalty's 1/2
# function: ridge_parameters
# kind: factor
# truth: ridge_parameters solves (Psi^T Psi + (lam/2) I_P) theta = Psi^T Y, carrying the 1/2 of the penalty (lam/2)|theta|^2 into the normal equations; its gradient is lam theta (the 1/2 cancels against the square, as it does for the data term), so the ridge is half what it should be.
def ridge_parameters(Psi, Y, lam):
    Psi, Y = np.asarray(Psi, dtype=float), np.asarray(Y, dtype=float)
    P = Psi.shape[1]
    return np.linalg.solve(Psi.T @ Psi + 0.5 * lam * np.eye(P), Psi.T @ Y)


# %% mistake: first-layer term without x.x'
# function: tangent_kernel
# kind: term
# truth: tangent_kernel writes the input-weight term as sum_i c_i^2 phi'(a_i.x) phi'(a_i.x') without the factor x.x' that comes from d(a_i.x)/da_i = x (the inner product of the two gradients c_i phi' x and c_i phi' x'), so the second term is wrong unless x.x' = 1.
def tangent_kernel(c, a, X, phi, dphi):
    c, a, X = (np.asarray(v, dtype=float) for v in (c, a, X))
    U = X @ a.T
    F = phi(U)
    D = dphi(U) * c[None, :]
    return F @ F.T + D @ D.T
