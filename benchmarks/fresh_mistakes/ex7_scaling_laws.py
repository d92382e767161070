import numpy as np


# %% mistake: budget taken as C = P n without the 6
# function: compute_optimal_allocation
# kind: factor
# truth: compute_optimal_allocation solves on the curve P n = C instead of 6 P n = C, so the optimal model and data sizes are each too large (their product is C, six times the budget) and the loss too low.
def compute_optimal_allocation(C, E, A, B, alpha, beta):
    C = np.asarray(C, dtype=float)
    P = (alpha * A / (beta * B)) ** (1.0 / (alpha + beta)) * C ** (beta / (alpha + beta))
    n = C / P
    L = E + A * P**-alpha + B * n**-beta
    if C.ndim == 0:
        return float(P), float(n), float(L)
    return P, n, L


# %% mistake: allocation exponents swapped
# function: allocation_exponents
# kind: concept
# truth: allocation_exponents returns a = alpha/(alpha+beta) for the model size, but at the optimum P^(alpha+beta) ~ C^beta, so P_opt ~ C^(beta/(alpha+beta)) and n_opt ~ C^(alpha/(alpha+beta)); the two exponents are swapped.
def allocation_exponents(alpha, beta):
    s = alpha + beta
    return float(alpha / s), float(beta / s)


# %% mistake: compute exponent taken as the smaller exponent
# function: alpha_C
# kind: concept
# truth: alpha_C returns min(alpha_P, alpha_n), as if the slower term alone set the envelope, but the compute is split between P and n, so 1/alpha_C = 1/alpha_P + 1/alpha_n, i.e. alpha_C = alpha_P alpha_n / (alpha_P + alpha_n), below both.
def alpha_C(alpha_P, alpha_n):
    out = np.minimum(np.asarray(alpha_P, dtype=float), np.asarray(alpha_n, dtype=float))
    return out if out.ndim else float(out)


# %% mistake: alpha_C equal to alpha_P not excluded
# function: implied_alpha_n
# kind: branch
# truth: implied_alpha_n returns nan only where alpha_C > alpha_P; at alpha_C == alpha_P it divides by zero and returns inf (or raises for floats), but no positive alpha_n exists there either, so the condition must be alpha_C >= alpha_P.
def implied_alpha_n(alpha_P, alpha_C):
    aP = np.asarray(alpha_P, dtype=float)
    aC = np.asarray(alpha_C, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(aC > aP, np.nan, aP * aC / (aP - aC))
    return out if out.ndim else float(out)
