# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # ex6_1_ou_fdt: The Ornstein–Uhlenbeck process and the fluctuation–dissipation theorem
#
# *Notes: Section 6.1 (the MSRJD construction) and Exercise 6.1; the same response
# function reappears as the diagnostic of ergodicity breaking in Section 6.2 (next
# assignment).*
#
# **The stochastic differential equation.** We follow the notes' convention exactly:
# $$
# \frac{dx}{dt}=f(x)+\xi(t),\qquad \langle\xi(t)\rangle=0,\qquad
# \langle\xi(t)\xi(t')\rangle=D\,\delta(t-t'), \tag{1}
# $$
# so $D$ is the *strength of the noise correlator* (not a "diffusion constant" $D_{\rm diff}$
# with $\langle\xi\xi\rangle=2D_{\rm diff}\delta$; here $D=2D_{\rm diff}$). In Itô form,
# $dx=f(x)\,dt+\sqrt D\,dW$ with $W$ a standard Wiener process. The Itô (Euler–Maruyama)
# discretization with step $\Delta t$, $x_i=x(i\Delta t)$, is
# $$
# x_{i+1}=x_i+\Delta t\,f(x_i)+\sqrt{D\,\Delta t}\;z_i,\qquad z_i\sim\mathcal N(0,1)\ \text{i.i.d.}
# \tag{2}
# $$
# The noise acting between $t_i$ and $t_{i+1}$ is independent of $x_i$ (Itô). For the
# Ornstein–Uhlenbeck (OU) process, $f(x)=-kx$ with $k>0$.
#
# **What you implement** (graded by hidden tests):
#
# | part | function | what |
# |---|---|---|
# | simulation | `simulate_ou(k, D, dt, steps, n_paths, rng, x0=None)` | Euler–Maruyama paths of (2) |
# | (b) | `ou_correlation(tau, k, D)`, `ou_response(tau, k)` | the closed forms $C(\tau)$, $R(\tau)$ |
# | measurement | `empirical_correlation(paths, max_lag)` | stationary $C$ from paths |
# | measurement | `empirical_response(k, D, dt, h, steps, n_paths, rng)` | $R$ by kick-and-average |
# | (c) | `fdt_residual(C, R, dt, D)` | $T R(\tau)+\partial_\tau C(\tau)$, $T=D/2$ |
#
# Written answers (graded by hand): Exercise 6.1(a), (b) and (d). Random arguments `rng`
# accept an integer seed or a `np.random.Generator` (use `np.random.default_rng(rng)`,
# which handles both). Hidden tests of random functions are *statistical*: they fix the
# seed, and compare your sample statistics with the theory within a few standard errors,
# so your random stream need not match anyone else's.

# %% tags=["setup"]
import numpy as np
import matplotlib.pyplot as plt
from scipy import integrate

# %% tags=["params"]
def draw_params(rng):
    """This year's OU process for the figures: stiffness k and noise strength D."""
    return {"k": round(float(rng.uniform(0.5, 2.0)), 2), "D": round(float(rng.uniform(0.5, 2.0)), 2)}


# %% [markdown]
# ## (a) The MSRJD functional integral
#
# Write the update (2) as a constraint
# $X_i\equiv x_i-x_{i-1}-\Delta t\,[f(x_{i-1})+\xi_{i-1}]=0$ with discretized white noise
# $\langle\xi_i\xi_j\rangle=\frac{D}{\Delta t}\delta_{ij}$, and each delta function in its Fourier
# representation $\delta(X_i)=\int\frac{d\tilde x_i}{2\pi}e^{i\tilde x_iX_i}$. Because the
# Jacobian $\partial X_i/\partial x_j$ is lower triangular with unit diagonal (Itô), it
# equals one, and
# $$
# \langle\mathcal A[x]\rangle_\xi=\int\prod_i dx_i\frac{d\tilde x_i}{2\pi}\;\mathcal A[x]\;
# e^{\,i\sum_i\tilde x_i\,(x_i-x_{i-1}-\Delta t f(x_{i-1}))}\;
# \Big\langle e^{-i\Delta t\sum_i\tilde x_i\xi_{i-1}}\Big\rangle_\xi .
# $$
# The noise enters linearly, and for a centred Gaussian $\langle e^{-iu\xi}\rangle=e^{-u^2\langle\xi^2\rangle/2}$,
# so each factor gives $e^{-\frac12\tilde x_i^2\Delta t^2\,D/\Delta t}=e^{-\frac D2\Delta t\,\tilde x_i^2}$.
# In the continuum this is the **MSRJD functional integral**
# $$
# \langle\mathcal A[x]\rangle=\int\mathcal Dx\,\mathcal D\tilde x\;\mathcal A[x]\;e^{S[x,\tilde x]},\qquad
# S[x,\tilde x]=\int dt\,\Big[i\tilde x\big(\partial_tx-f(x)\big)-\frac D2\,\tilde x^{2}\Big]. \tag{6.7}
# $$
# A field $h(t)$ added to the drift, $f\to f+h$, adds $-i\int dt\,\tilde x h$ to $S$, so the
# response function is a correlator of the response field,
# $$
# R(t,t')\equiv\frac{\delta\langle x(t)\rangle}{\delta h(t')}\Big|_{h=0}=-i\,\langle x(t)\tilde x(t')\rangle
# $$
# (the overall sign of $\tilde x$ is a convention; the notes write the source term as $+i\int\tilde xh$).
# The *fluctuation–dissipation theorem* (FDT) says that, in equilibrium, response and
# correlation are not independent: $T\,R(\tau)=-\partial_\tau C(\tau)$ for $\tau>0$, with
# $T=D/2$ in this normalization.

# %% [markdown]
# **(a), written.** Fill in the noise average that leads to (6.7), in your own words: starting
# from the discretized constraint $X_i=0$, say why the Jacobian is one, carry out the Gaussian
# average over the $\xi_i$ (variance $D/\Delta t$) step by step, and take the continuum limit,
# keeping track of every factor of $\Delta t$ and $\frac12$.

# %% [markdown] tags=["answer"] points=3
# **Model answer (a).** (As in the cell above.) Discretize with Itô's rule; the Jacobian of
# $x\mapsto X$ is triangular with unit diagonal, so it drops out; Fourier-represent each
# $\delta(X_i)$ with a variable $\tilde x_i$; the noise appears only in
# $\exp(-i\Delta t\sum_i\tilde x_i\xi_{i-1})$ and the $\xi_i$ are independent centred Gaussians of
# variance $D/\Delta t$, so the average factorizes into
# $\prod_i\exp(-\tfrac12\Delta t^2\tilde x_i^2\,D/\Delta t)=\exp(-\tfrac D2\sum_i\Delta t\,\tilde x_i^2)
# \to\exp(-\tfrac D2\int dt\,\tilde x^2)$, leaving
# $S=\int dt\,[i\tilde x(\partial_tx-f(x))-\tfrac D2\tilde x^2]$.
#
# *Rubric (3 pts):* Itô discretization and unit Jacobian (1); Fourier representation with
# the noise appearing linearly (1); the Gaussian average with the correct variance
# $D/\Delta t$ giving $-\frac D2\int\tilde x^2$ (1). A missing or wrong factor of $\Delta t$ or
# $1/2$ loses the last point.

# %% [markdown]
# ## Simulating the OU process
#
# **Task.** Implement `simulate_ou` with the Euler–Maruyama rule (2), $f(x)=-kx$. By
# default start in the stationary state of the continuous process,
# $x_0\sim\mathcal N\big(0,\frac{D}{2k}\big)$ (we derive this variance in (b)); with a number
# `x0`, start every path at that value.
#
# *Discretization note.* The discrete chain $x_{i+1}=a\,x_i+\sqrt{D\Delta t}\,z_i$ with
# $a=1-k\Delta t$ has the stationary variance $\sigma_\Delta^2=\frac{D\Delta t}{1-a^2}=\frac{D}{k(2-k\Delta t)}$,
# which differs from $\frac{D}{2k}$ by a relative $O(k\Delta t)$. Keep $k\Delta t\lesssim0.02$.

# %% tags=["graded"]
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    """Euler-Maruyama paths of the OU process dx/dt = -k x + xi, <xi(t) xi(t')> = D delta(t - t').

    Update (notes Section 6.1, Ito convention):
        x[i+1] = x[i] - k * x[i] * dt + sqrt(D * dt) * z[i],   z[i] ~ N(0, 1) independent.

    Args:
        k: float > 0, stiffness (relaxation rate).
        D: float >= 0, noise strength (the correlator is D delta, so sqrt(D dt) per step);
            D = 0 gives the noise-free decay x[i] = (1 - k dt)^i x[0].
        dt: float > 0, time step.
        steps: int >= 0, number of steps.
        n_paths: int >= 1, number of independent paths.
        rng: int seed or np.random.Generator (use np.random.default_rng(rng)).
        x0: None (default): draw each path's start from the stationary law N(0, D/(2k));
            a float (0.0 included): every path starts at x0.
    Returns:
        np.ndarray of shape (steps + 1, n_paths): row i is x at time i * dt (row 0 the start).
    """
    rng = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    if x0 is None:
        x[0] = rng.normal(0.0, np.sqrt(D / (2.0 * k)), size=n_paths)
    else:
        x[0] = float(x0)
    kicks = np.sqrt(D * dt) * rng.standard_normal((steps, n_paths))
    a = 1.0 - k * dt
    for i in range(steps):
        x[i + 1] = a * x[i] + kicks[i]
    return x


