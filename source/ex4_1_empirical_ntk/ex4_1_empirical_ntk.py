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
# # ex4_1_empirical_ntk: The neural tangent kernel, by hand, by autograd and at infinite width
#
# *Notes: Sections 4.1–4.2 and 4.4, Exercises 4.1–4.3; Appendix B.5 and Exercise B.6
# (tangent features of a one-hidden-layer network). Background: Sections 3.1–3.4.*
#
# Under gradient flow the training outputs of *any* model move according to one matrix,
# the neural tangent kernel $\Theta$. In this assignment you compute it three ways for a
# one-hidden-layer network (from the analytic tangent features, with torch autograd, and
# in closed form at infinite width), check that its eigen-decomposition is the
# decomposition of the network into "features", and use it, frozen, to predict what the
# trained network does on new inputs.
#
# **Conventions** (notes, Section 3.1). $\mathcal N(0,s)$ has *variance* $s$; the fan-in
# factors $1/\sqrt{\text{fan-in}}$ are explicit in the network and all weights are of order
# one; the first-layer kernel is $K^{(1)}(x,x')=\sigma_w\,x\cdot x'/d$.
#
# **The network.** Inputs $x\in\mathbb R^d$, width $N$, activation $\phi$,
# $$
# f_\theta(x)=\frac1{\sqrt N}\sum_{i=1}^Nc_i\,\phi\big(u_i(x)\big),\qquad
# u_i(x)=\frac{a_i\cdot x}{\sqrt d},\qquad \theta=(c,a)\in\mathbb R^{N+Nd}, \tag{1}
# $$
# initialized with $c_i,a_{ij}\sim\mathcal N(0,\sigma_w)$ i.i.d. (default $\sigma_w=1$). This is
# the network of Sections 3.5 and 4.3 with the first-layer factor $1/\sqrt d$ written out
# (the notes absorb it into $x$ in Section 4.3).
#
# In code a parameter set is a plain dict, `params = {"a": array (N, d), "c": array (N,),
# "activation": name}` with `name` one of `"relu"`, `"erf"`, `"tanh"` (the numpy functions and
# their derivatives are in `ACTIVATIONS` below). The flat parameter vector is ordered
# $\theta=(c_1,\dots,c_N,\,a_{11},\dots,a_{1d},\,a_{21},\dots,a_{Nd})$, i.e.
# `np.concatenate([c, a.ravel()])`. Inputs are stacked as rows of `X`, shape `(n, d)`.
#
# **What you implement** (graded by hidden tests):
#
# | part | function | notes |
# |---|---|---|
# | 2 | `tangent_features(params, X)`, `empirical_ntk(params, X)` | Sections 4.1–4.2, Ex B.6(a) |
# | 3 | `ntk_autograd(model, X)` | Section 4.1 (any MLP, torch autograd) |
# | 4 | `infinite_width_ntk(X, activation, sigma_w=1.0)` | Section 4.3, eq. (4.23) |
# | 5 | `lazy_prediction(Theta_test_train, Theta_train, f0_test, f0_train, y, eta, t)` | Section 4.4, Ex 4.3 |
#
# Written answers (cells reading *Your answer here.*) are graded by hand.

# %% tags=["setup"]
import numpy as np
import scipy.linalg
from scipy import special
import matplotlib.pyplot as plt

# %% tags=["params"]
def draw_params(rng):
    """This year's activation for the figures, the widths of the convergence plot and the training times."""
    import numpy as np

    return {"activation": str(rng.choice(["relu", "erf"])),
            "widths": [int(w) for w in np.round(np.geomspace(60, 20_000, 6) * rng.uniform(0.8, 1.25))],
            "eta_t": sorted(float(v) for v in np.round(np.geomspace(0.05, 5.0, 3) * rng.uniform(0.7, 1.4), 3)),
            "target_frequency": int(rng.integers(2, 5)),
            "seed": int(rng.integers(10_000))}


# %% tags=["provided"]
def _relu(u):
    return np.maximum(u, 0.0)


def _drelu(u):
    return (np.asarray(u) > 0).astype(float)


def _derf(u):
    return 2.0 / np.sqrt(np.pi) * np.exp(-np.asarray(u) ** 2)


# name -> (phi, phi'), acting elementwise on numpy arrays; phi'(0) = 0 for relu
ACTIVATIONS = {
    "relu": (_relu, _drelu),
    "erf": (special.erf, _derf),
    "tanh": (np.tanh, lambda u: 1.0 / np.cosh(u) ** 2),
}


def init_params(N, d, activation, rng, sigma_w=1.0):
    """Random parameters of network (1): c_i, a_ij ~ N(0, sigma_w) (variance sigma_w)."""
    rng = np.random.default_rng(rng)
    return {"a": rng.normal(0.0, np.sqrt(sigma_w), size=(N, d)),
            "c": rng.normal(0.0, np.sqrt(sigma_w), size=N),
            "activation": activation}


def forward(params, X):
    """Network (1) on the rows of X: f(x) = N^{-1/2} sum_i c_i phi(a_i . x / sqrt(d)); shape (n,)."""
    a, c = np.asarray(params["a"], dtype=float), np.asarray(params["c"], dtype=float)
    X = np.atleast_2d(np.asarray(X, dtype=float))
    phi, _ = ACTIVATIONS[params["activation"]]
    return phi(X @ a.T / np.sqrt(X.shape[1])) @ c / np.sqrt(c.size)


def circle_inputs(angles, d=2):
    """Inputs on the circle of radius sqrt(d) in the first two coordinates: x.x/d = 1."""
    angles = np.asarray(angles, dtype=float)
    X = np.zeros((angles.size, d))
    X[:, 0], X[:, 1] = np.cos(angles), np.sin(angles)
    return X * np.sqrt(d)


# %% [markdown]
# ## 1. Gradient flow moves the outputs with the NTK
#
# Gradient flow on the loss $\mathcal L_\theta=\frac12\sum_{\mu=1}^n(f^\mu-y^\mu)^2$, with
# $f^\mu=f_\theta(x^\mu)$, is $\dot\theta=-\eta\nabla_\theta\mathcal L$ (Section 4.1). By the chain rule
# the *outputs* then obey
# $$
# \dot f^\mu = -\eta\sum_{\nu=1}^n\Theta^{\mu\nu}\,\Delta^\nu,\qquad
# \Theta^{\mu\nu}:=\nabla_\theta f^\mu\cdot\nabla_\theta f^\nu = \big(JJ^T\big)^{\mu\nu},\qquad
# \Delta^\nu:=f^\nu-y^\nu, \tag{2}
# $$
# with the Jacobian $J^\mu{}_i=\partial f^\mu/\partial\theta^i$ ($n\times P$). The same
# definition, $\Theta(x,x')=\nabla_\theta f_\theta(x)\cdot\nabla_\theta f_\theta(x')$, extends the kernel to
# any pair of inputs, training or not.
#
# **Exercise 4.1.** Derive (2) using only the chain rule.

# %% [markdown] tags=["answer"] points=2
# **Model answer.** $\partial\mathcal L/\partial\theta^i=\sum_\nu(f^\nu-y^\nu)\,\partial f^\nu/\partial\theta^i$,
# so gradient flow reads $\dot\theta^i=-\eta\sum_\nu\Delta^\nu\,\partial_if^\nu$. The outputs depend on
# time only through $\theta$:
# $$
# \dot f^\mu=\sum_i\frac{\partial f^\mu}{\partial\theta^i}\dot\theta^i
# =-\eta\sum_\nu\Big(\sum_i\partial_if^\mu\,\partial_if^\nu\Big)\Delta^\nu
# =-\eta\sum_\nu\Theta^{\mu\nu}\Delta^\nu .
# $$
# For a general loss $\mathcal L=\mathcal L^{(f)}(f)$ the same steps give
# $\dot f^\mu=-\eta\,\Theta^{\mu\nu}\,\partial\mathcal L^{(f)}/\partial f^\nu$ (notes, eq. 4.10).
#
# *Rubric:* gradient of the loss (1 pt); chain rule for $\dot f$ and identification of
# $\Theta=JJ^T$ (1 pt).

# %% [markdown]
# ## 2. Tangent features of the one-hidden-layer network
#
# Differentiating (1),
# $$
# \frac{\partial f}{\partial c_i}=\frac{\phi(u_i)}{\sqrt N},\qquad
# \frac{\partial f}{\partial a_{ij}}=\frac{c_i\,\phi'(u_i)}{\sqrt N}\,\frac{x_j}{\sqrt d}, \tag{3}
# $$
# and summing products over all $P=N(d+1)$ parameters,
# $$
# \Theta(x,x')=\frac1N\sum_{i=1}^N\phi(u_i)\,\phi(u_i')
# +\frac{x\cdot x'}{d}\;\frac1N\sum_{i=1}^Nc_i^2\,\phi'(u_i)\,\phi'(u_i'),\qquad u_i'=u_i(x'). \tag{4}
# $$
# The first term comes from the readout weights $c$ (a random-features kernel), the second
# from the first-layer weights $a$ (compare Exercise B.6, where the network carried no
# $1/\sqrt N$, $1/\sqrt d$). Both are averages of $N$ terms of order one, so $\Theta=O(1)$ at
# large width: this is why an order-one learning rate is right in this normalization.
#
# **Tasks.** Implement `tangent_features(params, X)`, the $n\times P$ Jacobian (3) in the
# parameter order stated above, and `empirical_ntk(params, X)`, the $n\times n$ Gram matrix
# (4). (`empirical_ntk` need not form $J$: (4) costs $O(nN(n+d))$.)

# %% tags=["graded"]
def tangent_features(params, X):
    """Tangent features J[mu, :] = grad_theta f(x^mu) of network (1), notes eq. (3).

    f(x) = N^{-1/2} sum_i c_i phi(a_i . x / sqrt(d)).

    Arguments:
        params: dict with "a" (array (N, d)), "c" (array (N,)) and "activation"
                ("relu", "erf" or "tanh"; see ACTIVATIONS, with phi'(0) = 0 for relu).
        X: array of shape (n, d), one input per row.

    Returns:
        J: array of shape (n, N + N*d). Columns ordered as theta = concatenate([c, a.ravel()]):
        first the N derivatives d f / d c_i, then d f / d a_ij in row-major order of a.
    """
    a = np.asarray(params["a"], dtype=float)
    c = np.asarray(params["c"], dtype=float)
    X = np.asarray(X, dtype=float)
    phi, dphi = ACTIVATIONS[params["activation"]]
    n, d = X.shape
    N = c.size
    U = X @ a.T / np.sqrt(d)  # (n, N): u_i(x^mu)
    Jc = phi(U) / np.sqrt(N)
    Ja = (c * dphi(U) / np.sqrt(N * d))[:, :, None] * X[:, None, :]  # (n, N, d)
    return np.concatenate([Jc, Ja.reshape(n, N * d)], axis=1)


