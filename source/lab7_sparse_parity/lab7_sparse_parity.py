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
# # lab7_sparse_parity: Multitask sparse parity, smooth scaling from staggered cliffs
#
# *Notes: Section 7.6 (emergence) and its Figure 8; background in Section 7.5 and
# Exercise 7.1 (the quantization model, the threshold rule $Sp_k\gtrsim\tau$ and the step
# exponent $\alpha_S=\alpha/(\alpha+1)$).*
#
# The quantization model says: skills ("quanta") are learned one at a time, each as an
# abrupt *cliff*, in order of how often they are used; the loss summed over many of them,
# weighted by their frequencies, is a smooth power law. This lab builds the mechanism with a
# real network (Michaud et al. 2023). **Multitask sparse parity:**
#
# * $T$ subtasks with Zipfian frequencies $p_i=i^{-(\alpha+1)}/\sum_{j\le T}j^{-(\alpha+1)}$,
#   $i=1,\dots,T$ (Zipf exponent $\alpha$, as in Ex 7.1);
# * input $x=(\text{one-hot code of the task},\ b)\in\mathbb R^{T+n_{\rm bits}}$ with
#   $n_{\rm bits}$ uniformly random bits $b_j\in\{-1,+1\}$;
# * task $i$ owns a fixed random subset $S_i\subset\{0,\dots,n_{\rm bits}-1\}$ of $k$ bits, and
#   the label is its parity, $y=\prod_{j\in S_i}b_j\in\{-1,+1\}$;
# * a one-hidden-layer ReLU network $f(x)=w_2\cdot\mathrm{ReLU}(W_1x+b_1)+b_2$, trained online
#   (a fresh batch every step) with Adam on the mean squared error $(f(x)-y)^2$.
#
# Parity is a needle-in-a-haystack skill: until the network has found the $k$ relevant bits,
# every bit is independent of the label and the best prediction is $0$ (loss $1$); once it has,
# the loss drops to $\approx0$. It is an honest, hand-built quantum.
#
# The notes' Figure 8 uses $T=48$, $n_{\rm bits}=24$, $k=3$, $\alpha=0.4$, width $512$, batches
# of $256$, Adam with learning rate $2\times10^{-3}$ and $1.2\times10^5$ steps. That takes
# CPU-hours; this notebook runs a reduced configuration (about 15 s) and keeps the full one
# behind the flag `FULL_RUN`.
#
# **What you implement** (graded by hidden tests):
#
# | function | what |
# |---|---|
# | `task_probs(T, alpha)` | Zipf task frequencies |
# | `make_tasks(T, n_bits, k, seed)` | the random parity subsets |
# | `parity_labels(bits, tasks, task_ids)` | labels |
# | `sample_batch(tasks, probs, batch, rng, n_bits=24)` | one fresh batch |
# | `train_sparse_parity(config)` | the training run, per-task test-loss curves |
# | `cliff_steps(curves, threshold=0.1)` | when each subtask is learned |
#
# **Random draws.** The docstrings show one way to draw the random subsets and batches; any
# correct draw is accepted (another generator call, another stream): the hidden tests check
# what the pipeline must satisfy (shapes, distinct sorted bits, the same seed giving the same
# result, labels that are the parities of the bits) and its statistics (uniform subsets, task
# frequencies $p_i$, fair bits), never particular random numbers. Training is checked by its
# behaviour on a tiny configuration. Written answers (graded by hand) at the end.

# %% tags=["setup"]
import numpy as np
import torch
import matplotlib.pyplot as plt
from tqdm import tqdm

torch.set_num_threads(1)  # small networks: one thread is fastest, and grading is single-threaded

# %% [markdown]
# ## 1. The data pipeline

# %% tags=["graded"]
def task_probs(T, alpha):
    """Zipf task frequencies p_i = i^-(alpha+1) / sum_{j=1}^T j^-(alpha+1), i = 1..T (notes 7.6).

    Args:
        T: int >= 1, number of subtasks.  alpha: float > 0, Zipf exponent.
    Returns:
        np.ndarray of shape (T,), decreasing, summing to 1 (entry i-1 is task i).
    """
    w = np.arange(1, int(T) + 1, dtype=float) ** (-(alpha + 1.0))
    return w / w.sum()


# %% tags=["graded"]
def make_tasks(T, n_bits, k, seed):
    """The parity subsets of the T subtasks: for each task, k distinct bits drawn uniformly
    at random, independently of the other tasks, sorted; the same seed gives the same subsets.
    One way (any correct draw is accepted; the hidden tests check these properties and the
    frequencies of bits and pairs of bits, not particular draws):

        g = np.random.default_rng(seed)
        for each task i = 0, ..., T-1 in turn:
            subset_i = np.sort(g.choice(n_bits, size=k, replace=False))

    Args:
        T: int >= 1.  n_bits: int >= k, number of random bits.  k: int >= 1, subset size.
        seed: int.
    Returns:
        np.ndarray of ints, shape (T, k); row i is the sorted subset of task i.
    """
    gen = np.random.default_rng(seed)
    return np.array([np.sort(gen.choice(int(n_bits), size=int(k), replace=False)) for _ in range(int(T))],
                    dtype=np.int64).reshape(int(T), int(k))


# %% tags=["graded"]
def parity_labels(bits, tasks, task_ids):
    """Parity labels y_b = prod_{j in S_{t_b}} bits[b, j] in {-1, +1}.

    Args:
        bits: array of shape (B, n_bits) with entries -1 or +1.
        tasks: int array of shape (T, k), the subsets (from make_tasks).
        task_ids: int array of shape (B,), the task t_b of each sample.
    Returns:
        np.ndarray of ints, shape (B,), entries -1 or +1.
    """
    bits = np.asarray(bits)
    subsets = np.asarray(tasks)[np.asarray(task_ids, dtype=np.int64)]
    return np.prod(np.take_along_axis(bits, subsets, axis=1), axis=1).astype(np.int64)


# %% tags=["graded"]
def sample_batch(tasks, probs, batch, rng, n_bits=24):
    """One fresh batch of multitask sparse parity: each sample's task drawn with the
    frequencies probs, its n_bits bits independent fair +-1 coins; the same int seed gives
    the same batch. One way (any correct draw is accepted; the hidden tests check the layout,
    the labels and the frequencies, not particular draws):

        g = np.random.default_rng(rng)      # rng: an int seed or a np.random.Generator
        task_ids = g.choice(T, size=batch, p=probs)
        bits = 2 * g.integers(0, 2, size=(batch, n_bits)) - 1
        X = [one-hot(task_ids) of width T, bits]   (concatenated along axis 1)
        y = parity_labels(bits, tasks, task_ids)

    (np.random.default_rng returns a Generator passed to it unchanged, so a training loop
    can pass one generator and get a fresh batch each call.)

    Args:
        tasks: int array (T, k).  probs: array (T,) of task frequencies.
        batch: int, batch size.  rng: int seed or np.random.Generator.
        n_bits: int, number of random bits (24 in the notes).
    Returns:
        (X, y, task_ids): X float array (batch, T + n_bits) with entries in {0, 1} (first T
        columns) and {-1, +1} (last n_bits); y float array (batch,) of +-1; task_ids int
        array (batch,).
    """
    tasks = np.asarray(tasks)
    T = tasks.shape[0]
    g = np.random.default_rng(rng)
    task_ids = g.choice(T, size=int(batch), p=np.asarray(probs, dtype=float))
    bits = 2 * g.integers(0, 2, size=(int(batch), int(n_bits))) - 1
    one_hot = np.zeros((int(batch), T))
    one_hot[np.arange(int(batch)), task_ids] = 1.0
    X = np.concatenate([one_hot, bits.astype(float)], axis=1)
    return X, parity_labels(bits, tasks, task_ids).astype(float), task_ids


