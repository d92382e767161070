import math

import numpy as np
from scipy import optimize


# %% mistake: budget C = P n without the 6 FLOPs per token
# function: compute_optimal_allocation
# kind: factor
# truth: the compute constraint is C = 6 P n; the code eliminates n = C / P, so it spends six times the budget (6 P n = 6 C) and the optimum and minimal loss are those of compute 6 C.
def compute_optimal_allocation(C, E, A, B, alpha, beta):
    C = np.asarray(C, dtype=float)
    G = (alpha * A / (beta * B)) ** (1.0 / (alpha + beta))
    P_opt = G * C ** (beta / (alpha + beta))
    n_opt = C / P_opt
    L_opt = E + A * P_opt ** -alpha + B * n_opt ** -beta
    if C.ndim == 0:
        return float(P_opt), float(n_opt), float(L_opt)
    return P_opt, n_opt, L_opt


# %% mistake: allocation exponents swapped
# function: allocation_exponents
# kind: concept
# truth: balancing alpha A P^-alpha = beta B n^-beta on 6 P n = C gives P_opt ~ C^(beta/(alpha+beta)) and n_opt ~ C^(alpha/(alpha+beta)); the code returns them the other way round (the resource with the larger exponent does not get the larger share).
def allocation_exponents(alpha, beta):
    return float(alpha / (alpha + beta)), float(beta / (alpha + beta))


# %% mistake: alpha_C = alpha_P counted as having a solution
# function: implied_alpha_n
# kind: branch
# truth: alpha_n = alpha_P alpha_C / (alpha_P - alpha_C) is positive only for alpha_C < alpha_P, so nan is due for alpha_C >= alpha_P; the code tests alpha_C > alpha_P and returns inf (a division by zero) when the two are equal.
def implied_alpha_n(alpha_P, alpha_C):
    aP = np.asarray(alpha_P, dtype=float)
    aC = np.asarray(alpha_C, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(aC > aP, np.nan, aP * aC / (aP - aC))
    return float(out) if out.ndim == 0 else out


# %% mistake: math.pow on the compute budget
# function: tokens_per_parameter
# kind: array-crash
# truth: n_opt / P_opt = G^-2 (C/6)^((alpha - beta)/(alpha + beta)) is right, but math.pow only takes a scalar, so the function crashes for an array of budgets C; use numpy's ** elementwise.
def tokens_per_parameter(C, A, B, alpha, beta):
    G = (alpha * A / (beta * B)) ** (1.0 / (alpha + beta))
    return math.pow(C / 6.0, (alpha - beta) / (alpha + beta)) / G ** 2