def empirical_ntk(params, X):
    """Empirical NTK Theta(x^mu, x^nu) = grad f(x^mu) . grad f(x^nu) of network (1), notes eq. (4).

    Arguments:
        params: dict with "a" (array (N, d)), "c" (array (N,)) and "activation"
                ("relu", "erf" or "tanh").
        X: array of shape (n, d), one input per row (training and/or test inputs).

    Returns:
        array of shape (n, n), symmetric positive semidefinite, equal to J @ J.T for the
        tangent features J.
    """
    a = np.asarray(params["a"], dtype=float)
    c = np.asarray(params["c"], dtype=float)
    X = np.asarray(X, dtype=float)
    phi, dphi = ACTIVATIONS[params["activation"]]
    d = X.shape[1]
    N = c.size
    U = X @ a.T / np.sqrt(d)
    F = phi(U)  # readout features
    D = c * dphi(U)  # first-layer sensitivities
    return (F @ F.T + (X @ X.T / d) * (D @ D.T)) / N


# %% tags=["check"]
@check
def check_tangent_features_finite_differences():
    "tangent_features agrees with central finite differences of the provided forward()"
    rng = np.random.default_rng(0)
    params = init_params(5, 3, "tanh", rng)
    X = rng.normal(size=(4, 3))
    J = np.asarray(tangent_features(params, X))
    assert J.shape == (4, 5 + 15), "J should have shape (n, N + N d)"
    theta = np.concatenate([params["c"], params["a"].ravel()])

    def f_of(th):
        return forward({"c": th[:5], "a": th[5:].reshape(5, 3), "activation": "tanh"}, X)

    h = 1e-6
    J_fd = np.stack([(f_of(theta + h * e) - f_of(theta - h * e)) / (2 * h) for e in np.eye(theta.size)], axis=1)
    assert np.allclose(J, J_fd, atol=1e-8), "tangent features differ from finite differences (order of columns?)"
    relu = {"a": np.array([[1.0, 0.0], [0.0, 2.0]]), "c": np.array([0.5, -1.0]), "activation": "relu"}
    Jr = np.asarray(tangent_features(relu, np.array([[0.0, 1.0]])))
    assert np.allclose(Jr[0, 2:4], 0.0), \
        "ReLU unit 1 has pre-activation exactly 0 here: phi'(0) = 0 (ACTIVATIONS), so no gradient to its weights"


@check
def check_empirical_ntk_is_JJT():
    "empirical_ntk equals J J^T, and its eigen-decomposition is the SVD of J (Section 4.2)"
    rng = np.random.default_rng(1)
    params = init_params(30, 2, "erf", rng)
    X = rng.normal(size=(6, 2))
    J = np.asarray(tangent_features(params, X))
    Th = np.asarray(empirical_ntk(params, X))
    assert Th.shape == (6, 6), "the NTK Gram matrix should be (n, n)"
    assert np.allclose(Th, J @ J.T, atol=1e-12), "empirical_ntk should equal J @ J.T"
    s = np.linalg.svd(J, compute_uv=False)
    assert np.allclose(np.sort(np.linalg.eigvalsh(Th)), np.sort(s**2), atol=1e-10), \
        "eigenvalues of Theta should be the squared singular values of J"


# %% [markdown]
# ### Features are the eigen-decomposition of the NTK (Section 4.2)
#
# With the singular value decomposition $J=USV^T$ ($U\in O(n)$, $V\in O(P)$,
# $S=[\mathrm{diag}(s_1,\dots,s_n)\;\mathbf 0]$ for $P>n$), $\Theta=JJ^T=US^2U^T$: the NTK's
# eigenvectors are the left singular vectors of $J$, the "features" (natural modes in the
# space of function values), with eigenvalues $s_k^2$; the Fisher matrix $J^TJ=VS^TSV^T$ has
# the same nonzero eigenvalues and $P-n$ zeros. The figure shows this for a small random
# network, with the eigenvectors of $\Theta$ on inputs spread around a circle. (Eigenvalues
# below $10^{-12}$ of the largest are rounding noise and are not shown. For a ReLU network
# without biases there are many: on the circle it can only produce the constant, the first
# harmonic and even harmonics, because $\mathrm{relu}(\cos\gamma)$ and
# $\mathbf 1[\cos\gamma>0]\,(\cos\gamma,\sin\gamma)$ contain no other frequencies, so its tangent
# features span a subspace of fixed dimension.)

# %% tags=["figure"]
try:
    rng_fig = np.random.default_rng(PARAMS["seed"])
    angles = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    Xc = circle_inputs(angles)
    pf = init_params(200, 2, PARAMS["activation"], rng_fig)
    J = np.asarray(tangent_features(pf, Xc))
    Th = np.asarray(empirical_ntk(pf, Xc))
    ev, evec = np.linalg.eigh(Th)
    Uj, sj, _ = np.linalg.svd(J, full_matrices=False)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.6))
    keep = ev[::-1] > 1e-12 * ev.max()
    ax1.semilogy(np.flatnonzero(keep), ev[::-1][keep], "o", label=r"eigenvalues of $\Theta$")
    ax1.semilogy(np.flatnonzero(keep), (sj**2)[keep], ".", label=r"$s_k^2$ from the SVD of $J$")
    ax1.set_xlabel("k")
    ax1.set_title(f"NTK spectrum, {PARAMS['activation']} network, N = 200, n = 40")
    ax1.legend()
    for k in range(4):
        v, u = evec[:, -1 - k], Uj[:, k]
        ax2.plot(angles, v, color=f"C{k}", label=f"eigenvector {k + 1} of Theta")
        ax2.plot(angles, np.sign(u @ v) * u, ".", color=f"C{k}")
    ax2.set_xlabel("angle of the input on the circle")
    ax2.set_title("top eigenvectors (lines) = left singular vectors of J (dots)")
    ax2.legend(fontsize=7)
    plt.tight_layout()
    plt.show()
except NotImplementedError:
    print("tangent_features or empirical_ntk is not implemented yet")

# %% [markdown]
# ## 3. The NTK by automatic differentiation
#
# For deeper networks nobody writes (3) by hand: the Jacobian comes from automatic
# differentiation, and $\Theta=JJ^T$. Implement `ntk_autograd(model, X)` with **torch**
# (float64). `model` is plain data, one of
#
# * the one-hidden-layer `params` dict above (`"a"`, `"c"`, `"activation"`), or
# * a deep MLP `{"weights": [W1, ..., W_{L+1}], "activation": name}` with `W1` of shape
#   $(N_1,d)$, $W_\ell$ of shape $(N_\ell,N_{\ell-1})$ and the last one of shape $(1,N_L)$,
#   computing, with the fan-in normalization of Section 3.1 and no biases,
#   $$
#   z^{(1)}=\frac{W_1x}{\sqrt d},\qquad z^{(\ell)}=\frac{W_\ell\,\phi(z^{(\ell-1)})}{\sqrt{N_{\ell-1}}}\quad(\ell=2,\dots,L+1),\qquad f(x)=z^{(L+1)} .
#   $$
#   The one-hidden-layer network (1) is the case `weights = [a, c[None, :]]`.
#
# Build the network as a torch function of its weight tensors (`torch.relu`, `torch.erf`,
# `torch.tanh`), get the Jacobian of the $n$ outputs with respect to *all* weights (for
# instance `torch.autograd.functional.jacobian` or `torch.func.jacrev`), flatten it to
# $n\times P$ and return $JJ^T$ as a numpy array.

# %% tags=["graded"]
def ntk_autograd(model, X):
    """Empirical NTK J J^T of an MLP, with the Jacobian J from torch autograd (float64).

    Arguments:
        model: plain-data description of the network, either
               {"a": (N, d), "c": (N,), "activation": name}   (network (1)), or
               {"weights": [W1 (N1, d), W2 (N2, N1), ..., W_{L+1} (1, N_L)], "activation": name}
               computing z1 = W1 x / sqrt(d), z_l = W_l phi(z_{l-1}) / sqrt(N_{l-1}), f = z_{L+1}
               (no biases). name: "relu", "erf" or "tanh".
        X: array of shape (n, d), one input per row.

    Returns:
        numpy array of shape (n, n): Theta[mu, nu] = sum over all weights of
        d f(x^mu)/d w * d f(x^nu)/d w.
    """
    import torch

    if "weights" in model:
        weights = [np.asarray(W, dtype=float) for W in model["weights"]]
    else:
        weights = [np.asarray(model["a"], dtype=float), np.asarray(model["c"], dtype=float)[None, :]]
    act = {"relu": torch.relu, "erf": torch.erf, "tanh": torch.tanh}[model["activation"]]
    Xt = torch.tensor(np.asarray(X, dtype=float), dtype=torch.float64)
    n, d = Xt.shape

    def f(*ws):
        z = Xt @ ws[0].T / d**0.5  # (n, N1)
        for W in ws[1:]:
            z = act(z) @ W.T / W.shape[1] ** 0.5
        return z[:, 0]

    tensors = tuple(torch.tensor(W, dtype=torch.float64) for W in weights)
    jac = torch.autograd.functional.jacobian(f, tensors)
    J = torch.cat([j.reshape(n, -1) for j in jac], dim=1)
    return (J @ J.T).numpy()


# %% tags=["check"]
@check
def check_autograd_matches_analytic():
    "ntk_autograd on network (1) agrees with empirical_ntk, in both model formats"
    rng = np.random.default_rng(2)
    params = init_params(12, 3, "relu", rng)
    X = rng.normal(size=(5, 3))
    Th = np.asarray(ntk_autograd(params, X))
    assert Th.shape == (5, 5), "ntk_autograd should return an (n, n) array"
    assert np.allclose(Th, empirical_ntk(params, X), atol=1e-10), "autograd and analytic NTK differ"
    deep = {"weights": [params["a"], params["c"][None, :]], "activation": "relu"}
    assert np.allclose(ntk_autograd(deep, X), Th, atol=1e-10), "the 'weights' format should give the same NTK"


@check
def check_autograd_deep_tanh_against_finite_differences():
    "a deep tanh MLP (two hidden layers): ntk_autograd equals J J^T with J from central differences"
    rng = np.random.default_rng(7)
    Ws = [rng.normal(size=(3, 2)), rng.normal(size=(4, 3)), rng.normal(size=(1, 4))]
    X = rng.normal(size=(2, 2))

    def f(ws):
        z = X @ ws[0].T / np.sqrt(2)
        for W in ws[1:]:
            z = np.tanh(z) @ W.T / np.sqrt(W.shape[1])
        return z[:, 0]

    cols, h = [], 1e-6
    for k, W in enumerate(Ws):
        for idx in np.ndindex(W.shape):
            up = [w.copy() for w in Ws]
            dn = [w.copy() for w in Ws]
            up[k][idx] += h
            dn[k][idx] -= h
            cols.append((f(up) - f(dn)) / (2 * h))
    J = np.array(cols).T
    Th = np.asarray(ntk_autograd({"weights": Ws, "activation": "tanh"}, X))
    assert Th.shape == (2, 2) and np.allclose(Th, J @ J.T, rtol=1e-6, atol=1e-9), \
        "the NTK sums over the weights of every layer, with the fan-in factors 1/sqrt(N_(l-1))"