# %% tags=["check"]
@check
def check_pipeline():
    "tasks are sorted distinct subsets; labels are +-1 parities; X = [one-hot, bits]"
    tasks = make_tasks(5, 8, 3, seed=1)
    assert np.shape(tasks) == (5, 3)
    assert all(len(set(row)) == 3 and list(row) == sorted(row) for row in np.asarray(tasks))
    assert np.isclose(np.sum(task_probs(5, 0.4)), 1.0) and np.isclose(task_probs(2, 1.0)[0] / task_probs(2, 1.0)[1], 4.0)
    X, y, ids = sample_batch(tasks, task_probs(5, 0.4), 64, 0, n_bits=8)
    X, y, ids = np.asarray(X), np.asarray(y), np.asarray(ids)
    assert X.shape == (64, 13) and y.shape == (64,) and ids.shape == (64,)
    assert np.all(X[np.arange(64), ids] == 1) and np.all(X[:, :5].sum(axis=1) == 1), "one-hot task code"
    assert set(np.unique(X[:, 5:])) <= {-1.0, 1.0} and set(np.unique(y)) <= {-1.0, 1.0}
    assert np.all(y == np.prod(X[:, 5:][np.arange(64)[:, None], np.asarray(tasks)[ids]], axis=1))
    X2, _, _ = sample_batch(tasks, task_probs(5, 0.4), 64, 0, n_bits=8)
    assert np.array_equal(X, X2), "the same seed must give the same batch"


@check
def check_pipeline_edges():
    "k = n_bits uses every bit; hand-made parities; a task of frequency 1 fills the batch; 24 bits by default"
    assert np.array_equal(make_tasks(2, 3, 3, seed=7), [[0, 1, 2], [0, 1, 2]]), "k = n_bits: the subset is every bit"
    one = np.asarray(make_tasks(4, 10, 1, seed=2))
    assert one.shape == (4, 1) and np.all((one >= 0) & (one < 10))
    bits = np.array([[1, -1, 1, -1], [-1, -1, 1, 1]])
    tasks = np.array([[0, 1], [2, 3]])
    assert np.array_equal(parity_labels(bits, tasks, np.array([0, 1])), [-1, 1])
    assert np.array_equal(parity_labels(bits, tasks, np.array([1, 0])), [-1, 1]), "task t_b picks the subset of row b"
    X, y, ids = (np.asarray(v) for v in sample_batch(np.array([[0], [1], [2]]), np.array([0.0, 1.0, 0.0]), 10,
                                                     np.random.default_rng(4)))
    assert X.shape == (10, 3 + 24) and np.all(ids == 1), "probs (0, 1, 0): every sample is task 1; n_bits = 24"
    assert np.array_equal(y, X[:, 3 + 1]), "task 1's subset is bit 1: the label is that bit"
    assert np.array_equal(parity_labels(X[:, 3:].astype(int), np.array([[5, 9, 20]]), np.zeros(10, dtype=int)),
                          np.prod(X[:, [8, 12, 23]], axis=1)), "one task on bits 5, 9, 20 of 24"
    many = np.asarray(make_tasks(6, 20, 3, seed=11))
    assert len({tuple(r) for r in many}) > 1, "tasks are drawn independently: six tasks should not share one subset"


# %% tags=["solution"]
# Independent checks: (i) labels by a second route, XOR of the
# 0/1 bits; (ii) the task frequencies of $2\times10^5$ sampled examples against `task_probs`
# (a $\chi^2$ test); (iii) the bits are fair and independent of the task (the label of a
# task is $\pm1$ with probability $\frac12$ each, and has zero correlation with every single
# bit and every pair of bits: a $k$-sparse parity is invisible to any statistic of fewer
# than $k$ bits).
from scipy import stats

tasks_c = make_tasks(10, 12, 3, seed=5)
g_c = np.random.default_rng(9)
X_c, y_c, ids_c = (np.asarray(v) for v in sample_batch(tasks_c, task_probs(10, 0.4), 200_000, g_c, n_bits=12))
bits01 = (1 - X_c[:, 10:]) / 2                                   # -1 -> 1, +1 -> 0
xor = np.array([np.bitwise_xor.reduce(bits01[i, tasks_c[t]].astype(int)) for i, t in enumerate(ids_c[:5000])])
assert np.array_equal(y_c[:5000], 1 - 2 * xor), "parity by XOR disagrees"
counts = np.bincount(ids_c, minlength=10)
chi2, pval = stats.chisquare(counts, 200_000 * task_probs(10, 0.4))
print(f"(i) labels = 1 - 2 XOR(bits in S): ok;  (ii) task frequencies: chi^2 = {chi2:.1f} (9 dof), p = {pval:.3f}")
assert pval > 1e-3
t0 = ids_c == 0
single = np.abs(X_c[t0, 10:].T @ y_c[t0]) / t0.sum()
pair = max(abs(np.mean(y_c[t0] * X_c[t0, 10 + i] * X_c[t0, 10 + j])) for i in range(12) for j in range(i))
print(f"(iii) task 0: mean label {y_c[t0].mean():+.4f}, max |corr(label, bit)| {single.max():.4f}, "
      f"max |corr(label, bit pair)| {pair:.4f}  (n = {t0.sum()}, 1/sqrt(n) = {1 / np.sqrt(t0.sum()):.4f})")
assert single.max() < 5 / np.sqrt(t0.sum()) and pair < 5 / np.sqrt(t0.sum())
S0 = tasks_c[0]
print("     the parity of its own subset:", np.mean(y_c[t0] * np.prod(X_c[t0][:, 10 + S0], axis=1)))

# %% [markdown]
# ## 2. Training
#
# **Task.** Implement `train_sparse_parity(config)` following its docstring. The default
# configuration (`DEFAULT_CONFIG`) is the reduced one; set `FULL_RUN = True` below for the
# notes' configuration (`FULL_CONFIG`, hours on a CPU; a progress bar shows the way).

# %% tags=["provided"]
DEFAULT_CONFIG = dict(T=16, n_bits=16, k=3, alpha=0.4, width=256, batch=256, lr=2e-3, steps=12000,
                      record_every=100, n_test=256, seed=0, progress=False)
FULL_CONFIG = dict(T=48, n_bits=24, k=3, alpha=0.4, width=512, batch=256, lr=2e-3, steps=120000,
                   record_every=500, n_test=512, seed=0, progress=True)


