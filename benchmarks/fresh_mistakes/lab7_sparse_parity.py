import numpy as np


# %% mistake: subset bits drawn with replacement
# function: make_tasks
# kind: concept
# truth: make_tasks draws each subset with g.integers(0, n_bits, size=k), i.e. with replacement, so a subset can contain the same bit twice (then it has fewer than k distinct bits and a parity on it is wrong); draw without replacement, g.choice(n_bits, size=k, replace=False).
def make_tasks(T, n_bits, k, seed):
    g = np.random.default_rng(seed)
    return np.array([np.sort(g.integers(0, n_bits, size=k)) for _ in range(T)], dtype=int)


# %% mistake: parity of the number of +1 bits
# function: parity_labels
# kind: concept
# truth: parity_labels returns +1 when an odd number of the subset's bits are +1, which equals the product of the +-1 bits only for odd k; the label is the product, +1 when the number of -1 bits is even.
def parity_labels(bits, tasks, task_ids):
    bits = np.asarray(bits)
    sub = np.asarray(tasks)[np.asarray(task_ids)]                   # (B, k)
    chosen = np.take_along_axis(bits, sub, axis=1)
    n_plus = np.sum(chosen == 1, axis=1)
    return (2 * (n_plus % 2) - 1).astype(int)


# %% mistake: tasks drawn uniformly, probs ignored
# function: sample_batch
# kind: ignored-arg
# truth: sample_batch draws each sample's task uniformly with g.integers(0, T), ignoring the Zipf frequencies probs; use g.choice(T, size=batch, p=probs).
def sample_batch(tasks, probs, batch, rng, n_bits=24):
    g = np.random.default_rng(rng)
    tasks = np.asarray(tasks)
    T = tasks.shape[0]
    task_ids = g.integers(0, T, size=batch)
    bits = 2 * g.integers(0, 2, size=(batch, n_bits)) - 1
    onehot = np.zeros((batch, T))
    onehot[np.arange(batch), task_ids] = 1.0
    X = np.concatenate([onehot, bits.astype(float)], axis=1)
    y = np.prod(np.take_along_axis(bits, tasks[task_ids], axis=1), axis=1).astype(float)
    return X, y, task_ids


# %% mistake: cliff put at the last step above the threshold
# function: cliff_steps
# kind: off-by-one
# truth: cliff_steps returns the last recorded step at which the loss is still >= threshold, one record too early; the cliff is the next recorded step, the first from which the loss stays below the threshold.
def cliff_steps(curves, threshold=0.1):
    steps = np.asarray(curves["steps"], dtype=float)
    L = np.asarray(curves["task_losses"], dtype=float)
    out = np.empty(L.shape[1])
    for t in range(L.shape[1]):
        above = np.nonzero(L[:, t] >= threshold)[0]
        if above.size == 0:
            out[t] = steps[0]
        elif above[-1] == len(steps) - 1:
            out[t] = np.inf
        else:
            out[t] = steps[above[-1]]
    return out