# %% [markdown]
# **Exercise 4.2 (How fast does the kernel move?).** Show that along gradient flow
# $$
# \frac{d}{dt}\Theta^{\mu\nu}=-\eta\,\big[\nabla_\theta f^\mu\cdot\nabla^2_\theta f^\nu\cdot\nabla_\theta f^\rho\big]\,
# \frac{\partial\mathcal L^{(f)}}{\partial f^\rho}+(\mu\leftrightarrow\nu),
# $$
# and use (3) to explain why, for network (1), the Hessian $\nabla^2_\theta f$ is
# block-sparse with blocks of size $O(1/\sqrt N)$.

# %% [markdown] tags=["answer"] points=2
# **Model answer.** $\Theta^{\mu\nu}=\sum_i\partial_if^\mu\partial_if^\nu$, so
# $\dot\Theta^{\mu\nu}=\sum_{i,j}\big(\partial_i\partial_jf^\mu\,\partial_if^\nu+\partial_if^\mu\,\partial_i\partial_jf^\nu\big)\dot\theta^j$.
# Insert $\dot\theta^j=-\eta\sum_\rho\partial_jf^\rho\,\partial\mathcal L^{(f)}/\partial f^\rho$: the second
# term is $-\eta\,[\nabla f^\mu\cdot\nabla^2f^\nu\cdot\nabla f^\rho]\,\partial_\rho\mathcal L^{(f)}$ and the
# first is the same with $\mu\leftrightarrow\nu$. For network (1) the only nonzero second
# derivatives are $\partial^2f/\partial c_i\partial a_{ij}=\phi'(u_i)x_j/\sqrt{Nd}$ and
# $\partial^2f/\partial a_{ij}\partial a_{ik}=c_i\phi''(u_i)x_jx_k/(d\sqrt N)$: every block couples the
# $d+1$ parameters $(c_i,a_i)$ of one neuron only, and carries an explicit $1/\sqrt N$. The
# Hessian is block diagonal with $N$ blocks of size $(d+1)\times(d+1)$ and operator norm
# $O(1/\sqrt N)$, while $|\nabla f|=O(1)$, so $\dot\Theta=O(1/\sqrt N)$ (Section 4.3).
#
# *Rubric:* product rule and substitution of the flow (1 pt); the block structure and the
# $1/\sqrt N$ of the Hessian (1 pt).

# %% [markdown]
# ## 4. The NTK at infinite width
#
# At initialization the $N$ terms in each average of (4) are i.i.d., so by the law of
# large numbers, as $N\to\infty$ (with $c_i,a_{ij}\sim\mathcal N(0,\sigma_w)$, hence
# $\mathbb Ec_i^2=\sigma_w$, and $c_i$ independent of $a_i$),
# $$
# \Theta_\infty(x,x') = \mathbb E\big[\phi(u)\phi(u')\big]+K^{(1)}(x,x')\;\mathbb E\big[\phi'(u)\phi'(u')\big],
# \qquad (u,u')\sim\mathcal N\!\left(0,\begin{pmatrix}K_{11}&K_{12}\\K_{12}&K_{22}\end{pmatrix}\right), \tag{5}
# $$
# with $K_{11}=K^{(1)}(x,x)$, $K_{22}=K^{(1)}(x',x')$, $K_{12}=K^{(1)}(x,x')$ and
# $K^{(1)}(x,x')=\sigma_w\,x\cdot x'/d$. This is the notes' recursion (4.23) for one hidden layer,
# $\Theta=\bar K^{(2)}/\sigma_w+\sigma_w\dot{\bar K}^{(2)}\,x\cdot x'/d$. Fluctuations around it are
# $O(1/\sqrt N)$. For two activations the Gaussian expectations are elementary. With
# $\rho=K_{12}/\sqrt{K_{11}K_{22}}=\cos\vartheta$, $\vartheta\in[0,\pi]$:
# $$
# \textbf{ReLU:}\quad \mathbb E[\phi(u)\phi(u')]=\frac{\sqrt{K_{11}K_{22}}}{2\pi}\big(\sin\vartheta+(\pi-\vartheta)\cos\vartheta\big),\qquad
# \mathbb E[\phi'(u)\phi'(u')]=\frac{\pi-\vartheta}{2\pi};
# $$
# $$
# \textbf{erf:}\quad \mathbb E[\phi(u)\phi(u')]=\frac2\pi\arcsin\frac{2K_{12}}{\sqrt{(1+2K_{11})(1+2K_{22})}},\qquad
# \mathbb E[\phi'(u)\phi'(u')]=\frac4\pi\,\frac1{\sqrt{(1+2K_{11})(1+2K_{22})-4K_{12}^2}} .
# $$
# (The first ReLU expectation, $\mathbb E[\phi(u)\phi(u')]$, is the arc-cosine kernel of Cho & Saul.)
#
# **Task.** Implement `infinite_width_ntk(X, activation, sigma_w=1.0)` for `"relu"` and
# `"erf"` (raise `ValueError` for other names). Clip $\rho$ to $[-1,1]$ before `arccos`:
# for parallel inputs rounding can push it past 1.

# %% tags=["graded"]
def infinite_width_ntk(X, activation, sigma_w=1.0):
    """Infinite-width NTK of network (1) at initialization c, a ~ N(0, sigma_w), notes eq. (5).

    Theta(x, x') = E[phi(u) phi(u')] + K1(x, x') E[phi'(u) phi'(u')],
    (u, u') ~ N(0, K1 on {x, x'}),  K1(x, x') = sigma_w x.x' / d.

    Arguments:
        X: array of shape (n, d), nonzero inputs, one per row.
        activation: "relu" or "erf" (closed forms); anything else raises ValueError.
        sigma_w: float > 0, variance of the initial weights (default 1).

    Returns:
        array of shape (n, n), symmetric positive semidefinite.
    """
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    K = sigma_w * (X @ X.T) / d
    k = np.diag(K)
    if activation == "relu":
        norm = np.sqrt(np.outer(k, k))
        rho = np.clip(K / norm, -1.0, 1.0)
        vt = np.arccos(rho)
        e_phi = norm / (2 * np.pi) * (np.sin(vt) + (np.pi - vt) * rho)
        e_dphi = (np.pi - vt) / (2 * np.pi)
    elif activation == "erf":
        A = np.outer(1 + 2 * k, 1 + 2 * k)
        e_phi = 2 / np.pi * np.arcsin(np.clip(2 * K / np.sqrt(A), -1.0, 1.0))
        e_dphi = 4 / np.pi / np.sqrt(A - 4 * K**2)
    else:
        raise ValueError(f"no closed form for activation {activation!r}; use 'relu' or 'erf'")
    return e_phi + K * e_dphi


# %% tags=["check"]
@check
def check_infinite_width_vs_wide_network():
    "a wide random network's empirical NTK is close to infinite_width_ntk (both activations)"
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 3))
    for act in ["relu", "erf"]:
        Th_inf = np.asarray(infinite_width_ntk(X, act))
        assert Th_inf.shape == (5, 5) and np.allclose(Th_inf, Th_inf.T), "should be a symmetric (n, n) array"
        Th_N = np.asarray(empirical_ntk(init_params(40_000, 3, act, rng), X))
        err = np.max(np.abs(Th_N - Th_inf)) / np.max(np.abs(Th_inf))
        assert err < 0.05, f"{act}: relative difference {err:.3f} at N = 40000 (expected ~ 1/sqrt(N))"
    ones = np.ones((2, 3))
    assert np.all(np.isfinite(infinite_width_ntk(ones, "relu"))), "parallel inputs give nan: clip rho"


@check
def check_infinite_width_sigma_w():
    "sigma_w is the variance of both layers: ReLU's NTK scales like sigma_w; erf at sigma_w = 2 matches a wide network"
    rng = np.random.default_rng(9)
    X = rng.normal(size=(4, 3))
    assert np.allclose(infinite_width_ntk(X, "relu", 2.0), 2.0 * np.asarray(infinite_width_ntk(X, "relu"))), \
        "ReLU is homogeneous: both terms of (5) are proportional to sigma_w"
    Th_inf = np.asarray(infinite_width_ntk(X, "erf", sigma_w=2.0))
    Th_N = np.asarray(empirical_ntk(init_params(40_000, 3, "erf", rng, sigma_w=2.0), X))
    assert np.max(np.abs(Th_N - Th_inf)) / np.max(np.abs(Th_inf)) < 0.05, "erf at sigma_w = 2: off the wide network"


# %% [markdown]
# **Written question.** Derive the four Gaussian expectations of section 4 (ReLU and erf).
# *Hint:* Price's theorem, $\partial_{K_{12}}\mathbb E[g(u)h(u')]=\mathbb E[g'(u)h'(u')]$, reduces each
# $\mathbb E[\phi\phi]$ to $\mathbb E[\phi'\phi']$ plus its value at $K_{12}=0$.

# %% [markdown] tags=["answer"] points=4
# **Model answer.** *Step expectations.* For ReLU, $\phi'(u)=\mathbf 1[u>0]$ and
# $\mathbb E[\phi'\phi']=P(u>0,u'>0)$. Write $u=\sqrt{K_{11}}\,e\cdot g$, $u'=\sqrt{K_{22}}\,e'\cdot g$ with
# $g\sim\mathcal N(0,I_2)$ and unit vectors at angle $\vartheta$; $g$ is isotropic, and the
# half-planes $e\cdot g>0$, $e'\cdot g>0$ intersect in a wedge of angle $\pi-\vartheta$, so
# $P=(\pi-\vartheta)/(2\pi)$. For erf, $\phi'(u)=\frac2{\sqrt\pi}e^{-u^2}$ and
# $\mathbb E\,e^{-u^2-u'^2}=\det(I+2K)^{-1/2}=[(1+2K_{11})(1+2K_{22})-4K_{12}^2]^{-1/2}$ (a Gaussian
# integral: $\int e^{-\frac12v^T(K^{-1}+2I)v}dv/\sqrt{\det 2\pi K}$).
#
# *Integrating in $K_{12}$ (Price).* At $K_{12}=0$, $u,u'$ are independent: for ReLU
# $\mathbb E[\phi(u)\phi(u')]=\mathbb E\phi(u)\,\mathbb E\phi(u')=\sqrt{K_{11}K_{22}}/(2\pi)$; for erf it is $0$
# (odd function). Then with $K_{12}=\sqrt{K_{11}K_{22}}\,s$,
# ReLU: $\mathbb E[\phi(u)\phi(u')]=\frac{\sqrt{K_{11}K_{22}}}{2\pi}\big[1+\int_0^\rho(\pi-\arccos s)\,ds\big]
# =\frac{\sqrt{K_{11}K_{22}}}{2\pi}\big[\sin\vartheta+(\pi-\vartheta)\cos\vartheta\big]$, using
# $\int_0^\rho\arccos s\,ds=\rho\arccos\rho-\sqrt{1-\rho^2}+1$.
# erf: $\frac4\pi\int_0^{K_{12}}\frac{dk}{\sqrt{A-4k^2}}=\frac2\pi\arcsin\frac{2K_{12}}{\sqrt A}$,
# $A=(1+2K_{11})(1+2K_{22})$.
#
# *Rubric:* orthant probability (1 pt); Gaussian integral for erf' (1 pt); the integration
# in $K_{12}$ with the correct constants of integration (2 pts).

