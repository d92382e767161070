import numpy as np
from scipy import integrate, special


# %% mistake: orthant probability without the factor 2
# function: orthant_probability
# kind: factor
# truth: the prefactor 2 in exp(-e_RS) = 2 int Dt H(...) H(...)^Q is missing, so Q = 0 gives 1/2 instead of 1.
def orthant_probability(q, R, Q):
    a = R / np.sqrt(q - R * R)
    g = np.sqrt(q / (1 - q))
    h = lambda t: special.ndtr(a * t) * special.ndtr(g * t) ** Q * np.exp(-t * t / 2) / np.sqrt(2 * np.pi)
    return float(sum(integrate.quad(h, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
                     for lo, hi in [(-np.inf, 0.0), (0.0, np.inf)]))


# %% mistake: direct form of the energetic term at q = 1
# function: rs_energetic_term
# kind: branch
# truth: it evaluates 2 int Dt H(gamma t) log H(gamma t) with gamma = sqrt(q/(1-q)) directly, so the end point q = 1 (gamma infinite) gives nan instead of 0 and values near q = 1 are inaccurate; the smooth erfcx form handles q -> 1.
def rs_energetic_term(q):
    q_arr = np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        gamma = np.sqrt(q_arr / (1 - q_arr))
        out = gaussian_average(lambda t: 2 * special.ndtr(-gamma[..., None] * t)
                               * special.log_ndtr(-gamma[..., None] * t))
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: energetic term subtracted
# function: rs_entropy
# kind: term
# truth: the energetic term enters with a minus sign, s_0(q) - alpha G_E(q), instead of s_0(q) + alpha G_E(q).
def rs_entropy(q, alpha):
    q_arr, a_arr = np.broadcast_arrays(np.asarray(q, dtype=float), np.asarray(alpha, dtype=float))
    out = np.asarray(rs_entropic_term(q_arr)) - a_arr * np.asarray(rs_energetic_term(q_arr))
    return float(out) if out.ndim == 0 else out