# %% tags=["check"]
@check
def check_simulate_ou_shape():
    "simulate_ou returns (steps + 1, n_paths), starts at x0 when given, and is reproducible"
    p = np.asarray(simulate_ou(1.0, 1.0, 0.01, 50, 7, rng=0, x0=0.3))
    assert p.shape == (51, 7), "shape should be (steps + 1, n_paths)"
    assert np.all(p[0] == 0.3), "row 0 should be x0 for every path"
    assert np.array_equal(p, simulate_ou(1.0, 1.0, 0.01, 50, 7, rng=0, x0=0.3)), \
        "the same integer seed should give the same paths"


@check
def check_simulate_ou_noise_free():
    "with D = 0 the paths decay as (1 - k dt)^i (the exact update's exp(-k dt i) within steps (k dt)^2)"
    p = np.asarray(simulate_ou(2.0, 0.0, 0.01, 100, 3, rng=1, x0=1.0))
    assert np.allclose(p[:, 0], (1 - 0.02) ** np.arange(101), rtol=100 * 0.02**2), \
        "the drift step should be x -> x - k x dt"
    p = np.asarray(simulate_ou(0.5, 0.0, 0.1, 20, 2, rng=1, x0=2.0))
    assert np.allclose(p[:, 1], 2.0 * (1 - 0.05) ** np.arange(21), rtol=20 * 0.05**2), \
        "x_(i+1) = x_i - k x_i dt, with this dt"


@check
def check_simulate_ou_noise_and_start():
    "one step from x0 = 0 has variance D dt (noise correlator D); the default start has variance D/(2k)"
    x1 = np.asarray(simulate_ou(1.0, 2.0, 0.01, 1, 20000, rng=6, x0=0.0))[1]
    assert abs(np.var(x1) / 0.02 - 1) < 0.05, "the noise of one step is sqrt(D dt) z: variance D dt = 0.02"
    start = np.asarray(simulate_ou(0.5, 2.0, 0.01, 0, 20000, rng=np.random.default_rng(7)))[0]
    assert abs(np.var(start) / 2.0 - 1) < 0.05, "without x0 the paths start from N(0, D/(2k)), variance 2 here"


# %% [markdown]
# ## (b) Stationary correlation and response, in closed form
#
# *By solving the SDE.* In the stationary state (start at $t_0\to-\infty$),
# $x(t)=\int_{-\infty}^t ds\,e^{-k(t-s)}\xi(s)$, so for $\tau\ge0$
# $$
# C(\tau)=\langle x(t+\tau)x(t)\rangle=D\int_{-\infty}^{t}ds\,e^{-k(t+\tau-s)}e^{-k(t-s)}
# =\frac{D}{2k}\,e^{-k|\tau|}, \tag{3}
# $$
# and $C(-\tau)=C(\tau)$. Adding a field, $\dot x=-kx+h+\xi$, shifts the mean by
# $\int_{-\infty}^t e^{-k(t-s)}h(s)\,ds$, so
# $$
# R(\tau)=\frac{\delta\langle x(t+\tau)\rangle}{\delta h(t)}=\theta(\tau)\,e^{-k\tau}. \tag{4}
# $$
# *By Fourier transform of the quadratic action.* With $x(t)=\int\frac{d\omega}{2\pi}e^{-i\omega t}x(\omega)$,
# (1) reads $(k-i\omega)x(\omega)=\xi(\omega)$, so
# $R(\omega)=\frac1{k-i\omega}$ (a single pole at $\omega=-ik$, in the lower half plane: closing
# the contour above for $\tau<0$ gives $R=0$, causality) and
# $C(\omega)=\frac{D}{k^2+\omega^2}=D|R(\omega)|^2$, whose inverse transform is (3).
#
# **Equal times.** In the Itô discretization a kick applied during $[t_i,t_{i+1})$ first moves
# $x_{i+1}$, never $x_i$: $R(t,t)=0$. We adopt this convention for the closed form too:
# **`ou_response(0, k)` returns 0** (and $R(0^+)=1$).
#
# **Task.** Implement both closed forms, elementwise on arrays of lags.

# %% tags=["graded"]
def ou_correlation(tau, k, D):
    """Stationary OU correlation C(tau) = <x(t + tau) x(t)> = D / (2 k) * exp(-k |tau|).

    Notes Section 6.1, Exercise 6.1(b); noise correlator D delta(t - t').

    Args:
        tau: float or np.ndarray of lags (any sign).
        k: float > 0.
        D: float > 0.
    Returns:
        float or np.ndarray of the shape of tau.
    """
    tau = np.asarray(tau, dtype=float)
    return D / (2.0 * k) * np.exp(-k * np.abs(tau))


# %% tags=["graded"]
def ou_response(tau, k):
    """OU response R(tau) = delta <x(t + tau)> / delta h(t) = theta(tau) exp(-k tau).

    Notes Section 6.1, Exercise 6.1(b). Causal: R = 0 for tau < 0. Ito convention at
    equal times: R(0) = 0 (a kick at time t moves x only after t); R(0+) = 1.

    Args:
        tau: float or np.ndarray of lags (any sign).
        k: float > 0.
    Returns:
        float or np.ndarray of the shape of tau.
    """
    tau = np.asarray(tau, dtype=float)
    return np.where(tau > 0, np.exp(-k * np.clip(tau, 0.0, None)), 0.0)


# %% tags=["check"]
@check
def check_closed_forms():
    "C is even with C(0) = D/(2k); R vanishes for tau <= 0 and R(0+) -> 1"
    tau = np.linspace(-3, 3, 13)
    C = np.asarray(ou_correlation(tau, 1.3, 0.7))
    assert np.allclose(C, C[::-1]), "C(tau) should be even"
    assert np.isclose(ou_correlation(0.0, 1.3, 0.7), 0.7 / 2.6), "C(0) should be D/(2k)"
    R = np.asarray(ou_response(tau, 1.3))
    assert np.all(R[tau <= 0] == 0), "R must vanish for tau <= 0 (causality, Ito at tau = 0)"
    assert np.isclose(ou_response(1e-12, 1.3), 1.0), "R(0+) should be 1"
    assert np.allclose(ou_correlation(np.array([0.0, -1.0]), 2.0, 3.0), [0.75, 0.75 * np.exp(-2.0)]), \
        "C(tau) = D/(2k) exp(-k |tau|)"
    assert np.isclose(ou_response(2.0, 0.5), np.exp(-1.0)), "R(tau) = exp(-k tau) for tau > 0"


# %% tags=["solution"]
# Independent check: both closed forms by numerical quadrature of
# their integral representations: $C(\tau)=\int\frac{d\omega}{2\pi}\,e^{-i\omega\tau}\frac{D}{k^2+\omega^2}$
# (Fourier route) and $C(\tau)=D\int_0^\infty du\,e^{-k(2u+\tau)}$ (time-domain route).
k_q, D_q = 1.7, 0.8
for tau_q in [0.0, 0.3, 1.0, 2.5]:
    fourier, _ = integrate.quad(lambda w: D_q / (k_q**2 + w**2) / np.pi, 0, np.inf, weight="cos", wvar=tau_q) \
        if tau_q > 0 else integrate.quad(lambda w: D_q / (k_q**2 + w**2) / np.pi, 0, np.inf)
    time_dom, _ = integrate.quad(lambda u: D_q * np.exp(-k_q * (2 * u + tau_q)), 0, np.inf)
    closed = ou_correlation(tau_q, k_q, D_q)
    print(f"tau = {tau_q}: Fourier {fourier:.10f}, time domain {time_dom:.10f}, closed form {closed:.10f}")
    assert abs(fourier - closed) < 1e-8 and abs(time_dom - closed) < 1e-10
# response: R(tau) = inverse Fourier transform of 1/(k - i w) = int dw/(2 pi) e^{-i w tau} / (k - i w)
for tau_q in [0.4, 1.5]:
    re, _ = integrate.quad(lambda w: k_q / (k_q**2 + w**2) / np.pi, 0, np.inf, weight="cos", wvar=tau_q)
    im, _ = integrate.quad(lambda w: w / (k_q**2 + w**2) / np.pi, 0, np.inf, weight="sin", wvar=tau_q)
    assert abs(re + im - ou_response(tau_q, k_q)) < 1e-7 and abs(re - im) < 1e-9
    # R(-tau) = 0 (causality) up to quadrature round-off: printed as a bound
    print(f"R({tau_q}) by Fourier: {re + im:.8f} (+tau), |.| < 1e-9 (-tau); closed {ou_response(tau_q, k_q):.8f}")