# %% [markdown]
# **Figure.** Convergence of the empirical NTK to (5): the kernel $\Theta(x_0,x)$ between a
# fixed input and inputs around the circle $|x|^2=d$, for one random network at each of
# this year's widths `PARAMS["widths"]`, and the relative Frobenius distance
# $\|\Theta_N-\Theta_\infty\|/\|\Theta_\infty\|$ averaged over 4 initializations, against $N$.

# %% tags=["figure"]
try:
    rng_fig = np.random.default_rng(PARAMS["seed"] + 1)
    act = PARAMS["activation"]
    angles = np.linspace(-np.pi, np.pi, 61)
    Xc = circle_inputs(angles)
    Th_inf = np.asarray(infinite_width_ntk(Xc, act))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    errs = []
    for k, N in enumerate(PARAMS["widths"]):
        draws = [np.asarray(empirical_ntk(init_params(N, 2, act, rng_fig), Xc)) for _ in range(4)]
        errs.append(np.mean([np.linalg.norm(T - Th_inf) / np.linalg.norm(Th_inf) for T in draws]))
        ax1.plot(angles, draws[0][30], color=plt.cm.viridis(k / len(PARAMS["widths"])), lw=1, label=f"N = {N}")
    ax1.plot(angles, Th_inf[30], "k--", lw=2, label=r"$N=\infty$")
    ax1.set_xlabel(r"angle between $x_0$ and $x$")
    ax1.set_ylabel(r"$\Theta(x_0, x)$")
    ax1.set_title(f"{act} network: empirical NTK around the circle")
    ax1.legend(fontsize=7)
    Ns = np.array(PARAMS["widths"], dtype=float)
    slope = np.polyfit(np.log(Ns), np.log(errs), 1)[0]
    ax2.loglog(Ns, errs, "o-", label=f"measured (slope {slope:.2f})")
    ax2.loglog(Ns, errs[0] * np.sqrt(Ns[0] / Ns), "k:", label=r"$N^{-1/2}$")
    ax2.set_xlabel("width N")
    ax2.set_ylabel(r"$\|\Theta_N-\Theta_\infty\|_F/\|\Theta_\infty\|_F$")
    ax2.set_title("law of large numbers for the NTK")
    ax2.legend()
    plt.tight_layout()
    plt.show()
except NotImplementedError:
    print("empirical_ntk or infinite_width_ntk is not implemented yet")

# %% [markdown]
# ## 5. Lazy learning: predictions with a frozen kernel
#
# If $\Theta$ does not change during training (large width, Section 4.3), (2) is a linear
# ODE with constant coefficients for the residual on the training set,
# $\dot\Delta=-\eta\hat\Theta\Delta$ with $\hat\Theta^{\mu\nu}=\Theta(x^\mu,x^\nu)$, so
# $$
# \Delta(t)=e^{-\eta t\hat\Theta}\Delta(0),\qquad \Delta(0)=f_0(X)-y, \tag{6}
# $$
# and in the eigenbasis $\hat\Theta=\sum_ks_k^2u_ku_k^T$ each mode decays at its own rate,
# $u_k\cdot\Delta(t)=e^{-\eta s_k^2t}\,u_k\cdot\Delta(0)$ (notes, 4.35). At a test input $x$ the
# same chain rule gives $\dot f_t(x)=-\eta\sum_\mu\Theta(x,x^\mu)\Delta^\mu(t)$, and integrating
# (Exercise 4.3),
# $$
# f_t(x)=f_0(x)-\Theta(x,X)\,\hat\Theta^{-1}\big(I-e^{-\eta t\hat\Theta}\big)\big(f_0(X)-y\big)
# \;\xrightarrow{t\to\infty}\; f_0(x)-\Theta(x,X)\,\hat\Theta^{-1}\big(f_0(X)-y\big). \tag{7}
# $$
# Careful: $e^{-\eta t\hat\Theta}$ is a **matrix** exponential. The combination
# $\hat\Theta^{-1}(I-e^{-\eta t\hat\Theta})=\sum_k\frac{1-e^{-\eta ts_k^2}}{s_k^2}u_ku_k^T$ is finite even
# for a singular $\hat\Theta$ (the filter tends to $\eta t$ as $s_k^2\to0$); only $t=\infty$ needs
# $\hat\Theta$ invertible.
#
# **Task.** Implement `lazy_prediction`, eq. (7), for a finite $t\ge0$ or `t = np.inf`.

# %% tags=["graded"]
def lazy_prediction(Theta_test_train, Theta_train, f0_test, f0_train, y, eta, t):
    """Frozen-kernel (lazy) prediction of gradient flow at time t, notes (4.36) / Exercise 4.3.

    f_t(x) = f0(x) - Theta(x, X) Theta_train^{-1} (I - exp(-eta t Theta_train)) (f0(X) - y),
    with the matrix exponential; at t = inf the factor (I - exp(...)) is the identity.

    Arguments:
        Theta_test_train: array (m, n), NTK between m test inputs and the n training inputs.
        Theta_train: array (n, n), NTK Gram matrix of the training inputs (symmetric PSD;
                     it must be invertible only for t = inf).
        f0_test: array (m,), network outputs at initialization on the test inputs.
        f0_train: array (n,), network outputs at initialization on the training inputs.
        y: array (n,), training labels.
        eta: float > 0, learning rate.
        t: float >= 0 or np.inf, training time.

    Returns:
        array of shape (m,): f_t at the test inputs.
    """
    Theta_test_train = np.asarray(Theta_test_train, dtype=float)
    Theta_train = np.asarray(Theta_train, dtype=float)
    r0 = np.asarray(f0_train, dtype=float) - np.asarray(y, dtype=float)
    s, U = np.linalg.eigh(Theta_train)
    if np.isinf(t):
        g = 1.0 / s
    else:
        x = eta * t * s
        # (1 - exp(-eta t s)) / s, continued to eta t at s = 0
        safe = np.where(np.abs(x) > 1e-12, s, 1.0)
        g = np.where(np.abs(x) > 1e-12, -np.expm1(-x) / safe, eta * t)
    return np.asarray(f0_test, dtype=float) - Theta_test_train @ (U @ (g * (U.T @ r0)))


# %% tags=["check"]
@check
def check_lazy_prediction_limits():
    "lazy_prediction: f_0 at t = 0, interpolation at t = inf, matrix-exponential decay on the training set"
    rng = np.random.default_rng(4)
    A = rng.normal(size=(5, 9))
    Th = A @ A.T / 9
    f0, y = rng.normal(size=5), rng.normal(size=5)
    out = np.asarray(lazy_prediction(Th, Th, f0, f0, y, 0.7, 0.0))
    assert out.shape == (5,) and np.allclose(out, f0), "at t = 0 the prediction is f_0"
    assert np.allclose(lazy_prediction(Th, Th, f0, f0, y, 0.7, np.inf), y), "at t = inf the training labels are fit"
    res = np.asarray(lazy_prediction(Th, Th, f0, f0, y, 0.7, 1.3)) - y
    assert np.allclose(res, scipy.linalg.expm(-0.7 * 1.3 * Th) @ (f0 - y), atol=1e-10), \
        "training residual should be expm(-eta t Theta) (f0 - y)"


@check
def check_lazy_prediction_test_points_and_singular_kernel():
    "only eta t matters; test points that are training points follow them; a singular kernel is fine at finite t"
    rng = np.random.default_rng(5)
    A = rng.normal(size=(4, 2))                      # rank 2: a singular 4 x 4 kernel
    Th = A @ A.T
    f0, y = rng.normal(size=4), rng.normal(size=4)
    train = np.asarray(lazy_prediction(Th, Th, f0, f0, y, 0.35, 2.6))
    assert np.all(np.isfinite(train)), "a singular Theta_train is allowed at finite t (the filter tends to eta t)"
    assert np.allclose(train - y, scipy.linalg.expm(-0.91 * Th) @ (f0 - y), atol=1e-10), \
        "training residual should be expm(-eta t Theta) (f0 - y), with eta t = 0.35 x 2.6"
    test = np.asarray(lazy_prediction(Th[[2, 0]], Th, f0[[2, 0]], f0, y, 0.7, 1.3))
    assert np.allclose(test, train[[2, 0]]), "a test point equal to a training point is predicted like it"


# %% [markdown]
# **Exercise 4.3, written.** Derive (7), and show that at $t\to\infty$ the trained network is an
# affine function of the initial one. Why does $f_\infty(x)$ still depend on the random
# initialization, and what does averaging over it give?

# %% [markdown] tags=["answer"] points=4
# **Model answer.** For any input $x$, by the chain rule as in Exercise 4.1,
# $\frac d{dt}f_t(x)=\nabla_\theta f(x)\cdot\dot\theta=-\eta\sum_\mu\Theta(x,x^\mu)\Delta^\mu(t)$, and with a
# constant kernel and (6),
# $f_t(x)=f_0(x)-\eta\,\Theta(x,X)\int_0^te^{-\eta s\hat\Theta}ds\,\Delta(0)
# =f_0(x)-\Theta(x,X)\hat\Theta^{-1}(I-e^{-\eta t\hat\Theta})\Delta(0)$ (integrate mode by mode:
# $\eta\int_0^te^{-\eta ss_k^2}ds=(1-e^{-\eta ts_k^2})/s_k^2$). As $t\to\infty$ the exponential
# vanishes for $\hat\Theta>0$, leaving $f_\infty(x)=f_0(x)-\Theta(x,X)\hat\Theta^{-1}(f_0(X)-y)$: affine
# in the function $f_0$ (values at $x$ and on $X$). It still depends on the initialization
# through $f_0$, which the lazy flow cannot forget: only the part of $f_0$ "seen" on the
# training set is corrected, through the kernel. Since at infinite width $f_0$ is a centred
# Gaussian process with the NNGP kernel $K$ and $\Theta$ is deterministic, $f_\infty$ is again a
# Gaussian process, with mean $\Theta(x,X)\hat\Theta^{-1}y$ (kernel regression with the NTK)
# and a covariance built from $K$ and $\Theta$ (notes, eq. 4.38).
#
# *Rubric:* test-point flow and its integral with the matrix exponential (2 pts); the
# $t\to\infty$ limit (1 pt); the role of $f_0$ and the Gaussian-process average (1 pt).

