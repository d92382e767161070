import numpy as np


# %% mistake: generator re-made for every task
# function: make_tasks
# kind: reseed
# truth: np.random.default_rng(seed) is created inside the loop over tasks, so every task draws the same subset instead of independent subsets.
def make_tasks(T, n_bits, k, seed):
    rows = []
    for _ in range(T):
        g = np.random.default_rng(seed)
        rows.append(np.sort(g.choice(n_bits, size=k, replace=False)))
    return np.array(rows, dtype=int).reshape(T, k)


# %% mistake: every sample uses the first task
# function: parity_labels
# kind: ignored-arg
# truth: task_ids is ignored: every sample's parity is taken over tasks[0] instead of the subset tasks[task_ids[b]] of its own task.
def parity_labels(bits, tasks, task_ids):
    bits = np.asarray(bits)
    S = np.asarray(tasks)[0]
    return np.prod(bits[:, S], axis=1).astype(int)


# %% mistake: one-hot shifted by one
# function: sample_batch
# kind: off-by-one
# truth: the one-hot code is built as eye(T)[task_ids - 1], as if tasks were numbered 1..T; task_ids are 0-based, so every sample gets the code of the previous task (task 0 gets the last).
def sample_batch(tasks, probs, batch, rng, n_bits=24):
    g = np.random.default_rng(rng)
    tasks = np.asarray(tasks)
    T = tasks.shape[0]
    task_ids = g.choice(T, size=batch, p=probs)
    bits = 2 * g.integers(0, 2, size=(batch, n_bits)) - 1
    onehot = np.eye(T)[task_ids - 1]
    X = np.concatenate([onehot, bits], axis=1).astype(float)
    y = np.prod(bits[np.arange(batch)[:, None], tasks[task_ids]], axis=1).astype(float)
    return X, y, task_ids


# %% mistake: first dip counts as the cliff
# function: cliff_steps
# kind: branch
# truth: it returns the first recorded step at which the loss is below the threshold, even if the task is later unlearned; the cliff is the first step after which the loss stays below the threshold.
def cliff_steps(curves, threshold=0.1):
    steps = np.asarray(curves["steps"], dtype=float)
    L = np.asarray(curves["task_losses"], dtype=float)
    out = np.full(L.shape[1], np.inf)
    for t in range(L.shape[1]):
        below = np.where(L[:, t] < threshold)[0]
        if below.size:
            out[t] = steps[below[0]]
    return out