# %% tags=["graded"]
def train_sparse_parity(config):
    """Train a one-hidden-layer ReLU network online on multitask sparse parity (notes, Figure 8).

    config: dict; missing keys are taken from DEFAULT_CONFIG. Keys: T, n_bits, k, alpha,
        width, batch, lr, steps, record_every, n_test, seed, progress (bool: tqdm bar).
    Procedure:
        tasks = make_tasks(T, n_bits, k, seed); probs = task_probs(T, alpha);
        torch.manual_seed(seed); training batches from sample_batch with the generator
        np.random.default_rng(seed + 1), one fresh batch per step;
        a fixed test set of n_test samples per task, drawn with np.random.default_rng(seed + 2);
        model Linear(T + n_bits, width) -> ReLU -> Linear(width, 1) (PyTorch default init),
        float32, loss mean((f(x) - y)^2), torch.optim.Adam(lr);
        record the test MSE of every task at steps 0, record_every, 2 record_every, ..., steps
        (step s = after s optimizer updates).
    The seeds make a run reproducible (the same config gives the same curves). The hidden
    tests check the run's behaviour, not its random numbers, so other seeds or streams are
    accepted; the tasks must be your make_tasks(T, n_bits, k, seed), returned as "tasks".
    Returns:
        dict with
            "steps": int array (R,), the recorded steps;
            "task_losses": float array (R, T), test MSE of each task at each recorded step;
            "aggregate": float array (R,), the frequency-weighted loss task_losses @ probs;
            "probs": float array (T,); "tasks": int array (T, k);
            "params": dict of float arrays "W1" (width, T + n_bits), "b1" (width,),
                      "W2" (1, width), "b2" (1,): the trained network.
    """
    cfg = {**DEFAULT_CONFIG, **dict(config)}
    T, n_bits, k, seed = int(cfg["T"]), int(cfg["n_bits"]), int(cfg["k"]), int(cfg["seed"])
    steps, every = int(cfg["steps"]), int(cfg["record_every"])
    tasks = make_tasks(T, n_bits, k, seed)
    probs = task_probs(T, cfg["alpha"])
    torch.manual_seed(seed)
    train_rng = np.random.default_rng(seed + 1)
    test_rng = np.random.default_rng(seed + 2)
    n_test = int(cfg["n_test"])
    test_ids = np.repeat(np.arange(T), n_test)
    test_bits = 2 * test_rng.integers(0, 2, size=(T * n_test, n_bits)) - 1
    X_test = torch.tensor(np.concatenate([np.eye(T)[test_ids], test_bits], axis=1), dtype=torch.float32)
    y_test = torch.tensor(parity_labels(test_bits, tasks, test_ids), dtype=torch.float32).reshape(T, n_test)

    model = torch.nn.Sequential(torch.nn.Linear(T + n_bits, int(cfg["width"])), torch.nn.ReLU(),
                                torch.nn.Linear(int(cfg["width"]), 1))
    opt = torch.optim.Adam(model.parameters(), lr=float(cfg["lr"]))
    recorded, losses = [], []
    for step in tqdm(range(steps + 1), disable=not cfg.get("progress", False), mininterval=2.0):
        if step % every == 0:
            with torch.no_grad():
                err = model(X_test).reshape(T, n_test) - y_test
                losses.append((err**2).mean(dim=1).numpy().astype(float))
            recorded.append(step)
        if step == steps:
            break
        X, y, _ = sample_batch(tasks, probs, int(cfg["batch"]), train_rng, n_bits)
        loss = ((model(torch.tensor(X, dtype=torch.float32)).squeeze(-1) - torch.tensor(y, dtype=torch.float32)) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    task_losses = np.array(losses)
    first, last = model[0], model[2]
    params = {"W1": first.weight.detach().numpy().astype(float), "b1": first.bias.detach().numpy().astype(float),
              "W2": last.weight.detach().numpy().astype(float), "b2": last.bias.detach().numpy().astype(float)}
    return {"steps": np.array(recorded), "task_losses": task_losses, "aggregate": task_losses @ probs,
            "probs": probs, "tasks": tasks, "params": params}


# %% [markdown]
# ## 3. When is a subtask learned?
#
# **Task.** Implement `cliff_steps(curves, threshold=0.1)`: for each task, the first recorded
# step from which its test loss stays below `threshold` for the rest of the run (a brief dip
# below the threshold that is undone later does not count); `inf` if the last recorded loss
# is not below the threshold.

# %% tags=["graded"]
def cliff_steps(curves, threshold=0.1):
    """Step at which each subtask is learned (its cliff).

    Args:
        curves: dict with "steps" (R,) and "task_losses" (R, T), as returned by
            train_sparse_parity (other keys are ignored).
        threshold: float, a task counts as learned while its test MSE is < threshold.
    Returns:
        float array (T,): for task t the smallest recorded step s_j such that
        task_losses[j', t] < threshold for every j' >= j; np.inf if there is none.
    """
    steps = np.asarray(curves["steps"], dtype=float)
    below = np.asarray(curves["task_losses"], dtype=float) < threshold
    stays = np.logical_and.accumulate(below[::-1], axis=0)[::-1]  # below from row j to the end
    first = np.argmax(stays, axis=0)
    return np.where(stays[-1], steps[first], np.inf)


# %% tags=["check"]
@check
def check_cliff_steps():
    "cliff_steps on hand-made curves: a dip that is undone does not count; never-learned is inf"
    curves = {"steps": np.array([0, 10, 20, 30, 40]),
              "task_losses": np.array([[1.0, 1.0, 1.0], [0.05, 1.0, 0.9], [0.02, 0.05, 0.9],
                                       [0.01, 0.5, 0.9], [0.0, 0.05, 0.9]])}
    out = np.asarray(cliff_steps(curves))
    assert out.shape == (3,)
    assert out[0] == 10 and out[1] == 40 and np.isinf(out[2]), f"got {out}"
    out = np.asarray(cliff_steps(curves, threshold=0.6))
    assert out[0] == 10 and out[1] == 20 and np.isinf(out[2]), f"threshold 0.6: got {out}"
    early = {"steps": np.array([0, 5, 10]), "task_losses": np.array([[0.01, 0.2], [0.02, 0.05], [0.0, 0.01]])}
    assert np.array_equal(cliff_steps(early), [0.0, 5.0]), "a task below the threshold from the start has its cliff at 0"


@check
def check_train_sparse_parity_tiny():
    "a tiny run: records at 0, r, 2r, the aggregate is task_losses @ probs, the tasks are make_tasks', shapes"
    for seed in (0, 3):
        cfg = dict(T=2, n_bits=4, k=1, alpha=0.5, width=8, batch=16, lr=1e-2, steps=20, record_every=10,
                   n_test=8, seed=seed)
        run = train_sparse_parity(cfg)
        assert list(run["steps"]) == [0, 10, 20] and np.shape(run["task_losses"]) == (3, 2)
        assert np.allclose(run["aggregate"], np.asarray(run["task_losses"]) @ task_probs(2, 0.5))
        assert np.array_equal(run["tasks"], make_tasks(2, 4, 1, seed)), "tasks = make_tasks(T, n_bits, k, seed)"
        assert np.shape(run["params"]["W1"]) == (8, 6) and np.shape(run["params"]["W2"]) == (1, 8)
    run = train_sparse_parity(dict(T=3, n_bits=4, k=1, alpha=8.0, width=4, batch=8, steps=0, record_every=1,
                                   n_test=4, seed=1))
    assert np.all(np.isfinite(run["task_losses"])), \
        "the test set holds n_test samples of every task (not a Zipf batch, in which a rare task may be missing)"


# %% [markdown]
# ## 4. The run
#
# The next cell trains the reduced configuration (about 15 s on one core), or the full one
# if `FULL_RUN = True`.

# %% tags=["figure"]
FULL_RUN = False
config = FULL_CONFIG if FULL_RUN else DEFAULT_CONFIG
try:
    run = train_sparse_parity(config)
except NotImplementedError as exc:
    run = None
    print("training skipped:", exc)

# %% tags=["figure"]
if run is not None:
    steps_r = np.asarray(run["steps"])
    L_tasks = np.asarray(run["task_losses"])
    p_r = np.asarray(run["probs"])
    alpha_r = config["alpha"]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.3))
    colors = plt.cm.viridis(np.linspace(0, 0.95, L_tasks.shape[1]))
    for t in range(L_tasks.shape[1]):
        axes[0].plot(steps_r, L_tasks[:, t], color=colors[t], lw=1)
    axes[0].set(xlabel="step $S$", ylabel="test MSE per subtask", ylim=(-0.05, 1.6),
                title="per-task losses: staggered cliffs (dark = frequent)")
    pos = steps_r > 0
    agg = np.asarray(run["aggregate"])
    axes[1].loglog(steps_r[pos], agg[pos], "k", label=r"$L(S)=\sum_i p_iL_i(S)$")
    S_mid = steps_r[pos][len(steps_r[pos]) // 8]
    guide = agg[pos][len(steps_r[pos]) // 8] * (steps_r[pos] / S_mid) ** (-alpha_r / (alpha_r + 1))
    axes[1].loglog(steps_r[pos], guide, "k--", lw=1, label=r"quanta slope $-\alpha/(\alpha+1)$")
    axes[1].set(xlabel="step $S$", ylabel="aggregate test loss", title="the frequency-weighted aggregate")
    axes[1].legend()
    try:
        cl = np.asarray(cliff_steps(run))
        ok = np.isfinite(cl)
        axes[2].loglog(p_r[ok], cl[ok], "o")
        slope = np.polyfit(np.log(p_r[ok]), np.log(cl[ok]), 1)[0]
        p_line = np.array([p_r.min(), p_r.max()])
        axes[2].loglog(p_line, cl[0] * (p_line / p_r[0]) ** -1, "k--", lw=1, label=r"threshold rule $S\propto 1/p$")
        stairs = np.array([np.sum(p_r * (s < cl[0] * p_r[0] / p_r)) for s in steps_r[pos]])
        axes[1].loglog(steps_r[pos], stairs, color="grey", lw=1, label="threshold-rule staircase, these $T$ tasks")
        axes[1].legend()
        axes[2].set(xlabel="task frequency $p_i$", ylabel="cliff step",
                    title=f"cliff vs frequency: fitted slope {slope:.2f}")
        axes[2].legend()
    except NotImplementedError as exc:
        print("cliff panel skipped:", exc)
    plt.tight_layout()
    plt.show()

# %% [markdown]
# The middle panel also shows (grey) what the quantization model predicts for these $T$
# tasks: cliffs at $S_k=S_1p_1/p_k$ (the threshold rule $Sp_k\gtrsim\tau$, anchored at the
# measured first cliff) and the aggregate $\sum_kp_k\,\mathbb 1[S<S_k]$. With finitely many
# tasks this staircase is itself steeper than $S^{-\alpha/(\alpha+1)}$ once the tail of tasks
# runs out, so it is the fair comparison for a reduced run.


# %% tags=["solution"]
# Independent checks: (i) the recorded aggregate loss at the end of
# training against a Monte Carlo estimate: a numpy forward pass of the returned parameters on
# $2\times10^4$ fresh samples drawn with the Zipf task frequencies (the aggregate *is* the
# expected loss on the training distribution); (ii) the order of the cliffs against the task
# frequencies (Spearman rank correlation); (iii) the cliff steps against the threshold rule
# $S_k\propto1/p_k$ of Ex 7.1(d), and the slope of the aggregate against the threshold-rule
# staircase and against $\alpha/(\alpha+1)$, between the first cliff and the cliff of the median task.
if run is not None:
    prm = {k_: np.asarray(v) for k_, v in run["params"].items()}
    X_mc, y_mc, _ = (np.asarray(v) for v in sample_batch(run["tasks"], run["probs"], 20000, 123, config["n_bits"]))
    f_mc = (np.maximum(X_mc @ prm["W1"].T + prm["b1"], 0) @ prm["W2"].T + prm["b2"]).ravel()
    sq = (f_mc - y_mc) ** 2
    print(f"(i) final aggregate: recorded {run['aggregate'][-1]:.4f}, Monte Carlo on fresh Zipf samples "
          f"{sq.mean():.4f} +- {sq.std() / np.sqrt(len(sq)):.4f}")
    assert abs(run["aggregate"][-1] - sq.mean()) < 5 * sq.std() / np.sqrt(len(sq)) + 0.01
    cl = np.asarray(cliff_steps(run), dtype=float)
    rho = stats.spearmanr(np.arange(len(cl)), np.where(np.isfinite(cl), cl, 1e12)).correlation
    print(f"(ii) cliff steps {cl.astype(int) if np.all(np.isfinite(cl)) else cl}; Spearman(rank, cliff) = {rho:.3f}")
    assert rho > 0.8
    ok = np.isfinite(cl)
    p_arr = np.asarray(run["probs"])
    slope = np.polyfit(np.log(p_arr[ok]), np.log(cl[ok]), 1)[0]
    steps_r, agg = np.asarray(run["steps"]), np.asarray(run["aggregate"])
    # the quanta model's own prediction for these T tasks: cliffs at S_k = S_1 p_1 / p_k (threshold rule,
    # anchored at the measured first cliff), aggregate = sum of p_k over the tasks not yet learned
    staircase = np.array([np.sum(p_arr * (s < cl[0] * p_arr[0] / p_arr)) for s in steps_r])
    window = (steps_r >= cl[0]) & (steps_r <= np.sort(cl[ok])[len(cl) // 2 - 1])
    agg_slope = -np.polyfit(np.log(steps_r[window]), np.log(agg[window]), 1)[0]
    stair_slope = -np.polyfit(np.log(steps_r[window]), np.log(staircase[window]), 1)[0]
    a_r = config["alpha"]
    print(f"(iii) cliff step ~ p^{slope:.2f} (threshold rule: p^-1); between the first cliff and the cliff of "
          f"task {len(cl) // 2}: aggregate slope {agg_slope:.2f}, threshold-rule staircase for the same {len(cl)} "
          f"tasks {stair_slope:.2f}, infinitely many tasks alpha/(alpha+1) = {a_r / (a_r + 1):.2f}")
    print(f"      at the end: aggregate {agg[-1]:.4f}, staircase {staircase[-1]:.4f}")
    assert -1 < slope < 0 and agg_slope > stair_slope > a_r / (a_r + 1)


# %% [markdown]
# **Questions.** (a) Each task's loss falls as a cliff, yet the aggregate is smooth.
# Explain, and say what this implies for "emergent capabilities" measured on a benchmark
# that depends on one or a few tasks. (b) Compare the cliff steps with the threshold rule
# $S\,p_k\gtrsim\tau$ and the aggregate slope with $\alpha/(\alpha+1)$. Which assumption of the
# quantization model fails, and by what mechanism in this network?

# %% [markdown] tags=["answer"] points=4
# *Model answer.* **(a)** The aggregate $L(S)=\sum_ip_iL_i(S)$ is a sum of step functions,
# each of height $p_i$ (small for all but the first few tasks) and placed at a different
# step; since the steps are staggered over decades, no single cliff is visible in the sum,
# which interpolates between them like a staircase of many small stairs: a smooth, roughly
# power-law decay. A benchmark dominated by one or a few subtasks sees the cliff itself:
# abrupt "emergence" of a capability at some scale, while the aggregate loss glides. Emergence
# is a property of what is measured, not necessarily of a phase transition in the model.
#
# **(b)** The threshold rule says that task $k$ needs $\tau$ updates that contain it, so its
# cliff is at $S_k\approx\tau/(Bp_k)\propto p_k^{-1}$. The measured cliff steps grow more
# slowly than $1/p_k$ (in the reduced run $S_k\propto p_k^{-0.9}$; the notes' full run bunches
# more): the rare tasks are learned sooner than predicted, and the aggregate falls *faster*
# than the threshold-rule staircase for the same tasks, and much faster than the idealized
# $S^{-\alpha/(\alpha+1)}$ (part of the latter gap is only the finite number of tasks). The assumption that fails is the independent learning of quanta
# with a fixed cost $\tau$ (assumption (iv) of Ex 7.1(e)): the tasks share the hidden layer,
# so features built for earlier tasks (units tuned to bits, the one-hot routing) are reused
# by later ones; and Adam divides each parameter's update by the running root-mean-square
# of its own gradient, so a weight whose gradient is nonzero only in a fraction $q$ of the
# steps (the first-layer weights of a rare task's one-hot input, $q\approx Bp_k$ or less)
# moves $\propto\sqrt q$ per step instead of $\propto q$: rare tasks are boosted. The effective
# $\tau_k$ decreases with $k$.
#
# *Rubric (4 points):* (a) sum of staggered small steps (1), emergence depends on the metric
# (1); (b) cliffs earlier than $1/p_k$ and the aggregate steeper than the staircase and than
# $\alpha/(\alpha+1)$, read off the figure (finite-$T$ caveat a plus) (1); independence / constant $\tau$ identified, with a mechanism (shared hidden
# layer, adaptive optimizer) (1).

# %% tags=["tests"]
from scipy import stats

TINY = dict(T=4, n_bits=8, k=3, alpha=1.0, width=128, batch=256, lr=3e-3, steps=1000, record_every=25,
            n_test=200, progress=False)


def _separated_seed(rng, make_tasks):
    """A seed whose 4 subsets (drawn by ``make_tasks``) share at most one bit pairwise (no task can
    ride on another's features). About 1 uniform draw in 10 qualifies: 300 tries all fail a correct
    make_tasks with probability about 6e-15."""
    for _ in range(300):
        seed = int(rng.integers(10**6))
        if _separated(make_tasks(4, 8, 3, seed)):
            return seed
    raise AssertionError("make_tasks should draw the subsets at random: among 300 seeds none gave 4 subsets "
                         "of 3 of 8 bits sharing at most one bit pairwise")


def _separated(tasks):
    t = [set(np.asarray(row).tolist()) for row in np.asarray(tasks)]
    return all(len(t[i] & t[j]) <= 1 for i in range(len(t)) for j in range(i))


def _binomial_ok(counts, n, p, eps):
    """Each count within the central 1 - eps of Binomial(n, p) (exact quantiles): a correct
    draw fails one such check with probability at most eps."""
    lo, hi = stats.binom.ppf(eps / 2, n, p), stats.binom.isf(eps / 2, n, p)
    return bool(np.all((np.asarray(counts) >= lo) & (np.asarray(counts) <= hi)))


@points(1)
def test_task_probs(student):
    "task_probs for random T and alpha"
    rng = rng_for("task_probs")
    for T, a in [(48, 0.4), (int(rng.integers(2, 30)), float(rng.uniform(0.1, 2.0))), (1, 0.7),
                 (int(rng.integers(500, 2000)), float(rng.uniform(0.01, 0.05))), (12, float(rng.uniform(20, 40)))]:
        assert_close(student.task_probs(T, a), ref.task_probs(T, a), rtol=1e-9, atol=1e-15,
                     name=f"task_probs({T}, {a:.3f})")


# False-fail budget 1e-4 (any correct draw, any course seed): the shape, distinctness and
# reproducibility checks cannot fail a correct draw, nor can "another seed, other subsets" but
# with probability about 2024^-48; the frequencies of the 10 bits and the 45 pairs of bits in 3000
# uniform subsets are Binomial(3000, 3/10) and Binomial(3000, 1/15): each count within its exact
# central quantiles at eps = 1e-4 / 55 (union bound: at most 1e-4 in all).
@points(2)
def test_make_tasks(student):
    "make_tasks: sorted subsets of k distinct bits, the same seed giving the same subsets; bits and pairs of bits equally frequent (statistical)"
    rng = rng_for("make_tasks")
    for T, n_bits, k in [(48, 24, 3), (int(rng.integers(2, 10)), int(rng.integers(5, 12)), 2), (3, 4, 4)]:
        seed = int(rng.integers(0, 2**31))
        got = np.asarray(student.make_tasks(T, n_bits, k, seed))
        assert got.shape == (T, k), f"make_tasks({T}, {n_bits}, {k}, seed) should have shape ({T}, {k})"
        assert np.all(got == np.round(got)), "the subsets should be integer bit indices"
        assert np.all((got >= 0) & (got < n_bits)), f"bit indices should lie in 0..{n_bits - 1}"
        assert np.all(np.diff(got, axis=1) > 0), "each subset should be sorted, with k distinct bits"
        assert_close(student.make_tasks(T, n_bits, k, seed), got, rtol=0, atol=0,
                     name="subsets for the same seed (reproducible)")
        if T == 48:
            other = np.asarray(student.make_tasks(T, n_bits, k, seed + 1))
            assert not np.array_equal(other, got), "another seed should give other subsets"
    T, n_bits, k = 3000, 10, 3
    got = np.asarray(student.make_tasks(T, n_bits, k, int(rng.integers(0, 2**31))))
    assert got.shape == (T, k) and np.all(np.diff(got, axis=1) > 0) and np.all((got >= 0) & (got < n_bits)), \
        "each subset should be k distinct sorted bits"
    member = np.zeros((T, n_bits))
    member[np.arange(T)[:, None], got.astype(int)] = 1
    pairs = (member.T @ member)[np.triu_indices(n_bits, 1)]
    eps = 1e-4 / (n_bits + len(pairs))
    assert _binomial_ok(member.sum(axis=0), T, k / n_bits, eps), "every bit should be equally likely in a subset"
    assert _binomial_ok(pairs, T, k * (k - 1) / (n_bits * (n_bits - 1)), eps), \
        "every pair of bits should be equally likely in a subset (subsets drawn uniformly)"


@points(2)
def test_parity_labels(student):
    "parity_labels on random bits, subsets and task ids"
    rng = rng_for("parity_labels")
    for T, n_bits, k, B in [(6, 12, 3, 50), (3, 7, 1, 20), (5, 9, 4, 40), (1, 5, 5, 1)]:
        tasks = np.array([np.sort(rng.choice(n_bits, size=k, replace=False)) for _ in range(T)])
        bits = 2 * rng.integers(0, 2, size=(B, n_bits)) - 1
        ids = rng.integers(0, T, size=B)
        assert_close(student.parity_labels(bits, tasks, ids), ref.parity_labels(bits, tasks, ids), rtol=0, atol=0,
                     name=f"labels (k = {k})")


def _check_batch(got, tasks, T, n_bits, batch):
    """Layout of one batch: X = [one-hot of task_ids, +-1 bits], y = the parities of the bits."""
    assert len(got) == 3, "sample_batch should return (X, y, task_ids)"
    X, y, ids = (np.asarray(v) for v in got)
    assert X.shape == (batch, T + n_bits), f"X should have shape (batch, T + n_bits) = ({batch}, {T + n_bits})"
    assert y.shape == (batch,) and ids.shape == (batch,), "y and task_ids should have shape (batch,)"
    assert np.all(ids == np.round(ids)) and np.all((ids >= 0) & (ids < T)), "task ids should be integers in 0..T-1"
    ids = ids.astype(int)
    one_hot = np.zeros((batch, T))
    one_hot[np.arange(batch), ids] = 1
    assert np.array_equal(X[:, :T], one_hot), "the first T columns of X should be the one-hot code of task_ids"
    bits = X[:, T:]
    assert np.all(np.abs(bits) == 1), "the last n_bits columns of X should be bits -1 or +1"
    assert np.array_equal(y, np.prod(bits[np.arange(batch)[:, None], np.asarray(tasks)[ids]], axis=1)), \
        "y should be the parity (product) of each sample's bits in its task's subset"
    return ids, bits


# False-fail budget 1e-4 (any correct draw, any course seed): layout, labels and reproducibility
# hold for every correct draw; in a batch of 3000 the count of each of the 8 tasks is
# Binomial(3000, p_i) and the count of +1 in each of the 12 bit columns Binomial(3000, 1/2):
# each within its exact central quantiles at eps = 1e-4 / 20 (union bound). (3000 keeps the answer
# under the 1 MB on the wire from which the grader checks a large answer's shape first.)
@pytest.mark.reference_input  # inputs computed from a reference result
@points(3)
def test_sample_batch(student):
    "sample_batch: X = [one-hot task code, +-1 bits], y their parities, the same seed giving the same batch; tasks drawn with the frequencies p_i, fair bits (statistical)"
    rng = rng_for("sample_batch")
    for T, n_bits, k, a in [(8, 12, 3, 0.4), (3, 6, 2, 1.5)]:
        tasks = ref.make_tasks(T, n_bits, k, int(rng.integers(1000)))
        probs = ref.task_probs(T, a)
        seed = int(rng.integers(0, 2**31))
        got = student.sample_batch(tasks, probs, 64, seed, n_bits)
        _check_batch(got, tasks, T, n_bits, 64)
        again = student.sample_batch(tasks, probs, 64, seed, n_bits)
        for g, w, name in zip(again, got, ["X", "y", "task_ids"]):
            assert_close(g, w, rtol=0, atol=0, name=f"{name} for the same seed (reproducible)")
    T, n_bits, B = 8, 12, 3000
    tasks = ref.make_tasks(T, n_bits, 3, int(rng.integers(1000)))
    probs = ref.task_probs(T, 0.4)
    ids, bits = _check_batch(student.sample_batch(tasks, probs, B, int(rng.integers(0, 2**31)), n_bits),
                             tasks, T, n_bits, B)
    eps = 1e-4 / (T + n_bits)
    counts = np.bincount(ids, minlength=T)
    assert all(_binomial_ok(counts[i], B, probs[i], eps) for i in range(T)), \
        "the tasks should be drawn with the frequencies probs"
    assert _binomial_ok((bits > 0).sum(axis=0), B, 0.5, eps), "the bits should be fair coins"


@pytest.mark.reference_input  # inputs computed from a reference result
@points(1)
def test_sample_batch_default_bits(student):
    "sample_batch with the default number of bits"
    tasks = ref.make_tasks(5, 24, 3, 3)
    probs = ref.task_probs(5, 0.4)
    _check_batch(student.sample_batch(tasks, probs, 16, 11), tasks, 5, 24, 16)


@points(2)
def test_cliff_steps(student):
    "cliff_steps on synthetic curves with transient dips, late learners and never-learned tasks"
    rng = rng_for("cliff_steps")
    R, T = 30, 6
    steps = np.arange(R) * 20
    L = np.ones((R, T))
    for t in range(T - 1):
        c = int(rng.integers(1, R - 2))
        L[c:, t] = 0.01 * rng.random(R - c)
    L[2, T - 2] = 0.05      # a transient dip of an otherwise late task
    L[R - 1, T - 1] = 0.2   # never below 0.1
    L[R - 5:, T - 3] = 0.1  # exactly at the threshold: not below it
    curves = {"steps": steps, "task_losses": L, "aggregate": L.mean(axis=1)}
    assert_close(student.cliff_steps(curves), ref.cliff_steps(curves), rtol=0, atol=0, name="cliff steps")
    assert_close(student.cliff_steps(curves, 0.3), ref.cliff_steps(curves, 0.3), rtol=0, atol=0,
                 name="cliff steps at threshold 0.3")


# False-fail budget 1e-4: the structure checks hold for every correct run; the initial test MSE of a
# task (200 test samples, PyTorch's default initialization) ranged over 0.95-1.30 in 480 task runs
# (120 seeds), far inside (0.6, 2.0).
@points(2)
def test_train_structure(student):
    "train_sparse_parity on a tiny configuration: keys, shapes, recorded steps, aggregate = losses @ probs, loss ~ 1 at step 0"
    cfg = dict(TINY, steps=100, record_every=50, seed=int(rng_for("train_structure").integers(1000)))
    out = student.train_sparse_parity(cfg)
    assert isinstance(out, dict) and {"steps", "task_losses", "aggregate", "probs"} <= set(out), \
        "the result should be a dict with steps, task_losses, aggregate, probs, ..."
    assert_close(out["steps"], np.arange(0, 101, 50), rtol=0, atol=0, name="recorded steps")
    L = np.asarray(out["task_losses"])
    assert L.shape == (3, 4), "task_losses should have shape (number of records, T)"
    assert_close(out["probs"], ref.task_probs(4, 1.0), rtol=1e-9, atol=0, name="probs")
    assert_close(out["aggregate"], L @ ref.task_probs(4, 1.0), rtol=1e-6, atol=1e-9, name="aggregate")
    assert np.all((L[0] > 0.6) & (L[0] < 2.0)), "at initialization every task's test MSE should be about 1"


# False-fail budget 1e-4 (any stream, any course seed): with subsets that share at most one bit
# pairwise (the seed is chosen with the student's own make_tasks, so any correct draw of the subsets
# qualifies), 120 training runs of the reference on random seeds (torch initialization, batches and
# test set all redrawn) put the cliffs of tasks 1, 2, 3 at 100-150, 275-375 and 525-750 steps
# (mean +- standard deviation 126 +- 7, 332 +- 21, 616 +- 46) and that of task 4 at 800 or later
# (never in 13 runs): task 3's cliff lies 8.4 standard deviations before the 1000 steps, task 1's
# 9 before task 2's and task 2's 10 before task 4's, so P(fail) is far below 1e-4 unless a run can
# get stuck (never seen: 0 of 120). (A seed chosen with the reference's make_tasks left another
# stream's subsets overlapping, and this test then failed correct code in about 1 seed in 15.)
@points(3)
def test_train_learning_order(student):
    "on a tiny configuration (4 tasks, 8 bits, p ~ i^-2, 1000 steps) the three most frequent tasks are learned, the most frequent first and task 2 before task 4"
    cfg = dict(TINY, seed=_separated_seed(rng_for("train_learning_order"), student.make_tasks))
    out = student.train_sparse_parity(cfg)
    assert "tasks" in out and _separated(out["tasks"]), \
        "train_sparse_parity should draw its tasks with make_tasks(T, n_bits, k, seed) and return them as 'tasks'"
    cl = ref.cliff_steps({"steps": out["steps"], "task_losses": out["task_losses"]})
    assert np.all(np.isfinite(cl[:3])), "the three most frequent tasks should be learned within 1000 steps (test MSE < 0.1)"
    assert cl[0] < np.min(cl[1:]) and cl[1] < cl[3], "tasks should be learned in order of frequency"



@points(1)
def test_make_tasks_edges(student):
    "make_tasks at the edges of its ranges: one task, one bit per subset, subsets of all the bits"
    rng = rng_for("make_tasks_edges")
    for T, n_bits, k in [(1, int(rng.integers(2, 20)), 1), (1, 1, 1), (int(rng.integers(2, 6)), 5, 1), (2, 6, 6)]:
        seed = int(rng.integers(0, 2**31))
        got = np.asarray(student.make_tasks(T, n_bits, k, seed))
        assert got.shape == (T, k), f"make_tasks({T}, {n_bits}, {k}, seed) should have shape ({T}, {k})"
        assert np.all(got == np.round(got)) and np.all((got >= 0) & (got < n_bits)), \
            f"bit indices should be integers in 0..{n_bits - 1}"
        assert np.all(np.diff(got, axis=1) > 0), "each subset should be sorted, with k distinct bits"
        assert_close(student.make_tasks(T, n_bits, k, seed), got, rtol=0, atol=0,
                     name="subsets for the same seed (reproducible)")


# False-fail budget 1e-4 (any correct draw, any course seed): layout, labels and the one-task and
# one-sample cases hold for every correct draw; in a batch of 3000 samples of one task the count of
# +1 in each of the 12 bit columns, and in the product of each of the 66 pairs of columns, is
# Binomial(3000, 1/2) for independent fair bits: each within its exact central quantiles at
# eps = 1e-4 / 78 (union bound).
@points(1)
def test_sample_batch_one_task_independent_bits(student):
    "sample_batch with one task and with a batch of one; the bits independent fair coins (statistical)"
    rng = rng_for("sample_batch_one_task_independent_bits")
    tasks = np.array([[0, 3, 5]])
    for batch, n_bits in [(1, 7), (3000, 12)]:
        got = student.sample_batch(tasks, np.array([1.0]), batch, int(rng.integers(0, 2**31)), n_bits)
        ids, bits = _check_batch(got, tasks, 1, n_bits, batch)
        assert np.all(ids == 0), "with one task every sample belongs to task 0"
    pos = bits > 0
    i, j = np.triu_indices(n_bits, 1)
    eps = 1e-4 / (n_bits + len(i))
    assert _binomial_ok(pos.sum(axis=0), batch, 0.5, eps), "the bits should be fair coins"
    assert _binomial_ok((bits[:, i] * bits[:, j] > 0).sum(axis=0), batch, 0.5, eps), \
        "the bits of a sample should be independent coins (every pair of bits uncorrelated)"


@points(1)
def test_cliff_steps_edges(student):
    "cliff_steps: tasks learned from the first record, a single record, threshold 0 and the default threshold"
    rng = rng_for("cliff_steps_edges")
    R, T = 12, 5
    steps = np.arange(R) * int(rng.integers(5, 50))
    L = 0.02 + 0.05 * rng.random((R, T))          # tasks 0 and 1: below 0.1 from the first record on
    L[:4, 2] = 0.5                                # task 2: learned at record 4
    L[:, 3] = 0.5                                 # task 3: never
    L[0, 4], L[R - 1, 4] = 0.5, 0.3               # task 4: below in between, not at the end
    curves = {"steps": steps, "task_losses": L}
    for thr in [None, 0.3, 0.0]:
        args = (curves,) if thr is None else (curves, thr)
        assert_close(student.cliff_steps(*args), ref.cliff_steps(*args), rtol=0, atol=0,
                     name="cliff steps" + ("" if thr is None else f" at threshold {thr}"))
    one = {"steps": np.array([0]), "task_losses": L[:1]}
    assert_close(student.cliff_steps(one), ref.cliff_steps(one), rtol=0, atol=0, name="cliff steps of a single record")


def _exact_task_losses(params, tasks, T, n_bits):
    """Mean, variance and largest deviation of each task's squared error (f(x) - y)^2 over all 2^n_bits
    equally likely bit patterns, for the network with the given parameters (float64)."""
    W1, b1 = np.asarray(params["W1"], dtype=float), np.asarray(params["b1"], dtype=float).ravel()
    W2, b2 = np.asarray(params["W2"], dtype=float).reshape(1, -1), np.asarray(params["b2"], dtype=float).ravel()
    pat = 2 * ((np.arange(2**n_bits)[:, None] >> np.arange(n_bits)) & 1) - 1
    mu, var, dev = np.zeros(T), np.zeros(T), np.zeros(T)
    for t in range(T):
        X = np.concatenate([np.tile(np.eye(T)[t], (len(pat), 1)), pat], axis=1)
        e = ((np.maximum(X @ W1.T + b1, 0) @ W2.T).ravel() + b2[0] - np.prod(pat[:, np.asarray(tasks)[t]], axis=1)) ** 2
        mu[t], var[t], dev[t] = e.mean(), e.var(), np.max(np.abs(e - e.mean()))
    return mu, var, dev


# False-fail budget 1e-4 (any stream, any course seed): with no update (steps = 0) the recorded loss of
# task t is the mean of n_test = 400 independent squared errors of the returned network on inputs of
# task t (uniform bits), whose mean mu_t, variance s_t^2 and largest deviation M_t are computed
# exactly over all 2^8 bit patterns; Bernstein's inequality P(|mean - mu_t| >= d) <=
# 2 exp(-n d^2 / (2 s_t^2 + 2 M_t d / 3)) at 1e-4 / 24 for each of the 24 tasks (union bound), plus
# 1e-4 for float32 rounding. A test set drawn with the task frequencies (p_i ~ i^-3) leaves tasks
# 15-24 between none and 2 samples each, several times the allowed spread.
@points(1)
def test_train_test_set(student):
    "train_sparse_parity with no training step and default width, batch, lr, record_every: the step-0 test losses are those of the returned network on n_test fresh samples of every task"
    rng = rng_for("train_test_set")
    T, n_bits, n_test = 24, 8, 400
    cfg = dict(T=T, n_bits=n_bits, k=3, alpha=2.0, steps=0, n_test=n_test, seed=int(rng.integers(1000)))
    out = student.train_sparse_parity(cfg)
    assert_close(out["steps"], np.array([0]), rtol=0, atol=0, name="recorded steps with steps = 0")
    L = np.asarray(out["task_losses"], dtype=float)
    assert L.shape == (1, T), "task_losses should have shape (number of records, T)"
    assert np.all(np.isfinite(L)), "every task should have test samples (n_test of each task)"
    W1 = np.asarray(out["params"]["W1"])
    assert W1.shape == (ref.DEFAULT_CONFIG["width"], T + n_bits), \
        "a key missing from config (here width) should be taken from DEFAULT_CONFIG"
    mu, var, dev = _exact_task_losses(out["params"], out["tasks"], T, n_bits)
    lg = np.log(2 * T / 1e-4)
    d = (2 * dev * lg / 3 + np.sqrt((2 * dev * lg / 3) ** 2 + 8 * n_test * var * lg)) / (2 * n_test)
    assert np.all(np.abs(L[0] - mu) <= d + 1e-4), \
        "the step-0 test loss of each task should be the mean squared error of the returned network on n_test " \
        "fresh samples of that task (uniform bits, its parity as label)"


# %% tags=["wrong"]
# wrong: Zipf frequencies i^-alpha instead of i^-(alpha+1)
# hint: The subtasks follow a Zipf law with frequencies p_i ∝ i^{−(α+1)}, like the quanta of Exercise
#   7.1 (Section 7.6): α is the exponent of the loss, one less than the exponent of the frequencies.
def task_probs(T, alpha):
    w = np.arange(1, int(T) + 1, dtype=float) ** -alpha
    return w / w.sum()


# %% tags=["rewrite"]
# rewrite: the same exponent alpha, with the weights written as exp(-alpha log i)
def task_probs(T, alpha):
    i = np.arange(1, int(T) + 1, dtype=float)
    w = np.exp(-alpha * np.log(i))
    return w / np.sum(w)


# %% tags=["wrong"]
# wrong: subsets drawn with replacement (a bit can appear twice and cancel in the parity)
# hint: Each task is a parity over k distinct bits: draw the subset without replacement, since a bit
#   drawn twice cancels in the parity (Section 7.6).
def make_tasks(T, n_bits, k, seed):
    g = np.random.default_rng(seed)
    return np.array([np.sort(g.choice(int(n_bits), size=int(k), replace=True)) for _ in range(int(T))])



# %% tags=["wrong"]
# wrong: the generator re-created from the seed for every task, so every task gets the same subset
# hint: The subsets of the tasks are drawn independently of one another: create the generator once from
#   the seed and draw every task's subset from it in turn (Section 7.6).
def make_tasks(T, n_bits, k, seed):
    return np.array([np.sort(np.random.default_rng(seed).choice(int(n_bits), size=int(k), replace=False))
                     for _ in range(int(T))], dtype=np.int64).reshape(int(T), int(k))

# %% tags=["wrong"]
# wrong: parity as a 0/1 label (sum of the 0/1 bits mod 2) instead of the +-1 product
# hint: The label is the ±1 parity, the product of the k chosen ±1 bits, not a 0/1 sum modulo 2 (Section
#   7.6).
def parity_labels(bits, tasks, task_ids):
    sub = np.asarray(tasks)[np.asarray(task_ids)]
    b01 = (1 - np.take_along_axis(np.asarray(bits), sub, axis=1)) // 2
    return b01.sum(axis=1) % 2


# %% tags=["wrong"]
# wrong: tasks drawn uniformly (the Zipf frequencies are ignored when sampling)
# hint: The task of each sample is drawn with the Zipf frequencies p_i, not uniformly: frequent tasks
#   are seen more often, which is what makes the cliffs come one after the other (Section 7.6,
#   Figure 8).
def sample_batch(tasks, probs, batch, rng, n_bits=24):
    tasks = np.asarray(tasks)
    T = tasks.shape[0]
    g = np.random.default_rng(rng)
    task_ids = g.choice(T, size=int(batch))
    bits = 2 * g.integers(0, 2, size=(int(batch), int(n_bits))) - 1
    X = np.concatenate([np.eye(T)[task_ids], bits], axis=1)
    return X, parity_labels(bits, tasks, task_ids).astype(float), task_ids


# %% tags=["wrong"]
# wrong: the first step below the threshold counts, even if the loss rises again
# hint: A subtask counts as learned at the step from which its loss stays below the threshold: a dip
#   below it that rises again does not count (Section 7.6, Figure 8).
def cliff_steps(curves, threshold=0.1):
    L = np.asarray(curves["task_losses"], dtype=float)
    below = L < threshold
    return np.where(below.any(axis=0), np.asarray(curves["steps"], dtype=float)[np.argmax(below, axis=0)], np.inf)



# %% tags=["wrong"]
# wrong: index 0 of the first record that stays below is taken for "not found": tasks learned from the start are inf
# hint: A subtask whose loss is below the threshold from the first recorded step on is learned at that
#   first step: "below from record 0" and "never below for good" are different answers (Section 7.6).
def cliff_steps(curves, threshold=0.1):
    steps = np.asarray(curves["steps"], dtype=float)
    below = np.asarray(curves["task_losses"], dtype=float) < threshold
    stays = np.logical_and.accumulate(below[::-1], axis=0)[::-1]
    first = np.argmax(stays, axis=0)
    return np.where(first > 0, steps[first], np.inf)


# %% tags=["wrong"]
# wrong: the test set drawn with the task frequencies (one Zipf batch of T n_test samples) instead of n_test samples per task
# hint: The fixed test set holds n_test samples of every task, not a batch drawn with the frequencies p_i:
#   a rare task's test loss needs as many samples as a frequent one's (Section 7.6, Figure 8).
def train_sparse_parity(config):
    cfg = {**DEFAULT_CONFIG, **dict(config)}
    T, n_bits, k, seed = int(cfg["T"]), int(cfg["n_bits"]), int(cfg["k"]), int(cfg["seed"])
    steps, every = int(cfg["steps"]), int(cfg["record_every"])
    tasks = make_tasks(T, n_bits, k, seed)
    probs = task_probs(T, cfg["alpha"])
    torch.manual_seed(seed)
    train_rng = np.random.default_rng(seed + 1)
    Xt, yt, test_ids = sample_batch(tasks, probs, T * int(cfg["n_test"]), np.random.default_rng(seed + 2), n_bits)
    X_test, y_test = torch.tensor(Xt, dtype=torch.float32), torch.tensor(yt, dtype=torch.float32)
    model = torch.nn.Sequential(torch.nn.Linear(T + n_bits, int(cfg["width"])), torch.nn.ReLU(),
                                torch.nn.Linear(int(cfg["width"]), 1))
    opt = torch.optim.Adam(model.parameters(), lr=float(cfg["lr"]))
    recorded, losses = [], []
    for step in range(steps + 1):
        if step % every == 0:
            with torch.no_grad():
                err2 = ((model(X_test).squeeze(-1) - y_test) ** 2).numpy().astype(float)
            losses.append(np.array([err2[test_ids == t].mean() if np.any(test_ids == t) else np.nan
                                    for t in range(T)]))
            recorded.append(step)
        if step == steps:
            break
        X, y, _ = sample_batch(tasks, probs, int(cfg["batch"]), train_rng, n_bits)
        loss = ((model(torch.tensor(X, dtype=torch.float32)).squeeze(-1) - torch.tensor(y, dtype=torch.float32)) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    task_losses = np.array(losses)
    first, last = model[0], model[2]
    params = {"W1": first.weight.detach().numpy().astype(float), "b1": first.bias.detach().numpy().astype(float),
              "W2": last.weight.detach().numpy().astype(float), "b2": last.bias.detach().numpy().astype(float)}
    return {"steps": np.array(recorded), "task_losses": task_losses, "aggregate": task_losses @ probs,
            "probs": probs, "tasks": tasks, "params": params}

# %% tags=["alternative"]
# alternative: XOR parity, explicit loops, cliff search from the end, training in float64 with its own batch assembly
def task_probs(T, alpha):
    p = np.array([(i + 1.0) ** (-alpha - 1.0) for i in range(T)])
    return p / p.sum()


def make_tasks(T, n_bits, k, seed):
    g = np.random.default_rng(seed)
    out = np.zeros((T, k), dtype=int)
    for i in range(T):
        out[i] = sorted(g.choice(n_bits, size=k, replace=False).tolist())
    return out


def parity_labels(bits, tasks, task_ids):
    b01 = (np.asarray(bits) < 0).astype(int)
    out = []
    for b, t in zip(b01, np.asarray(task_ids)):
        out.append(1 - 2 * np.bitwise_xor.reduce(b[np.asarray(tasks)[t]]))
    return np.array(out)


def sample_batch(tasks, probs, batch, rng, n_bits=24):
    g = np.random.default_rng(rng)
    T = len(tasks)
    ids = g.choice(T, size=batch, p=probs)
    bits = g.integers(0, 2, size=(batch, n_bits)) * 2 - 1
    X = np.hstack([(ids[:, None] == np.arange(T)[None, :]).astype(float), bits])
    return X, parity_labels(bits, tasks, ids).astype(float), ids


def cliff_steps(curves, threshold=0.1):
    steps = np.asarray(curves["steps"], dtype=float)
    L = np.asarray(curves["task_losses"], dtype=float)
    out = np.full(L.shape[1], np.inf)
    for t in range(L.shape[1]):
        j = L.shape[0]
        while j > 0 and L[j - 1, t] < threshold:
            j -= 1
        if j < L.shape[0]:
            out[t] = steps[j]
    return out


def train_sparse_parity(config):
    cfg = {**DEFAULT_CONFIG, **config}
    T, n_bits = cfg["T"], cfg["n_bits"]
    tasks = make_tasks(T, n_bits, cfg["k"], cfg["seed"])
    probs = task_probs(T, cfg["alpha"])
    torch.manual_seed(cfg["seed"] + 17)
    g_train, g_test = np.random.default_rng(cfg["seed"] + 1), np.random.default_rng(cfg["seed"] + 2)
    ids = np.repeat(np.arange(T), cfg["n_test"])
    bits = g_test.integers(0, 2, size=(len(ids), n_bits)) * 2 - 1
    Xt = torch.tensor(np.hstack([np.eye(T)[ids], bits]), dtype=torch.float64)
    yt = torch.tensor(parity_labels(bits, tasks, ids), dtype=torch.float64)
    net = torch.nn.Sequential(torch.nn.Linear(T + n_bits, cfg["width"]), torch.nn.ReLU(),
                              torch.nn.Linear(cfg["width"], 1)).double()
    opt = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
    rec, Ls = [], []
    for s in range(cfg["steps"] + 1):
        if s % cfg["record_every"] == 0:
            with torch.no_grad():
                e2 = ((net(Xt).ravel() - yt) ** 2).numpy()
            Ls.append([e2[ids == t].mean() for t in range(T)])
            rec.append(s)
        if s < cfg["steps"]:
            X, y, _ = sample_batch(tasks, probs, cfg["batch"], g_train, n_bits)
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(torch.tensor(X)).ravel(), torch.tensor(y)).backward()
            opt.step()
    Ls = np.array(Ls)
    return dict(steps=np.array(rec), task_losses=Ls, aggregate=Ls @ probs, probs=probs, tasks=tasks,
                params={"W1": net[0].weight.detach().numpy(), "b1": net[0].bias.detach().numpy(),
                        "W2": net[2].weight.detach().numpy(), "b2": net[2].bias.detach().numpy()})