# %% [markdown]
# **(b), written.** Derive the stationary correlation (3) and the response (4) of the OU process,
# by solving the SDE or by Fourier transforming the quadratic action, and say how the causality of
# $R$ shows in the route you took.

# %% [markdown] tags=["answer"] points=3
# **Model answer (b).** As derived above: in the stationary state
# $x(t)=\int_{-\infty}^te^{-k(t-s)}\xi(s)ds$, hence
# $C(\tau)=D\int_{-\infty}^{t}e^{-k(t+\tau-s)}e^{-k(t-s)}ds=\frac{D}{2k}e^{-k|\tau|}$; a field $h$
# enters exactly like the noise, so $\delta\langle x(t)\rangle/\delta h(s)=e^{-k(t-s)}\theta(t-s)$.
# Equivalently in frequency space $R(\omega)=(k-i\omega)^{-1}$,
# $C(\omega)=D/(k^2+\omega^2)=D|R(\omega)|^2$; the pole of $R$ in the lower half plane is
# causality. In the MSRJD language: for the quadratic action the propagators are
# $\langle x\tilde x\rangle$ (retarded, $\propto R$), $\langle xx\rangle=C$ and
# $\langle\tilde x\tilde x\rangle=0$.
#
# *Rubric (3 pts):* correct stationary solution or Fourier inversion (1); $C$ with the factor
# $D/(2k)$ and $|\tau|$ (1); $R$ with the step function and an argument for causality (1).

# %% [markdown]
# ## Measuring $C$ from paths
#
# For stationary paths, estimate $C$ at lag $j\Delta t$ by averaging over all paths *and*
# all time origins that fit in the record of $S+1$ points:
# $$
# \hat C_j=\frac{1}{(S+1-j)\,n}\sum_{p=1}^{n}\sum_{i=0}^{S-j}x_{i,p}\,x_{i+j,p},\qquad j=0,\dots,j_{\max}.
# $$
# (No mean is subtracted: the OU process has mean zero.) Note the normalization by the
# number of pairs at each lag, $S+1-j$, not by $S+1$.
#
# **Task.** Implement `empirical_correlation` (vectorized over paths; a loop over lags is
# fine).

