import numpy as np


# %% mistake: alpha_C as the smaller exponent
# function: alpha_C
# kind: concept
# truth: alpha_C returns min(alpha_P, alpha_n), as if compute were limited by the slower resource alone; splitting a growing budget between P and n gives 1/alpha_C = 1/alpha_P + 1/alpha_n, i.e. alpha_C = alpha_P alpha_n / (alpha_P + alpha_n), below both exponents.
def alpha_C(alpha_P, alpha_n):
    out = np.minimum(np.asarray(alpha_P, dtype=float), np.asarray(alpha_n, dtype=float))
    return float(out) if out.ndim == 0 else out


# %% mistake: budget C = P n without the 6
# function: tokens_per_parameter
# kind: factor
# truth: tokens_per_parameter solves the allocation with the budget constraint P n = C instead of 6 P n = C, so both P_opt and n_opt are computed for the compute 6 C and the ratio n_opt / P_opt is off by the factor 6^((alpha - beta)/(alpha + beta)) (right only when alpha = beta).
def tokens_per_parameter(C, A, B, alpha, beta):
    C = np.asarray(C, dtype=float)
    G = (alpha * A / (beta * B)) ** (1.0 / (alpha + beta))
    P = G * C ** (beta / (alpha + beta))
    n = C / P
    out = n / P
    return float(out) if out.ndim == 0 else out


# %% mistake: inf at alpha_C = alpha_P
# function: implied_alpha_n
# kind: branch
# truth: implied_alpha_n returns nan only where alpha_C > alpha_P (strict), so at alpha_C == alpha_P it evaluates alpha_P alpha_C / 0 and returns inf; no positive alpha_n exists there either, so the nan branch must be alpha_C >= alpha_P.
def implied_alpha_n(alpha_P, alpha_C):
    aP, aC = np.asarray(alpha_P, dtype=float), np.asarray(alpha_C, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(aC > aP, np.nan, aP * aC / (aP - aC))
    return float(out) if out.ndim == 0 else out
