import numpy as np
from scipy import integrate, optimize, special


# %% mistake: orthant probability without the mirror event
# function: orthant_probability
# kind: factor
# truth: all replicas agree with the teacher either when all fields are positive or when all are negative, and the mirror event has the same probability, hence the factor 2 in 2 int Dt H(.) H(.)^Q; the code counts only the all-positive event, half the answer (1/2 at Q = 0).
def orthant_probability(q, R, Q):
    a = R / np.sqrt(q - R ** 2)
    g = np.sqrt(q / (1.0 - q))

    def _hm_integrand(t):
        return special.ndtr(a * t) * special.ndtr(g * t) ** Q * np.exp(-t * t / 2) / np.sqrt(2 * np.pi)

    return float(sum(integrate.quad(_hm_integrand, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
                     for lo, hi in [(-np.inf, 0.0), (0.0, np.inf)]))


# %% mistake: the -qhat R term dropped from the entropic part
# function: rs_entropic_term
# kind: term
# truth: on the line q = R (qhat = Rhat) G_S = -qhat (1 - q)/2 - Rhat R + int Dz log 2cosh(...) = -qhat (1 + q)/2 + ...; the code keeps only -qhat (1 - q)/2, dropping the conjugate term -qhat q, so s_0(q) is too large for every q > 0.
def rs_entropic_term(q):
    q = np.asarray(q, dtype=float)
    inner = np.minimum(q, 1 - 1e-12)
    qh = np.asarray(conjugate_field(inner), dtype=float)

    def _hm_log2cosh(z):
        y = np.sqrt(qh)[..., None] * z + qh[..., None]
        return np.logaddexp(y, -y)

    avg = gaussian_average(_hm_log2cosh)
    out = np.where(q >= 1, 0.0, -qh * (1 - q) / 2 + avg)
    return float(out) if out.ndim == 0 else out


# %% mistake: energetic term by plain Gauss-Hermite, nan at q = 1
# function: rs_energetic_term
# kind: branch
# truth: at q = 1 gamma = sqrt(q/(1-q)) is infinite and H log H gives 0 * (-inf) = nan (the answer is 0), and close to q = 1 the integrand is a narrow bump that 201 Gauss-Hermite nodes miss; the smooth form sqrt(1-q) int Dv erfcx(...) log H(sqrt(q) v) handles both.
def rs_energetic_term(q):
    q = np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.sqrt(q / (1.0 - q))
        out = 2.0 * gaussian_average(
            lambda t: gaussian_tail(g[..., None] * t) * log_gaussian_tail(g[..., None] * t))
    return float(out) if np.ndim(out) == 0 else out


# %% mistake: end points handled with if on q
# function: rs_entropy
# kind: array-crash
# truth: s_0(q) + alpha G_E(q) is right, but the special cases `if q == 0` / `if q == 1` need a scalar q: with an array of q (or a broadcast alpha) the truth value of the comparison is ambiguous and the function raises; handle the ends elementwise (np.where) or not at all.
def rs_entropy(q, alpha):
    if q == 0:
        return (1 - alpha) * np.log(2.0)
    if q == 1:
        return 0.0
    return rs_entropic_term(q) + alpha * rs_energetic_term(q)