# %% tags=["graded"]
def empirical_correlation(paths, max_lag):
    """Time-and-path averaged correlation of stationary paths, C_j for lags j = 0..max_lag.

    C_j = mean over p and over i = 0..S-j of paths[i, p] * paths[i + j, p], normalized by
    the number of pairs (S + 1 - j) * n_paths at each lag; no mean subtracted.

    Args:
        paths: np.ndarray of shape (S + 1, n_paths) (rows are times, as returned by
            simulate_ou), or of shape (S + 1,) for a single path.
        max_lag: int, 0 <= max_lag <= S.
    Returns:
        np.ndarray of shape (max_lag + 1,); entry j estimates C(j * dt).
    """
    x = np.asarray(paths, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    S1 = x.shape[0]
    return np.array([np.mean(x[j:] * x[:S1 - j]) for j in range(max_lag + 1)])


# %% tags=["check"]
@check
def check_empirical_correlation():
    "a constant path gives C_j = c^2 at every lag; an alternating path gives (-1)^j"
    assert np.allclose(empirical_correlation(np.full((20, 3), 2.0), 5), 4.0)
    alt = np.array([(-1.0) ** i for i in range(30)])
    assert np.allclose(empirical_correlation(alt, 4), [1, -1, 1, -1, 1]), "1-d input should work too"


# %% [markdown]
# ## Measuring $R$: kick and average
#
# The response is what its definition says: apply a small field $h$ to the drift during
# one time step and watch the mean move. Run two copies ("twins") of the system with
# **the same** initial conditions and **the same** noise increments $z_i$ (common random
# numbers), the second with the extra drift $h$ during the first step only:
# $$
# x^h_{1}=x_0+\Delta t\,(-kx_0+h)+\sqrt{D\Delta t}\,z_0,\qquad x^h_{i+1}=x^h_i-k\,x^h_i\Delta t+\sqrt{D\Delta t}\,z_i\ (i\ge1).
# $$
# The impulse has strength $h\Delta t$, so
# $$
# \hat R_j=\frac{\big\langle x^h_j-x_j\big\rangle_{\rm paths}}{h\,\Delta t},\qquad j=0,\dots,S,
# $$
# estimates $R(j\Delta t)$, with $\hat R_0=0$ (Itô: the kick has not acted yet). Start
# both twins from the stationary law $\mathcal N(0,\frac D{2k})$.
#
# For the linear OU drift the noise cancels *exactly* in $x^h-x$ and
# $\hat R_j=(1-k\Delta t)^{j-1}$ for $j\ge1$, whatever the paths: the response of a linear
# system does not depend on its state. For a nonlinear drift the difference depends on
# the state and the average over paths is essential (the common noise then just reduces
# the variance of the estimate).
#
# **Task.** Implement `empirical_response`.

# %% tags=["graded"]
def empirical_response(k, D, dt, h, steps, n_paths, rng):
    """Response of the OU process measured by a kick: twin runs with common noise.

    Both twins start from the same stationary draws x0 ~ N(0, D/(2k)) and use the same
    noise increments sqrt(D dt) z[i] (Euler-Maruyama, as in simulate_ou). The kicked twin
    has the drift -k x + h during the first step only (from t = 0 to dt). Then
        R_hat[j] = mean over paths of (x_kicked[j] - x[j]) / (h * dt),   j = 0..steps,
    so R_hat[0] = 0 (Ito: the kick has not acted yet) and R_hat[j] estimates R(j * dt).

    Args:
        k: float > 0; D: float >= 0; dt: float > 0.
        h: float != 0, the field (small; the OU response is exactly linear in h).
        steps: int >= 1; n_paths: int >= 1.
        rng: int seed or np.random.Generator.
    Returns:
        np.ndarray of shape (steps + 1,).
    """
    rng = np.random.default_rng(rng)
    x = rng.normal(0.0, np.sqrt(D / (2.0 * k)), size=n_paths)
    xh = x.copy()
    a = 1.0 - k * dt
    R = np.zeros(steps + 1)
    for i in range(steps):
        z = np.sqrt(D * dt) * rng.standard_normal(n_paths)
        xh = a * xh + (h * dt if i == 0 else 0.0) + z
        x = a * x + z
        R[i + 1] = np.mean(xh - x) / (h * dt)
    return R


# %% tags=["check"]
@check
def check_empirical_response():
    "the measured response is causal at j = 0, starts at 1 after one step and decays"
    R = np.asarray(empirical_response(1.0, 1.0, 0.01, 1e-3, 200, 50, rng=3))
    assert R.shape == (201,), "shape should be (steps + 1,)"
    assert R[0] == 0, "R_hat[0] should be 0: the kick acts during the first step"
    assert np.isclose(R[1], 1.0, rtol=1e-6), "after one step the shift is h dt, so R_hat[1] = 1"
    assert np.all(np.diff(R[1:]) < 0), "R should decay"
    k, dt = 2.0, 0.02
    R = np.asarray(empirical_response(k, 0.5, dt, 0.5, 30, 5, rng=np.random.default_rng(1)))
    assert np.allclose(R[1:], (1 - k * dt) ** np.arange(30)), \
        "with common noise the OU twins differ by (1 - k dt)^(j-1) h dt exactly, whatever the paths and h"


# %% [markdown]
# ## (c) The fluctuation–dissipation theorem
#
# From (3)–(4), for $\tau>0$: $-\partial_\tau C(\tau)=\frac D2e^{-k\tau}=T\,R(\tau)$ with
# $T=D/2$. This is no accident of the linear drift: any 1-d drift $f=-V'$ with noise
# strength $D$ has the stationary (Boltzmann) density $p\propto e^{-V/T}$, $T=D/2$, and the
# FDT holds for every equilibrium observable.
#
# **Measured FDT residual.** With $\hat C_j$ and $\hat R_j$ on the grid $\tau_j=j\Delta t$, use
# the *central* difference for the derivative:
# $$
# \rho_j=T\hat R_j+\frac{\hat C_{j+1}-\hat C_{j-1}}{2\Delta t},\qquad T=\frac D2,\qquad j=1,\dots,m-1 .
# $$
# *A nice fact* (prove it in the answer to (c)): for the Euler–Maruyama chain itself,
# with its exact stationary correlation $C_j=\sigma_\Delta^2a^j$ and its exact response
# $R_j=a^{j-1}$ ($a=1-k\Delta t$), this discrete FDT holds **exactly**, with no $O(\Delta t)$
# error. So the measured residual is pure statistical noise.
#
# **Task.** Implement `fdt_residual` (a deterministic function of the measured arrays).

# %% tags=["graded"]
def fdt_residual(C, R, dt, D):
    """Measured FDT residual T R(tau) + dC/dtau with T = D/2 (notes Section 6.1, Ex 6.1(c)).

    With C[j] ~ C(j dt) and R[j] ~ R(j dt) on the same grid, j = 0..m:
        residual[j - 1] = (D / 2) * R[j] + (C[j + 1] - C[j - 1]) / (2 dt),   j = 1..m-1
    (central difference). It vanishes, up to noise, in equilibrium.

    Args:
        C: array of shape (m + 1,), m >= 2 (e.g. from empirical_correlation).
        R: array of shape (m + 1,) (e.g. from empirical_response).
        dt: float > 0, grid spacing.
        D: float, noise strength; T = D / 2.
    Returns:
        np.ndarray of shape (m - 1,): the residual at tau_j = j dt for j = 1..m-1.
    """
    C = np.asarray(C, dtype=float)
    R = np.asarray(R, dtype=float)
    return 0.5 * D * R[1:-1] + (C[2:] - C[:-2]) / (2.0 * dt)


# %% tags=["check"]
@check
def check_fdt_exact_for_the_discrete_chain():
    "the exact Euler-Maruyama correlation and response satisfy the discrete FDT"
    k, D, dt = 0.8, 1.3, 0.05
    a = 1 - k * dt
    j = np.arange(40)
    C = D / (k * (2 - k * dt)) * a**j
    R = np.where(j > 0, a ** (j - 1.0), 0.0)
    res = np.asarray(fdt_residual(C, R, dt, D))
    assert res.shape == (38,), "one residual per interior lag"
    assert np.allclose(res, 0, atol=1e-12), "T R_j + (C_{j+1} - C_{j-1}) / (2 dt) should vanish"
    res = np.asarray(fdt_residual([0.0, 1.0, 3.0, 2.0], [0.0, 1.0, 1.0, 0.5], 0.5, 4.0))
    assert np.allclose(res, [2.0 + 3.0, 2.0 + 1.0]), "residual_j = (D/2) R_j + (C_(j+1) - C_(j-1)) / (2 dt)"


# %% [markdown]
# ### The experiment
#
# Simulate stationary paths, measure $\hat C$, kick to measure $\hat R$, and compare
# $-\partial_\tau\hat C/T$ with $\hat R$ and with $e^{-k\tau}$ (this year's $k$ and $D$ from
# `PARAMS`). Sizes are chosen so that the cell runs in a couple of seconds.

# %% tags=["figure"]
k_fig, D_fig = PARAMS["k"], PARAMS["D"]
dt_fig = 0.02 / k_fig                      # k dt = 0.02
lags = int(round(3.0 / (k_fig * dt_fig)))  # up to tau = 3/k
paths_fig = simulate_ou(k_fig, D_fig, dt_fig, 4000, 400, rng=2026)
C_fig = empirical_correlation(paths_fig, lags)
R_fig = empirical_response(k_fig, D_fig, dt_fig, 1e-3, lags, 400, rng=7)
res_fig = fdt_residual(C_fig, R_fig, dt_fig, D_fig)
tau_fig = dt_fig * np.arange(lags + 1)
T_fig = D_fig / 2
fig, axes = plt.subplots(1, 3, figsize=(15, 4))
axes[0].plot(tau_fig, C_fig, "C0", label=r"measured $\hat C(\tau)$")
axes[0].plot(tau_fig, ou_correlation(tau_fig, k_fig, D_fig), "k--", label=r"$\frac{D}{2k}e^{-k\tau}$")
axes[0].set(xlabel=r"$\tau$", ylabel=r"$C(\tau)$", title=f"stationary correlation (k={k_fig}, D={D_fig})")
dC = -(C_fig[2:] - C_fig[:-2]) / (2 * dt_fig) / T_fig
axes[1].plot(tau_fig[1:-1], dC, "C0", label=r"$-\partial_\tau\hat C/T$ (fluctuations)")
axes[1].plot(tau_fig, R_fig, "C1", label=r"$\hat R$ (kick, dissipation)")
axes[1].plot(tau_fig, ou_response(tau_fig, k_fig), "k--", label=r"$\theta(\tau)e^{-k\tau}$")
axes[1].set(xlabel=r"$\tau$", title="FDT: two experiments, one curve")
axes[2].plot(tau_fig[1:-1], res_fig / T_fig, "C2")
axes[2].axhline(0, color="k", lw=0.8)
axes[2].set(xlabel=r"$\tau$", ylabel=r"$(TR+\partial_\tau C)/T$", title="FDT residual (statistical noise only)")
for ax in axes[:2]:
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% tags=["solution"]
# Independent checks.
# 1. $\hat C$ from the paths against the closed form (3) and against the exact discrete
#    law $\sigma_\Delta^2a^j$, in units of a standard error estimated from independent blocks of
#    paths.
# 2. $R$ by a route that never kicks: **Novikov's theorem** (Gaussian integration by parts)
#    gives $R(t,t')=\langle x(t)\,\xi(t')\rangle/D$; discretely,
#    $R_j=\langle x_{i+j}\,\sqrt{D\Delta t}\,z_i\rangle/(D\Delta t)$, a plain correlation of the
#    unperturbed paths with their own noise.
# 3. $R$ from two *independent* ensembles (no common noise), one kicked with a large field
#    (the OU response is exactly linear), compared with $e^{-k\tau}$ within standard errors.
# 4. The FDT for a *nonlinear* equilibrium drift, $f=-x-x^3$, where $C$ is no longer an
#    exponential: kicked twins against $-\partial_\tau C/T$.
rng_s = np.random.default_rng(11)
k_s, D_s, dt_s = 1.0, 1.2, 0.02
a_s = 1 - k_s * dt_s
paths_s = simulate_ou(k_s, D_s, dt_s, 3000, 600, rng=rng_s)
lags_s = 150
blocks = [empirical_correlation(paths_s[:, b::20], lags_s) for b in range(20)]
C_s, se_s = np.mean(blocks, axis=0), np.std(blocks, axis=0, ddof=1) / np.sqrt(20)
tau_s = dt_s * np.arange(lags_s + 1)
z_closed = (C_s - ou_correlation(tau_s, k_s, D_s)) / se_s
z_discrete = (C_s - D_s / (k_s * (2 - k_s * dt_s)) * a_s ** np.arange(lags_s + 1)) / se_s
print(f"1. C_hat vs D/(2k) e^(-k tau): max |z| = {np.max(np.abs(z_closed)):.2f}; "
      f"vs discrete sigma^2 a^j: max |z| = {np.max(np.abs(z_discrete)):.2f} (151 correlated lags)")
assert np.max(np.abs(z_discrete)) < 5

# 2. Novikov: R_j = < x_{i+j} * noise_i > / (D dt), from one unperturbed simulation with its noise kept
n_nov, S_nov = 4000, 200
x_nov = np.empty((S_nov + 1, n_nov))
x_nov[0] = rng_s.normal(0, np.sqrt(D_s / (2 * k_s)), n_nov)
noise_nov = np.sqrt(D_s * dt_s) * rng_s.standard_normal((S_nov, n_nov))
for i in range(S_nov):
    x_nov[i + 1] = a_s * x_nov[i] + noise_nov[i]
R_nov = np.array([0.0] + [np.mean(x_nov[j:] * noise_nov[:S_nov + 1 - j]) / (D_s * dt_s)
                          for j in range(1, 101)])
se_nov = np.array([0.0] + [np.std(x_nov[j:] * noise_nov[:S_nov + 1 - j]) / (D_s * dt_s)
                           / np.sqrt(n_nov * (S_nov + 1 - j)) for j in range(1, 101)])
R_kick = empirical_response(k_s, D_s, dt_s, 1e-3, 100, 10, rng=5)
z_nov = (R_nov[1:] - R_kick[1:]) / se_nov[1:]
print(f"2. Novikov correlation vs kicked twins: max |z| = {np.max(np.abs(z_nov)):.2f} over 100 lags "
      f"(typical standard error {np.mean(se_nov[1:]):.3f})")
assert np.max(np.abs(z_nov)) < 5

# 3. two independent ensembles, a large kick h dt = 1
n_ind, h_ind = 40000, 1.0 / dt_s
x_a = simulate_ou(k_s, D_s, dt_s, 100, n_ind, rng=21)
x_b = np.empty_like(x_a)
x_b[0] = rng_s.normal(0, np.sqrt(D_s / (2 * k_s)), n_ind)
for i in range(100):
    x_b[i + 1] = a_s * x_b[i] + (h_ind * dt_s if i == 0 else 0.0) + np.sqrt(D_s * dt_s) * rng_s.standard_normal(n_ind)
R_ind = (x_b.mean(axis=1) - x_a.mean(axis=1)) / (h_ind * dt_s)
se_ind = np.sqrt(x_a.var(axis=1) / n_ind + x_b.var(axis=1) / n_ind) / (h_ind * dt_s)
z_ind = (R_ind[1:] - a_s ** np.arange(100)) / se_ind[1:]
z_cont = (R_ind[1:] - ou_response(tau_s[1:101], k_s)) / se_ind[1:]
print(f"3. independent ensembles (no common noise) vs the Euler-Maruyama response a^(j-1): max |z| = "
      f"{np.max(np.abs(z_ind)):.2f}; vs exp(-k tau): max |z| = {np.max(np.abs(z_cont)):.2f} "
      f"(this precise estimate resolves the O(k dt) = 2 % discretization shift)")
assert np.max(np.abs(z_ind)) < 5

# 4. a nonlinear equilibrium drift f = -x - x^3: the FDT still holds (T = D/2)
def em_paths(f, D, dt, steps, x_init, rng, kick=0.0):
    x = np.empty((steps + 1, x_init.size))
    x[0] = x_init
    for i in range(steps):
        x[i + 1] = x[i] + dt * (f(x[i]) + (kick if i == 0 else 0.0)) + np.sqrt(D * dt) * rng.standard_normal(x_init.size)
    return x


f_nl = lambda x: -x - x**3
grid_nl = np.linspace(-4, 4, 4001)
w_nl = np.exp(-(grid_nl**2 / 2 + grid_nl**4 / 4) / (D_s / 2))
cdf_nl = np.cumsum(w_nl) / np.sum(w_nl)
x_init = np.interp(rng_s.random(3000), cdf_nl, grid_nl)          # Boltzmann start
dt_nl = 0.01
long_nl = em_paths(f_nl, D_s, dt_nl, 2000, x_init, np.random.default_rng(31))
C_nl = empirical_correlation(long_nl, 100)
twin_a = em_paths(f_nl, D_s, dt_nl, 100, long_nl[-1], np.random.default_rng(41))
twin_b = em_paths(f_nl, D_s, dt_nl, 100, long_nl[-1], np.random.default_rng(41), kick=1e-2)
R_nl = np.mean(twin_b - twin_a, axis=1) / (1e-2 * dt_nl)
res_nl = fdt_residual(C_nl, R_nl, dt_nl, D_s) / (D_s / 2)
tau_nl = dt_nl * np.arange(101)
print(f"4. f = -x - x^3: R(0.5) = {R_nl[50]:.4f} vs -C'(0.5)/T = {-(C_nl[51] - C_nl[49]) / (2 * dt_nl) / (D_s / 2):.4f} "
      f"(not exponential: C(0.5)/C(0) = {C_nl[50] / C_nl[0]:.4f} vs R(0.5)/R(dt) = {R_nl[50] / R_nl[1]:.4f}); "
      f"max |FDT residual|/T = {np.max(np.abs(res_nl)):.3f}")
assert np.max(np.abs(res_nl)) < 0.05

# %% [markdown]
# **(c), written.** Verify the FDT $T\,R(\tau)=-\partial_\tau C(\tau)$ for $\tau>0$ from (3)–(4) and
# identify the temperature $T=D/2$. Then prove the "nice fact" above: for the Euler–Maruyama
# chain, with $C_j=\sigma_\Delta^2a^j$ and $R_j=a^{j-1}$, the discrete FDT with the central
# difference holds exactly. What does the measured residual in the figure consist of, then?

# %% [markdown] tags=["answer"] points=2
# **Model answer (c).** For $\tau>0$, $\partial_\tau C=-k\frac{D}{2k}e^{-k\tau}=-\frac D2e^{-k\tau}$,
# so $-\partial_\tau C(\tau)=\frac D2R(\tau)=TR(\tau)$ with $T=D/2$. (The Fokker–Planck equation
# of (1) has the stationary density $p\propto e^{-kx^2/D}=e^{-V/T}$ with $V=kx^2/2$: $T=D/2$ is
# the temperature of the bath.)
# *Discrete version.* With $a=1-k\Delta t$, $C_j=\sigma_\Delta^2a^j$,
# $\sigma^2_\Delta=D\Delta t/(1-a^2)$, $R_j=a^{j-1}$ for $j\ge1$:
# $\frac{C_{j+1}-C_{j-1}}{2\Delta t}=\sigma_\Delta^2a^{j-1}\frac{a^2-1}{2\Delta t}=-\frac{D}{2}a^{j-1}=-TR_j$,
# exactly. The measured residual in the figure is therefore pure sampling noise (it shrinks
# like $1/\sqrt{\text{number of samples}}$), and two different experiments (watching
# fluctuations, kicking the system) give the same function.
#
# *Rubric (2 pts):* derivative and identification $T=D/2$ (1); the FDT verified numerically
# with a sensible discussion of the residual (noise, or $O(\Delta t)$ if a one-sided
# difference was used) (1).

# %% [markdown]
# ### Out of equilibrium: the FDT fails during relaxation
#
# Start every path at $x(0)=0$ instead of in the stationary state. Then
# $C(t,t_w)=\langle x(t)x(t_w)\rangle=\frac{D}{2k}\big(e^{-k(t-t_w)}-e^{-k(t+t_w)}\big)$ depends on
# both times (the system *ages*), while $R(t,t_w)=e^{-k(t-t_w)}$ is unchanged. The two-time FDT
# $TR(t,t_w)=\partial_{t_w}C(t,t_w)$ now fails; the *FDT ratio*
# $$
# X(t,t_w)=\frac{TR(t,t_w)}{\partial_{t_w}C(t,t_w)}=\frac{1}{1+e^{-2kt_w}}
# $$
# starts at $1/2$ and tends to $1$ as the waiting time $t_w$ grows and the system
# equilibrates. A ratio $X\neq1$ is the "warning light" of Section 6.2: there, in the
# over-parametrized phase, it never goes off. Below: $X$ measured from an ensemble of
# paths started at 0 (your `simulate_ou` with `x0=0.0`).

# %% tags=["figure"]
k_a, D_a = PARAMS["k"], PARAMS["D"]
dt_a = 0.02 / k_a
paths_a = simulate_ou(k_a, D_a, dt_a, 250, 40000, rng=99, x0=0.0)
lag_a = 10                                       # t - t_w = 10 dt
tw_idx = np.arange(1, 230, 6)
X_meas = []
for i in tw_idx:
    dC_dtw = (np.mean(paths_a[i + lag_a] * paths_a[i + 1]) - np.mean(paths_a[i + lag_a] * paths_a[i - 1])) / (2 * dt_a)
    X_meas.append(D_a / 2 * (1 - k_a * dt_a) ** (lag_a - 1) / dC_dtw)
tw = np.linspace(0, tw_idx[-1] * dt_a, 200)
fig, ax = plt.subplots(figsize=(6, 3.8))
ax.plot(tw_idx * dt_a, X_meas, "o", ms=4, label=r"measured, $t-t_w=10\,\Delta t$")
ax.plot(tw, 1 / (1 + np.exp(-2 * k_a * tw)), "k--", label=r"$1/(1+e^{-2kt_w})$")
ax.axhline(1, color="grey", lw=0.8)
ax.set(xlabel=r"waiting time $t_w$", ylabel=r"FDT ratio $X(t,t_w)$", ylim=(0.3, 1.3),
       title="ageing: FDT violated until the system has equilibrated")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## (d) Why $\langle\tilde x\tilde x\rangle=0$ and why $R$ is causal
#
# **(d), written.** Explain both facts from the discrete-time construction: why every correlator
# of the response field alone vanishes, $\langle\tilde x\tilde x\rangle=0$, and why a kick can
# only move later $x$'s, so that $R$ is causal, with $R(t,t)=0$ in the Itô convention.

# %% [markdown] tags=["answer"] points=3
# **Model answer (d).** *$\langle\tilde x\tilde x\rangle=0$:* add a source $\int\tilde j\tilde x$ only;
# this is the same as adding the field $h=i\tilde j$ to the drift. The generating functional
# with only response-field sources is then the normalization of a perfectly good
# (perturbed) stochastic process, $Z[0,\tilde j]=\int\mathcal Dx\,P_h[x]=1$ for every $\tilde j$,
# so every derivative with respect to $\tilde j$ alone vanishes: all pure $\tilde x$ correlators
# are zero (probability conservation, "$Z_{\rm dyn}=1$").
# *Causality:* in the discrete construction $\tilde x_i$ enforces the step $x_{i-1}\to x_i$ and
# couples to the drift and noise evaluated at $x_{i-1}$ (Itô). Integrating the
# $x$'s from the last time slice backward, each $\int dx_N\,e^{i\tilde x_N(x_N-\dots)}$ gives
# $2\pi\delta(\tilde x_N)$ unless an observable at a time $\ge t_N$ is present; so
# $\langle x_j\tilde x_i\rangle$ vanishes unless $j>i$: a kick at step $i$ can only move
# later $x$'s. In particular $R(t,t)=0$ (the Itô equal-time value, $\theta(0)=0$), while
# $R(t^+,t)=1$. In frequency space this is the analyticity of $R(\omega)=1/(k-i\omega)$ in
# the upper half plane.
#
# *Rubric (3 pts):* normalization / $Z=1$ argument for $\langle\tilde x\tilde x\rangle=0$ (1);
# causality from the triangular (Itô) structure, kicks only act forward (1); the equal-time
# value $\theta(0)=0$ linked to the Itô convention (1).

# %% tags=["tests"]
def _stats_increments(p, k, dt):
    x0, x1 = p[:-1].ravel(), p[1:].ravel()
    a_hat = np.sum(x0 * x1) / np.sum(x0 * x0)
    resid = x1 - (1 - k * dt) * x0
    return a_hat, resid


@points(1)
def test_simulate_ou_shape_and_start(student):
    "simulate_ou: shape (steps + 1, n_paths), and every path starts at x0 when it is given"
    rng = rng_for("simulate_ou_shape")
    k, D = float(rng.uniform(0.5, 2)), float(rng.uniform(0.3, 2))
    x0 = float(rng.uniform(-2, 2))
    p = np.asarray(student.simulate_ou(k, D, 0.01, 30, 17, int(rng.integers(2**31)), x0), dtype=float)
    assert p.shape == (31, 17), "paths should have shape (steps + 1, n_paths)"
    assert_close(p[0], np.full(17, x0), rtol=0, atol=1e-12, name="row 0 (the start)")


# False-fail budget 1e-4 (any stream, any course seed): three checks on n = 6000 independent
# N(0, D/(2k)) starting points, each near-Gaussian at this n: the second moment within 10 %
# (standard error sqrt(2/n) = 1.8 %: 5.5 standard errors, 4e-8), the mean within 5 standard
# errors (6e-7), the kurtosis within 0.4 of 3 (standard error sqrt(24/n) = 0.063: 6.3 standard
# errors, below 1e-6 even with the estimator's mild skew): about 2e-6 together.
@points(1)
def test_simulate_ou_stationary_start(student):
    "simulate_ou without x0 starts from the stationary law of the continuous process (statistical)"
    rng = rng_for("simulate_ou_stationary_start")
    k, D = float(rng.uniform(0.5, 2)), float(rng.uniform(0.3, 2))
    p = np.asarray(student.simulate_ou(k, D, 0.01, 1, 6000, int(rng.integers(2**31))), dtype=float)
    var0 = np.mean(p[0] ** 2)
    assert_close(var0, D / (2 * k), rtol=0.1, atol=0, name="variance of the starting points")
    assert abs(np.mean(p[0])) < 5 * np.sqrt(D / (2 * k) / 6000), "the start should have mean zero"
    kurt = np.mean(p[0] ** 4) / var0 ** 2
    assert abs(kurt - 3) < 0.4, "the starting points should be Gaussian (the stationary law is a normal law)"


# False-fail budget 1e-4 (any stream, any course seed): per setting, n = 120000 increments;
# the regression slope within 6 standard errors (plus the O((k dt)^2) gap to the exact update),
# the noise variance within 5 % of D dt (standard error sqrt(2/n) = 0.4 %, so more than 10
# standard errors after the O(k dt) <= 1.5 % gap of other correct schemes), the mean within 6
# standard errors, the kurtosis within 0.15 of 3 (standard error sqrt(24/n) = 0.014: 10 standard
# errors): each below 2e-9, union over 2 settings x 4 checks below 1e-8.
@points(3)
def test_simulate_ou_increments(student):
    "simulate_ou: drift and noise of each Euler-Maruyama step (statistical, 120000 increments)"
    rng = rng_for("simulate_ou_increments")
    for k, D, dt in [(float(rng.uniform(0.5, 1.5)), float(rng.uniform(0.3, 0.8)), 0.01),
                     (float(rng.uniform(1.0, 3.0)), float(rng.uniform(1.5, 3.0)), 0.005)]:
        p = np.asarray(student.simulate_ou(k, D, dt, 300, 400, int(rng.integers(2**31))), dtype=float)
        a_hat, resid = _stats_increments(p, k, dt)
        n = resid.size
        se_a = np.sqrt(D * dt / np.sum(p[:-1] ** 2))
        assert abs(a_hat - (1 - k * dt)) < 6 * se_a + (k * dt) ** 2, \
            "x[i+1] regressed on x[i] should have slope 1 - k dt (check the drift step)"
        # noise variance per step D dt; standard error sqrt(2/n) ~ 0.4 %, O(k dt) scheme differences allowed
        assert_close(np.mean(resid**2) / (D * dt), 1.0, rtol=0.05, atol=0,
                     name="variance of the noise increment in units of D dt")
        assert abs(np.mean(resid)) < 6 * np.sqrt(D * dt / n), "the noise should have mean zero"
        kurt = np.mean(resid**4) / np.mean(resid**2) ** 2
        assert abs(kurt - 3) < 0.15, "the noise increments should be Gaussian, z ~ N(0, 1)"


# False-fail budget 1e-4 (any stream, any course seed): C_hat at three lags from 2500 paths of
# 400 steps; its standard deviation, measured over 150 reference runs at the slowest k = 0.7
# (fewest independent samples), is 0.016 D/(2k) at each lag, and the Euler-Maruyama bias is at
# most 0.0075 D/(2k) (k dt/2). Tolerance 0.08 D/(2k): at least 4.5 standard errors per lag
# (3.4e-6 per lag two-sided), union bound over the 3 lags: 1e-5.
@points(2)
def test_simulate_ou_stationary_correlation(student):
    "simulate_ou: stationary correlation of the paths at three lags (statistical)"
    rng = rng_for("simulate_ou_stationary_correlation")
    k, D, dt = float(rng.uniform(0.7, 1.5)), float(rng.uniform(0.5, 2.0)), 0.01
    p = np.asarray(student.simulate_ou(k, D, dt, 400, 2500, int(rng.integers(2**31))), dtype=float)
    lags = [0, int(round(0.5 / (k * dt))), int(round(1.0 / (k * dt)))]
    C = ref.empirical_correlation(p, max(lags))
    for j in lags:
        assert_close(C[j], ref.ou_correlation(j * dt, k, D), rtol=0, atol=0.08 * D / (2 * k),
                     name=f"C at lag {j} dt")


@points(1)
def test_ou_correlation(student):
    "ou_correlation on random lags of both signs and random parameters"
    rng = rng_for("ou_correlation")
    tau = rng.uniform(-4, 4, 25)
    for k, D in [(float(rng.uniform(0.2, 3)), float(rng.uniform(0.1, 3))) for _ in range(3)]:
        assert_close(student.ou_correlation(tau, k, D), ref.ou_correlation(tau, k, D),
                     rtol=1e-9, atol=1e-12, name=f"C(tau) for k={k:.2f}, D={D:.2f}")


@points(1)
def test_ou_response(student):
    "ou_response on random lags of both signs (causality)"
    rng = rng_for("ou_response")
    tau = rng.uniform(-4, 4, 25)
    for k in rng.uniform(0.2, 3, 3):
        assert_close(student.ou_response(tau, float(k)), ref.ou_response(tau, float(k)),
                     rtol=1e-9, atol=1e-12, name=f"R(tau) for k={k:.2f}")


@points(1)
def test_ou_response_equal_time(student):
    "ou_response at tau = 0 follows the Ito convention stated in the docstring (and just before and after)"
    # tau < 0 too: it tells R(0) = 1 apart from a response that is not causal at all (both give 1 at 0)
    tau = np.array([-0.5, 0.0, 1e-9])
    assert_close(student.ou_response(tau, 1.5), ref.ou_response(tau, 1.5), rtol=1e-7, atol=1e-12,
                 name="R at tau = 0- , 0 and 0+")


@points(2)
def test_empirical_correlation(student):
    "empirical_correlation on random (not necessarily OU) arrays, lags up to most of the record"
    rng = rng_for("empirical_correlation")
    for S1, n, max_lag in [(12, 5, 9), (40, 1, 30), (7, 3, 0)]:
        x = rng.normal(0.3, 1.0, (S1, n))
        assert_close(student.empirical_correlation(x, max_lag), ref.empirical_correlation(x, max_lag),
                     rtol=1e-9, atol=1e-12, name=f"C_hat for paths of shape {(S1, n)}, max_lag {max_lag}")


@points(1)
def test_empirical_correlation_single_path(student):
    "empirical_correlation accepts a single 1-d path"
    rng = rng_for("empirical_correlation_single_path")
    x = rng.normal(size=25)
    assert_close(student.empirical_correlation(x, 6), ref.empirical_correlation(x, 6),
                 rtol=1e-9, atol=1e-12, name="C_hat of a 1-d path")


# Not statistical: for the linear OU drift the common noise cancels exactly in the twin
# difference, so R_hat does not depend on the stream (round-off only, relative 1e-10 at
# h dt >= 5e-6); the tolerance allows O(k dt) differences of other correct twin schemes.
@points(3)
def test_empirical_response(student):
    "empirical_response: kick-and-average response on random parameters, all lags"
    rng = rng_for("empirical_response")
    for k, D, dt, steps in [(float(rng.uniform(0.5, 2)), float(rng.uniform(0.3, 2)), 0.01, 250),
                            (float(rng.uniform(2, 4)), float(rng.uniform(0.3, 2)), 0.005, 150)]:
        h = float(rng.choice([-1, 1]) * rng.uniform(1e-3, 1e-2))
        seed = int(rng.integers(2**31))
        R = student.empirical_response(k, D, dt, h, steps, 200, seed)
        # other correct discretizations of the twin dynamics differ by O(k dt) relative
        assert_close(R, ref.empirical_response(k, D, dt, h, steps, 200, seed), rtol=0.05, atol=1e-3,
                     name=f"R_hat for k={k:.2f}, dt={dt}")


@points(2)
def test_fdt_residual(student):
    "fdt_residual on random arrays (a deterministic function of C, R, dt, D)"
    rng = rng_for("fdt_residual")
    for m in [3, 10, 40]:
        C, R = rng.normal(size=m + 1), rng.normal(size=m + 1)
        dt, D = float(rng.uniform(0.01, 0.2)), float(rng.uniform(0.2, 3))
        assert_close(student.fdt_residual(C, R, dt, D), ref.fdt_residual(C, R, dt, D),
                     rtol=1e-9, atol=1e-9, name=f"residual for m = {m}")


# False-fail budget 1e-4 (any stream, any course seed): measured over 150 reference runs at the
# slowest k = 0.7, max |residual|/T over the 119 lags has mean 0.027 and standard deviation
# 0.009 (per-lag standard deviation about 0.011): the bound 0.2 is 18 per-lag standard errors,
# union over 119 lags negligible; the mean of C_hat over the 3 smallest lags has relative
# standard deviation 0.024 with bias below 0.008 (Euler-Maruyama k dt/2): tolerance 12 % is
# 4.7 standard errors (3e-6). Together below 1e-5.
@points(2)
def test_fdt_holds_on_your_measurements(student):
    "the FDT residual of your own simulation, correlation and response vanishes within noise"
    rng = rng_for("fdt_holds_on_your_measurements")
    k, D, dt, lags = float(rng.uniform(0.7, 1.5)), float(rng.uniform(0.5, 2.0)), 0.01, 120
    paths = student.simulate_ou(k, D, dt, 1500, 400, int(rng.integers(2**31)))
    C = student.empirical_correlation(paths, lags)
    R = student.empirical_response(k, D, dt, 1e-3, lags, 50, int(rng.integers(2**31)))
    res = np.asarray(student.fdt_residual(C, R, dt, D), dtype=float)
    assert res.shape == (lags - 1,), "one residual per interior lag"
    # standard error of the central-difference derivative ~ 2 % of T here; signal T R ~ T
    assert np.max(np.abs(res)) < 0.2 * D / 2, "T R + dC/dtau should vanish up to sampling noise"
    assert_close(np.mean(np.asarray(C)[:3]), ref.ou_correlation(0.0, k, D), rtol=0.12, atol=0,
                 name="your C_hat at the smallest lags")


@points(1)
def test_simulate_ou_zero_start(student):
    "simulate_ou with x0 = 0.0 starts every path at 0 (a start value, not 'no start given')"
    rng = rng_for("simulate_ou_zero_start")
    k, D = float(rng.uniform(0.5, 2)), float(rng.uniform(0.3, 2))
    p = np.asarray(student.simulate_ou(k, D, 0.01, 20, 50, int(rng.integers(2**31)), 0.0), dtype=float)
    assert p.shape == (21, 50), "paths should have shape (steps + 1, n_paths)"
    assert np.all(p[0] == 0.0), "with x0 = 0.0 every path must start exactly at 0 (test x0 is None, not its truth value)"
    assert np.all(np.std(p[1:], axis=1) > 0), "after the start the noise should spread the paths"


@points(1)
def test_simulate_ou_edges(student):
    "simulate_ou at the edges of its contract: steps = 0, one path, and no noise (D = 0)"
    rng = rng_for("simulate_ou_edges")
    k, x0 = float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2))
    seed = int(rng.integers(2**31))
    p = np.asarray(student.simulate_ou(k, 1.0, 0.01, 0, 4, seed, x0), dtype=float)
    assert p.shape == (1, 4), "steps = 0 should give only the start, shape (1, n_paths)"
    assert_close(p[0], np.full(4, x0), rtol=0, atol=1e-12, name="the start with steps = 0")
    p = np.asarray(student.simulate_ou(k, 1.0, 0.01, 10, 1, seed), dtype=float)
    assert p.shape == (11, 1), "one path should still have shape (steps + 1, 1)"
    # D = 0: the deterministic Euler-Maruyama decay; 50 (k dt)^2 allows the exact update's O((k dt)^2) per step
    steps, dt = 50, 0.01
    p = np.asarray(student.simulate_ou(k, 0.0, dt, steps, 3, seed, x0), dtype=float)
    assert p.shape == (steps + 1, 3), "paths should have shape (steps + 1, n_paths)"
    assert_close(p, ref.simulate_ou(k, 0.0, dt, steps, 3, seed, x0), rtol=steps * (k * dt) ** 2, atol=1e-12,
                 name="noise-free paths (D = 0)")
    p = np.asarray(student.simulate_ou(k, 0.0, dt, 5, 3, seed), dtype=float)
    assert_close(p, np.zeros((6, 3)), rtol=0, atol=1e-12, name="D = 0 from the stationary law N(0, 0)")