# %% [markdown]
# **Figure.** Lazy training of a width-2000 network (this year's activation) on $n=12$
# points of the circle, labels $y=\sin(k\gamma)+\frac12\cos\gamma$ with $k$ =
# `PARAMS["target_frequency"]`: the frozen-kernel predictions (7) at this year's training
# times `PARAMS["eta_t"]` and at $t=\infty$, using the network's own empirical NTK and
# initial function.

# %% tags=["figure"]
try:
    rng_fig = np.random.default_rng(PARAMS["seed"] + 2)
    act, kf = PARAMS["activation"], PARAMS["target_frequency"]
    g_train = np.linspace(-np.pi, np.pi, 12, endpoint=False) + 0.1
    g_test = np.linspace(-np.pi, np.pi, 300)
    X_all = circle_inputs(np.concatenate([g_train, g_test]))
    y_train = np.sin(kf * g_train) + 0.5 * np.cos(g_train)
    pn = init_params(2000, 2, act, rng_fig)
    Th_all = np.asarray(empirical_ntk(pn, X_all))
    f0_all = forward(pn, X_all)
    n_tr = g_train.size
    fig, ax = plt.subplots(figsize=(7.5, 4))
    ax.plot(g_test, f0_all[n_tr:], color="0.6", lw=1, label="$f_0$ (initialization)")
    for k, et in enumerate(PARAMS["eta_t"] + [np.inf]):
        pred = lazy_prediction(Th_all[n_tr:, :n_tr], Th_all[:n_tr, :n_tr], f0_all[n_tr:], f0_all[:n_tr],
                               y_train, 1.0, et)
        ax.plot(g_test, pred, color=plt.cm.plasma(k / 4), label=rf"$\eta t$ = {et}")
    ax.plot(g_test, np.sin(kf * g_test) + 0.5 * np.cos(g_test), "k:", label="target")
    ax.plot(g_train, y_train, "ko")
    ax.set_xlabel(r"angle $\gamma$ of the input")
    ax.set_ylabel("$f_t(x)$")
    ax.set_title("Lazy (frozen-NTK) predictions during training")
    ax.legend(fontsize=7, ncol=2)
    plt.show()
except NotImplementedError:
    print("empirical_ntk or lazy_prediction is not implemented yet")

# %% tags=["solution"]
# Independent cross-checks
#
# 1. `tangent_features` against **central finite differences** of `forward` (all three
#    activations), and `empirical_ntk` against $JJ^T$ and against `ntk_autograd`
#    (**torch autograd**); `ntk_autograd` on a deep MLP against finite differences of a
#    numpy forward pass.
# 2. **Eigen-decomposition = features:** eigenvalues of `empirical_ntk` equal the squared
#    singular values of `tangent_features`, eigenvectors equal the left singular vectors,
#    and the Fisher matrix $J^TJ$ has the same nonzero spectrum plus $P-n$ zeros.
# 3. `infinite_width_ntk` against **2-d Gauss–Hermite quadrature** of (5) (smooth erf: to
#    machine precision; ReLU: by quadrature in polar coordinates, where the kink is on a
#    ray) and against a **Monte Carlo** average of empirical NTKs of wide networks (within
#    a few standard errors), for $\sigma_w=1$ and $\sigma_w=2$.
# 4. `lazy_prediction` against **explicit Euler integration** of the linearized parameter
#    flow $\dot{\delta\theta}=-\eta J_0^T(f_0(X)+J_0\delta\theta-y)$, $f^{\rm lin}_t(x)=f_0(x)+J_0(x)\delta\theta$,
#    and against `scipy.linalg.expm` with a linear solve.
# 5. Exercise 4.2: $\dot\Theta$ from finite differences of the NTK along the flow against the
#    Hessian formula, with Hessians from torch.
# 1. finite differences, autograd, deep MLP
import torch

rng = np.random.default_rng(2025)
worst_fd = worst_ag = 0.0
for act in ["relu", "erf", "tanh"]:
    prm = init_params(7, 3, act, rng)
    Xs = rng.normal(size=(5, 3))
    theta0 = np.concatenate([prm["c"], prm["a"].ravel()])

    def f_theta(th, act=act, Xs=Xs):
        return forward({"c": th[:7], "a": th[7:].reshape(7, 3), "activation": act}, Xs)

    h = 1e-6
    J_fd = np.stack([(f_theta(theta0 + h * e) - f_theta(theta0 - h * e)) / (2 * h)
                     for e in np.eye(theta0.size)], axis=1)
    J_an = tangent_features(prm, Xs)
    worst_fd = max(worst_fd, np.max(np.abs(J_an - J_fd)))
    Th_an = empirical_ntk(prm, Xs)
    assert np.allclose(Th_an, J_an @ J_an.T, atol=1e-13)
    worst_ag = max(worst_ag, np.max(np.abs(Th_an - ntk_autograd(prm, Xs))))
assert worst_fd < 1e-8 and worst_ag < 1e-12   # the difference quotient's error is round-off (~1e-16/h): bounds
print("tangent features vs finite differences: < 1e-8; analytic NTK vs torch autograd: < 1e-12")


def deep_forward(weights, act, X):
    phi = ACTIVATIONS[act][0]
    z = X @ weights[0].T / np.sqrt(X.shape[1])
    for W in weights[1:]:
        z = phi(z) @ W.T / np.sqrt(W.shape[1])
    return z[:, 0]


dims = [4, 9, 7, 5, 1]
weights = [rng.normal(size=(dims[k + 1], dims[k])) for k in range(len(dims) - 1)]
Xs = rng.normal(size=(6, 4))
sizes = [W.size for W in weights]
flat0 = np.concatenate([W.ravel() for W in weights])


def unflatten(v):
    out, pos = [], 0
    for W, s in zip(weights, sizes):
        out.append(v[pos:pos + s].reshape(W.shape))
        pos += s
    return out


J_fd = np.stack([(deep_forward(unflatten(flat0 + 1e-6 * e), "tanh", Xs)
                  - deep_forward(unflatten(flat0 - 1e-6 * e), "tanh", Xs)) / 2e-6 for e in np.eye(flat0.size)], axis=1)
err_deep = np.max(np.abs(ntk_autograd({"weights": weights, "activation": "tanh"}, Xs) - J_fd @ J_fd.T))
assert err_deep < 1e-8
print(f"deep MLP (widths {dims}): ntk_autograd vs finite-difference J J^T: < 1e-8")

# %% tags=["solution"]
# 2. eigen-decomposition of the NTK = SVD of the tangent features; Fisher = J^T J
prm = init_params(25, 3, "erf", rng)
Xs = rng.normal(size=(8, 3))
J = tangent_features(prm, Xs)
ev, evec = np.linalg.eigh(empirical_ntk(prm, Xs))
Uj, sj, Vt = np.linalg.svd(J)
ev, evec = ev[::-1], evec[:, ::-1]
assert np.allclose(ev, sj**2, rtol=1e-10)
assert np.allclose(np.abs(np.sum(evec * Uj, axis=0)), 1.0, atol=1e-8)  # same vectors up to sign
fisher_ev = np.linalg.eigvalsh(J.T @ J)[::-1]
P = J.shape[1]
assert np.allclose(fisher_ev[:8], sj**2, rtol=1e-8) and np.max(np.abs(fisher_ev[8:])) < 1e-10
print(f"Theta eigenvalues = s_k^2 (n = 8), Fisher J^T J: the same 8 plus {P - 8} zeros")

# %% tags=["solution"]
# 3. infinite-width NTK: 2-d Gauss-Hermite quadrature and Monte Carlo over wide networks
import scipy.integrate

gh_x, gh_w = np.polynomial.hermite_e.hermegauss(250)  # probabilists' Hermite: weight exp(-x^2/2)
gh_w = gh_w / gh_w.sum()


def quad_expect(g, h, K2):
    """E[g(u) h(u')] for (u, u') ~ N(0, K2) by tensor-product Gauss-Hermite (smooth g, h)."""
    Lc = np.linalg.cholesky(K2 + 1e-300 * np.eye(2))
    Z1, Z2 = np.meshgrid(gh_x, gh_x, indexing="ij")
    u = Lc[0, 0] * Z1
    v = Lc[1, 0] * Z1 + Lc[1, 1] * Z2
    return np.sum(np.outer(gh_w, gh_w) * g(u) * h(v))


def relu_polar_expect(K2, which):
    """ReLU expectations by adaptive quadrature over the polar angle of the whitened Gaussian.

    (u, u') = Lc z with z = r (cos a, sin a); the radial integrals are exact,
    int_0^inf r^3 e^{-r^2/2} dr = 2 (relu products) and int_0^inf r e^{-r^2/2} dr = 1 (steps),
    and the angular integrand is smooth between the rays where u = 0 or u' = 0.
    """
    Lc = np.linalg.cholesky(K2)

    def e12(a):
        return Lc[0, 0] * np.cos(a), Lc[1, 0] * np.cos(a) + Lc[1, 1] * np.sin(a)

    def smooth(a):  # the integrand inside the wedge u > 0, u' > 0
        e1, e2 = e12(a)
        return 2.0 * e1 * e2 if which == "phi" else 1.0

    kinks = sorted({-np.pi / 2, np.pi / 2, float(np.arctan(-Lc[1, 0] / Lc[1, 1])),
                    float(np.arctan(-Lc[1, 0] / Lc[1, 1]) + np.pi) % (2 * np.pi) - np.pi})
    edges = [-np.pi] + [k for k in kinks if -np.pi < k < np.pi] + [np.pi]
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        e1, e2 = e12(0.5 * (lo + hi))
        if hi - lo > 1e-12 and e1 > 0 and e2 > 0:  # the sub-interval lies inside the wedge
            total += scipy.integrate.quad(smooth, lo, hi, epsabs=1e-12, epsrel=1e-10)[0]
    return total / (2 * np.pi)


worst_q = 0.0
for sw in [1.0, 2.0]:
    Xq = rng.normal(size=(5, 3))
    Kq = sw * Xq @ Xq.T / 3
    for act in ["erf", "relu"]:
        Th_q = np.zeros((5, 5))
        phi, dphi = ACTIVATIONS[act]
        for i in range(5):
            for j in range(5):
                K2 = Kq[np.ix_([i, j], [i, j])]
                if i == j:  # u = u': a 1-d integral against the standard normal density
                    sd = np.sqrt(Kq[i, i])
                    dens = lambda z: np.exp(-z**2 / 2) / np.sqrt(2 * np.pi)
                    e_phi = sum(scipy.integrate.quad(lambda z: phi(sd * z) ** 2 * dens(z), lo, hi,
                                                     epsabs=1e-14)[0] for lo, hi in [(-np.inf, 0), (0, np.inf)])
                    e_dphi = sum(scipy.integrate.quad(lambda z: dphi(sd * z) ** 2 * dens(z), lo, hi,
                                                      epsabs=1e-14)[0] for lo, hi in [(-np.inf, 0), (0, np.inf)])
                elif act == "erf":
                    e_phi = quad_expect(special.erf, special.erf, K2)
                    e_dphi = quad_expect(_derf, _derf, K2)
                else:
                    e_phi, e_dphi = relu_polar_expect(K2, "phi"), relu_polar_expect(K2, "dphi")
                Th_q[i, j] = e_phi + Kq[i, j] * e_dphi
        diff = np.max(np.abs(Th_q - infinite_width_ntk(Xq, act, sw)))
        worst_q = max(worst_q, diff)
        assert diff < 1e-10, (sw, act, diff)
        print(f"sigma_w = {sw}, {act}: closed form vs quadrature, max |difference| < 1e-10")
