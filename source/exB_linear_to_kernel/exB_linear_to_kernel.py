# %% [markdown]
# # exB_linear_to_kernel: From linear regression to kernel regression
#
# *Notes: Appendix B.1–B.5, Exercises B.1–B.6.*
#
# This assignment walks through the chain of models that are **linear in their
# parameters**: linear regression, regression on fixed nonlinear features, kernel
# (minimum-norm) regression and kernel *ridge* regression, and ends with the
# observation that a network linearized around its initialization is such a model,
# whose kernel is the neural tangent kernel.
#
# You implement nine short functions (cells marked *graded*). Each comes with a
# docstring that states its contract; the hidden tests call exactly these functions on
# the worked examples of the notes and on random inputs of various shapes. Public
# checks (cells that print ✓/✗) test *properties*, never the hidden answers. Written
# answers (cells reading *Your answer here.*) are graded by hand.
#
# **Notation** (notes, Section 3.1 and Appendix B). Training data
# $(x^\mu, y^\mu)_{\mu=1}^n$ with $x^\mu\in\mathbb R^d$, $y^\mu\in\mathbb R$; a model
# $f_\theta$ with parameters $\theta\in\mathbb R^P$. The data are stacked into
# $$
# X = \begin{pmatrix}(x^1)^T\\ \vdots\\ (x^n)^T\end{pmatrix}\in\mathbb R^{n\times d},\qquad
# Y = \begin{pmatrix}y^1\\ \vdots\\ y^n\end{pmatrix}\in\mathbb R^{n},\qquad
# f = \begin{pmatrix}f^1\\ \vdots\\ f^n\end{pmatrix}\in\mathbb R^{n},\qquad f^\mu := f_\theta(x^\mu). \tag{B.1}
# $$
# Throughout, the loss is the (unnormalized) mean squared error
# $$
# \mathcal L_\theta = \tfrac12\sum_{\mu=1}^n \big(f^\mu - y^\mu\big)^2 = \tfrac12\,|\Delta|^2,
# \qquad \Delta := f - Y \in\mathbb R^n . \tag{B.2}
# $$
# (With the normalization $\frac1{2n}|f-Y|^2$ used in many references, every ridge
# parameter $\lambda$ below is rescaled by $n$ and every learning rate $\eta$ by $1/n$.)
#
# In code, vectors are 1-d numpy arrays: `Y` has shape `(n,)`, `theta` has shape
# `(P,)`, and matrices are 2-d arrays with the shapes written in the docstrings.

# %% tags=["setup"]
import numpy as np
import scipy.linalg

# %% [markdown]
# ## B.1 Linear regression
#
# The simplest model is linear in the inputs,
# $$
# f_\theta(x) = \theta\cdot x = \sum_{j=1}^d \theta^j x_j ,\qquad P = d,\qquad f = X\theta . \tag{B.3}
# $$
# The loss $\mathcal L_\theta=\frac12|X\theta-Y|^2$ is a convex quadratic in $\theta$. Its
# gradient is the transpose of the (constant) Jacobian $\partial f^\mu/\partial\theta^j =
# X^\mu{}_j$ acting on the residual,
# $$
# \nabla_\theta\mathcal L = X^T(X\theta - Y) = X^T\Delta , \tag{B.4}
# $$
# and setting it to zero gives the *normal equations*
# $$
# X^TX\,\theta = X^TY . \tag{B.5}
# $$
# If $X$ has full column rank ($P\le n$), the minimizer is unique,
# $$
# \theta_* = (X^TX)^{-1}X^TY , \tag{B.6}
# $$
# and $X\theta_*$ is the orthogonal projection of $Y$ onto the column space of $X$.
# "Orthogonal" refers to the Euclidean metric $\delta_{\mu\nu}$ on $\mathbb R^n$, the space
# of function values on the training set. Any other symmetric positive-definite metric
# $g_{\mu\nu}$ defines the *weighted* loss $\mathcal L^g = \frac12\,\Delta^T g\,\Delta$,
# with gradient $X^Tg\,\Delta$, and the minimizer
# $$
# \theta_*^g = (X^TgX)^{-1}X^TgY , \tag{B.7}
# $$
# the $g$-orthogonal projection of $Y$ onto $\mathrm{col}(X)$ (weighted least squares).
#
# If the columns of $X$ are linearly dependent (for instance $P>n$), the minimizers form
# an affine subspace of dimension $P-\mathrm{rank}\,X$; the loss cannot choose among them.
# For `least_squares` we fix the choice by the convention of Appendix B.4(c): return the
# minimizer of **minimum Euclidean norm** (the limit $\lambda\to0$ of ridge regression).
# For $g=I$ this is $X^+Y$, with $X^+$ the Moore–Penrose pseudo-inverse.