@points(1)
def test_ou_correlation_edges(student):
    "ou_correlation: a float lag gives a float, an array of lags its own shape, at tau = 0 and extreme k"
    rng = rng_for("ou_correlation_edges")
    k, D = float(rng.uniform(0.2, 3)), float(rng.uniform(0.1, 3))
    c = student.ou_correlation(0.0, k, D)
    assert np.ndim(c) == 0, "a float lag should give a float, not an array"
    assert_close(c, ref.ou_correlation(0.0, k, D), rtol=1e-9, atol=1e-12, name="C at tau = 0")
    tau = rng.uniform(-50, 50, (3, 4))
    for kk in [1e-3, k, 40.0]:
        c = np.asarray(student.ou_correlation(tau, kk, D), dtype=float)
        assert c.shape == (3, 4), "the result should have the shape of tau"
        assert_close(c, ref.ou_correlation(tau, kk, D), rtol=1e-9, atol=1e-300, name=f"C(tau) at k = {kk:.3g}")


@points(1)
def test_ou_response_edges(student):
    "ou_response: a float lag gives a float, an array of lags its own shape, at extreme k and lags"
    rng = rng_for("ou_response_edges")
    k = float(rng.uniform(0.2, 3))
    t = float(rng.uniform(0.1, 2))
    r = student.ou_response(t, k)
    assert np.ndim(r) == 0, "a float lag should give a float, not an array"
    assert_close(r, ref.ou_response(t, k), rtol=1e-9, atol=1e-12, name="R at a float lag")
    tau = rng.uniform(-50, 50, (3, 4))
    for kk in [1e-3, k, 40.0]:
        r = np.asarray(student.ou_response(tau, kk), dtype=float)
        assert r.shape == (3, 4), "the result should have the shape of tau"
        assert_close(r, ref.ou_response(tau, kk), rtol=1e-9, atol=1e-300, name=f"R(tau) at k = {kk:.3g}")