assert worst_q < 1e-10

Xm = rng.normal(size=(4, 3))
for act, sw in [("relu", 2.0), ("erf", 1.0)]:
    samples = np.array([empirical_ntk(init_params(2000, 3, act, rng, sigma_w=sw), Xm) for _ in range(300)])
    mean, se = samples.mean(0), samples.std(0) / np.sqrt(len(samples))
    z = np.max(np.abs(mean - infinite_width_ntk(Xm, act, sw)) / se)
    print(f"{act}, sigma_w = {sw}: Monte Carlo mean of 300 empirical NTKs (N = 2000) vs closed form: "
          f"max |z| = {z:.2f}")
    assert z < 5

# %% tags=["solution"]
# 4. lazy_prediction vs explicit Euler integration of the linearized parameter flow
prm = init_params(60, 2, "tanh", rng)
X_tr, X_te = rng.normal(size=(7, 2)), rng.normal(size=(5, 2))
y_tr = rng.normal(size=7)
J_tr, J_te = tangent_features(prm, X_tr), tangent_features(prm, X_te)
f0_tr, f0_te = forward(prm, X_tr), forward(prm, X_te)
Th_all = empirical_ntk(prm, np.vstack([X_tr, X_te]))
eta, T_end, dt = 0.8, 3.0, 1e-4
dtheta = np.zeros(J_tr.shape[1])
for _ in range(int(round(T_end / dt))):
    dtheta -= dt * eta * J_tr.T @ (f0_tr + J_tr @ dtheta - y_tr)
euler = f0_te + J_te @ dtheta
lazy = lazy_prediction(Th_all[7:, :7], Th_all[:7, :7], f0_te, f0_tr, y_tr, eta, T_end)
expm_solve = f0_te - Th_all[7:, :7] @ np.linalg.solve(
    Th_all[:7, :7], (np.eye(7) - scipy.linalg.expm(-eta * T_end * Th_all[:7, :7])) @ (f0_tr - y_tr))
assert np.max(np.abs(lazy - euler)) < 1e-3 and np.max(np.abs(lazy - expm_solve)) < 1e-8
print(f"lazy_prediction vs Euler (dt = {dt}): {np.max(np.abs(lazy - euler)):.1e}; vs expm + solve: < 1e-8")
# t = inf: minimum-norm interpolation of the residuals in parameter space (B.5)
dtheta_inf = np.linalg.pinv(J_tr) @ (y_tr - f0_tr)
assert np.allclose(lazy_prediction(Th_all[7:, :7], Th_all[:7, :7], f0_te, f0_tr, y_tr, eta, np.inf),
                   f0_te + J_te @ dtheta_inf, atol=1e-8)
# more training points than parameters (singular Theta): finite t is still well defined
prm_small = init_params(2, 2, "tanh", rng)
X_many = rng.normal(size=(9, 2))
J_many = tangent_features(prm_small, X_many)  # rank <= P = 6 < 9
Th_many = empirical_ntk(prm_small, X_many)
dtheta = np.zeros(J_many.shape[1])
y_many = rng.normal(size=9)
f0_many = forward(prm_small, X_many)
for _ in range(20000):
    dtheta -= 1e-4 * J_many.T @ (f0_many + J_many @ dtheta - y_many)
assert np.allclose(lazy_prediction(Th_many, Th_many, f0_many, f0_many, y_many, 1.0, 2.0),
                   f0_many + J_many @ dtheta, atol=1e-3)
print("singular Theta (n = 9 > P = 6): lazy_prediction at finite t matches Euler")

# %% tags=["solution"]
# 5. Exercise 4.2: d Theta / dt along gradient flow vs the Hessian formula (torch Hessians)
prm = init_params(6, 2, "tanh", rng)
X_tr = rng.normal(size=(4, 2))
y_tr = rng.normal(size=4)
eta = 0.5
theta0 = np.concatenate([prm["c"], prm["a"].ravel()])


def unpack(th):
    return {"c": th[:6], "a": th[6:].reshape(6, 2), "activation": "tanh"}


grad_L = tangent_features(prm, X_tr).T @ (forward(prm, X_tr) - y_tr)
theta_dot = -eta * grad_L
h = 1e-5
dTheta_fd = (empirical_ntk(unpack(theta0 + h * theta_dot), X_tr)
             - empirical_ntk(unpack(theta0 - h * theta_dot), X_tr)) / (2 * h)
Xt = torch.tensor(X_tr)


def f_torch(th, mu):
    c, a = th[:6], th[6:].reshape(6, 2)
    return torch.tanh(Xt[mu] @ a.T / np.sqrt(2)) @ c / np.sqrt(6)


th_t = torch.tensor(theta0)
grads = np.stack([torch.autograd.functional.jacobian(lambda th: f_torch(th, mu), th_t).numpy() for mu in range(4)])
hess = np.stack([torch.autograd.functional.hessian(lambda th: f_torch(th, mu), th_t).numpy() for mu in range(4)])
residual = forward(prm, X_tr) - y_tr
term = -eta * np.einsum("mi,nij,rj,r->mn", grads, hess, grads, residual)
dTheta_formula = term + term.T
assert np.max(np.abs(dTheta_fd - dTheta_formula)) < 1e-8
print(f"Ex 4.2: d Theta/dt by finite differences vs Hessian formula: < 1e-8 (size {np.max(np.abs(dTheta_formula)):.2f})")

# %% tags=["tests"]
def _params(rng, N, d, act, sigma_w=1.0):
    return {"a": rng.normal(0, np.sqrt(sigma_w), size=(N, d)), "c": rng.normal(0, np.sqrt(sigma_w), size=N),
            "activation": act}


@points(2)
def test_tangent_features(student):
    "tangent_features for relu, erf and tanh networks of several shapes (column order as documented)"
    rng = rng_for("tangent_features")
    for act, (N, d, n) in [("relu", (6, 3, 5)), ("erf", (4, 1, 3)), ("tanh", (9, 5, 4))]:
        prm = _params(rng, N, d, act)
        X = rng.normal(size=(n, d))
        assert_close(student.tangent_features(prm, X), ref.tangent_features(prm, X), rtol=1e-8, atol=1e-12,
                     name=f"J for a {act} network, N={N}, d={d}, n={n}")


@points(2)
def test_empirical_ntk(student):
    "empirical_ntk for relu, erf and tanh networks (normalization of network (1))"
    rng = rng_for("empirical_ntk")
    for act, (N, d, n) in [("relu", (50, 3, 6)), ("erf", (20, 2, 5)), ("tanh", (35, 4, 7))]:
        prm = _params(rng, N, d, act)
        X = rng.normal(size=(n, d))
        assert_close(student.empirical_ntk(prm, X), ref.empirical_ntk(prm, X), rtol=1e-8, atol=1e-12,
                     name=f"Theta for a {act} network, N={N}, d={d}")


@points(1)
def test_empirical_ntk_readout_term(student):
    "empirical_ntk with c = 0 (only the readout features contribute) and with d = 1"
    rng = rng_for("empirical_ntk_readout_term")
    prm = _params(rng, 15, 1, "erf")
    prm["c"] = np.zeros(15)
    X = rng.normal(size=(4, 1))
    assert_close(student.empirical_ntk(prm, X), ref.empirical_ntk(prm, X), rtol=1e-8, atol=1e-12,
                 name="Theta with c = 0")


@points(1)
def test_relu_derivative_at_zero(student):
    "tangent_features and empirical_ntk for relu when some pre-activations are exactly zero (phi'(0) = 0)"
    rng = rng_for("relu_derivative_at_zero")
    N, d, n = 7, 3, 5
    prm = _params(rng, N, d, "relu")
    prm["a"][[1, 4], :2] = 0.0                  # these two units see only the last coordinate ...
    X = rng.normal(size=(n, d))
    X[:, 2] = 0.0                               # ... which is zero for every input: u_i = 0 exactly
    assert_close(student.tangent_features(prm, X), ref.tangent_features(prm, X), rtol=1e-8, atol=1e-12,
                 name="J for a relu network with u_i = 0")
    assert_close(student.empirical_ntk(prm, X), ref.empirical_ntk(prm, X), rtol=1e-8, atol=1e-12,
                 name="Theta for a relu network with u_i = 0")


@points(1)
def test_one_input_one_unit(student):
    "tangent_features and empirical_ntk with a single input (n = 1) and a single hidden unit (N = 1)"
    rng = rng_for("one_input_one_unit")
    for act, (N, d, n) in [("tanh", (1, 4, 3)), ("erf", (6, 2, 1)), ("relu", (1, 1, 1))]:
        prm = _params(rng, N, d, act)
        X = rng.normal(size=(n, d))
        assert_close(student.tangent_features(prm, X), ref.tangent_features(prm, X), rtol=1e-8, atol=1e-12,
                     name=f"J for a {act} network, N={N}, d={d}, n={n}")
        assert_close(student.empirical_ntk(prm, X), ref.empirical_ntk(prm, X), rtol=1e-8, atol=1e-12,
                     name=f"Theta for a {act} network, N={N}, d={d}, n={n}")


def _deep_ntk(weights, act, X):
    """NTK of the fan-in MLP by explicit backpropagation in numpy (equal to ref.ntk_autograd, without torch)."""
    phi, dphi = ref.ACTIVATIONS[act]
    X = np.asarray(X, dtype=float)
    ins, pres = [X], []  # inputs h_{l-1} and pre-activations z_l of every layer, rows = samples
    z = X @ weights[0].T / np.sqrt(X.shape[1])
    pres.append(z)
    for W in weights[1:]:
        ins.append(phi(z))
        z = ins[-1] @ W.T / np.sqrt(W.shape[1])
        pres.append(z)
    delta = np.ones((X.shape[0], 1))  # d f / d z_{L+1}
    Theta = np.zeros((X.shape[0], X.shape[0]))
    for k in range(len(weights) - 1, -1, -1):
        h = ins[k]
        Theta += (delta @ delta.T) * (h @ h.T) / h.shape[1]  # d f / d W_k = delta_k h_{k-1}^T / sqrt(fan-in)
        if k > 0:
            delta = dphi(pres[k - 1]) * (delta @ weights[k]) / np.sqrt(weights[k].shape[1])
    return Theta


@points(2)
def test_ntk_autograd_one_hidden_layer(student):
    "ntk_autograd on network (1) given as an {a, c, activation} dict"
    rng = rng_for("ntk_autograd_one_hidden_layer")
    for act, (N, d, n) in [("tanh", (10, 3, 5)), ("relu", (8, 2, 4))]:
        prm = _params(rng, N, d, act)
        X = rng.normal(size=(n, d))
        assert_close(student.ntk_autograd(prm, X), ref.empirical_ntk(prm, X), rtol=1e-7, atol=1e-10,
                     name=f"autograd NTK, {act}, N={N}")


