import numpy as np
from scipy import integrate, special


def _hm_tail(x):
    return special.ndtr(-x)


# %% mistake: teacher field with the wrong sign
# function: orthant_probability
# kind: term
# truth: orthant_probability writes P(v > 0 | t) as H(+R t / sqrt(q - R^2)) instead of H(-R t / sqrt(q - R^2)), so the teacher's field is anti-correlated with the replicas' and at Q = 1 it returns the error eps(R) instead of the success probability 1 - eps(R).
def orthant_probability(q, R, Q):
    a = R / np.sqrt(q - R**2)
    g = np.sqrt(q / (1 - q))

    def f(t):
        return _hm_tail(a * t) * _hm_tail(-g * t) ** Q * np.exp(-t * t / 2) / np.sqrt(2 * np.pi)

    total = sum(integrate.quad(f, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
                for lo, hi in [(-np.inf, 0.0), (0.0, np.inf)])
    return float(2 * total)


# %% mistake: nan at q = 1
# function: rs_entropic_term
# kind: branch
# truth: rs_entropic_term evaluates qhat (1 - q)/2 + int Dz log(1 + e^{-2y}) with qhat = conjugate_field(q) also at q = 1, where qhat = inf and inf * 0 gives nan; s_0(1) = 0 exactly (the limit q -> 1) must be returned as a special case.
def rs_entropic_term(q):
    def one(qq):
        qh = float(conjugate_field(qq))
        if qh == 0.0:
            return float(np.log(2))
        sq = np.sqrt(qh) if np.isfinite(qh) else np.inf

        def f(z):
            y = sq * z + qh
            return np.logaddexp(0.0, -2 * y) * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)

        if np.isfinite(qh):
            z0 = -qh / sq
            tail = sum(integrate.quad(f, lo, hi, epsabs=1e-15, epsrel=1e-12, limit=200)[0]
                       for lo, hi in [(-np.inf, z0), (z0, np.inf)])
        else:
            tail = 0.0
        return qh * (1 - qq) / 2 + tail

    q = np.asarray(q, dtype=float)
    out = np.array([one(v) for v in q.ravel()]).reshape(q.shape)
    return float(out) if out.ndim == 0 else out


# %% mistake: erfcx argument without the 1/sqrt(2)
# function: rs_energetic_term
# kind: factor
# truth: rs_energetic_term uses erfcx(sqrt(q) v) in the smooth form; since e^{x^2/2} H(x) = erfcx(x/sqrt(2))/2 the argument must be sqrt(q/2) v (erfcx(x) = e^{x^2} erfc(x) has x^2, not x^2/2, in its exponent), so G_E is wrong for every q > 0.
def rs_energetic_term(q):
    q = np.asarray(q, dtype=float)
    v = GH_NODES
    qq = q[..., None]
    with np.errstate(invalid="ignore"):
        vals = special.erfcx(np.sqrt(qq) * v) * special.log_ndtr(-np.sqrt(qq) * v)
    out = np.sqrt(1 - q) * (vals @ GH_WEIGHTS)
    out = np.where(q >= 1.0, 0.0, out)
    return float(out) if out.ndim == 0 else out