@points(1)
def test_empirical_correlation_full_record(student):
    "empirical_correlation up to the largest lag max_lag = S (one pair per path there)"
    rng = rng_for("empirical_correlation_full_record")
    for S1, n in [(9, 4), (15, 1)]:
        x = rng.normal(0.2, 1.0, (S1, n))
        assert_close(student.empirical_correlation(x, S1 - 1), ref.empirical_correlation(x, S1 - 1),
                     rtol=1e-9, atol=1e-12, name=f"C_hat for paths of shape {(S1, n)}, max_lag = S")


@points(1)
def test_empirical_response_edges(student):
    "empirical_response at the edges of its contract: one step, one path, no noise (D = 0)"
    rng = rng_for("empirical_response_edges")
    k, D = float(rng.uniform(0.5, 2)), float(rng.uniform(0.3, 2))
    h = float(rng.choice([-1, 1]) * rng.uniform(1e-3, 1e-2))
    seed = int(rng.integers(2**31))
    R = np.asarray(student.empirical_response(k, D, 0.01, h, 1, 1, seed), dtype=float)
    assert R.shape == (2,), "R_hat should have shape (steps + 1,)"
    assert_close(R, ref.empirical_response(k, D, 0.01, h, 1, 1, seed), rtol=1e-6, atol=1e-9,
                 name="R_hat after a single step")
    R = student.empirical_response(k, 0.0, 0.01, h, 60, 3, seed)
    assert_close(R, ref.empirical_response(k, 0.0, 0.01, h, 60, 3, seed), rtol=0.05, atol=1e-3,
                 name="R_hat without noise (D = 0)")


