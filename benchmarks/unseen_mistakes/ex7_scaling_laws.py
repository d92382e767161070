import numpy as np


def _um_alloc(C, E, A, B, alpha, beta, flops_per=6.0):
    C = np.asarray(C, dtype=float)
    P = ((alpha * A) / (beta * B) * (C / flops_per) ** beta) ** (1.0 / (alpha + beta))
    n = C / (flops_per * P)
    L = E + A * P ** -alpha + B * n ** -beta
    if C.ndim == 0:
        return float(P), float(n), float(L)
    return P, n, L


# %% mistake: irreducible loss left out of L_opt
# function: compute_optimal_allocation
# kind: ignored-arg
# truth: E is ignored: the returned minimal loss is A P^-alpha + B n^-beta without the irreducible term E.
def compute_optimal_allocation(C, E, A, B, alpha, beta):
    return _um_alloc(C, 0.0, A, B, alpha, beta)


# %% mistake: budget P n = C, used by tokens_per_parameter
# function: compute_optimal_allocation
# kind: upstream (compute_optimal_allocation)
# truth: compute_optimal_allocation spends the budget as P n = C, dropping the 6 FLOPs per parameter per token of C = 6 P n; tokens_per_parameter, which takes n/P from it, is right but inherits the error.
def compute_optimal_allocation(C, E, A, B, alpha, beta):
    return _um_alloc(C, E, A, B, alpha, beta, flops_per=1.0)


def tokens_per_parameter(C, A, B, alpha, beta):
    P, n, _ = compute_optimal_allocation(C, 0.0, A, B, alpha, beta)
    return n / P


# %% mistake: allocation exponents swapped
# function: allocation_exponents
# kind: concept
# truth: the exponents are swapped: P_opt ~ C^(beta/(alpha+beta)) and n_opt ~ C^(alpha/(alpha+beta)) (the resource with the larger exponent needs less of the budget), not a = alpha/(alpha+beta).
def allocation_exponents(alpha, beta):
    return float(alpha / (alpha + beta)), float(beta / (alpha + beta))


# %% mistake: harmonic mean instead of the envelope exponent
# function: alpha_C
# kind: factor
# truth: 1/alpha_C = 1/alpha_P + 1/alpha_n gives alpha_P alpha_n / (alpha_P + alpha_n); the harmonic mean 2 alpha_P alpha_n / (alpha_P + alpha_n) is twice that.
def alpha_C(alpha_P, alpha_n):
    return 2 * alpha_P * alpha_n / (alpha_P + alpha_n)


# %% mistake: no nan when alpha_C >= alpha_P
# function: implied_alpha_n
# kind: branch
# truth: where alpha_C >= alpha_P no positive alpha_n exists and the answer should be nan; the formula is applied anyway, giving negative (or infinite) exponents.
def implied_alpha_n(alpha_P, alpha_C):
    aP, aC = np.asarray(alpha_P, dtype=float), np.asarray(alpha_C, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = aP * aC / (aP - aC)
    return float(out) if out.ndim == 0 else out