# %% tags=["graded"]
def least_squares(X, Y, g=None):
    """(Weighted) least squares, notes App. B.1, eqs. (B.5)-(B.7).

    Minimizes the loss 0.5 * (X @ theta - Y)^T g (X @ theta - Y) over theta.

    Arguments:
        X: array of shape (n, P), the design (or feature) matrix.
        Y: array of shape (n,), the labels.
        g: None (Euclidean metric, g = identity) or a symmetric positive-definite
           array of shape (n, n), the metric on the space of function values.

    Returns:
        theta: array of shape (P,). If the minimizer is not unique (columns of X
        linearly dependent), return the minimizer of smallest Euclidean norm |theta|.
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if g is not None:
        # whiten: g = L L^T, so 0.5 (X th - Y)^T g (X th - Y) = 0.5 |L^T X th - L^T Y|^2
        L = np.linalg.cholesky(np.asarray(g, dtype=float))
        X, Y = L.T @ X, L.T @ Y
    # SVD-based least squares; singular values below 1e-10 * s_max count as zero, which
    # selects the minimizer of minimum norm (X^+ Y) when the columns are dependent.
    theta, *_ = np.linalg.lstsq(X, Y, rcond=1e-10)
    return theta


# %% tags=["check"]
@check
def check_least_squares_residual_orthogonal():
    "the residual of an unweighted fit is orthogonal to every column of X"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 3))
    Y = rng.normal(size=9)
    theta = np.asarray(least_squares(X, Y))
    assert theta.shape == (3,), "theta should have shape (P,)"
    assert np.allclose(X.T @ (X @ theta - Y), 0, atol=1e-8), "normal equations X^T (X theta - Y) = 0 fail"
    Xd = np.column_stack([X[:, 0], X[:, 0], X[:, 1]])             # two equal columns: not unique
    theta = np.asarray(least_squares(Xd, Y))
    assert np.all(np.isfinite(theta)) and np.allclose(Xd.T @ (Xd @ theta - Y), 0, atol=1e-8), \
        "dependent columns: the normal equations are singular, but a minimizer exists"
    assert np.isclose(theta[0], theta[1]), "the minimizer of smallest norm splits the weight equally between equal columns"


@check
def check_least_squares_metric():
    "a weighted fit satisfies X^T g (X theta - Y) = 0, and g = identity gives the plain fit"
    rng = np.random.default_rng(1)
    X = rng.normal(size=(7, 2))
    Y = rng.normal(size=7)
    A = rng.normal(size=(7, 7))
    g = A @ A.T / 7 + np.eye(7)
    theta = np.asarray(least_squares(X, Y, g))
    assert np.allclose(X.T @ g @ (X @ theta - Y), 0, atol=1e-8), "weighted normal equations fail"
    assert np.allclose(least_squares(X, Y, np.eye(7)), least_squares(X, Y), atol=1e-10), \
        "g = identity should reproduce the unweighted fit"


# %% [markdown]
# **Exercise B.1 (Least squares by hand).**
#
# **(a)** Differentiate $\mathcal L_\theta = \frac12|X\theta-Y|^2$ with respect to a
# single coordinate $\theta^j$, assemble the components into (B.4), and derive the normal
# equations (B.5). Explain geometrically why they say that the residual is orthogonal to
# every column of $X$.

# %% [markdown] tags=["answer"] points=1
# $\mathcal L_\theta = \frac12\sum_\mu\big(\sum_k X^\mu{}_k\theta^k - y^\mu\big)^2$, so
# $$
# \frac{\partial\mathcal L}{\partial\theta^j} = \sum_\mu \Big(\sum_k X^\mu{}_k\theta^k - y^\mu\Big)X^\mu{}_j
# = \sum_\mu (X^T)_j{}^\mu\,\Delta^\mu = \big(X^T\Delta\big)_j ,
# $$
# which is (B.4). Setting it to zero, $X^TX\theta = X^TY$ (B.5). The $j$-th component of
# $X^T\Delta$ is the Euclidean inner product of the $j$-th column $X_{\cdot j}\in\mathbb R^n$ with
# the residual, so (B.5) says $\Delta_*\perp X_{\cdot j}$ for every $j$, i.e.
# $\Delta_*\perp\mathrm{col}(X)$. Since $X\theta_*\in\mathrm{col}(X)$ and
# $Y = X\theta_* - \Delta_*$, the fitted vector is the foot of the perpendicular from $Y$ to
# the subspace $\mathrm{col}(X)$: the closest point of the subspace, by Pythagoras.

# %% [markdown]
# **(b)** Show that if $X$ has full column rank then $X^TX$ is positive definite, so that
# (B.6) is the unique minimizer. Show that the normal equations are always consistent
# (*i.e.* $X^TY\in\mathrm{col}(X^TX)$), and that if $P>n$ they have infinitely many
# solutions.

# %% [markdown] tags=["answer"] points=1
# $v^TX^TXv = |Xv|^2\ge0$, with equality iff $Xv=0$, which for full column rank forces
# $v=0$. So $X^TX$ is positive definite, hence invertible; $\mathcal L$ is then strictly
# convex and (B.6) is its unique critical point and minimizer.
#
# Consistency: $\ker(X^TX)=\ker X$ (if $X^TXv=0$ then $|Xv|^2 = v^TX^TXv=0$). Taking
# orthogonal complements, $\mathrm{col}(X^TX) = \ker(X^TX)^\perp = (\ker X)^\perp =
# \mathrm{col}(X^T)\ni X^TY$. So a solution always exists.
#
# If $P>n$ then $\mathrm{rank}\,X\le n<P$, so $\ker X\neq\{0\}$; adding any
# $v\in\ker X = \ker(X^TX)$ to a solution gives another one, an affine family of dimension
# $P-\mathrm{rank}\,X\ge1$.

# %% [markdown]
# **(c)** Fit the affine function $f(x)=\theta^1+\theta^2x$ to the three points
# $x\in\{-1,0,1\}$ with labels $y=x^2$, that is
# $$
# X = \begin{pmatrix}1&-1\\1&0\\1&1\end{pmatrix},\qquad Y=\begin{pmatrix}1\\0\\1\end{pmatrix}.
# $$
# Find $\theta_*$, the predictions, the residual and the loss. Is the remaining error a
# failure of optimization or of representation?
#
# **(d)** Repeat (c) with the weighted loss for $g=\mathrm{diag}(1,4,1)$, which trusts
# the middle point four times as much as the others. Check that the fitted function
# changes.
#
# Use your `least_squares` in the cell below (the numbers are graded through your
# function), then answer in words.

# %% tags=["provided"]
def three_point_data():
    """The three-point data set of Exercises B.1, B.2, B.4(d): x in {-1, 0, 1}, y = x^2.

    Returns (x, Y), both arrays of shape (3,).
    """
    x = np.array([-1.0, 0.0, 1.0])
    return x, x**2


def affine_features(x):
    """Feature matrix of the affine model f(x) = theta^1 + theta^2 x: rows (1, x)."""
    x = np.asarray(x, dtype=float)
    return np.stack([np.ones_like(x), x], axis=-1)


def quadratic_features(x):
    """Feature map psi(x) = (1, sqrt(2) x, x^2) of Exercise B.2, rows psi(x^mu)."""
    x = np.asarray(x, dtype=float)
    return np.stack([np.ones_like(x), np.sqrt(2.0) * x, x**2], axis=-1)


def quadratic_kernel(x, z):
    """The kernel K(x, z) = (1 + x z)^2 on the real line, as a len(x) by len(z) matrix."""
    x = np.asarray(x, dtype=float)
    z = np.asarray(z, dtype=float)
    return (1.0 + np.outer(x, z)) ** 2


# %% tags=["figure"]
x3, Y3 = three_point_data()
X3 = affine_features(x3)
try:
    th_c = least_squares(X3, Y3)
    th_d = least_squares(X3, Y3, np.diag([1.0, 4.0, 1.0]))
    for name, th in [("B.1(c)", th_c), ("B.1(d)", th_d)]:
        th = np.round(th, 12) + 0.0  # hide round-off like 1e-17
        res = X3 @ th - Y3
        print(f"{name}: theta = {th}, predictions = {X3 @ th}, residual = {res}, "
              f"Euclidean loss = {0.5 * res @ res:.6f}")
except NotImplementedError:
    print("least_squares is not implemented yet")

# %% [markdown]
# **Your answers to B.1(c) and (d).** From the output above, give $\theta_*$, the predictions,
# the residual and the loss of the affine fit (c) and of the weighted fit (d). Is the remaining
# error a failure of optimization or of representation, and how does the metric $g$ change the
# fitted function?

# %% [markdown] tags=["answer"] points=1
# **(c)** $X^TX = \mathrm{diag}(3,2)$, $X^TY=(2,0)^T$, so $\theta_*=(2/3,\,0)$: the best
# affine fit is the constant $2/3$. Predictions $(2/3,2/3,2/3)$, residual
# $\Delta_*=(-1/3,\,2/3,\,-1/3)$ (orthogonal to both columns $(1,1,1)$ and $(-1,0,1)$), loss
# $\frac12\cdot\frac{1+4+1}{9}=\frac13$. The optimizer found the *global* minimum of a convex
# loss, so the error is a failure of **representation**: $y=x^2$ is not in the affine model
# class (equivalently, $Y\notin\mathrm{col}(X)$).
#
# **(d)** $X^TgX=\mathrm{diag}(6,2)$, $X^TgY=(2,0)^T$, so $\theta^g_*=(1/3,\,0)$: the constant
# $1/3$, pulled toward the trusted middle label $0$. The residual $(-2/3,\,1/3,\,-2/3)$ is
# $g$-orthogonal to the columns ($X^Tg\Delta=0$) but no longer Euclidean-orthogonal, and its
# Euclidean loss $\frac12\cdot\frac{4+1+4}{9}=\frac12$ is larger than $\frac13$, as it must be.
# Different metric, different fitted function.

# %% [markdown]
# ## B.2 Linear regression with nonlinear features
#
# Fix, before looking at any labels, a feature map
# $$
# \psi:\mathbb R^d\to\mathbb R^P,\qquad \psi(x) = \big(\psi_1(x),\dots,\psi_P(x)\big), \tag{B.8}
# $$
# and the model
# $$
# f_\theta(x) = \theta\cdot\psi(x) = \sum_{i=1}^P\theta^i\psi_i(x), \tag{B.9}
# $$
# with $n\times P$ feature matrix
# $$
# \Psi^\mu{}_i := \psi_i(x^\mu),\qquad f = \Psi\theta,\qquad \Psi = \frac{\partial f}{\partial\theta} = J . \tag{B.10}
# $$
# Everything in B.1 holds with $X\to\Psi$; in particular `least_squares(Psi, Y)` fits the
# feature model. The figure below (cf. Figure 11 of the notes) fits the same seven points
# with three different feature maps, each with $P=n=7$: all interpolate, and they
# disagree away from the data. The feature map is the inductive bias.

# %% tags=["provided"]
def polynomial_features(x, degree=6):
    """Monomials 1, x, ..., x^degree, rows psi(x^mu); shape (len(x), degree + 1)."""
    x = np.asarray(x, dtype=float)
    return np.stack([x**k for k in range(degree + 1)], axis=-1)


def fourier_features(x, harmonics=3):
    """1, cos(2 pi k x), sin(2 pi k x) for k = 1..harmonics (period one); shape (len(x), 2 h + 1)."""
    x = np.asarray(x, dtype=float)
    cols = [np.ones_like(x)]
    for k in range(1, harmonics + 1):
        cols += [np.cos(2 * np.pi * k * x), np.sin(2 * np.pi * k * x)]
    return np.stack(cols, axis=-1)


def bump_features(x, centers, width=0.1):
    """Gaussian bumps exp(-(x - c_k)^2 / (2 width^2)); shape (len(x), len(centers))."""
    x = np.asarray(x, dtype=float)
    return np.exp(-((x[:, None] - np.asarray(centers)[None, :]) ** 2) / (2 * width**2))


def seven_points():
    """The seven training points of the feature-map figure: x = (k + 1/2)/7, y = sin(2 pi x) + x."""
    x = (np.arange(7) + 0.5) / 7
    return x, np.sin(2 * np.pi * x) + x


# %% tags=["figure"]
import matplotlib.pyplot as plt

xs, ys = seven_points()
grid = np.linspace(-0.35, 1.35, 400)
maps = {
    "polynomials, degree 6": lambda x: polynomial_features(x, 6),
    "Fourier, 3 harmonics": lambda x: fourier_features(x, 3),
    "Gaussian bumps at the data": lambda x: bump_features(x, xs, 0.1),
}
fig, ax = plt.subplots(figsize=(7, 4))
ax.axvspan(xs.min(), xs.max(), color="0.92", zorder=0)
for label, feat in maps.items():
    theta = least_squares(feat(xs), ys)
    ax.plot(grid, feat(grid) @ theta, label=label)
ax.plot(xs, ys, "ko", zorder=5)
ax.set_ylim(-3, 4)
ax.set_xlabel("$x$")
ax.set_ylabel(r"$f_\theta(x)$")
ax.set_title("Three feature maps, $P=n=7$: all interpolate, all disagree off the data")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **Exercise B.2 (A three-point feature calculation).** Same three points, now with the
# feature map $\psi(x) = (1,\sqrt2\,x,\,x^2)$ (`quadratic_features`).
#
# **(a)** Form $\Psi$ and find coefficients $\theta$ that interpolate all three labels
# (use `min_norm_interpolant` below once you have written it, or solve by hand). The
# representational failure of B.1(c) is gone: what changed?
#
# **(b)** Explain precisely how the predictor can be nonlinear in $x$ while the regression
# problem remains linear.
#
# **(c)** If the last feature is replaced by $c\,x^2$ for some $c\ne0$, what changes: the
# fitted function, its coefficient, or both?
#
# **(d)** Write $K(x,z):=\psi(x)\cdot\psi(z)$ in closed form, without vector notation.

# %% [markdown] tags=["answer"] points=1
# **(a)**
# $\Psi=\begin{pmatrix}1&-\sqrt2&1\\1&0&0\\1&\sqrt2&1\end{pmatrix}$, $\det\Psi = 2\sqrt2\neq0$,
# so the interpolant is unique: $\theta=(0,0,1)$, i.e. $f(x)=x^2$. What changed is the
# model class: the span of the features now contains the target function, so
# $Y\in\mathrm{col}(\Psi)$; the optimization problem is exactly as easy as before.
#
# **(b)** Nonlinearity in $x$ is in the fixed map $\psi$; the parameters enter only through
# $\theta\cdot\psi(x)$. The loss $\frac12|\Psi\theta-Y|^2$ is therefore a quadratic in
# $\theta$, its gradient is affine in $\theta$, and the normal equations
# $\Psi^T\Psi\theta=\Psi^TY$ are linear. "Linear regression" means linear in $\theta$.
#
# **(c)** Only the coefficient: with $\psi_3=cx^2$ the unique interpolant is
# $\theta=(0,0,1/c)$ and the fitted function is still $x^2$ (here $P=n$ and $\Psi$ is
# invertible, so the fitted function is the unique element of $\mathrm{span}\{1,x,x^2\}$
# through the data). This invariance is special to unique fits: once a norm is used to
# choose (minimum-norm or ridge, B.3–B.4), rescaling a feature changes the fitted function.
#
# **(d)** $K(x,z) = 1 + 2xz + x^2z^2 = (1+xz)^2$.

# %% [markdown]
# ## B.3 Kernel regression
#
# Let $P>n$ and $\Psi$ have full row rank $n$: there is a $(P-n)$-dimensional affine
# family of interpolants. Choose the one of minimum norm,
# $$
# \theta_* = \operatorname*{arg\,min}_\theta\ \tfrac12|\theta|^2\quad\text{subject to}\quad \Psi\theta = Y . \tag{B.11}
# $$
# With Lagrange multipliers $\alpha\in\mathbb R^n$, stationarity of
# $\frac12|\theta|^2-\alpha\cdot(\Psi\theta-Y)$ in $\theta$ gives
# $$
# \theta_* = \Psi^T\alpha = \sum_{\mu=1}^n\alpha_\mu\,\psi(x^\mu) , \tag{B.12}
# $$
# so $\theta_*$ lies in the row space of $\Psi$ and the constraint becomes
# $\Psi\Psi^T\alpha = Y$. With the *kernel* and its *Gram matrix*
# $$
# K(x,x') := \psi(x)\cdot\psi(x'),\qquad \hat K := \Psi\Psi^T,\quad \hat K_{\mu\nu} = K(x^\mu,x^\nu), \tag{B.13}
# $$
# $\alpha = \hat K^{-1}Y$, $\theta_* = \Psi^T(\Psi\Psi^T)^{-1}Y$, and the prediction at any $x$ is
# $$
# f_*(x) = \theta_*\cdot\psi(x) = \sum_{\mu,\nu=1}^n K(x,x^\mu)\,\big(\hat K^{-1}\big)_{\mu\nu}\,y^\nu . \tag{B.14}
# $$
# For a model linear in $\theta$ the Jacobian is $J=\Psi$ and its NTK is constant,
# $$
# \Theta = JJ^T = \Psi\Psi^T = \hat K . \tag{B.15}
# $$

# %% tags=["graded"]
def min_norm_interpolant(Psi, Y):
    """Minimum-norm interpolant theta_* = Psi^T (Psi Psi^T)^{-1} Y, notes App. B.3, (B.11)-(B.14).

    Arguments:
        Psi: array of shape (n, P) with full row rank n (so P >= n), the feature matrix.
        Y: array of shape (n,), the labels.

    Returns:
        theta: array of shape (P,), the parameter vector of smallest Euclidean norm
        among all solutions of Psi @ theta = Y.
    """
    Psi = np.asarray(Psi, dtype=float)
    Y = np.asarray(Y, dtype=float)
    alpha = np.linalg.solve(Psi @ Psi.T, Y)  # (B.13): K_hat alpha = Y
    return Psi.T @ alpha  # (B.12): theta_* = Psi^T alpha


# %% tags=["check"]
@check
def check_min_norm_interpolates():
    "the min-norm solution interpolates and lies in the span of the training feature vectors"
    rng = np.random.default_rng(2)
    Psi = rng.normal(size=(4, 10))
    Y = rng.normal(size=4)
    theta = np.asarray(min_norm_interpolant(Psi, Y))
    assert theta.shape == (10,), "theta should have shape (P,)"
    assert np.allclose(Psi @ theta, Y, atol=1e-8), "Psi @ theta should equal Y"
    coef, *_ = np.linalg.lstsq(Psi.T, theta, rcond=None)
    assert np.allclose(Psi.T @ coef, theta, atol=1e-8), "theta is not a combination of the rows of Psi"


@check
def check_min_norm_beats_other_interpolants():
    "adding a null-space direction to theta_* keeps it an interpolant but makes it longer"
    rng = np.random.default_rng(3)
    Psi = rng.normal(size=(3, 6))
    Y = rng.normal(size=3)
    theta = np.asarray(min_norm_interpolant(Psi, Y))
    v = rng.normal(size=6)
    v -= Psi.T @ np.linalg.solve(Psi @ Psi.T, Psi @ v)  # project onto ker(Psi)
    assert np.allclose(Psi @ (theta + v), Y, atol=1e-8)
    assert np.linalg.norm(theta + v) > np.linalg.norm(theta), "another interpolant is shorter"


# %% [markdown]
# **Exercise B.3 (Minimum-norm interpolation and the kernel).**
#
# **(a)** Carry out the Lagrange-multiplier computation leading to (B.12)–(B.14).
# Alternatively, use the SVD $\Psi=USV^T$ to show that the minimum-norm interpolant is
# $\theta_*=\Psi^T(\Psi\Psi^T)^{-1}Y$, and write it in terms of $U,S,V$.

# %% [markdown] tags=["answer"] points=1
# Lagrangian $\mathcal F(\theta,\alpha)=\frac12|\theta|^2-\alpha\cdot(\Psi\theta-Y)$.
# $\partial_\theta\mathcal F = \theta-\Psi^T\alpha=0$ gives (B.12); $\partial_\alpha\mathcal F=0$
# is the constraint $\Psi\Psi^T\alpha = \hat K\alpha=Y$, so $\alpha=\hat K^{-1}Y$ (full row
# rank makes $\hat K$ invertible) and $f_*(x)=\psi(x)\cdot\Psi^T\alpha=\sum_\mu
# K(x,x^\mu)\alpha_\mu$, which is (B.14). The stationary point is the minimum: the
# objective is strictly convex and the constraint set affine.
#
# SVD route: thin SVD $\Psi=USV^T$ with $U\in O(n)$, $S=\mathrm{diag}(s_1..s_n)$, $s_a>0$,
# $V\in\mathbb R^{P\times n}$ with $V^TV=I_n$. Write $\theta = V\beta+\theta_\perp$ with
# $V^T\theta_\perp=0$. Then $\Psi\theta = US\beta = Y$ fixes $\beta = S^{-1}U^TY$, while
# $|\theta|^2=|\beta|^2+|\theta_\perp|^2$ is minimized by $\theta_\perp=0$:
# $$
# \theta_* = VS^{-1}U^TY = \Psi^+Y = VSU^T\,(US^2U^T)^{-1}Y = \Psi^T(\Psi\Psi^T)^{-1}Y .
# $$

# %% [markdown]
# **(b)** Show that $c^T\hat Kc = |\Psi^Tc|^2\ge0$ for all $c\in\mathbb R^n$. Interpret a
# zero eigenvalue of $\hat K$ as a linear combination of training examples that vanishes in
# feature space. What does it take for $\hat K$ to be invertible?

# %% [markdown] tags=["answer"] points=1
# $c^T\hat Kc = c^T\Psi\Psi^Tc = |\Psi^Tc|^2 = \big|\sum_\mu c_\mu\psi(x^\mu)\big|^2\ge0$.
# If $\hat Kc=0$ then $c^T\hat Kc=0$, so $\sum_\mu c_\mu\,\psi(x^\mu)=0$: a nontrivial
# linear combination of the training points' feature vectors vanishes, e.g. a repeated input,
# or more inputs than the features can distinguish. $\hat K$ is invertible iff the $n$ vectors
# $\psi(x^1),\dots,\psi(x^n)$ are linearly independent, i.e. $\Psi$ has full row rank $n$;
# this needs $P\ge n$ and distinct inputs, and is generic for rich features.

# %% [markdown]
# **(c)** Show that under gradient flow $\dot\theta = -\eta\,\Psi^T(\Psi\theta-Y)$ the
# displacement $\theta(t)-\theta_0$ stays in the row space of $\Psi$; derive
# $\Delta(t)=e^{-\eta t\hat K}\Delta(0)$; and conclude that, for invertible $\hat K$, the
# flow converges to the interpolant closest to $\theta_0$. Derive (4.36) for this model,
# with $\Theta=\hat K$.

# %% [markdown] tags=["answer"] points=1
# $\dot\theta = \Psi^T(-\eta\Delta)\in\mathrm{row}(\Psi)$ at all times, so
# $\theta(t)-\theta_0=\int_0^t\dot\theta\in\mathrm{row}(\Psi)$. The residual obeys
# $\dot\Delta = \Psi\dot\theta = -\eta\Psi\Psi^T\Delta = -\eta\hat K\Delta$, a linear ODE with
# constant coefficients: $\Delta(t)=e^{-\eta t\hat K}\Delta(0)\to0$ when $\hat K>0$. The
# limit $\theta_\infty$ therefore interpolates, and $\theta_\infty-\theta_0\in\mathrm{row}(\Psi)
# = \ker(\Psi)^\perp$. Every other interpolant is $\theta_\infty+v$ with $v\in\ker\Psi$, and
# $|\theta_\infty+v-\theta_0|^2 = |\theta_\infty-\theta_0|^2+|v|^2$: $\theta_\infty$ is the
# interpolant closest to $\theta_0$, namely
# $\theta_\infty = \theta_0+\Psi^T\hat K^{-1}(Y-\Psi\theta_0)$ ($=\theta_*$ for $\theta_0=0$).
#
# At finite $t$: $\Psi(\theta(t)-\theta_0)=f(t)-f(0)=(I-e^{-\eta t\hat K})(Y-f(0))$, and since
# $\theta(t)-\theta_0=\Psi^T\beta(t)$ lies in the row space, $\beta(t)=\hat K^{-1}(I-e^{-\eta
# t\hat K})(Y-f_0(X))$. At any input,
# $$
# f_t(x) = f_0(x) + K(x,X)\,\hat K^{-1}\big(I-e^{-\eta t\hat K}\big)\big(Y-f_0(X)\big),
# $$
# which is (4.36) with $\Theta=\hat K$.

# %% [markdown]
# **(d)** Verify that $\psi(x)\cdot\psi(z) = (x\cdot z)^2$ for
# $\psi(x)=(x_1^2,\sqrt2\,x_1x_2,x_2^2)$, and explain why the $\sqrt2$ is not decoration.
# Which feature map on $\mathbb R$ produces the kernel $(1+xz)^2$ of B.2(d)? How many features
# does $(x\cdot z)^m$ on $\mathbb R^d$ stand in for?

# %% [markdown] tags=["answer"] points=1
# $\psi(x)\cdot\psi(z)=x_1^2z_1^2+2x_1x_2z_1z_2+x_2^2z_2^2=(x_1z_1+x_2z_2)^2$. The cross term
# of the square has multiplicity 2; without the $\sqrt2$ one gets a different kernel,
# $x_1^2z_1^2+x_1x_2z_1z_2+x_2^2z_2^2$ (still a valid kernel, but not $(x\cdot z)^2$), and a
# different inductive bias: the weights of the features set the kernel. On $\mathbb R$,
# $(1+xz)^2$ comes from $\psi(x)=(1,\sqrt2\,x,x^2)$ (B.2). $(x\cdot z)^m=\sum_{|k|=m}
# \binom{m}{k}x^kz^k$ stands in for one feature $\sqrt{\binom{m}{k}}\,x^k$ per monomial of
# degree $m$ in $d$ variables: $\binom{d+m-1}{m}$ features.

# %% [markdown]
# ## B.4 Kernel ridge regression
#
# For $\lambda>0$ ridge regression minimizes
# $$
# \mathcal L_\lambda(\theta) = \tfrac12|\Psi\theta-Y|^2+\tfrac\lambda2|\theta|^2 . \tag{B.16}
# $$
# The gradient is $\Psi^T(\Psi\theta-Y)+\lambda\theta$, so
# $$
# \big(\Psi^T\Psi+\lambda I_P\big)\theta = \Psi^TY, \tag{B.17}
# $$
# $$
# \theta_\lambda = \big(\Psi^T\Psi+\lambda I_P\big)^{-1}\Psi^TY , \tag{B.18}
# $$
# a $P\times P$ inverse. From $\Psi^T(\Psi\Psi^T+\lambda I_n) = \Psi^T\Psi\Psi^T + \lambda\Psi^T
# = (\Psi^T\Psi+\lambda I_P)\Psi^T$ (B.19), multiplying by the two inverses on the outer
# sides gives the **push-through identity**
# $$
# \big(\Psi^T\Psi+\lambda I_P\big)^{-1}\Psi^T = \Psi^T\big(\Psi\Psi^T+\lambda I_n\big)^{-1} , \tag{B.20}
# $$
# hence $\theta_\lambda=\Psi^T\alpha_\lambda$ with $\alpha_\lambda = (\hat K+\lambda I_n)^{-1}Y$,
# and the prediction at a new input is **kernel ridge regression**,
# $$
# f_\lambda(x) = \sum_{\mu,\nu=1}^nK(x,x^\mu)\big(\hat K+\lambda I_n\big)^{-1}_{\mu\nu}\,y^\nu . \tag{B.21}
# $$
# You implement both routes: the feature route (B.18) in `ridge_parameters`, the kernel
# route (B.21) in `kernel_ridge`. Note the two identities have different sizes: $I_P$ in
# (B.18) and $I_n$ in (B.21).

# %% tags=["graded"]
def ridge_parameters(Psi, Y, lam):
    """Ridge parameters by the feature route, theta_lam = (Psi^T Psi + lam I_P)^{-1} Psi^T Y, notes (B.18).

    Arguments:
        Psi: array of shape (n, P), the feature matrix (any rank; P may be smaller or
             larger than n).
        Y: array of shape (n,), the labels.
        lam: float > 0, the ridge parameter.

    Returns:
        theta: array of shape (P,), the unique minimizer of
        0.5 |Psi theta - Y|^2 + 0.5 lam |theta|^2.
    """
    Psi = np.asarray(Psi, dtype=float)
    Y = np.asarray(Y, dtype=float)
    P = Psi.shape[1]
    return np.linalg.solve(Psi.T @ Psi + lam * np.eye(P), Psi.T @ Y)


def kernel_ridge(K_train, K_test_train, Y, lam):
    """Kernel ridge regression predictions at test points, notes (B.21).

    Arguments:
        K_train: array of shape (n, n), the Gram matrix K(x^mu, x^nu) of the training inputs
                 (symmetric positive semidefinite).
        K_test_train: array of shape (m, n), entries K(z^a, x^mu) between m test inputs z^a
                      and the n training inputs.
        Y: array of shape (n,), the training labels.
        lam: float >= 0, the ridge parameter (lam = 0 is kernel interpolation (B.14) and
             requires K_train to be invertible).

    Returns:
        array of shape (m,): f_lam(z^a) = sum_{mu,nu} K(z^a, x^mu) [(K_train + lam I_n)^{-1}]_{mu nu} y^nu.
    """
    K_train = np.asarray(K_train, dtype=float)
    K_test_train = np.asarray(K_test_train, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n = K_train.shape[0]
    alpha = np.linalg.solve(K_train + lam * np.eye(n), Y)
    return K_test_train @ alpha


# %% tags=["check"]
@check
def check_ridge_stationary():
    "the feature-route ridge solution makes the gradient of the penalized loss vanish"
    rng = np.random.default_rng(4)
    for n, P in [(8, 3), (3, 8)]:
        Psi = rng.normal(size=(n, P))
        Y = rng.normal(size=n)
        theta = np.asarray(ridge_parameters(Psi, Y, 0.7))
        assert theta.shape == (P,), f"theta should have shape ({P},) for Psi of shape {Psi.shape}"
        grad = Psi.T @ (Psi @ theta - Y) + 0.7 * theta
        assert np.allclose(grad, 0, atol=1e-8), f"gradient of the ridge loss is not zero (n={n}, P={P})"


@check
def check_kernel_ridge_limits():
    "kernel ridge: at lam = 0 the training predictions reproduce Y; at large lam they shrink to 0"
    rng = np.random.default_rng(5)
    Psi = rng.normal(size=(5, 12))
    K = Psi @ Psi.T
    Y = rng.normal(size=5)
    out = np.asarray(kernel_ridge(K, K, Y, 0.0))
    assert out.shape == (5,), "predictions should have shape (m,)"
    assert np.allclose(out, Y, atol=1e-8), "lam = 0 should interpolate the training labels"
    big = np.asarray(kernel_ridge(K, K, Y, 1e8))
    assert np.max(np.abs(big)) < 1e-5, "predictions should vanish as lam -> infinity"
    z = np.asarray(kernel_ridge(K, K[:2], Y, 0.3))
    assert z.shape == (2,), "with two test points the output should have shape (2,)"


@check
def check_push_through():
    "the kernel route equals the feature route at every lam (push-through identity)"
    rng = np.random.default_rng(9)
    Psi, Psi_test, Y = rng.normal(size=(4, 6)), rng.normal(size=(3, 6)), rng.normal(size=4)
    for lam in (0.2, 3.0):
        theta = np.asarray(ridge_parameters(Psi, Y, lam))
        assert np.allclose(kernel_ridge(Psi @ Psi.T, Psi_test @ Psi.T, Y, lam), Psi_test @ theta, atol=1e-10), \
            f"K(z, X) (K + lam I)^-1 Y should equal psi(z) . theta_lam at lam = {lam}"


# %% [markdown]
# **Exercise B.4 (Ridge regression, two ways).**
#
# **(a)** Derive (B.17) and (B.18), and prove that $\Psi^T\Psi+\lambda I_P$ is invertible
# even when $\Psi$ is rank deficient.
#
# **(b)** Prove the push-through identity (B.20) and deduce (B.21). Explain why "cancelling
# $\Psi^T$" is not a valid step, and why the identity is nevertheless true.

# %% [markdown] tags=["answer"] points=1
# **(a)** $\partial_{\theta^j}\mathcal L_\lambda = (\Psi^T(\Psi\theta-Y))_j+\lambda\theta^j$; setting
# the gradient to zero gives (B.17). For $v\ne0$,
# $v^T(\Psi^T\Psi+\lambda I_P)v=|\Psi v|^2+\lambda|v|^2\ge\lambda|v|^2>0$, whatever the rank of
# $\Psi$; a positive-definite matrix is invertible, which gives (B.18) and, since
# $\mathcal L_\lambda$ is strictly convex, uniqueness of the minimizer.
#
# **(b)** Both $A:=\Psi^T\Psi+\lambda I_P$ and $B:=\Psi\Psi^T+\lambda I_n$ are positive
# definite by (a). (B.19) reads $\Psi^TB=A\Psi^T$; multiply by $A^{-1}$ on the left and
# $B^{-1}$ on the right: $A^{-1}\Psi^T=\Psi^TB^{-1}$ (B.20). Then
# $\theta_\lambda=A^{-1}\Psi^TY=\Psi^T(\hat K+\lambda I_n)^{-1}Y$ and
# $f_\lambda(x)=\psi(x)\cdot\theta_\lambda = \sum_\mu K(x,x^\mu)\,[(\hat K+\lambda I_n)^{-1}Y]_\mu$,
# which is (B.21). "Cancelling $\Psi^T$" would require a left or right inverse of the
# rectangular $\Psi^T$, which in general does not exist (one of $\Psi^T\Psi$, $\Psi\Psi^T$ is
# singular when $P\neq n$). The identity does not rely on cancelling anything: it is the
# one-line intertwining relation (B.19), $\Psi^T$ maps the eigenvectors of $\Psi\Psi^T$ to those
# of $\Psi^T\Psi$ with the same nonzero eigenvalues, and both sides vanish on $\ker\Psi^T$.

# %% [markdown]
# **(c)** What happens as $\lambda\to\infty$? Using the SVD, show that $\theta_\lambda$
# applies the scalar filter $s/(s^2+\lambda)$ to each singular value $s$ of $\Psi$, and
# hence that as $\lambda\to0$ it converges to the least-squares solution of minimum norm.
# When does this limit interpolate the labels exactly?

# %% [markdown] tags=["answer"] points=1
# With the full SVD $\Psi=\sum_a s_a u_av_a^T$ (sum over $s_a>0$),
# $\Psi^T\Psi+\lambda I_P$ has eigenvalue $s_a^2+\lambda$ on $v_a$ and $\lambda$ on
# $\ker\Psi$, while $\Psi^TY=\sum_a s_a(u_a\cdot Y)v_a$. Hence
# $$
# \theta_\lambda=\sum_a\frac{s_a}{s_a^2+\lambda}\,(u_a\cdot Y)\,v_a .
# $$
# As $\lambda\to\infty$, $\theta_\lambda\approx\Psi^TY/\lambda\to0$ (and the predictions go to
# zero). As $\lambda\to0$, $s/(s^2+\lambda)\to1/s$ for every $s>0$, so
# $\theta_\lambda\to\sum_a s_a^{-1}(u_a\cdot Y)v_a=\Psi^+Y$: it lies in $\mathrm{row}(\Psi)$
# and solves the normal equations, i.e. it is the least-squares solution of minimum norm.
# Its predictions $\Psi\Psi^+Y$ are the orthogonal projection of $Y$ onto $\mathrm{col}(\Psi)$,
# which equals $Y$ exactly when $Y\in\mathrm{col}(\Psi)$, in particular always when $\Psi$
# has full row rank $n$.

# %% [markdown]
# **(d)** Return to $x\in\{-1,0,1\}$, $y=x^2$ and the kernel $K(x,z)=(1+xz)^2$. With
# $\lambda=1$, verify that
# $$
# \hat K=\begin{pmatrix}4&1&0\\1&1&1\\0&1&4\end{pmatrix},\qquad
# \alpha_\lambda = \frac14\begin{pmatrix}1\\-1\\1\end{pmatrix},
# $$
# and predict at $z=2$ using only kernel evaluations (`quadratic_kernel` and your
# `kernel_ridge`). Compare with the interpolant of B.2(a), which predicts $z^2=4$ there, and
# explain the direction of the discrepancy.
#
# **(e)** The feature route solves a $P\times P$ system and the kernel route an $n\times n$
# one. When is each attractive?

# %% tags=["figure"]
try:
    K3 = quadratic_kernel(x3, x3)
    print("K_hat =\n", K3)
    print("kernel ridge at z = 2, lam = 1:", kernel_ridge(K3, quadratic_kernel([2.0], x3), Y3, 1.0))
except NotImplementedError:
    print("kernel_ridge is not implemented yet")

# %% [markdown]
# **Your answers to B.4(d) and (e).** Verify $\hat K$ and $\alpha_\lambda$, give the prediction at
# $z=2$ from the output above, compare it with the interpolant's $z^2=4$ and explain the
# direction of the discrepancy. Then say when the feature route ($P\times P$) and when the kernel
# route ($n\times n$) is the attractive one.

# %% [markdown] tags=["answer"] points=1
# **(d)** $\hat K_{\mu\nu}=(1+x^\mu x^\nu)^2$ gives the matrix shown, and
# $(\hat K+I)\tfrac14(1,-1,1)^T=\tfrac14(5-1,\;1-2+1,\;-1+5)^T=(1,0,1)^T=Y$. With
# $K(2,x^\mu)=(1-2)^2,(1)^2,(1+2)^2=(1,1,9)$, $f_1(2)=\frac14(1-1+9)=\frac94$. In general
# $f_1(z)=\frac14\big[(1-z)^2-1+(1+z)^2\big]=\frac14+\frac{z^2}2$, i.e.
# $\theta_\lambda=\Psi^T\alpha_\lambda=(\frac14,0,\frac12)$ in the features
# $(1,\sqrt2x,x^2)$. The training predictions $(\frac34,\frac14,\frac34)$ no longer interpolate.
# The penalty shrinks $|\theta|$: the norm-1 interpolant $\theta=(0,0,1)$ is traded for a
# shorter vector ($|\theta_\lambda|^2=\frac5{16}$) that spreads the weight onto the constant
# feature. The coefficient of the fast-growing feature $x^2$ is halved, so far from the data the ridge predictor
# undershoots: $\frac94<4$, and $f_1(z)/z^2\to\frac12$. Ridge biases predictions toward zero
# (the prior mean), most strongly in the directions the data constrain least.
#
# **(e)** Feature route: form $\Psi^T\Psi$ ($O(nP^2)$) and solve $P\times P$ ($O(P^3)$): cheap
# when $P\ll n$ (few explicit features, many data), and it gives $\theta$ explicitly, so
# prediction costs $O(P)$. Kernel route: $n\times n$ Gram matrix and solve ($O(n^3)$), and each
# prediction needs $n$ kernel evaluations: attractive when $P\gg n$ or $P=\infty$ (Gaussian
# kernel, NTK of a large network), or when features are not known explicitly.

# %% [markdown]
# ### Spectral view: ridge vs early stopping
#
# With $\Psi=USV^T$, $\hat K=US^2U^T$ has eigenvalues $s_a^2$ and orthonormal
# eigenvectors $u_a\in\mathbb R^n$. The ridge training predictions are
# $$
# f_\lambda=\Psi\theta_\lambda = \hat K(\hat K+\lambda I_n)^{-1}Y = \sum_a\frac{s_a^2}{s_a^2+\lambda}\,(u_a\cdot Y)\,u_a , \tag{B.22}
# $$
# while gradient flow on the unpenalized loss from $\theta_0=0$ (so $f(0)=0$) gives, by (4.35),
# $$
# f(t)=\big(I-e^{-\eta t\hat K}\big)Y = \sum_a\big(1-e^{-\eta t s_a^2}\big)(u_a\cdot Y)\,u_a . \tag{B.23}
# $$
# Both are *spectral filters* acting mode by mode. Implement the two filters, the ridge
# parameter $\lambda_{\rm eff}(s^2,t)$ at which they agree on a mode of eigenvalue $s^2$,
# and the gradient-flow training predictions (B.23). Careful: $e^{-\eta t\hat K}$ is a
# **matrix** exponential.

# %% tags=["graded"]
def ridge_filter(s2, lam):
    """Ridge spectral filter s2 / (s2 + lam), notes (B.22).

    Arguments:
        s2: float or array of kernel eigenvalues s_a^2 >= 0.
        lam: float > 0, the ridge parameter.

    Returns:
        float or array of the same shape as s2: the fraction of each mode u_a . Y that is fit.
    """
    s2 = np.asarray(s2, dtype=float)
    return s2 / (s2 + lam)


def flow_filter(s2, eta_t):
    """Gradient-flow (early-stopping) spectral filter 1 - exp(-eta_t * s2), notes (B.23).

    Arguments:
        s2: float or array of kernel eigenvalues s_a^2 >= 0.
        eta_t: float >= 0, learning rate times training time.

    Returns:
        float or array of the same shape as s2.
    """
    s2 = np.asarray(s2, dtype=float)
    return -np.expm1(-eta_t * s2)


def effective_ridge(s2, eta_t):
    """Ridge parameter lam_eff = s2 / (exp(eta_t * s2) - 1) at which the ridge filter equals the
    gradient-flow filter at time eta_t on a mode of eigenvalue s2, notes Ex. B.5(c).

    Arguments:
        s2: float or array of kernel eigenvalues s_a^2 > 0.
        eta_t: float > 0.

    Returns:
        float or array of the same shape as s2.
    """
    s2 = np.asarray(s2, dtype=float)
    return s2 / np.expm1(eta_t * s2)


def flow_predictions(K_train, Y, eta_t):
    """Training predictions f(t) = (I - exp(-eta_t K_train)) Y of gradient flow from f(0) = 0, notes (B.23).

    Arguments:
        K_train: array of shape (n, n), symmetric positive semidefinite Gram matrix.
        Y: array of shape (n,), the labels.
        eta_t: float >= 0, learning rate times training time.

    Returns:
        array of shape (n,). (exp is the matrix exponential, not an entrywise one.)
    """
    K_train = np.asarray(K_train, dtype=float)
    Y = np.asarray(Y, dtype=float)
    s2, U = np.linalg.eigh(K_train)
    return U @ (flow_filter(s2, eta_t) * (U.T @ Y))


# %% tags=["check"]
@check
def check_filter_limits():
    "both filters rise from 0 to 1 with s^2, and lam_eff reconciles them on every mode"
    s2 = np.logspace(-3, 2, 11)
    r = np.asarray(ridge_filter(s2, 0.5))
    f = np.asarray(flow_filter(s2, 2.0))
    assert r.shape == s2.shape and f.shape == s2.shape, "filters should act elementwise"
    for name, v in [("ridge_filter", r), ("flow_filter", f)]:
        assert np.all(np.diff(v) >= 0), f"{name} should increase with s2"
        assert v[0] < 0.01 and v[-1] > 0.99, f"{name} should go from 0 (small s2) to 1 (large s2)"
    lam = np.asarray(effective_ridge(s2, 2.0))
    assert np.allclose(ridge_filter(s2, lam), flow_filter(s2, 2.0), rtol=1e-8), \
        "ridge_filter(s2, effective_ridge(s2, t)) should equal flow_filter(s2, t)"
    assert np.allclose(ridge_filter(np.array([0.5, 2.0]), 1.5), [0.25, 2.0 / 3.5]), "s2 / (s2 + lam)"
    assert np.allclose(flow_filter(np.array([0.5, 2.0]), 0.7), 1 - np.exp(-0.7 * np.array([0.5, 2.0]))), \
        "1 - exp(-eta t s2)"
    assert np.isclose(effective_ridge(0.8, 0.3), 0.8 / np.expm1(0.24)), "s2 / (exp(eta t s2) - 1)"


@check
def check_flow_predictions_limits():
    "gradient flow starts at f = 0 and converges to the labels when K is invertible"
    rng = np.random.default_rng(6)
    A = rng.normal(size=(4, 4))
    K = A @ A.T + np.eye(4)
    Y = rng.normal(size=4)
    assert np.allclose(flow_predictions(K, Y, 0.0), 0, atol=1e-12), "f(0) should be 0"
    assert np.allclose(flow_predictions(K, Y, 200.0), Y, atol=1e-8), "f(t -> infinity) should be Y"
    h = 1e-6  # df/dt at t = 0 equals K Y (with eta = 1)
    assert np.allclose(np.asarray(flow_predictions(K, Y, h)) / h, K @ Y, rtol=1e-4, atol=1e-4), \
        "df/d(eta t) at t = 0 should be K_train @ Y"
    K2 = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.0]])
    Y2 = np.array([1.0, -2.0, 0.5])
    s2, U = np.linalg.eigh(K2)
    assert np.allclose(flow_predictions(K2, Y2, 0.8), U @ ((1 - np.exp(-0.8 * s2)) * (U.T @ Y2)), atol=1e-12), \
        "f(t) = (I - expm(-eta t K)) Y, mode by mode"


# %% [markdown]
# **Figure (cf. Figure 13 of the notes).** The two filters, tuned to agree on the mode
# $s^2=1$ ($\lambda=1$, $\eta t=\log2$), with the two modes of Exercise B.5 marked.

# %% tags=["figure"]
import matplotlib.pyplot as plt

s2_grid = np.logspace(-2, 2, 400)
lam_fig, eta_t_fig = 1.0, np.log(2.0)
s2_modes = np.array([1.0, 3.0])
fig, ax = plt.subplots(figsize=(6.5, 4))
ax.semilogx(s2_grid, ridge_filter(s2_grid, lam_fig), label=r"ridge $s^2/(s^2+\lambda)$, $\lambda=1$")
ax.semilogx(s2_grid, flow_filter(s2_grid, eta_t_fig), label=r"gradient flow $1-e^{-\eta t s^2}$, $\eta t=\log 2$")
ax.plot(s2_modes, ridge_filter(s2_modes, lam_fig), "o", color="C0")
ax.plot(s2_modes, flow_filter(s2_modes, eta_t_fig), "s", color="C1")
ax.axvline(1.0, color="0.7", lw=0.8, ls="--")
ax.set_xlabel(r"kernel eigenvalue $s^2$")
ax.set_ylabel(r"fraction of mode $u_a\cdot Y$ that is fit")
ax.set_title("Ridge vs early stopping as spectral filters")
ax.legend(fontsize=8, loc="upper left")
plt.show()

# %% [markdown]
# **Exercise B.5 (Early stopping vs ridge, on two data points).** Take $n=2$ training
# points with
# $$
# \hat K=\begin{pmatrix}2&1\\1&2\end{pmatrix},\qquad Y=\begin{pmatrix}2\\0\end{pmatrix},
# $$
# and $f(0)=0$.
#
# **(a)** Verify the eigenpairs $u_\pm=\frac1{\sqrt2}(1,\pm1)^T$ with $s_\pm^2=3,1$, and
# decompose $Y$ into these modes.
#
# **(b)** Using (B.23) (your `flow_predictions`), find the training predictions $f(t)$
# under gradient flow and evaluate them at $\eta t=\log2$. Why do both the eigenvalue
# $s_a^2$ and the initial projection $u_a\cdot Y$ matter for what is visible during
# training?
#
# **(c)** Using (B.22), find the ridge predictions for $\lambda=1$. The two filters agree on
# the mode with $s^2=1$; show that the ridge parameter matching gradient flow at time $t$ on
# a mode with eigenvalue $s^2$ is $\lambda_{\rm eff}(s^2,t)=s^2/(e^{\eta ts^2}-1)$, which
# depends on the mode, so early stopping is not ridge regression.
#
# **(d)** State precisely what "spectral bias" means for this finite, fixed-kernel
# calculation. What additional structure would be needed to turn it into a claim about
# Fourier frequencies, about robustness to label noise, or about test error?

# %% tags=["figure"]
K2 = np.array([[2.0, 1.0], [1.0, 2.0]])
Y2 = np.array([2.0, 0.0])
print("eigenvalues of K_hat:", np.linalg.eigvalsh(K2))
try:
    print("gradient flow, eta t = log 2:", flow_predictions(K2, Y2, np.log(2.0)))
    print("ridge, lam = 1:", kernel_ridge(K2, K2, Y2, 1.0))
    print("lam_eff at s2 = 3 and s2 = 1, eta t = log 2:", effective_ridge(np.array([3.0, 1.0]), np.log(2.0)))
except NotImplementedError:
    print("some functions are not implemented yet")

# %% [markdown]
# **Your answers to Exercise B.5 (a)-(d).** Use the output above for the numbers of (b) and (c);
# derive $\lambda_{\rm eff}(s^2,t)$ and answer (d) in words: what does "spectral bias" mean for
# this finite, fixed-kernel calculation, and what more would a claim about frequencies, label
# noise or test error need?

# %% [markdown] tags=["answer"] points=1
# **(a)** $\hat K(1,\pm1)^T=(2\pm1)(1,\pm1)^T$, so $s_+^2=3$, $s_-^2=1$. $u_\pm\cdot Y=\sqrt2$
# for both, so $Y=\sqrt2u_++\sqrt2u_-=(1,1)^T+(1,-1)^T$: equal weight in both modes.
#
# **(b)** $f(t)=(1-e^{-3\eta t})(1,1)^T+(1-e^{-\eta t})(1,-1)^T$. At $\eta t=\log2$:
# $\frac78(1,1)+\frac12(1,-1) = (\frac{11}8,\frac38)$. The fast mode is 7/8 learned, the slow
# one only half. What is visible in $f(t)$ at time $t$ is the filter times the mode's
# amplitude: a mode with large $s_a^2$ is learned fast but contributes nothing if $u_a\cdot
# Y=0$; a mode with a large projection dominates $f(t)$ once $\eta t s_a^2\gtrsim1$, even if
# it is slow. The order in which the function is learned depends on eigenvalues *and* label
# alignment.
#
# **(c)** Ridge factors $\frac{3}{3+1}=\frac34$ and $\frac{1}{1+1}=\frac12$:
# $f_1=\frac34(1,1)+\frac12(1,-1)=(\frac54,\frac14)$. Solving
# $\frac{s^2}{s^2+\lambda}=1-e^{-\eta ts^2}$ for $\lambda$:
# $s^2+\lambda = s^2/(1-e^{-\eta ts^2})$, so $\lambda = s^2e^{-\eta t s^2}/(1-e^{-\eta t s^2})
# = s^2/(e^{\eta ts^2}-1)$. At $\eta t=\log 2$ this is $1$ for $s^2=1$ but $3/7$ for
# $s^2=3$: no single $\lambda$ reproduces early stopping on both modes. Early stopping
# cuts off modes exponentially sharply in $s^2$, ridge only as a power law
# ($1-\text{filter}\sim\lambda/s^2$ vs $e^{-\eta ts^2}$).
#
# **(d)** Here "spectral bias" means only: for a fixed kernel, gradient flow fits the
# component of $Y$ along the Gram-matrix eigenvector $u_a$ at rate $\eta s_a^2$, so the
# large-eigenvalue modes of $\hat K$ on this training set are fit first (and ridge suppresses
# the small-eigenvalue modes). Nothing more. (i) A claim about *Fourier frequencies* needs
# the eigenvectors to be identified with frequencies, e.g. a translation-invariant
# (or rotation-invariant) kernel on a uniform/symmetric input distribution, whose
# eigenfunctions are Fourier modes (spherical harmonics), with eigenvalues decreasing in
# frequency. (ii) *Robustness to label noise* needs a noise model, e.g. noise isotropic in
# $\mathbb R^n$ while the signal concentrates on the top modes, so early stopping/ridge removes
# mostly noise. (iii) *Test error* needs a data distribution and a target function: the
# population (Mercer) eigen-decomposition of the kernel and the target's coefficients in it,
# since the Gram-matrix calculation only says what happens on the training points.

# %% [markdown]
# ### Three-point fits, together
#
# The figure collects the fits of B.1(c), B.1(d), B.2(a) and B.4(d) on the three points.

# %% tags=["figure"]
import matplotlib.pyplot as plt

x3, Y3 = three_point_data()
zz = np.linspace(-2.2, 2.2, 300)
fits = {
    "affine least squares (B.1c)": affine_features(zz) @ least_squares(affine_features(x3), Y3),
    r"affine, $g=\mathrm{diag}(1,4,1)$ (B.1d)": affine_features(zz)
    @ least_squares(affine_features(x3), Y3, np.diag([1.0, 4.0, 1.0])),
    r"features $(1,\sqrt{2}x,x^2)$, interpolant (B.2a)": quadratic_features(zz)
    @ min_norm_interpolant(quadratic_features(x3), Y3),
    r"kernel ridge $(1+xz)^2$, $\lambda=1$ (B.4d)": kernel_ridge(
        quadratic_kernel(x3, x3), quadratic_kernel(zz, x3), Y3, 1.0),
}
fig, ax = plt.subplots(figsize=(6.5, 4))
for (label, f), ls in zip(fits.items(), ["-", "--", "-", "-."]):
    ax.plot(zz, f, ls, label=label)
ax.plot(x3, Y3, "ko", zorder=5, label="data $y=x^2$")
ax.plot([2.0], kernel_ridge(quadratic_kernel(x3, x3), quadratic_kernel([2.0], x3), Y3, 1.0), "C3*", ms=10)
ax.set_xlabel("$x$")
ax.set_ylabel("$f(x)$")
ax.set_title("One data set, four linear-in-parameters fits")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## B.5 Linearized networks are kernel ridge regressors
#
# Linearize a network around its initialization $\theta_0$ (ansatz (4.1)):
# $$
# f^{\rm lin}_\theta(x) = f_{\theta_0}(x)+\nabla_\theta f_{\theta_0}(x)\cdot(\theta-\theta_0) . \tag{B.24}
# $$
# This is a feature model (B.9) in the displacement $\delta\theta=\theta-\theta_0$, with the
# *tangent features*
# $$
# \psi(x) = \nabla_\theta f_{\theta_0}(x)\in\mathbb R^P , \tag{B.25}
# $$
# fit to the residual labels at initialization,
# $$
# \tilde y^\mu = y^\mu - f_{\theta_0}(x^\mu) . \tag{B.26}
# $$
# Its feature matrix is the Jacobian $\Psi=J_0$, and its kernel is the NTK at
# initialization,
# $$
# \Theta_0(x,x') = \nabla_\theta f_{\theta_0}(x)\cdot\nabla_\theta f_{\theta_0}(x'),\qquad \hat\Theta_0 = J_0J_0^T . \tag{B.27}
# $$
# Ridge regression with weight decay toward the initialization,
# $\frac\lambda2|\theta-\theta_0|^2$, gives by (B.21)
# $$
# f_\lambda(x) = f_{\theta_0}(x)+\sum_{\mu\nu}\Theta_0(x,x^\mu)\big(\hat\Theta_0+\lambda I_n\big)^{-1}_{\mu\nu}\big(y^\nu-f_{\theta_0}(x^\nu)\big) . \tag{B.28}
# $$
#
# **Exercise B.6 (Tangent features of a one-hidden-layer network).** Consider
# $f_\theta(x)=\sum_{i=1}^Nc_i\,\phi(a_i\cdot x)$ with $\theta=(c_i,a_i)_{i=1}^N$, so that
# $P=N(d+1)$. (No $1/\sqrt N$ factor here: exactly as written.)
#
# **(a)** Compute the tangent features $\nabla_\theta f_{\theta_0}(x)$, and show that the
# tangent kernel is
# $$
# \Theta(x,x') = \sum_{i=1}^N\phi(a_i\cdot x)\,\phi(a_i\cdot x')+\sum_{i=1}^Nc_i^2\,\phi'(a_i\cdot x)\,\phi'(a_i\cdot x')\,(x\cdot x') .
# $$
# Implement it as `tangent_kernel`. The activation `phi` and its derivative `dphi` are
# passed as callables acting elementwise on numpy arrays (e.g. `np.tanh` and
# `lambda u: 1 - np.tanh(u)**2`).

# %% tags=["graded"]
def tangent_kernel(c, a, X, phi, dphi):
    """Tangent kernel (NTK) Gram matrix of f(x) = sum_i c_i phi(a_i . x), notes Ex. B.6(a).

    Theta(x, x') = sum_i phi(a_i.x) phi(a_i.x') + sum_i c_i^2 phi'(a_i.x) phi'(a_i.x') (x . x').

    Arguments:
        c: array of shape (N,), output weights.
        a: array of shape (N, d), input weights (row i is a_i).
        X: array of shape (n, d), inputs (row mu is x^mu).
        phi: callable, the activation, applied elementwise to arrays.
        dphi: callable, its derivative phi', applied elementwise to arrays.

    Returns:
        array of shape (n, n): Theta(x^mu, x^nu) for all pairs of rows of X.
    """
    c = np.asarray(c, dtype=float)
    a = np.asarray(a, dtype=float)
    X = np.asarray(X, dtype=float)
    pre = X @ a.T  # (n, N): a_i . x^mu
    F = np.asarray(phi(pre), dtype=float)  # d f / d c_i
    D = np.asarray(dphi(pre), dtype=float) * c  # c_i phi'(a_i . x); d f / d a_i = D_i x
    return F @ F.T + (D @ D.T) * (X @ X.T)


# %% tags=["check"]
@check
def check_tangent_kernel_readout_term():
    "with c = 0 only the readout term sum_i phi(a_i.x) phi(a_i.x') survives"
    rng = np.random.default_rng(7)
    a = rng.normal(size=(5, 3))
    X = rng.normal(size=(4, 3))
    Th = np.asarray(tangent_kernel(np.zeros(5), a, X, np.tanh, lambda u: 1 - np.tanh(u) ** 2))
    F = np.tanh(X @ a.T)
    assert Th.shape == (4, 4), "the Gram matrix should have shape (n, n)"
    assert np.allclose(Th, F @ F.T, atol=1e-10), "with c = 0 the kernel should be Phi Phi^T"


@check
def check_tangent_kernel_psd():
    "the tangent kernel Gram matrix is symmetric and positive semidefinite"
    rng = np.random.default_rng(8)
    c = rng.normal(size=6)
    a = rng.normal(size=(6, 2))
    X = rng.normal(size=(5, 2))
    Th = np.asarray(tangent_kernel(c, a, X, np.sin, np.cos))
    assert np.allclose(Th, Th.T, atol=1e-12), "Theta should be symmetric"
    assert np.linalg.eigvalsh(Th).min() > -1e-10, "Theta should be positive semidefinite"


@check
def check_tangent_kernel_is_JJT():
    "with c != 0 the tangent kernel is J J^T, J the Jacobian of f by central differences over all (c_i, a_i)"
    rng = np.random.default_rng(10)
    c, a, X = rng.normal(size=3), rng.normal(size=(3, 2)), rng.normal(size=(4, 2))

    def f(cc, aa):
        return np.tanh(X @ aa.T) @ cc

    h, cols = 1e-6, []
    for k in range(3):
        e_c = np.zeros(3)
        e_c[k] = h
        cols.append((f(c + e_c, a) - f(c - e_c, a)) / (2 * h))
    for idx in np.ndindex(a.shape):
        e_a = np.zeros_like(a)
        e_a[idx] = h
        cols.append((f(c, a + e_a) - f(c, a - e_a)) / (2 * h))
    J = np.array(cols).T
    Th = np.asarray(tangent_kernel(c, a, X, np.tanh, lambda u: 1 - np.tanh(u) ** 2))
    assert np.allclose(Th, J @ J.T, rtol=1e-6, atol=1e-8), \
        "both terms: the readout gradients and c_i phi'(a_i . x) x for the input weights (with x . x')"


# %% [markdown]
# **Your answer to B.6(a).** Derive the tangent features $\nabla_\theta f_{\theta_0}(x)$ of the
# network and show that their inner product is the tangent kernel stated above.

# %% [markdown] tags=["answer"] points=1
# **(a)** $\partial f/\partial c_i = \phi(a_i\cdot x)$ and $\partial f/\partial a_{ij} =
# c_i\phi'(a_i\cdot x)\,x_j$, so
# $\nabla_\theta f(x) = \big(\phi(a_i\cdot x);\ c_i\phi'(a_i\cdot x)\,x\big)_{i=1}^N$. The inner
# product of two such vectors is
# $\sum_i\phi(a_i\cdot x)\phi(a_i\cdot x')+\sum_i c_i^2\phi'(a_i\cdot x)\phi'(a_i\cdot x')\sum_j
# x_jx'_j$, the stated $\Theta$. (The solution notebook compares this with the autograd
# Jacobian $JJ^T$ of the network.)

# %% [markdown]
# **(b)** Suppose only the output weights $c$ are trained, with the $a_i$ frozen at their
# random initial values. Show that this is exactly a fixed-feature model (B.9) with random
# features, that its linearization is exact, and that its kernel is the first term above.
# Which term do you get by training only the $a_i$?
#
# **(c)** Show that gradient flow with weight decay toward the initialization,
# $\dot\theta=-\eta[\nabla_\theta\mathcal L+\lambda(\theta-\theta_0)]$, applied to the
# linearized model $f^{\rm lin}$, converges to the ridge solution (B.28) for every $\lambda>0$
# and from any starting point.
#
# **(d)** Check that (B.28) at $\lambda\to0$ coincides with (4.36) at $t\to\infty$.

# %% [markdown] tags=["answer"] points=1
# **(b)** With $a$ frozen, $f_c(x)=\sum_ic_i\phi(a_i\cdot x)=c\cdot\psi(x)$ with
# $\psi_i(x)=\phi(a_i\cdot x)$: the model (B.9) with $P=N$ random features. It is linear in
# $c$, so its first-order Taylor expansion in $c$ is exact, $f^{\rm lin}=f$, and its kernel is
# $\psi(x)\cdot\psi(x')=\sum_i\phi(a_i\cdot x)\phi(a_i\cdot x')$, the first term. Training only
# the $a_i$ (with $c$ frozen) keeps only the $a$-gradients: the second term,
# $\sum_ic_i^2\phi'(a_i\cdot x)\phi'(a_i\cdot x')(x\cdot x')$; that model is nonlinear in $a$, so
# its linearization is only an approximation.
#
# **(c)** For $f^{\rm lin}$ the loss is $\frac12|J_0\delta\theta-\tilde Y|^2$, so the flow
# is $\dot{\delta\theta} = -\eta\big[(J_0^TJ_0+\lambda I_P)\delta\theta-J_0^T\tilde Y\big]$,
# linear with constant coefficients. With $A=J_0^TJ_0+\lambda I_P>0$ and
# $\delta\theta_\lambda=A^{-1}J_0^T\tilde Y$, $\delta\theta(t)-\delta\theta_\lambda =
# e^{-\eta tA}(\delta\theta(0)-\delta\theta_\lambda)\to0$ for any starting point, since all
# eigenvalues of $A$ are $\ge\lambda>0$. By push-through, $\delta\theta_\lambda =
# J_0^T(\hat\Theta_0+\lambda I_n)^{-1}\tilde Y$, and $f^{\rm lin}(x)=f_{\theta_0}(x)+
# \nabla f_{\theta_0}(x)\cdot\delta\theta_\lambda$ is (B.28). (Checked numerically in the
# solution notebook.)
#
# **(d)** As $\lambda\to0$ with $\hat\Theta_0$ invertible,
# $f_0(x)=f_{\theta_0}(x)+\Theta_0(x,X)\hat\Theta_0^{-1}(Y-f_{\theta_0}(X))$. In (4.36),
# $f_t(x)=f_{\theta_0}(x)+\Theta_0(x,X)\hat\Theta_0^{-1}(I-e^{-\eta t\hat\Theta_0})(Y-f_{\theta_0}(X))$
# and $e^{-\eta t\hat\Theta_0}\to0$ as $t\to\infty$: the same formula, the minimum-norm
# interpolant of the residuals (in $\delta\theta$).

# %% tags=["solution"]
# Independent cross-checks
#
# Every reference result above is confirmed by a second, independent route:
#
# 1. `least_squares` (SVD of the Cholesky-whitened problem $L^TX\theta\approx L^TY$,
#    $g=LL^T$) vs the normal equations (B.7) solved directly, vs a QR factorization, and
#    (rank-deficient $X$) vs the pseudo-inverse of the normal matrix; the pinned values of
#    B.1(c,d).
# 2. `min_norm_interpolant` vs `np.linalg.pinv`, and vs explicit gradient descent from
#    $\theta_0=0$ (Ex. B.3(c)); row-space membership; B.2(a) and the $c\,x^2$ rescaling of B.2(c).
# 3. Feature route `ridge_parameters` vs kernel route `kernel_ridge` (push-through) on
#    random rank-deficient $\Psi$ with $P<n$ and $P>n$; vs the SVD filter $s/(s^2+\lambda)$;
#    vs direct numerical minimization of the ridge loss; $\lambda\to0$ vs `np.linalg.lstsq`;
#    B.4(d) through the explicit features $(1,\sqrt2x,x^2)$.
# 4. Filters and `flow_predictions` vs the matrix exponential `scipy.linalg.expm` and vs
#    numerical integration of the parameter-space gradient flow on the two-point example;
#    ridge predictions vs minimizing the ridge loss; $\lambda_{\rm eff}$ vs root finding.
# 5. `tangent_kernel` vs the torch autograd Jacobian $JJ^T$ of the network (and finite
#    differences); and Ex. B.6(c): gradient descent with weight decay on the linearized
#    network converges to kernel ridge regression (B.28) with the tangent kernel.
# 1. least squares: reference (SVD of the whitened problem) vs the normal equations (B.7)
#    solved directly, vs a QR factorization of the Cholesky-whitened problem
rng = np.random.default_rng(2024)
xq, yq = three_point_data()
Xq = affine_features(xq)
gq = np.diag([1.0, 4.0, 1.0])
th_c = least_squares(Xq, yq)
th_d = least_squares(Xq, yq, gq)
print("B.1(c) theta_* =", np.round(th_c, 12) + 0.0, " loss =", 0.5 * np.sum((Xq @ th_c - yq) ** 2))
print("B.1(d) theta_*^g =", np.round(th_d, 12) + 0.0)
assert np.allclose(th_c, [2 / 3, 0], atol=1e-12)
assert np.isclose(0.5 * np.sum((Xq @ th_c - yq) ** 2), 1 / 3, atol=1e-12)
assert np.allclose(th_d, [1 / 3, 0], atol=1e-12)


def normal_equations_lsq(X, Y, g):
    return np.linalg.solve(X.T @ g @ X, X.T @ g @ Y)  # (B.7), full column rank only


def whitened_qr_lsq(X, Y, g):
    L = np.linalg.cholesky(g)  # g = L L^T, loss = 0.5 |L^T (X theta - Y)|^2
    Q, R = np.linalg.qr(L.T @ X)
    return scipy.linalg.solve_triangular(R, Q.T @ (L.T @ Y))


assert np.allclose(normal_equations_lsq(Xq, yq, np.eye(3)), th_c, atol=1e-12)
assert np.allclose(normal_equations_lsq(Xq, yq, gq), th_d, atol=1e-12)
assert np.allclose(whitened_qr_lsq(Xq, yq, gq), th_d, atol=1e-12)
worst = 0.0
for n, P in [(12, 4), (30, 7), (5, 5)]:
    X = rng.standard_normal((n, P))
    Y = rng.standard_normal(n)
    A = rng.standard_normal((n, n))
    g = A @ A.T / n + 0.5 * np.eye(n)
    for gg in [np.eye(n), g]:
        th = least_squares(X, Y, gg)
        worst = max(worst, np.max(np.abs(th - normal_equations_lsq(X, Y, gg))),
                    np.max(np.abs(th - whitened_qr_lsq(X, Y, gg))))
# rank-deficient or wide X: the minimizer of minimum norm is the pinv of the normal matrix
# applied to X^T g Y (it solves the normal equations and lies in row(X))
for n, P, r in [(8, 12, 4), (10, 6, 3), (5, 9, 5)]:
    X = rng.standard_normal((n, r)) @ rng.standard_normal((r, P))
    Y = rng.standard_normal(n)
    A = rng.standard_normal((n, n))
    g = A @ A.T / n + 0.5 * np.eye(n)
    for gg in [np.eye(n), g]:
        th = least_squares(X, Y, gg)
        th_pinv = np.linalg.pinv(X.T @ gg @ X, rcond=1e-10, hermitian=True) @ (X.T @ gg @ Y)
        worst = max(worst, np.max(np.abs(th - th_pinv)))
        assert np.allclose(X.T @ gg @ (X @ th - Y), 0, atol=1e-9)
assert worst < 1e-9
# differences of two routes are round-off: printed as the bound they are checked against
print("least_squares vs normal equations / whitened QR / pinv of the normal matrix: max abs difference < 1e-9")

# %% tags=["solution"]
# 2. min-norm interpolant vs pinv, vs gradient descent from theta_0 = 0 (Ex. B.3(c))
n, P = 6, 25
U_, _ = np.linalg.qr(rng.standard_normal((n, n)))
V_, _ = np.linalg.qr(rng.standard_normal((P, n)))
Psi = U_ @ np.diag(np.linspace(1.0, 3.0, n)) @ V_.T  # singular values in [1, 3]
Y = rng.standard_normal(n)
th_star = min_norm_interpolant(Psi, Y)
th_gd = np.zeros(P)
eta = 1.0 / 9.0
for _ in range(600):
    th_gd -= eta * Psi.T @ (Psi @ th_gd - Y)
err_pinv = np.max(np.abs(th_star - np.linalg.pinv(Psi) @ Y))
err_gd = np.max(np.abs(th_star - th_gd))
null_part = th_star - np.linalg.pinv(Psi) @ (Psi @ th_star)  # component in ker(Psi)
assert err_pinv < 1e-12 and err_gd < 1e-12 and np.max(np.abs(null_part)) < 1e-12
print("min-norm vs pinv: < 1e-12; vs gradient descent from 0: < 1e-12; null-space component: < 1e-12")
# gradient descent from theta_0 != 0 converges to the interpolant closest to theta_0
th0 = rng.standard_normal(P)
th = th0.copy()
for _ in range(600):
    th -= eta * Psi.T @ (Psi @ th - Y)
assert np.allclose(th, th0 + min_norm_interpolant(Psi, Y - Psi @ th0), atol=1e-12)
# B.2(a): unique interpolant theta = (0, 0, 1); B.2(c): rescaled feature -> coefficient 1/c, same function
Psi3 = quadratic_features(xq)
assert np.allclose(min_norm_interpolant(Psi3, yq), [0, 0, 1], atol=1e-12)
assert np.allclose(np.linalg.solve(Psi3, yq), [0, 0, 1], atol=1e-12)
cc = 3.0
th_cc = min_norm_interpolant(Psi3 * [1, 1, cc], yq)
assert np.allclose(th_cc, [0, 0, 1 / cc], atol=1e-12)
# B.2(d) / B.3(d): feature inner products equal the kernels
zs = rng.standard_normal(5)
assert np.allclose(quadratic_features(zs) @ quadratic_features(xq).T, quadratic_kernel(zs, xq))
u2, v2 = rng.standard_normal(2), rng.standard_normal(2)
psi2 = lambda x: np.array([x[0] ** 2, np.sqrt(2) * x[0] * x[1], x[1] ** 2])
assert np.isclose(psi2(u2) @ psi2(v2), (u2 @ v2) ** 2)

# %% tags=["solution"]
# 3. ridge: feature route vs kernel route (push-through), vs SVD filter, vs direct minimization
import scipy.optimize

worst_pt = worst_svd = 0.0
for n, P, r in [(10, 4, 4), (10, 4, 2), (6, 15, 6), (8, 12, 4), (12, 20, 5)]:
    Psi = rng.standard_normal((n, r)) @ rng.standard_normal((r, P))  # rank r
    Psi_test = rng.standard_normal((7, r)) @ rng.standard_normal((r, P))
    Y = rng.standard_normal(n)
    for lam in [0.1, 1.0, 3.7]:
        th_feat = ridge_parameters(Psi, Y, lam)
        pred_feat = Psi_test @ th_feat
        pred_kern = kernel_ridge(Psi @ Psi.T, Psi_test @ Psi.T, Y, lam)
        worst_pt = max(worst_pt, np.max(np.abs(pred_feat - pred_kern)))
        # push-through as matrices
        lhs = np.linalg.solve(Psi.T @ Psi + lam * np.eye(P), Psi.T)
        rhs = Psi.T @ np.linalg.inv(Psi @ Psi.T + lam * np.eye(n))
        worst_pt = max(worst_pt, np.max(np.abs(lhs - rhs)))
        # SVD filter s / (s^2 + lam)
        Uf, sv, Vt = np.linalg.svd(Psi, full_matrices=False)
        th_svd = Vt.T @ (sv / (sv**2 + lam) * (Uf.T @ Y))
        worst_svd = max(worst_svd, np.max(np.abs(th_feat - th_svd)))
assert worst_pt < 1e-10 and worst_svd < 1e-10
print("push-through (feature vs kernel route): < 1e-10; feature route vs SVD filter: < 1e-10")
# direct minimization of the ridge loss (BFGS), independent of any closed form
Psi = rng.standard_normal((7, 5))
Y = rng.standard_normal(7)
lam = 0.8
loss = lambda th: 0.5 * np.sum((Psi @ th - Y) ** 2) + 0.5 * lam * th @ th
grad = lambda th: Psi.T @ (Psi @ th - Y) + lam * th
opt = scipy.optimize.minimize(loss, np.zeros(5), jac=grad, method="BFGS", options={"gtol": 1e-12})
err_opt = np.max(np.abs(opt.x - ridge_parameters(Psi, Y, lam)))
assert err_opt < 1e-8
print("ridge vs BFGS minimization: < 1e-8")
# lam -> 0: minimum-norm least squares on a rank-deficient Psi
Psi = rng.standard_normal((8, 4)) @ rng.standard_normal((4, 12))
Y = rng.standard_normal(8)
th_ls = np.linalg.lstsq(Psi, Y, rcond=None)[0]
gaps = [np.max(np.abs(ridge_parameters(Psi, Y, lam) - th_ls)) for lam in [1e-2, 1e-4, 1e-6]]
print("lam -> 0, |theta_lam - lstsq| for lam = 1e-2, 1e-4, 1e-6:", ", ".join(f"{v:.1e}" for v in gaps))
assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-5
assert np.allclose(least_squares(Psi, Y), th_ls, atol=1e-9)
# B.4(d): kernel route vs explicit features (1, sqrt2 x, x^2)
Kq = quadratic_kernel(xq, xq)
assert np.allclose(Kq, [[4, 1, 0], [1, 1, 1], [0, 1, 4]])
alpha = np.linalg.solve(Kq + np.eye(3), yq)
assert np.allclose(alpha, np.array([1, -1, 1]) / 4, atol=1e-12)
f_kern = kernel_ridge(Kq, quadratic_kernel([2.0], xq), yq, 1.0)[0]
th_feat = ridge_parameters(quadratic_features(xq), yq, 1.0)
f_feat = quadratic_features([2.0])[0] @ th_feat
print(f"B.4(d): kernel route {f_kern:.15f}, feature route {f_feat:.15f}, theta_lam = {np.round(th_feat, 12) + 0.0}")
assert np.isclose(f_kern, 9 / 4, atol=1e-12) and np.isclose(f_feat, 9 / 4, atol=1e-12)
assert np.allclose(th_feat, [0.25, 0, 0.5], atol=1e-12)

# %% tags=["solution"]
# 4. Ex. B.5: filters vs running the flow / the ridge problem in parameter space
import scipy.integrate

K_two = np.array([[2.0, 1.0], [1.0, 2.0]])
Y_two = np.array([2.0, 0.0])
ev, evec = np.linalg.eigh(K_two)
assert np.allclose(ev, [1, 3])
assert np.allclose(np.abs(evec), 1 / np.sqrt(2))
et = np.log(2.0)
f_flow = flow_predictions(K_two, Y_two, et)
f_expm = (np.eye(2) - scipy.linalg.expm(-et * K_two)) @ Y_two
# parameter-space gradient flow with features Psi, Psi Psi^T = K_two, eta = 1, theta(0) = 0
Psi_two = np.linalg.cholesky(K_two)
sol = scipy.integrate.solve_ivp(lambda t, th: -Psi_two.T @ (Psi_two @ th - Y_two), (0, et), np.zeros(2),
                                rtol=1e-12, atol=1e-14, method="DOP853")
f_ode = Psi_two @ sol.y[:, -1]
print("B.5(b) flow predictions:", f_flow, " expm:", f_expm, " ODE:", f_ode)
assert np.allclose(f_flow, [11 / 8, 3 / 8], atol=1e-12)
assert np.allclose(f_expm, f_flow, atol=1e-12) and np.allclose(f_ode, f_flow, atol=1e-10)
# mode by mode with the filters
mode_proj = evec.T @ Y_two
assert np.allclose(evec @ (flow_filter(ev, et) * mode_proj), f_flow, atol=1e-12)
# ridge, lam = 1: kernel formula vs minimizing the ridge loss in parameter space
f_ridge = kernel_ridge(K_two, K_two, Y_two, 1.0)
opt = scipy.optimize.minimize(lambda th: 0.5 * np.sum((Psi_two @ th - Y_two) ** 2) + 0.5 * th @ th,
                              np.zeros(2), jac=lambda th: Psi_two.T @ (Psi_two @ th - Y_two) + th,
                              method="BFGS", options={"gtol": 1e-13})
print("B.5(c) ridge predictions:", f_ridge, " via minimization:", Psi_two @ opt.x)
assert np.allclose(f_ridge, [5 / 4, 1 / 4], atol=1e-12)
assert np.allclose(Psi_two @ opt.x, f_ridge, atol=1e-8)
assert np.allclose(evec @ (ridge_filter(ev, 1.0) * mode_proj), f_ridge, atol=1e-12)
# lam_eff by root finding, vs the closed form. Solve "unfit fractions agree",
# lam / (s2 + lam) = exp(-eta_t s2), for u = log(lam) (monotone in u, well resolved).
for s2 in [0.05, 1.0, 3.0, 20.0]:
    for eta_t in [0.1, et, 2.5]:
        u = scipy.optimize.brentq(lambda u: u - np.log(s2 + np.exp(u)) + eta_t * s2, -80.0, 30.0,
                                  xtol=1e-14, rtol=1e-14)
        assert np.isclose(np.exp(u), effective_ridge(s2, eta_t), rtol=1e-9), (s2, eta_t)
        assert np.isclose(ridge_filter(s2, np.exp(u)), flow_filter(s2, eta_t), rtol=1e-12)
print("lam_eff(3, log 2) =", effective_ridge(3.0, et), " lam_eff(1, log 2) =", effective_ridge(1.0, et))
assert np.isclose(effective_ridge(3.0, et), 3 / 7) and np.isclose(effective_ridge(1.0, et), 1.0)
# random K: flow_predictions vs expm
A = rng.standard_normal((6, 6))
Kr = A @ A.T / 6
Yr = rng.standard_normal(6)
assert np.allclose(flow_predictions(Kr, Yr, 0.9), (np.eye(6) - scipy.linalg.expm(-0.9 * Kr)) @ Yr, atol=1e-12)

# %% tags=["solution"]
# 5. tangent kernel: analytic vs torch autograd Jacobian J J^T; Ex. B.6(c) on the linearized network
import torch

import scipy.special

torch_act = {
    "tanh": (torch.tanh, np.tanh, lambda u: 1 - np.tanh(u) ** 2),
    "sin": (torch.sin, np.sin, np.cos),
    "erf": (torch.erf, scipy.special.erf, lambda u: 2 / np.sqrt(np.pi) * np.exp(-u**2)),
    "relu": (torch.relu, lambda u: np.maximum(u, 0.0), lambda u: (u > 0).astype(float)),
}


def autograd_jacobian(c, a, X, tphi):
    """Jacobian d f(x^mu) / d theta, theta = (c, a.flatten()), by torch autograd (float64)."""
    Xt = torch.tensor(X, dtype=torch.float64)
    N, d = a.shape

    def f(theta):
        ct, at = theta[:N], theta[N:].reshape(N, d)
        return tphi(Xt @ at.T) @ ct

    theta = torch.tensor(np.concatenate([c, a.ravel()]), dtype=torch.float64)
    return torch.autograd.functional.jacobian(f, theta).numpy(), f


worst_tk = 0.0
for name, (tphi, phi, dphi) in torch_act.items():
    for N, d, n in [(7, 3, 5), (20, 4, 9)]:
        c = rng.standard_normal(N)
        a = rng.standard_normal((N, d))
        X = rng.standard_normal((n, d))
        J, _ = autograd_jacobian(c, a, X, tphi)
        worst_tk = max(worst_tk, np.max(np.abs(tangent_kernel(c, a, X, phi, dphi) - J @ J.T)))
assert worst_tk < 1e-10
print("tangent_kernel vs autograd J J^T (tanh, sin, erf, relu): max abs difference < 1e-10")
# central finite differences as a third route (tanh)
c = rng.standard_normal(4)
a = rng.standard_normal((4, 2))
X = rng.standard_normal((3, 2))
f_np = lambda th: np.tanh(X @ th[4:].reshape(4, 2).T) @ th[:4]
th0 = np.concatenate([c, a.ravel()])
h = 1e-6
J_fd = np.stack([(f_np(th0 + h * e) - f_np(th0 - h * e)) / (2 * h) for e in np.eye(th0.size)], axis=1)
err_fd = np.max(np.abs(tangent_kernel(c, a, X, np.tanh, lambda u: 1 - np.tanh(u) ** 2) - J_fd @ J_fd.T))
assert err_fd < 1e-8   # the difference quotient's round-off, ~1e-16/h
print("tangent_kernel vs finite-difference Jacobian: < 1e-8")
# readout-only kernel (Ex. B.6(b)) = Jacobian restricted to c
J, _ = autograd_jacobian(c, a, X, torch.tanh)
assert np.allclose(J[:, :4] @ J[:, :4].T, tangent_kernel(np.zeros(4), a, X, np.tanh, lambda u: 1 - np.tanh(u) ** 2), atol=1e-12)

# Ex. B.6(c): GD with weight decay toward theta_0 on f_lin converges to KRR with the tangent kernel (B.28)
N, d, n, m, lam = 10, 3, 6, 4, 0.3
c = rng.standard_normal(N)
a = rng.standard_normal((N, d))
Xtr, Xte = rng.standard_normal((n, d)), rng.standard_normal((m, d))
Ytr = rng.standard_normal(n)
Xall = np.vstack([Xtr, Xte])
Jall, f_t = autograd_jacobian(c, a, Xall, torch.tanh)
with torch.no_grad():
    f0 = f_t(torch.tensor(np.concatenate([c, a.ravel()]))).numpy()
Jtr, Jte = Jall[:n], Jall[n:]
dth = rng.standard_normal(Jall.shape[1])  # arbitrary starting point
step = 1.0 / (np.linalg.norm(Jtr, 2) ** 2 + lam)
for _ in range(20000):
    dth -= step * (Jtr.T @ (f0[:n] + Jtr @ dth - Ytr) + lam * dth)
pred_gd = f0[n:] + Jte @ dth
Th = tangent_kernel(c, a, Xall, np.tanh, lambda u: 1 - np.tanh(u) ** 2)
pred_krr = f0[n:] + kernel_ridge(Th[:n, :n], Th[n:, :n], Ytr - f0[:n], lam)
assert np.max(np.abs(pred_gd - pred_krr)) < 1e-9
print("B.6(c): weight-decay GD on f_lin vs kernel ridge (B.28): < 1e-9")

# %% tags=["tests"]
def _three_points():
    x = np.linspace(-1.0, 1.0, 3)
    X = np.stack([np.ones(3), x], axis=1)
    return x, X, x**2


def _random_spd(rng, n):
    A = rng.standard_normal((n, n))
    return A @ A.T / n + 0.5 * np.eye(n)


def _low_rank(rng, n, P, r):
    return rng.standard_normal((n, r)) @ rng.standard_normal((r, P))


@points(2)
def test_least_squares_three_points(student):
    "Exercise B.1(c): affine least-squares fit of y = x^2 on three points, and its loss"
    x, X, Y = _three_points()
    theta = np.asarray(student.least_squares(X, Y), dtype=float)
    expected = ref.least_squares(X, Y)
    assert_close(theta, expected, rtol=1e-6, atol=1e-9, name="theta_*")
    loss = 0.5 * np.sum((X @ theta - Y) ** 2)
    assert_close(loss, 0.5 * np.sum((X @ expected - Y) ** 2), rtol=1e-6, atol=1e-9, name="loss at theta_*")


@points(2)
def test_least_squares_weighted_three_points(student):
    "Exercise B.1(d): the same fit with the metric g = diag(1, 4, 1)"
    x, X, Y = _three_points()
    g = np.diag([1.0, 4.0, 1.0])
    assert_close(student.least_squares(X, Y, g), ref.least_squares(X, Y, g),
                 rtol=1e-6, atol=1e-9, name="weighted theta")


@points(1)
def test_least_squares_random_tall(student):
    "unweighted least squares on random full-column-rank problems (P < n)"
    rng = rng_for("least_squares_random_tall")
    for n, P in [(12, 4), (20, 7), (6, 1)]:
        X = rng.standard_normal((n, P))
        Y = rng.standard_normal(n)
        assert_close(student.least_squares(X, Y), ref.least_squares(X, Y),
                     rtol=1e-6, atol=1e-9, name=f"theta for X of shape {(n, P)}")


@points(2)
def test_least_squares_random_metric(student):
    "weighted least squares with random dense SPD metrics g (the metric enters on both sides)"
    rng = rng_for("least_squares_random_metric")
    for n, P in [(10, 3), (15, 6)]:
        X = rng.standard_normal((n, P))
        Y = rng.standard_normal(n)
        g = _random_spd(rng, n)
        assert_close(student.least_squares(X, Y, g), ref.least_squares(X, Y, g),
                     rtol=1e-6, atol=1e-9, name=f"weighted theta for X of shape {(n, P)}")


@points(1)
def test_least_squares_rank_deficient(student):
    "least squares with linearly dependent columns returns the minimum-norm minimizer"
    rng = rng_for("least_squares_rank_deficient")
    for n, P, r in [(10, 6, 3), (5, 9, 5)]:
        X = _low_rank(rng, n, P, r)
        Y = rng.standard_normal(n)
        assert_close(student.least_squares(X, Y), ref.least_squares(X, Y),
                     rtol=1e-6, atol=1e-8, name=f"min-norm least squares for X of shape {(n, P)}, rank {r}")


@points(1)
def test_least_squares_weighted_rank_deficient(student):
    "weighted least squares with linearly dependent columns: the minimizer of smallest Euclidean norm"
    rng = rng_for("least_squares_weighted_rank_deficient")
    for n, P, r in [(10, 6, 3), (6, 9, 4)]:
        X = _low_rank(rng, n, P, r)
        Y = rng.standard_normal(n)
        g = _random_spd(rng, n)
        assert_close(student.least_squares(X, Y, g), ref.least_squares(X, Y, g),
                     rtol=1e-6, atol=1e-8, name=f"weighted min-norm theta for X of shape {(n, P)}, rank {r}")


@points(2)
def test_min_norm_interpolant_random(student):
    "minimum-norm interpolant for random wide feature matrices (P > n)"
    rng = rng_for("min_norm_interpolant_random")
    for n, P in [(4, 10), (7, 30), (5, 6)]:
        Psi = rng.standard_normal((n, P))
        Y = rng.standard_normal(n)
        theta = np.asarray(student.min_norm_interpolant(Psi, Y), dtype=float)
        assert theta.shape == (P,), "theta must have shape (P,)"
        assert_close(Psi @ theta, Y, rtol=1e-6, atol=1e-9, name="Psi @ theta (interpolation)")
        assert_close(theta, ref.min_norm_interpolant(Psi, Y), rtol=1e-6, atol=1e-9,
                     name=f"theta for Psi of shape {(n, P)}")


@points(1)
def test_min_norm_interpolant_quadratic_features(student):
    "Exercise B.2(a): interpolant with features (1, sqrt(2) x, x^2) on the three points"
    x, _, Y = _three_points()
    Psi = np.stack([np.ones(3), np.sqrt(2) * x, x**2], axis=1)
    assert_close(student.min_norm_interpolant(Psi, Y), ref.min_norm_interpolant(Psi, Y),
                 rtol=1e-6, atol=1e-9, name="theta")


@points(1)
def test_min_norm_interpolant_square_and_single(student):
    "minimum-norm interpolant at the ends of P >= n: a square feature matrix (P = n) and one data point"
    rng = rng_for("min_norm_interpolant_square_and_single")
    for n, P in [(5, 5), (1, 4), (1, 1)]:
        Psi = rng.standard_normal((n, P)) + 2.0 * np.eye(n, P)
        Y = rng.standard_normal(n)
        assert_close(student.min_norm_interpolant(Psi, Y), ref.min_norm_interpolant(Psi, Y), rtol=1e-6, atol=1e-9,
                     name=f"theta for Psi of shape {(n, P)}")


@points(1)
def test_ridge_edges(student):
    "ridge at P = n and at a large ridge parameter; kernel ridge with one training and one test point"
    rng = rng_for("ridge_edges")
    for n, P, lam in [(6, 6, float(rng.uniform(0.2, 2.0))), (7, 4, 1e6), (4, 9, 1e6)]:
        Psi = rng.standard_normal((n, P))
        Y = rng.standard_normal(n)
        assert_close(student.ridge_parameters(Psi, Y, lam), ref.ridge_parameters(Psi, Y, lam), rtol=1e-6, atol=1e-12,
                     name=f"theta_lam for Psi of shape {(n, P)}, lam = {lam:.3g}")
    feats = rng.standard_normal((3, 5)) / np.sqrt(5)
    K = feats @ feats.T
    Y = rng.standard_normal(2)
    for lam in [0.0, 0.7]:
        for K_tr, K_te, y in [(K[:1, :1], K[2:, :1], Y[:1]), (K[:2, :2], K[2:, :2], Y)]:
            out = np.asarray(student.kernel_ridge(K_tr, K_te, y, lam), dtype=float)
            assert out.shape == (1,), "kernel_ridge must return an array of shape (m,), here m = 1"
            assert_close(out, ref.kernel_ridge(K_tr, K_te, y, lam), rtol=1e-6, atol=1e-9,
                         name=f"kernel ridge with n = {len(y)}, m = 1, lam = {lam}")


@points(2)
def test_ridge_parameters_shapes(student):
    "feature-route ridge parameters for P < n and P > n (the identity is P x P)"
    rng = rng_for("ridge_parameters_shapes")
    for n, P in [(12, 4), (5, 11)]:
        Psi = rng.standard_normal((n, P))
        Y = rng.standard_normal(n)
        lam = float(rng.uniform(0.3, 2.0))
        assert_close(student.ridge_parameters(Psi, Y, lam), ref.ridge_parameters(Psi, Y, lam),
                     rtol=1e-6, atol=1e-9, name=f"theta_lam for Psi of shape {(n, P)}")


@points(2)
def test_push_through_rank_deficient(student):
    "push-through: feature-route and kernel-route ridge predictions agree on rank-deficient Psi"
    rng = rng_for("push_through_rank_deficient")
    for n, P, r in [(9, 5, 3), (8, 14, 4)]:
        Psi = _low_rank(rng, n, P, r)
        Psi_test = _low_rank(rng, 6, P, r)
        Y = rng.standard_normal(n)
        lam = float(rng.uniform(0.2, 1.5))
        expected = Psi_test @ ref.ridge_parameters(Psi, Y, lam)
        pred_feat = Psi_test @ np.asarray(student.ridge_parameters(Psi, Y, lam), dtype=float)
        pred_kern = student.kernel_ridge(Psi @ Psi.T, Psi_test @ Psi.T, Y, lam)
        assert_close(pred_feat, expected, rtol=1e-6, atol=1e-8, name="feature-route test predictions")
        assert_close(pred_kern, expected, rtol=1e-6, atol=1e-8, name="kernel-route test predictions")


@points(1)
def test_ridge_small_lambda_limit(student):
    "as lam -> 0 the ridge parameters approach the minimum-norm least-squares solution"
    rng = rng_for("ridge_small_lambda_limit")
    Psi = _low_rank(rng, 8, 12, 4)
    Y = rng.standard_normal(8)
    assert_close(student.ridge_parameters(Psi, Y, 1e-7), ref.least_squares(Psi, Y),
                 rtol=1e-4, atol=1e-5, name="theta_lam at lam = 1e-7")


@points(2)
def test_kernel_ridge_random(student):
    "kernel ridge predictions at test points (m != n) for random kernels"
    rng = rng_for("kernel_ridge_random")
    for n, m, P in [(10, 7, 25), (6, 9, 4)]:
        feats = rng.standard_normal((n + m, P)) / np.sqrt(P)
        K = feats @ feats.T
        Y = rng.standard_normal(n)
        lam = float(rng.uniform(0.1, 1.0))
        out = np.asarray(student.kernel_ridge(K[:n, :n], K[n:, :n], Y, lam), dtype=float)
        assert out.shape == (m,), "kernel_ridge must return predictions at the m test points"
        assert_close(out, ref.kernel_ridge(K[:n, :n], K[n:, :n], Y, lam), rtol=1e-6, atol=1e-9,
                     name="test predictions")


@points(2)
def test_kernel_ridge_three_points(student):
    "Exercise B.4(d): kernel ridge with K = (1 + x z)^2, lam = 1, predicted at new points"
    x, _, Y = _three_points()
    z = np.array([2.0, -0.5, 3.0])
    K = (1 + np.outer(x, x)) ** 2
    Kz = (1 + np.outer(z, x)) ** 2
    assert_close(student.kernel_ridge(K, Kz, Y, 1.0), ref.kernel_ridge(K, Kz, Y, 1.0),
                 rtol=1e-6, atol=1e-9, name="predictions at z")


@points(1)
def test_kernel_ridge_zero_ridge_interpolates(student):
    "kernel ridge at lam = 0 is kernel interpolation (B.14)"
    rng = rng_for("kernel_ridge_zero_ridge")
    feats = rng.standard_normal((8, 20)) / np.sqrt(20)
    K = feats @ feats.T
    Y = rng.standard_normal(5)
    assert_close(student.kernel_ridge(K[:5, :5], K[5:, :5], Y, 0.0), ref.kernel_ridge(K[:5, :5], K[5:, :5], Y, 0.0),
                 rtol=1e-6, atol=1e-8, name="interpolating predictions")


@points(1)
def test_ridge_filter(student):
    "ridge filter on arrays of eigenvalues"
    rng = rng_for("ridge_filter")
    s2 = rng.uniform(0.01, 10.0, size=12)
    for lam in [0.05, 1.0, 4.0]:
        assert_close(student.ridge_filter(s2, lam), ref.ridge_filter(s2, lam), rtol=1e-8, atol=1e-12,
                     name=f"ridge filter at lam = {lam}")


@points(1)
def test_flow_filter(student):
    "gradient-flow filter on arrays of eigenvalues, several training times"
    rng = rng_for("flow_filter")
    s2 = rng.uniform(0.01, 10.0, size=12)
    for eta_t in [0.1, 0.7, 3.0]:
        assert_close(student.flow_filter(s2, eta_t), ref.flow_filter(s2, eta_t), rtol=1e-8, atol=1e-12,
                     name=f"flow filter at eta_t = {eta_t}")


@points(1)
def test_effective_ridge(student):
    "effective ridge parameter on arrays of eigenvalues, several training times"
    rng = rng_for("effective_ridge")
    s2 = rng.uniform(0.05, 8.0, size=12)
    for eta_t in [0.2, 1.0, 2.5]:
        assert_close(student.effective_ridge(s2, eta_t), ref.effective_ridge(s2, eta_t), rtol=1e-7, atol=1e-12,
                     name=f"lam_eff at eta_t = {eta_t}")


@points(1)
def test_filters_at_the_ends(student):
    "ridge and flow filters at a zero eigenvalue and at zero training time, lam_eff at large eta t s2, floats"
    rng = rng_for("filters_at_the_ends")
    s2 = np.concatenate([[0.0], rng.uniform(0.01, 10.0, 4), [1e6]])
    lam = float(rng.uniform(0.1, 2.0))
    assert_close(student.ridge_filter(s2, lam), ref.ridge_filter(s2, lam), rtol=1e-8, atol=1e-12,
                 name="ridge filter with s2 = 0 and a large s2")
    for eta_t in [0.0, float(rng.uniform(0.2, 2.0))]:
        assert_close(student.flow_filter(s2, eta_t), ref.flow_filter(s2, eta_t), rtol=1e-8, atol=1e-12,
                     name=f"flow filter with s2 = 0 and a large s2, eta_t = {eta_t:.3g}")
    one = float(s2[1])
    for fn, args in [("ridge_filter", (one, lam)), ("flow_filter", (one, 0.0)), ("flow_filter", (one, 1.3)),
                     ("effective_ridge", (one, 1.3))]:
        assert_close(getattr(student, fn)(*args), getattr(ref, fn)(*args), rtol=1e-7, atol=1e-12,
                     name=f"{fn} at a float s2")
    big = rng.uniform(5.0, 50.0, 4)         # eta_t s2 from 50 to 1000: lam_eff ~ s2 exp(-eta_t s2)
    with np.errstate(over="ignore"):
        expected = ref.effective_ridge(big, 20.0)
    assert_close(student.effective_ridge(big, 20.0), expected, rtol=1e-7, atol=1e-300,
                 name="lam_eff at large eta_t s2 (no overflow to nan)")


@points(1)
def test_two_point_predictions(student):
    "Exercise B.5(b,c): gradient-flow predictions at eta t = log 2 and ridge predictions at lam = 1"
    K = np.array([[2.0, 1.0], [1.0, 2.0]])
    Y = np.array([2.0, 0.0])
    et = np.log(2.0)
    assert_close(student.flow_predictions(K, Y, et), ref.flow_predictions(K, Y, et),
                 rtol=1e-6, atol=1e-9, name="gradient-flow predictions")
    assert_close(student.kernel_ridge(K, K, Y, 1.0), ref.kernel_ridge(K, K, Y, 1.0),
                 rtol=1e-6, atol=1e-9, name="ridge predictions")


@points(1)
def test_two_point_filters(student):
    "Exercise B.5(c): both filters and lam_eff on the two modes of the two-point example"
    s2 = np.linalg.eigvalsh(np.array([[2.0, 1.0], [1.0, 2.0]]))
    et = np.log(2.0)
    assert_close(student.flow_filter(s2, et), ref.flow_filter(s2, et), rtol=1e-8, atol=1e-12,
                 name="flow filter on the two modes")
    assert_close(student.ridge_filter(s2, 1.0), ref.ridge_filter(s2, 1.0), rtol=1e-8, atol=1e-12,
                 name="ridge filter on the two modes")
    assert_close(student.effective_ridge(s2, et), ref.effective_ridge(s2, et), rtol=1e-7, atol=1e-12,
                 name="lam_eff on the two modes")


@points(2)
def test_flow_predictions_random(student):
    "gradient-flow training predictions for random kernels (a matrix exponential)"
    rng = rng_for("flow_predictions_random")
    for n in [3, 6]:
        K = _random_spd(rng, n)
        Y = rng.standard_normal(n)
        for eta_t in [0.3, 1.7]:
            assert_close(student.flow_predictions(K, Y, eta_t), ref.flow_predictions(K, Y, eta_t),
                         rtol=1e-6, atol=1e-9, name=f"f(t) for n = {n}, eta_t = {eta_t}")


@points(1)
def test_flow_predictions_edges(student):
    "gradient-flow predictions at zero time, at long times, and for a singular kernel"
    rng = rng_for("flow_predictions_edges")
    K = _random_spd(rng, 5)
    Y = rng.standard_normal(5)
    feats = rng.standard_normal((6, 3))
    K_sing = feats @ feats.T / 3        # rank 3: gradient flow never fits the two null modes
    Y6 = rng.standard_normal(6)
    for K_, Y_, eta_t in [(K, Y, 0.0), (K, Y, 200.0), (K_sing, Y6, float(rng.uniform(0.5, 2.0))), (K_sing, Y6, 500.0)]:
        assert_close(student.flow_predictions(K_, Y_, eta_t), ref.flow_predictions(K_, Y_, eta_t), rtol=1e-6, atol=1e-9,
                     name=f"f(t) for n = {len(Y_)}, rank {np.linalg.matrix_rank(K_)}, eta_t = {eta_t:.3g}")


@points(2)
def test_tangent_kernel_tanh(student):
    "tangent kernel of a tanh network with random weights"
    rng = rng_for("tangent_kernel_tanh")
    N, d, n = 8, 3, 5
    c = rng.standard_normal(N)
    a = rng.standard_normal((N, d))
    X = rng.standard_normal((n, d))
    assert_close(student.tangent_kernel(c, a, X, Fn("tanh"), Fn("dtanh")),
                 ref.tangent_kernel(c, a, X, Fn("tanh").resolve(), Fn("dtanh").resolve()),
                 rtol=1e-6, atol=1e-9, name="Theta (tanh)")


@points(1)
def test_tangent_kernel_relu(student):
    "tangent kernel of a ReLU network with random weights"
    rng = rng_for("tangent_kernel_relu")
    N, d, n = 12, 4, 6
    c = rng.standard_normal(N)
    a = rng.standard_normal((N, d))
    X = rng.standard_normal((n, d))
    assert_close(student.tangent_kernel(c, a, X, Fn("relu"), Fn("drelu")),
                 ref.tangent_kernel(c, a, X, Fn("relu").resolve(), Fn("drelu").resolve()),
                 rtol=1e-6, atol=1e-9, name="Theta (relu)")


@points(1)
def test_tangent_kernel_other_activations(student):
    "tangent kernel with erf, sin and linear activations, including N = 1 and d = 1"
    rng = rng_for("tangent_kernel_other_activations")
    for (phi, dphi), (N, d, n) in [(("erf", "derf"), (6, 2, 4)), (("sin", "cos"), (1, 3, 5)),
                                   (("identity", "one"), (5, 1, 4))]:
        c = rng.standard_normal(N)
        a = rng.standard_normal((N, d))
        X = rng.standard_normal((n, d))
        assert_close(student.tangent_kernel(c, a, X, Fn(phi), Fn(dphi)),
                     ref.tangent_kernel(c, a, X, Fn(phi).resolve(), Fn(dphi).resolve()),
                     rtol=1e-6, atol=1e-9, name=f"Theta ({phi})")


# %% tags=["wrong"]
# wrong: metric g on one side only, theta = (X^T g X)^{-1} X^T Y
# hint: The metric g weighs the residuals on both sides of the loss ½(Xθ − Y)^T g (Xθ − Y): the normal
#   equations are X^T g X θ = X^T g Y (eqs. (B.5)–(B.7)).
def least_squares(X, Y, g=None):
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    g = np.eye(len(Y)) if g is None else np.asarray(g, dtype=float)
    return np.linalg.solve(X.T @ g @ X, X.T @ Y)


# %% tags=["wrong"]
# wrong: solve() on the normal equations, which are singular when the columns of X are dependent
# hint: When the columns of X are linearly dependent the normal-equation matrix X^T g X is singular, and
#   solve() fails or returns garbage: use a least-squares solver or the pseudo-inverse (eqs.
#   (B.5)–(B.7)).
def least_squares(X, Y, g=None):
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    g = np.eye(len(Y)) if g is None else np.asarray(g, dtype=float)
    return np.linalg.solve(X.T @ g @ X, X.T @ g @ Y)


# %% tags=["wrong"]
# wrong: min_norm_interpolant returns the dual coefficients alpha = (Psi Psi^T)^{-1} Y instead of theta
# hint: The minimum-norm interpolant is a parameter vector, θ* = Ψ^T(ΨΨ^T)^{-1} Y (eqs. (B.11)–(B.14)):
#   map the dual coefficients back through Ψ^T.
def min_norm_interpolant(Psi, Y):
    Psi = np.asarray(Psi, dtype=float)
    return np.linalg.solve(Psi @ Psi.T, np.asarray(Y, dtype=float))


# %% tags=["wrong"]
# wrong: ridge added as the scalar lam to every entry of Psi^T Psi (broadcast) instead of lam * I
# hint: The ridge adds λ on the diagonal only, Ψ^TΨ + λI_P (eq. (B.18)); adding a scalar to a numpy
#   matrix adds it to every entry.
def ridge_parameters(Psi, Y, lam):
    Psi = np.asarray(Psi, dtype=float)
    return np.linalg.solve(Psi.T @ Psi + lam, Psi.T @ np.asarray(Y, dtype=float))


# %% tags=["wrong"]
# wrong: kernel_ridge returns the training predictions K_train alpha instead of the test predictions
# hint: kernel_ridge predicts at the test inputs, K(x_test, X)(K_train + λI)^{-1} Y (eq. (B.21)): use
#   the test–train kernel.
def kernel_ridge(K_train, K_test_train, Y, lam):
    K_train = np.asarray(K_train, dtype=float)
    alpha = np.linalg.solve(K_train + lam * np.eye(len(Y)), np.asarray(Y, dtype=float))
    return K_train @ alpha


# %% tags=["wrong"]
# wrong: ridge filter written as the part that is not fit, lam / (s2 + lam)
# hint: The ridge filter is the fraction of a mode that is fit, s²/(s² + λ) (eq. (B.22)), not the
#   fraction that is left out.
def ridge_filter(s2, lam):
    s2 = np.asarray(s2, dtype=float)
    return lam / (s2 + lam)


# %% tags=["wrong"]
# wrong: flow filter and effective ridge with exp(-eta_t) instead of exp(-eta_t * s2)
# hint: The gradient-flow filter depends on the mode, 1 − exp(−η_t s²): every eigenvalue sets its own
#   learning speed (eq. (B.23)), and the same holds in the effective ridge.
def flow_filter(s2, eta_t):
    s2 = np.asarray(s2, dtype=float)
    return (1.0 - np.exp(-eta_t)) * np.ones_like(s2)


def effective_ridge(s2, eta_t):
    s2 = np.asarray(s2, dtype=float)
    return s2 / (np.exp(eta_t) - 1.0)


# %% tags=["wrong"]
# wrong: effective ridge upside down, (exp(eta_t s2) - 1) / s2
# hint: The effective ridge is the λ at which s²/(s² + λ) equals 1 − e^{−η_t s²}: solve that equation
#   for λ and check which way up the result is (Exercise B.5(c)).
def effective_ridge(s2, eta_t):
    s2 = np.asarray(s2, dtype=float)
    return np.expm1(eta_t * s2) / s2


# %% tags=["wrong"]
# wrong: element-wise exp of the kernel matrix in flow_predictions instead of the matrix exponential
# hint: exp(−η_t K) in the gradient-flow predictions is a matrix exponential (scipy.linalg.expm, or
#   through the eigen-decomposition of K), not the exponential of each entry (eq. (B.23)).
def flow_predictions(K_train, Y, eta_t):
    K_train = np.asarray(K_train, dtype=float)
    Y = np.asarray(Y, dtype=float)
    return Y - np.exp(-eta_t * K_train) @ Y


# %% tags=["wrong"]
# wrong: tangent kernel with c_i instead of c_i^2 in the input-weight term
# hint: In the tangent kernel the input-weight term carries c_i²: ∂f/∂a_i = c_i φ'(a_i·x) x, and the
#   kernel multiplies two such gradients (Exercise B.6(a)).
def tangent_kernel(c, a, X, phi, dphi):
    c, a, X = (np.asarray(v, dtype=float) for v in (c, a, X))
    pre = X @ a.T
    F = np.asarray(phi(pre), dtype=float)
    D = np.asarray(dphi(pre), dtype=float)
    return F @ F.T + ((D * c) @ D.T) * (X @ X.T)


# %% tags=["rewrite"]
# rewrite: the same c_i instead of c_i^2, summed neuron by neuron
def tangent_kernel(c, a, X, phi, dphi):
    c, a, X = (np.asarray(v, dtype=float) for v in (c, a, X))
    out = np.zeros((X.shape[0], X.shape[0]))
    for ci, ai in zip(c, a):
        u = X @ ai
        f, d = np.asarray(phi(u), dtype=float), np.asarray(dphi(u), dtype=float)
        out += np.outer(f, f) + ci * np.outer(d, d) * (X @ X.T)
    return out


# %% tags=["wrong"]
# wrong: tangent kernel without the factor x . x' (d f / d a_i taken as c_i phi'(a_i . x), forgetting the x)
# hint: ∂f/∂a_i = c_i φ'(a_i·x) x is a vector: the product of two such gradients brings the factor x·x'
#   (Exercise B.6(a)).
def tangent_kernel(c, a, X, phi, dphi):
    c, a, X = (np.asarray(v, dtype=float) for v in (c, a, X))
    pre = X @ a.T
    F = np.asarray(phi(pre), dtype=float)
    D = np.asarray(dphi(pre), dtype=float) * c
    return F @ F.T + D @ D.T


# %% tags=["wrong"]
# wrong: tangent kernel with the readout term only (the gradient with respect to the input weights a is forgotten)
# hint: The tangent kernel differentiates with respect to all the parameters, the readout c and the
#   input weights a (Exercise B.6(a)); the readout term alone is the random-features kernel of
#   Exercise B.6(b).
def tangent_kernel(c, a, X, phi, dphi):
    a, X = np.asarray(a, dtype=float), np.asarray(X, dtype=float)
    F = np.asarray(phi(X @ a.T), dtype=float)
    return F @ F.T


# %% tags=["alternative"]
# alternative: pseudo-inverses and a symmetric square root of g, the kernel route for the ridge parameters, explicit inverses, scipy.linalg.expm, and an explicit loop over neurons for the tangent kernel
def least_squares(X, Y, g=None):
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if g is not None:
        S = np.real(scipy.linalg.sqrtm(np.asarray(g, dtype=float)))  # g = S S, S symmetric
        X, Y = S @ X, S @ Y
    return np.linalg.pinv(X, rcond=1e-10) @ Y


def min_norm_interpolant(Psi, Y):
    return np.linalg.pinv(np.asarray(Psi, dtype=float)) @ np.asarray(Y, dtype=float)


def ridge_parameters(Psi, Y, lam):
    Psi = np.asarray(Psi, dtype=float)
    n = Psi.shape[0]
    return Psi.T @ np.linalg.inv(Psi @ Psi.T + lam * np.eye(n)) @ np.asarray(Y, dtype=float)


def kernel_ridge(K_train, K_test_train, Y, lam):
    K_train = np.asarray(K_train, dtype=float)
    inv = np.linalg.inv(K_train + lam * np.eye(K_train.shape[0]))
    return np.asarray(K_test_train, dtype=float) @ inv @ np.asarray(Y, dtype=float)


def ridge_filter(s2, lam):
    return 1.0 - lam / (np.asarray(s2, dtype=float) + lam)


def flow_filter(s2, eta_t):
    return 1.0 - np.exp(-eta_t * np.asarray(s2, dtype=float))


def effective_ridge(s2, eta_t):
    s2 = np.asarray(s2, dtype=float)
    return s2 / (np.exp(eta_t * s2) - 1.0)


def flow_predictions(K_train, Y, eta_t):
    K_train = np.asarray(K_train, dtype=float)
    Y = np.asarray(Y, dtype=float)
    return Y - scipy.linalg.expm(-eta_t * K_train) @ Y


def tangent_kernel(c, a, X, phi, dphi):
    c, a, X = (np.asarray(v, dtype=float) for v in (c, a, X))
    n = X.shape[0]
    Theta = np.zeros((n, n))
    for i in range(len(c)):
        u = X @ a[i]
        p = np.asarray(phi(u), dtype=float)
        q = np.asarray(dphi(u), dtype=float)
        Theta += np.outer(p, p) + c[i] ** 2 * np.outer(q, q) * (X @ X.T)
    return Theta


# %% tags=["alternative"]
# alternative: everything through the SVD / eigendecomposition (spectral filters), with the Jacobian built explicitly for the tangent kernel
def _svd_solve(A, b, filt):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return Vt.T @ (filt(s) * (U.T @ b))


def least_squares(X, Y, g=None):
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if g is not None:
        w, V = np.linalg.eigh(np.asarray(g, dtype=float))
        S = V @ np.diag(np.sqrt(w)) @ V.T
        X, Y = S @ X, S @ Y

    def inv_nonzero(s):
        keep = s > 1e-10 * s.max()
        return np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    return _svd_solve(X, Y, inv_nonzero)


def min_norm_interpolant(Psi, Y):
    return _svd_solve(np.asarray(Psi, dtype=float), np.asarray(Y, dtype=float), lambda s: 1.0 / s)


def ridge_parameters(Psi, Y, lam):
    return _svd_solve(np.asarray(Psi, dtype=float), np.asarray(Y, dtype=float), lambda s: s / (s**2 + lam))


def kernel_ridge(K_train, K_test_train, Y, lam):
    w, U = np.linalg.eigh(np.asarray(K_train, dtype=float))
    alpha = U @ ((U.T @ np.asarray(Y, dtype=float)) / (w + lam))
    return np.asarray(K_test_train, dtype=float) @ alpha


def flow_predictions(K_train, Y, eta_t):
    w, U = np.linalg.eigh(np.asarray(K_train, dtype=float))
    return U @ np.diag(1.0 - np.exp(-eta_t * w)) @ U.T @ np.asarray(Y, dtype=float)


def tangent_kernel(c, a, X, phi, dphi):
    c, a, X = (np.asarray(v, dtype=float) for v in (c, a, X))
    n, d = X.shape
    pre = X @ a.T
    J_c = np.asarray(phi(pre), dtype=float)                                        # (n, N)
    J_a = (c * np.asarray(dphi(pre), dtype=float))[:, :, None] * X[:, None, :]     # (n, N, d)
    J = np.concatenate([J_c, J_a.reshape(n, -1)], axis=1)                          # (n, N + N d)
    return J @ J.T