@points(1)
def test_fdt_residual_edges(student):
    "fdt_residual on the shortest grid (m = 2) and without noise (D = 0)"
    rng = rng_for("fdt_residual_edges")
    dt = float(rng.uniform(0.01, 0.2))
    for m, D in [(2, float(rng.uniform(0.2, 3))), (6, 0.0)]:
        C, R = rng.normal(size=m + 1), rng.normal(size=m + 1)
        res = np.asarray(student.fdt_residual(C, R, dt, D), dtype=float)
        assert res.shape == (m - 1,), "one residual per interior lag, shape (m - 1,)"
        assert_close(res, ref.fdt_residual(C, R, dt, D), rtol=1e-9, atol=1e-9, name=f"residual for m = {m}, D = {D:.3g}")


# %% tags=["wrong"]
# wrong: noise sqrt(2 D dt) per step (reads D as a diffusion constant, <xi xi> = 2 D delta)
# hint: In these notes D is the strength of the noise correlator, ⟨ξ(t)ξ(t')⟩ = D δ(t − t') (eq. (1)),
#   not a diffusion constant: the Euler–Maruyama noise per step is √(D Δt) z (eq. (2)).
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    rng = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    x[0] = rng.normal(0.0, np.sqrt(D / k), size=n_paths) if x0 is None else x0
    for i in range(steps):
        x[i + 1] = x[i] - k * x[i] * dt + np.sqrt(2 * D * dt) * rng.standard_normal(n_paths)
    return x


