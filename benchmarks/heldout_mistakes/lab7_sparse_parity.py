import numpy as np


# %% mistake: subset bits drawn with replacement
# function: make_tasks
# kind: concept
# truth: each task needs k distinct bits (choice without replacement); drawing k integers independently can repeat a bit, so a subset may have fewer than k distinct bits (a repeated bit cancels in the parity) and the bit frequencies are wrong.
def make_tasks(T, n_bits, k, seed):
    g = np.random.default_rng(seed)
    return np.array([np.sort(g.integers(0, n_bits, size=k)) for _ in range(T)], dtype=int).reshape(T, k)


# %% mistake: task ids read as 1-based
# function: parity_labels
# kind: off-by-one
# truth: task_ids are 0-based row indices of tasks; the code takes the subset tasks[task_ids - 1], i.e. the previous task's subset (and the last one for task 0), as if the tasks were numbered 1..T.
def parity_labels(bits, tasks, task_ids):
    bits = np.asarray(bits)
    tasks = np.asarray(tasks)
    ids = np.asarray(task_ids)
    sub = tasks[ids - 1]
    return np.prod(bits[np.arange(bits.shape[0])[:, None], sub], axis=1).astype(int)


# %% mistake: tasks drawn uniformly, probs ignored
# function: sample_batch
# kind: ignored-arg
# truth: each sample's task must be drawn with the Zipf frequencies probs; the code draws it uniformly from the T tasks (g.integers), so rare and frequent tasks appear equally often and the batch has the wrong task frequencies.
def sample_batch(tasks, probs, batch, rng, n_bits=24):
    g = np.random.default_rng(rng)
    tasks = np.asarray(tasks)
    T = tasks.shape[0]
    task_ids = g.integers(0, T, size=batch)
    bits = 2 * g.integers(0, 2, size=(batch, n_bits)) - 1
    X = np.concatenate([np.eye(T)[task_ids], bits], axis=1).astype(float)
    y = parity_labels(bits, tasks, task_ids).astype(float)
    return X, y, task_ids


# %% mistake: first dip below the threshold counted as the cliff
# function: cliff_steps
# kind: branch
# truth: the cliff is the first recorded step from which the loss stays below the threshold to the end; the code returns the first step at which it is below, so a dip that is undone later counts (and a task that dipped but ends above the threshold gets a finite step instead of inf).
def cliff_steps(curves, threshold=0.1):
    steps = np.asarray(curves["steps"], dtype=float)
    L = np.asarray(curves["task_losses"], dtype=float)
    out = np.full(L.shape[1], np.inf)
    for t in range(L.shape[1]):
        below = np.nonzero(L[:, t] < threshold)[0]
        if below.size:
            out[t] = steps[below[0]]
    return out
