import numpy as np


# %% mistake: majority vote instead of parity
# function: parity_labels
# kind: concept
# truth: parity_labels returns the sign of the sum of the task's bits (a majority vote) instead of their product; for +-1 bits the parity is prod_j bits[b, j], and the two agree only for subsets of one bit.
def parity_labels(bits, tasks, task_ids):
    bits = np.asarray(bits)
    subsets = np.asarray(tasks)[np.asarray(task_ids)]
    chosen = np.take_along_axis(bits, subsets, axis=1)
    return np.sign(np.sum(chosen, axis=1)).astype(int)


# %% mistake: tasks drawn uniformly, probs ignored
# function: sample_batch
# kind: ignored-arg
# truth: sample_batch draws the task of each sample uniformly with g.integers(0, T) and never uses probs, so every task is equally frequent instead of following the Zipf frequencies (a task of probability 0 still appears).
def sample_batch(tasks, probs, batch, rng, n_bits=24):
    tasks = np.asarray(tasks)
    T = tasks.shape[0]
    g = np.random.default_rng(rng)
    task_ids = g.integers(0, T, size=batch)
    bits = 2 * g.integers(0, 2, size=(batch, n_bits)) - 1
    onehot = np.zeros((batch, T))
    onehot[np.arange(batch), task_ids] = 1.0
    X = np.concatenate([onehot, bits.astype(float)], axis=1)
    y = parity_labels(bits, tasks, task_ids).astype(float)
    return X, y, task_ids


# %% mistake: record index returned, not the step
# function: cliff_steps
# kind: concept
# truth: cliff_steps finds the right record (the first index j from which the loss stays below the threshold) but returns the index j itself instead of the recorded step curves["steps"][j], so the cliffs are off by the factor record_every (and by any offset of the steps).
def cliff_steps(curves, threshold=0.1):
    L = np.asarray(curves["task_losses"], dtype=float)
    R, T = L.shape
    out = np.full(T, np.inf)
    below = L < threshold
    for t in range(T):
        if not below[-1, t]:
            continue
        j = R - 1
        while j > 0 and below[j - 1, t]:
            j -= 1
        out[t] = float(j)
    return out
