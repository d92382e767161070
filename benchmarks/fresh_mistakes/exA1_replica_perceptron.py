import numpy as np
from scipy import integrate, special


# %% mistake: factor 2 in front of the integral dropped
# function: orthant_probability
# kind: factor
# truth: orthant_probability computes int Dt H(-R t / sqrt(q - R^2)) H(-sqrt(q/(1-q)) t)^Q without the factor 2 in front, so it is half the RS orthant probability (1/2 at Q = 0 instead of 1).
def orthant_probability(q, R, Q):
    a = R / np.sqrt(q - R**2)
    g = np.sqrt(q / (1 - q))

    def h(t):
        return special.ndtr(a * t) * special.ndtr(g * t) ** Q * np.exp(-t * t / 2) / np.sqrt(2 * np.pi)

    val = sum(integrate.quad(h, lo, hi, epsabs=1e-15, epsrel=1e-12, limit=400)[0]
              for lo, hi in [(-np.inf, 0.0), (0.0, np.inf)])
    return float(val)


# %% mistake: -qhat (1 - q)/2 instead of -qhat (1 + q)/2
# function: rs_entropic_term
# kind: term
# truth: rs_entropic_term uses -qhat (1 - q)/2 where the RS one-site entropy has -qhat (1 + q)/2 (from the overlaps q with the other replicas and R = q with the teacher), so s_0(q) is too large by qhat q for every q > 0.
def rs_entropic_term(q):
    q_arr = np.asarray(q, dtype=float)
    out = np.empty(q_arr.shape)
    for idx, qq in np.ndenumerate(q_arr):
        if qq >= 1.0:
            out[idx] = 0.0
            continue
        qh = float(conjugate_field(qq))
        if qh == 0.0:
            out[idx] = np.log(2.0)
            continue
        s = np.sqrt(qh)

        def f(z):
            y = s * z + qh
            return (np.abs(y) + np.log1p(np.exp(-2 * np.abs(y)))) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)

        avg = sum(integrate.quad(f, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=400)[0]
                  for lo, hi in [(-np.inf, -s), (-s, np.inf)])
        out[idx] = -qh * (1 - qq) / 2 + avg
    return float(out) if out.ndim == 0 else out


# %% mistake: special case q == 0 tested on the whole array
# function: rs_entropy
# kind: array-crash
# truth: rs_entropy starts with `if q == 0: return (1 - alpha) log 2`, which raises "truth value of an array is ambiguous" when q is an array; the general formula s_0(q) + alpha G_E(q) already gives that value at q = 0 and broadcasts.
def rs_entropy(q, alpha):
    if q == 0:
        return (1 - alpha) * np.log(2.0)
    q_b, a_b = np.broadcast_arrays(np.asarray(q, dtype=float), np.asarray(alpha, dtype=float))
    out = np.asarray(rs_entropic_term(q_b)) + a_b * np.asarray(rs_energetic_term(q_b))
    return float(out) if np.ndim(out) == 0 else out