# %% tags=["wrong"]
# wrong: x0 tested by its truth value (`if x0:`), so x0 = 0.0 draws a stationary start instead
# hint: A start value x0 of zero is a start like any other (the ageing experiment of Section 6.1 starts
#   every path at the origin): draw from the stationary law only when x0 is None, not whenever x0 is falsy.
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    rng = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    x[0] = float(x0) if x0 else rng.normal(0.0, np.sqrt(D / (2.0 * k)), size=n_paths)
    for i in range(steps):
        x[i + 1] = x[i] - k * x[i] * dt + np.sqrt(D * dt) * rng.standard_normal(n_paths)
    return x


# %% tags=["wrong"]
# wrong: D used as the standard deviation of the noise (D sqrt(dt) instead of sqrt(D dt))
# hint: The noise increment of eq. (2) is √(D Δt) z: D is a variance per unit time, so it goes under the
#   square root together with Δt.
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    rng = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    x[0] = rng.normal(0.0, np.sqrt(D / (2.0 * k)), size=n_paths) if x0 is None else x0
    for i in range(steps):
        x[i + 1] = x[i] - k * x[i] * dt + D * np.sqrt(dt) * rng.standard_normal(n_paths)
    return x


# %% tags=["wrong"]
# wrong: stationary variance D/k (missing the 2) in the closed form and in the starting law
# hint: The stationary variance of the OU process is C(0) = D/(2k) (Exercise 6.1(b)): the 2 comes from
#   the convention ⟨ξξ⟩ = D δ. Draw the starting points from that law too.
def ou_correlation(tau, k, D):
    return D / k * np.exp(-k * np.abs(np.asarray(tau, dtype=float)))


def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    rng = np.random.default_rng(rng)
    x = np.empty((steps + 1, n_paths))
    x[0] = rng.normal(0.0, np.sqrt(D / k), size=n_paths) if x0 is None else x0
    for i in range(steps):
        x[i + 1] = x[i] - k * x[i] * dt + np.sqrt(D * dt) * rng.standard_normal(n_paths)
    return x


# %% tags=["wrong"]
# wrong: response not causal, exp(-k |tau|) for all tau
# hint: The response is causal: R(τ) = e^{−kτ} for τ ≥ 0 and 0 for τ < 0 (Exercise 6.1(b)).
def ou_response(tau, k):
    return np.exp(-k * np.abs(np.asarray(tau, dtype=float)))


# %% tags=["wrong"]
# wrong: R(0) = 1, the step function taken as theta(0) = 1 (tau >= 0)
# hint: At equal times the Itô convention gives R(0) = 0: a kick at time t moves x only after t
#   (θ(0) = 0, Section 6.1 and Exercise 6.1(d)); only R(0⁺) = 1.
def ou_response(tau, k):
    tau = np.asarray(tau, dtype=float)
    return np.where(tau >= 0, np.exp(-k * np.clip(tau, 0.0, None)), 0.0)


# %% tags=["wrong"]
# wrong: correlation normalized by the record length S + 1 at every lag (np.correlate-style bias)
# hint: At lag j a record of S + 1 points holds only S + 1 − j pairs (x_i, x_{i+j}): average over those
#   pairs; dividing by the full length biases C towards 0 at large lags.
def empirical_correlation(paths, max_lag):
    x = np.asarray(paths, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    return np.array([np.sum(x[j:] * x[:x.shape[0] - j]) / x.size for j in range(max_lag + 1)])


# %% tags=["wrong"]
# wrong: response not divided by dt (shift per unit field, not per unit impulse)
# hint: A field h applied during one step Δt is an impulse h Δt: divide the average shift by h Δt to get
#   the response per unit impulse R(τ) (Section 6.1).
_empirical_response_right = empirical_response


def empirical_response(k, D, dt, h, steps, n_paths, rng):
    return np.asarray(_empirical_response_right(k, D, dt, h, steps, n_paths, rng)) * dt


# %% tags=["wrong"]
# wrong: the kick acts at equal time (R_hat[j] = shift of x[j+1]), one step off
# hint: R̂[j] belongs to the time jΔt after the kick is switched on, and R̂[0] = 0 because in the Itô
#   discretization the kick has not acted yet (Section 6.1): check the alignment of your lags.
_empirical_response_right2 = empirical_response


def empirical_response(k, D, dt, h, steps, n_paths, rng):
    R = np.asarray(_empirical_response_right2(k, D, dt, h, steps + 1, n_paths, rng))
    return R[1:]


# %% tags=["wrong"]
# wrong: FDT residual with T = D instead of D/2
# hint: The temperature in the fluctuation–dissipation theorem is T = D/2 (with ⟨ξξ⟩ = D δ): the
#   residual is (D/2) R(τ) + ∂_τ C(τ) (Exercise 6.1(c)).
def fdt_residual(C, R, dt, D):
    C, R = np.asarray(C, dtype=float), np.asarray(R, dtype=float)
    return D * R[1:-1] + (C[2:] - C[:-2]) / (2.0 * dt)


# %% tags=["rewrite"]
# rewrite: the same T = D, with np.gradient for the centred derivative of C
def fdt_residual(C, R, dt, D):
    C, R = np.asarray(C, dtype=float), np.asarray(R, dtype=float)
    return (D * R + np.gradient(C, dt))[1:-1]


# %% tags=["wrong"]
# wrong: forward difference for dC/dtau, and the residual indexed from j = 0
# hint: Use the centred difference (C[j+1] − C[j−1])/(2Δt) for ∂_τ C and pair it with R[j] at the same
#   lag j ≥ 1 (Exercise 6.1(c)).
def fdt_residual(C, R, dt, D):
    C, R = np.asarray(C, dtype=float), np.asarray(R, dtype=float)
    return 0.5 * D * R[:-2] + (C[1:-1] - C[:-2]) / dt


# %% tags=["alternative"]
# alternative: exact (Doob) OU update instead of Euler-Maruyama, lfilter recursion, FFT correlation, twin difference propagated on its own
def simulate_ou(k, D, dt, steps, n_paths, rng, x0=None):
    from scipy.signal import lfilter
    gen = np.random.default_rng([7, int(np.random.default_rng(rng).integers(2**31))])
    a = np.exp(-k * dt)
    s = np.sqrt(D / (2 * k) * (1 - a * a))
    start = gen.normal(0, np.sqrt(D / (2 * k)), n_paths) if x0 is None else np.full(n_paths, float(x0))
    drive = np.vstack([start, s * gen.standard_normal((steps, n_paths))])
    return lfilter([1.0], [1.0, -a], drive, axis=0)


def ou_correlation(tau, k, D):
    return 0.5 * D / k * np.exp(-k * np.abs(tau))


def ou_response(tau, k):
    tau = np.asarray(tau, dtype=float)
    return np.heaviside(tau, 0.0) * np.exp(-k * np.maximum(tau, 0))


def empirical_correlation(paths, max_lag):
    x = np.atleast_2d(np.asarray(paths, dtype=float).T).T if np.ndim(paths) == 1 else np.asarray(paths, dtype=float)
    S1 = x.shape[0]
    nfft = 1 << int(np.ceil(np.log2(2 * S1)))
    F = np.fft.rfft(x, nfft, axis=0)
    acf = np.fft.irfft(F * np.conj(F), nfft, axis=0)[:max_lag + 1].sum(axis=1)
    return acf / ((S1 - np.arange(max_lag + 1)) * x.shape[1])


def empirical_response(k, D, dt, h, steps, n_paths, rng):
    # the twins share the noise, so d = x_kicked - x obeys d -> (1 - k dt) d with d_1 = h dt
    gen = np.random.default_rng(rng)
    x = gen.normal(0, np.sqrt(D / (2 * k)), n_paths)
    d = np.zeros((steps + 1, n_paths))
    for i in range(steps):
        noise = np.sqrt(D * dt) * gen.standard_normal(n_paths)
        xh = x + d[i]
        xh_next = xh + dt * (-k * xh + (h if i == 0 else 0.0)) + noise
        x = x + dt * (-k * x) + noise
        d[i + 1] = xh_next - x
    return d.mean(axis=1) / (h * dt)


def fdt_residual(C, R, dt, D):
    C, R = np.asarray(C, dtype=float), np.asarray(R, dtype=float)
    T = D / 2
    return np.array([T * R[j] + (C[j + 1] - C[j - 1]) / (2 * dt) for j in range(1, len(C) - 1)])