@points(2)
def test_ntk_autograd_deep(student):
    "ntk_autograd on deeper MLPs given as a list of weight matrices"
    rng = rng_for("ntk_autograd_deep")
    for act, dims in [("tanh", [3, 8, 6, 1]), ("erf", [2, 5, 7, 4, 1])]:
        weights = [rng.normal(size=(dims[k + 1], dims[k])) for k in range(len(dims) - 1)]
        X = rng.normal(size=(5, dims[0]))
        model = {"weights": weights, "activation": act}
        assert_close(student.ntk_autograd(model, X), _deep_ntk(weights, act, X), rtol=1e-7, atol=1e-10,
                     name=f"autograd NTK of a {act} MLP with widths {dims}")


@points(1)
def test_ntk_autograd_relu_and_no_hidden_layer(student):
    "ntk_autograd on a deep relu MLP, on a single weight matrix (no hidden layer, a linear model) and on one input"
    rng = rng_for("ntk_autograd_relu_and_no_hidden_layer")
    for act, dims, n in [("relu", [3, 7, 5, 1], 5), ("tanh", [4, 1], 4), ("erf", [2, 6, 1], 1)]:
        weights = [rng.normal(size=(dims[k + 1], dims[k])) for k in range(len(dims) - 1)]
        X = rng.normal(size=(n, dims[0]))
        model = {"weights": weights, "activation": act}
        assert_close(student.ntk_autograd(model, X), _deep_ntk(weights, act, X), rtol=1e-7, atol=1e-10,
                     name=f"autograd NTK of a {act} MLP with widths {dims}, n={n}")


@points(1)
def test_infinite_width_ntk_input_scales(student):
    "infinite_width_ntk for relu and erf with inputs of very different norms, and a single input"
    rng = rng_for("infinite_width_ntk_input_scales")
    for act in ["relu", "erf"]:
        X = rng.normal(size=(6, 4)) * np.array([1e-3, 3e-2, 1.0, 20.0, 3e2, 1e3])[:, None]
        assert_close(student.infinite_width_ntk(X, act), ref.infinite_width_ntk(X, act), rtol=1e-7, atol=1e-12,
                     name=f"{act} NTK, input norms from 1e-3 to 1e3")
        x1 = rng.normal(size=(1, 3))
        assert_close(student.infinite_width_ntk(x1, act, 0.7), ref.infinite_width_ntk(x1, act, 0.7), rtol=1e-7,
                     atol=1e-12, name=f"{act} NTK of a single input")


@points(1)
def test_infinite_width_ntk_unknown_activation(student):
    "infinite_width_ntk raises ValueError for an activation without a closed form"
    from autograder.run.testing import StudentError
    X = rng_for("infinite_width_ntk_unknown_activation").normal(size=(3, 2))
    try:
        student.infinite_width_ntk(X, "tanh")
    except StudentError as exc:
        if exc.kind != "error":
            raise
        assert "ValueError" in str(exc), "an activation other than 'relu' or 'erf' should raise ValueError"
    else:
        raise AssertionError("infinite_width_ntk should raise ValueError for an activation other than 'relu' or 'erf'")


@points(2)
def test_infinite_width_ntk_relu(student):
    "infinite_width_ntk for relu on random inputs, sigma_w = 1 and sigma_w = 2"
    rng = rng_for("infinite_width_ntk_relu")
    for sw, (n, d) in [(1.0, (6, 3)), (2.0, (5, 7))]:
        X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=(n, 1))
        want = ref.infinite_width_ntk(X, "relu", sw)
        got = student.infinite_width_ntk(X, "relu") if sw == 1.0 else student.infinite_width_ntk(X, "relu", sw)
        assert_close(got, want, rtol=1e-7, atol=1e-10, name=f"relu NTK, sigma_w = {sw}")


@points(2)
def test_infinite_width_ntk_erf(student):
    "infinite_width_ntk for erf on random inputs, sigma_w = 1 and sigma_w = 0.5"
    rng = rng_for("infinite_width_ntk_erf")
    for sw, (n, d) in [(1.0, (6, 2)), (0.5, (4, 5))]:
        X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=(n, 1))
        want = ref.infinite_width_ntk(X, "erf", sw)
        got = student.infinite_width_ntk(X, "erf") if sw == 1.0 else student.infinite_width_ntk(X, "erf", sw)
        assert_close(got, want, rtol=1e-7, atol=1e-10, name=f"erf NTK, sigma_w = {sw}")


@points(1)
def test_infinite_width_ntk_parallel_inputs(student):
    "infinite_width_ntk (relu) with parallel and antiparallel inputs"
    rng = rng_for("infinite_width_ntk_parallel_inputs")
    rows = []
    for _ in range(3):  # groups of parallel and antiparallel inputs: rounding can push rho past +-1
        x = rng.normal(size=3)
        rows += [c * x for c in [1.0, 2.5, 0.3, 1.7, 3.1, -1.0, -2.2, 0.9]]
    X = np.stack(rows + [rng.normal(size=3)])
    # arccos is ill-conditioned at rho = +-1 (rounding of rho moves it by ~sqrt(eps)): loose tolerance
    assert_close(student.infinite_width_ntk(X, "relu"), ref.infinite_width_ntk(X, "relu"), rtol=1e-6, atol=1e-6,
                 name="relu NTK with (anti)parallel inputs")


@points(2)
def test_lazy_prediction_finite_time(student):
    "lazy_prediction at finite training times on random kernels (m test, n train points)"
    rng = rng_for("lazy_prediction_finite_time")
    for n, m, P in [(5, 3, 20), (8, 6, 30)]:
        Jall = rng.normal(size=(n + m, P)) / np.sqrt(P)
        Th = Jall @ Jall.T
        f0 = rng.normal(size=n + m)
        y = rng.normal(size=n)
        for eta, t in [(0.3, 2.0), (1.7, 0.4)]:
            args = (Th[n:, :n], Th[:n, :n], f0[n:], f0[:n], y, eta, t)
            assert_close(student.lazy_prediction(*args), ref.lazy_prediction(*args), rtol=1e-7, atol=1e-10,
                         name=f"f_t for n={n}, m={m}, eta={eta}, t={t}")


@points(1)
def test_lazy_prediction_infinite_time(student):
    "lazy_prediction at t = inf (end of training)"
    rng = rng_for("lazy_prediction_infinite_time")
    n, m, P = 6, 4, 25
    Jall = rng.normal(size=(n + m, P)) / np.sqrt(P)
    Th = Jall @ Jall.T
    f0 = rng.normal(size=n + m)
    y = rng.normal(size=n)
    args = (Th[n:, :n], Th[:n, :n], f0[n:], f0[:n], y, 0.9, np.inf)
    assert_close(student.lazy_prediction(*args), ref.lazy_prediction(*args), rtol=1e-7, atol=1e-10,
                 name="f_infinity at the test points")


@points(1)
def test_lazy_prediction_edges(student):
    "lazy_prediction at t = 0 (also with a singular training kernel), at long times, and with one training and one test point"
    rng = rng_for("lazy_prediction_edges")
    n, m, P = 9, 3, 4
    Jall = rng.normal(size=(n + m, P))
    Th = Jall @ Jall.T
    f0 = rng.normal(size=n + m)
    y = rng.normal(size=n)
    args = (Th[n:, :n], Th[:n, :n], f0[n:], f0[:n], y, 0.8, 0.0)
    assert_close(student.lazy_prediction(*args), ref.lazy_prediction(*args), rtol=1e-9, atol=1e-12,
                 name="f_t at t = 0 with a rank-deficient Theta_train")
    Jall = rng.normal(size=(6, 20)) / np.sqrt(20)
    Th = Jall @ Jall.T
    f0 = rng.normal(size=6)
    y = rng.normal(size=4)
    for eta, t in [(1.3, 0.0), (0.7, 1e4)]:
        args = (Th[4:, :4], Th[:4, :4], f0[4:], f0[:4], y, eta, t)
        assert_close(student.lazy_prediction(*args), ref.lazy_prediction(*args), rtol=1e-7, atol=1e-10,
                     name=f"f_t at eta={eta}, t={t:g}")
    for t in [0.0, 2.5, np.inf]:
        args = (Th[5:, :1], Th[:1, :1], f0[5:], f0[:1], y[:1], 0.6, t)
        assert_close(student.lazy_prediction(*args), ref.lazy_prediction(*args), rtol=1e-7, atol=1e-10,
                     name=f"f_t with one training and one test point, t={t}")


@points(1)
def test_lazy_prediction_more_data_than_parameters(student):
    "lazy_prediction at finite t when the training kernel is singular (n > P)"
    rng = rng_for("lazy_prediction_more_data_than_parameters")
    n, m, P = 9, 4, 5
    Jall = rng.normal(size=(n + m, P))
    Th = Jall @ Jall.T
    f0 = rng.normal(size=n + m)
    y = rng.normal(size=n)
    args = (Th[n:, :n], Th[:n, :n], f0[n:], f0[:n], y, 0.5, 1.5)
    assert_close(student.lazy_prediction(*args), ref.lazy_prediction(*args), rtol=1e-6, atol=1e-8,
                 name="f_t with a rank-deficient Theta_train")


# %% tags=["wrong"]
# wrong: first-layer factor 1/sqrt(d) forgotten in the pre-activations (and in the a-gradients)
# hint: The pre-activations are u_i = a_i·x/√d, with the first-layer factor 1/√d written out (eq. (1));
#   it appears again in the gradients with respect to a, ∂f/∂a_i ∝ c_i φ'(u_i) x/√d.
def tangent_features(params, X):
    a, c, X = np.asarray(params["a"]), np.asarray(params["c"]), np.asarray(X, dtype=float)
    phi, dphi = ACTIVATIONS[params["activation"]]
    N = c.size
    U = X @ a.T
    Ja = (c * dphi(U) / np.sqrt(N))[:, :, None] * X[:, None, :]
    return np.concatenate([phi(U) / np.sqrt(N), Ja.reshape(X.shape[0], -1)], axis=1)


def empirical_ntk(params, X):
    J = tangent_features(params, X)
    return J @ J.T


# %% tags=["wrong"]
# wrong: only the readout weights c are differentiated (random-features kernel, Ex B.6(b))
# hint: The NTK differentiates with respect to all the parameters θ = (c, a): the input weights a add a
#   second term to the readout term (Sections 4.1–4.2); differentiating c alone gives the
#   random-features kernel of Exercise B.6(b).
def empirical_ntk(params, X):
    a, c, X = np.asarray(params["a"]), np.asarray(params["c"]), np.asarray(X, dtype=float)
    F = ACTIVATIONS[params["activation"]][0](X @ a.T / np.sqrt(X.shape[1]))
    return F @ F.T / c.size


def ntk_autograd(model, X):
    if "weights" in model:
        return ref_ntk_autograd_readout_only(model, X)
    return empirical_ntk(model, X)


def ref_ntk_autograd_readout_only(model, X):
    import torch
    Ws = [torch.tensor(np.asarray(W, dtype=float)) for W in model["weights"]]
    act = {"relu": torch.relu, "erf": torch.erf, "tanh": torch.tanh}[model["activation"]]
    Xt = torch.tensor(np.asarray(X, dtype=float))
    z = Xt @ Ws[0].T / Xt.shape[1] ** 0.5
    for W in Ws[1:-1]:
        z = act(z) @ W.T / W.shape[1] ** 0.5
    F = act(z) / Ws[-1].shape[1] ** 0.5
    return (F @ F.T).numpy()


# %% tags=["rewrite"]
# rewrite: the same readout-only kernel, from the first N columns of the tangent features
def empirical_ntk(params, X):
    n_readout = np.asarray(params["c"]).size
    J = tangent_features(params, X)[:, :n_readout]
    return np.einsum("ik,jk->ij", J, J)


# %% tags=["wrong"]
# wrong: relu derivative taken as the step (u >= 0), so phi'(0) = 1
# hint: For ReLU the derivative is the step with φ'(0) = 0 at u = 0 (the convention of the ACTIVATIONS
#   table and of autograd): a unit with a pre-activation exactly 0 sends no gradient to its input
#   weights (Section 4.1).
def tangent_features(params, X):
    a = np.asarray(params["a"], dtype=float)
    c = np.asarray(params["c"], dtype=float)
    X = np.asarray(X, dtype=float)
    act = params["activation"]
    phi, dphi = ACTIVATIONS[act]
    if act == "relu":
        dphi = lambda u: (np.asarray(u) >= 0).astype(float)
    n, d = X.shape
    N = c.size
    U = X @ a.T / np.sqrt(d)
    Ja = (c * dphi(U) / np.sqrt(N * d))[:, :, None] * X[:, None, :]
    return np.concatenate([phi(U) / np.sqrt(N), Ja.reshape(n, N * d)], axis=1)


def empirical_ntk(params, X):
    J = tangent_features(params, X)
    return J @ J.T


# %% tags=["wrong"]
# wrong: the activation applied after the last weight matrix too (f = phi(z_{L+1}))
# hint: The output layer is linear: f = z_{L+1} = W_{L+1} φ(z_L)/√N_L, with no activation after the last
#   weight matrix (conventions of Section 3.1; network (1) has f = N^{-1/2} Σ c_i φ(u_i)).
def ntk_autograd(model, X):
    import torch
    if "weights" in model:
        ws = [np.asarray(W, dtype=float) for W in model["weights"]]
    else:
        ws = [np.asarray(model["a"], dtype=float), np.asarray(model["c"], dtype=float)[None, :]]
    act = {"relu": torch.relu, "erf": torch.erf, "tanh": torch.tanh}[model["activation"]]
    Xt = torch.tensor(np.asarray(X, dtype=float))
    n, d = Xt.shape

    def f(*Ws):
        z = act(Xt @ Ws[0].T / d**0.5)
        for W in Ws[1:]:
            z = act(z @ W.T / W.shape[1] ** 0.5)
        return z[:, 0]

    jac = torch.autograd.functional.jacobian(f, tuple(torch.tensor(W) for W in ws))
    J = torch.cat([j.reshape(n, -1) for j in jac], dim=1)
    return (J @ J.T).numpy()


# %% tags=["wrong"]
# wrong: deep MLP with the input factor 1/sqrt(d) in every layer instead of 1/sqrt(fan-in)
# hint: Each layer of the MLP has its own fan-in factor 1/√(fan-in of that layer), not 1/√d of the input
#   in every layer (conventions of Section 3.1).
def ntk_autograd(model, X):
    import torch
    if "weights" in model:
        ws = [np.asarray(W, dtype=float) for W in model["weights"]]
    else:
        ws = [np.asarray(model["a"], dtype=float), np.asarray(model["c"], dtype=float)[None, :]]
    act = {"relu": torch.relu, "erf": torch.erf, "tanh": torch.tanh}[model["activation"]]
    Xt = torch.tensor(np.asarray(X, dtype=float))
    n, d = Xt.shape

    def f(*Ws):
        z = Xt @ Ws[0].T / d**0.5
        for W in Ws[1:-1]:
            z = act(z) @ W.T / d**0.5
        return (act(z) @ Ws[-1].T / Ws[-1].shape[1] ** 0.5)[:, 0]

    jac = torch.autograd.functional.jacobian(f, tuple(torch.tensor(W) for W in ws))
    J = torch.cat([j.reshape(n, -1) for j in jac], dim=1)
    return (J @ J.T).numpy()


# %% tags=["wrong"]
# wrong: infinite-width NTK with the step expectation (pi - theta)/pi and without the first-layer kernel factor
# hint: In the infinite-width NTK (eq. (4.23)) the second term is K^(1)(x, x') E[φ'(u)φ'(v)], with the
#   first-layer kernel as a factor; for ReLU, E[φ'(u)φ'(v)] = (π − θ)/(2π).
def infinite_width_ntk(X, activation, sigma_w=1.0):
    X = np.asarray(X, dtype=float)
    K = sigma_w * X @ X.T / X.shape[1]
    k = np.diag(K)
    if activation == "relu":
        norm = np.sqrt(np.outer(k, k))
        vt = np.arccos(np.clip(K / norm, -1, 1))
        return norm / (2 * np.pi) * (np.sin(vt) + (np.pi - vt) * np.cos(vt)) + (np.pi - vt) / np.pi
    A = np.outer(1 + 2 * k, 1 + 2 * k)
    return 2 / np.pi * np.arcsin(2 * K / np.sqrt(A)) + 4 / np.pi / np.sqrt(A - 4 * K**2)


# %% tags=["wrong"]
# wrong: elementwise exponential np.exp(-eta t Theta) instead of the matrix exponential, solve with Theta
# hint: e^{−ηtΘ} in the lazy solution is a matrix exponential (scipy.linalg.expm, or through the
#   eigen-decomposition of Θ), not the exponential of each entry (eq. (4.36), Exercise 4.3).
def lazy_prediction(Theta_test_train, Theta_train, f0_test, f0_train, y, eta, t):
    Th = np.asarray(Theta_train, dtype=float)
    decay = np.zeros_like(Th) if np.isinf(t) else np.exp(-eta * t * Th)
    r0 = np.asarray(f0_train) - np.asarray(y)
    return np.asarray(f0_test) - np.asarray(Theta_test_train) @ np.linalg.solve(Th, (np.eye(len(r0)) - decay) @ r0)


# %% tags=["wrong"]
# wrong: residual sign flipped (f0 + Theta Theta^-1 (...)(f0 - y)) and the learning rate dropped
# hint: In the lazy solution f_t(x) = f_0(x) − Θ(x, X) Θ^{-1}(I − e^{−ηtΘ})(f_0(X) − y) the residual f_0
#   − y is subtracted, and time always enters as ηt (eq. (4.36), Exercise 4.3).
def lazy_prediction(Theta_test_train, Theta_train, f0_test, f0_train, y, eta, t):
    s, U = np.linalg.eigh(np.asarray(Theta_train, dtype=float))
    g = 1 / s if np.isinf(t) else -np.expm1(-t * s) / s
    r0 = np.asarray(f0_train) - np.asarray(y)
    return np.asarray(f0_test) + np.asarray(Theta_test_train) @ (U @ (g * (U.T @ r0)))


# %% tags=["alternative"]
# alternative: torch.func.jacrev for the features, J J^T for the NTK, arcsin forms of the kernels, expm + pinv for the lazy flow
def tangent_features(params, X):
    import torch
    from torch.func import jacrev
    act = {"relu": torch.relu, "erf": torch.erf, "tanh": torch.tanh}[params["activation"]]
    c = np.asarray(params["c"], dtype=float)
    a = np.asarray(params["a"], dtype=float)
    N, d = a.shape
    Xt = torch.tensor(np.asarray(X, dtype=float))

    def f(theta):
        return act(Xt @ theta[N:].reshape(N, d).T / d**0.5) @ theta[:N] / N**0.5

    theta = torch.tensor(np.concatenate([c, a.ravel()]))
    return jacrev(f)(theta).numpy()


def empirical_ntk(params, X):
    J = tangent_features(params, X)
    return J @ J.T


def ntk_autograd(model, X):
    import torch
    from torch.func import jacrev
    ws = list(model["weights"]) if "weights" in model else [model["a"], np.asarray(model["c"])[None, :]]
    shapes = [np.shape(W) for W in ws]
    flat = torch.tensor(np.concatenate([np.ravel(W) for W in ws]).astype(float))
    act = {"relu": torch.relu, "erf": torch.erf, "tanh": torch.tanh}[model["activation"]]
    Xt = torch.tensor(np.asarray(X, dtype=float))

    def f(v):
        pos, h = 0, Xt.T
        for k, (r, q) in enumerate(shapes):
            W = v[pos:pos + r * q].reshape(r, q)
            pos += r * q
            h = W @ (h if k == 0 else act(h)) / q**0.5
        return h[0]

    J = jacrev(f)(flat)
    return (J @ J.T).numpy()


def infinite_width_ntk(X, activation, sigma_w=1.0):
    X = np.asarray(X, dtype=float)
    G = X @ X.T / X.shape[1]
    K = sigma_w * G
    sd = np.sqrt(np.diag(K))
    if activation == "relu":
        rho = np.clip(K / np.outer(sd, sd), -1, 1)
        e_phi = np.outer(sd, sd) * (np.sqrt(1 - rho**2) + rho * (np.pi / 2 + np.arcsin(rho))) / (2 * np.pi)
        e_dphi = 0.25 + np.arcsin(rho) / (2 * np.pi)
    elif activation == "erf":
        s = np.sqrt(1 + 2 * np.diag(K))
        z = np.clip(2 * K / np.outer(s, s), -1, 1)
        e_phi = 2 / np.pi * np.arctan2(z, np.sqrt(1 - z**2))
        e_dphi = 4 / np.pi / np.outer(s, s) / np.sqrt(1 - z**2)
    else:
        raise ValueError(activation)
    return e_phi + sigma_w * G * e_dphi


def lazy_prediction(Theta_test_train, Theta_train, f0_test, f0_train, y, eta, t):
    Th = np.asarray(Theta_train, dtype=float)
    r0 = np.asarray(f0_train, dtype=float) - np.asarray(y, dtype=float)
    if np.isinf(t):
        alpha = np.linalg.solve(Th, r0)
    else:
        alpha = np.linalg.pinv(Th, rcond=1e-12, hermitian=True) @ ((np.eye(len(r0)) - scipy.linalg.expm(-eta * t * Th)) @ r0)
    return np.asarray(f0_test, dtype=float) - np.asarray(Theta_test_train, dtype=float) @ alpha
