"""Plain-data wire format between the grader and the student's process.

Only JSON goes over the wire: scalars, strings, lists, string-keyed dicts, and tagged
objects for tuples, complex numbers, numeric arrays and named functions. Nothing is ever
unpickled, and nothing a student returns keeps its own methods: a value whose ``__eq__``
or ``__array__`` lies is turned into numbers (the lie is then simply the student's
answer) before the grader sees it.
"""

from __future__ import annotations

import base64
import json
import math

import numpy as np

SETUP_FAILED = 97  # exit code of a sandbox's own set-up failing (the grader's problem, not the student's)
MAX_DEPTH = 32
MAX_BYTES = 16 * 2**20  # per array
LINE_CAP = 24 * 2**20   # one message on the wire (an array of MAX_BYTES in base64, plus room)
MAX_ITEMS = 2_000_000   # JSON values in one message: bounds the grader's memory while decoding
MAX_NOTES = 20          # cell errors taken from one run of the notebook
NOTE_CHARS = 300        # characters kept of one message written by the student's code
_NUMERIC_KINDS = "biufc"
_ALLOWED_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                   "uint64", "float16", "float32", "float64", "complex64", "complex128"}


class ProtocolError(ValueError):
    """A message that is not valid plain data."""


def _relu(u):
    return np.maximum(u, 0.0)


def _drelu(u):
    return (np.asarray(u) > 0).astype(float)


def _sigmoid(u):
    return 1.0 / (1.0 + np.exp(-u))


def _erf(u):
    from scipy.special import erf  # heavy: scipy only for the named function erf (the worker imports this module)
    return erf(u)


def _derf(u):
    return 2.0 / np.sqrt(np.pi) * np.exp(-np.asarray(u) ** 2)


# Functions a test may pass to a student's function, by name.
FUNCTIONS = {
    "identity": lambda u: np.asarray(u, dtype=float),
    "one": lambda u: np.ones_like(np.asarray(u, dtype=float)),
    "tanh": np.tanh,
    "dtanh": lambda u: 1.0 / np.cosh(u) ** 2,
    "relu": _relu,
    "drelu": _drelu,
    "erf": _erf,
    "derf": _derf,
    "sin": np.sin,
    "cos": np.cos,
    "sigmoid": _sigmoid,
    "dsigmoid": lambda u: _sigmoid(u) * (1.0 - _sigmoid(u)),
}


class Fn:
    """A named function that can cross the process boundary (see ``FUNCTIONS``)."""

    def __init__(self, name: str):
        if name not in FUNCTIONS:
            raise KeyError(f"unknown function {name!r}; known: {sorted(FUNCTIONS)}")
        self.name = name

    def resolve(self):
        return FUNCTIONS[self.name]

    def __repr__(self):
        return f"Fn({self.name!r})"


def encode(obj, _depth: int = 0):
    """Turn ``obj`` into JSON-able plain data, or raise ProtocolError."""
    if _depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if obj is None or type(obj) in (bool, str):
        return obj
    if type(obj) is int:
        return obj if abs(obj) < 2**63 else float(obj)
    if type(obj) is float:
        return obj if math.isfinite(obj) else {"__float__": repr(obj)}
    if type(obj) is complex:
        return {"__complex__": [encode(obj.real), encode(obj.imag)]}
    if isinstance(obj, Fn):
        return {"__fn__": obj.name}
    if type(obj) is tuple:
        return {"__tuple__": [encode(x, _depth + 1) for x in obj]}
    if type(obj) is list:
        return [encode(x, _depth + 1) for x in obj]
    if type(obj) is dict:
        if not all(type(k) is str for k in obj):
            raise ProtocolError("dict keys must be strings")
        return {"__dict__": [[k, encode(v, _depth + 1)] for k, v in obj.items()]}
    if type(obj) is np.ndarray:
        return _encode_array(obj)
    if isinstance(obj, (int, float, complex)) and not isinstance(obj, np.generic):
        # a subclass (perhaps with a lying __eq__): keep only its number
        base: type = next(t for t in (bool, int, float, complex) if isinstance(obj, t))  # obj is one of them
        return encode(base(obj), _depth + 1)
    if isinstance(obj, np.generic):
        return encode(obj.item(), _depth + 1)
    if type(obj).__module__.startswith("torch"):
        return encode(obj.detach().cpu().numpy(), _depth + 1)
    # Anything else: ask numpy for numbers. A lying __array__/__float__ only lies about
    # the student's own answer.
    try:
        arr = np.asarray(obj)
    except Exception as exc:  # noqa: BLE001 - any failure means "not plain data"
        raise ProtocolError(f"cannot convert {type(obj).__name__} to numbers: {exc}") from None
    if type(arr) is not np.ndarray or arr.dtype.kind not in _NUMERIC_KINDS:
        raise ProtocolError(f"a value of type {type(obj).__name__} is not plain data")
    return _encode_array(arr)


def _encode_array(arr: np.ndarray):
    if arr.dtype.kind not in _NUMERIC_KINDS:
        if arr.dtype.kind == "O":
            return {"__list_array__": encode(arr.tolist())}
        raise ProtocolError(f"arrays of dtype {arr.dtype} are not supported")
    arr = np.ascontiguousarray(arr).reshape(arr.shape)  # ascontiguousarray alone makes a 0-d array 1-d
    if arr.dtype.name not in _ALLOWED_DTYPES:
        arr = arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64)
    if arr.nbytes > MAX_BYTES:
        raise ProtocolError(f"array of {arr.nbytes} bytes is too large")
    return {"__ndarray__": base64.b64encode(arr.tobytes()).decode("ascii"),
            "dtype": arr.dtype.str, "shape": list(arr.shape)}


def decode(obj, _depth: int = 0):
    """Inverse of ``encode``; strict, so malformed data raises ProtocolError."""
    if _depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if obj is None or type(obj) in (bool, int, float, str):
        return obj
    if type(obj) is list:
        return [decode(x, _depth + 1) for x in obj]
    if type(obj) is not dict or len(obj) not in (1, 3):
        raise ProtocolError("malformed value")
    if "__ndarray__" in obj:
        dtype = np.dtype(str(obj.get("dtype")))
        if dtype.name not in _ALLOWED_DTYPES:
            raise ProtocolError(f"dtype {dtype} not allowed")
        shape = obj.get("shape")
        if type(shape) is not list or not all(type(s) is int and s >= 0 for s in shape):
            raise ProtocolError("malformed shape")
        raw = base64.b64decode(str(obj["__ndarray__"]), validate=True)
        if len(raw) != dtype.itemsize * math.prod(shape):
            raise ProtocolError("array size does not match its shape")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    (key, val), = obj.items()
    if key == "__tuple__" and type(val) is list:
        return tuple(decode(x, _depth + 1) for x in val)
    if key == "__dict__" and type(val) is list:
        out = {}
        for item in val:
            if type(item) is not list or len(item) != 2 or type(item[0]) is not str:
                raise ProtocolError("malformed dict")
            out[item[0]] = decode(item[1], _depth + 1)
        return out
    if key == "__float__" and val in ("nan", "inf", "-inf"):
        return float(val)
    if key == "__complex__" and type(val) is list and len(val) == 2:
        return complex(decode(val[0]), decode(val[1]))
    if key == "__list_array__":
        return decode(val, _depth + 1)
    if key == "__fn__" and val in FUNCTIONS:
        return FUNCTIONS[val]
    raise ProtocolError(f"unknown tag {key!r}")


# Random generators a student's function passes to a function the grader stands in for (error
# carried forward): sent by their state, drawn from in the grader, their new state sent back.
GENERATOR = "\x00pdl-generator:"  # an argument's place holder; its state travels beside the arguments
_BIT_GENERATORS = ("PCG64", "PCG64DXSM")


def generator_state(gen) -> dict:
    """The state of a ``np.random.Generator`` as plain strings and ints (its 128-bit integers as text)."""
    state = gen.bit_generator.state
    if state.get("bit_generator") not in _BIT_GENERATORS:
        raise ProtocolError(f"a generator of {state.get('bit_generator')} cannot be sent")
    return {"bit_generator": state["bit_generator"], "state": str(state["state"]["state"]),
            "inc": str(state["state"]["inc"]), "has_uint32": int(state["has_uint32"]),
            "uinteger": int(state["uinteger"])}


def _bit_generator_state(data) -> dict:
    if type(data) is not dict or data.get("bit_generator") not in _BIT_GENERATORS:
        raise ProtocolError("malformed generator state")
    try:
        state, inc = int(str(data["state"])[:60]), int(str(data["inc"])[:60])
        has, extra = int(data["has_uint32"]), int(data["uinteger"])
    except (KeyError, ValueError, TypeError):
        raise ProtocolError("malformed generator state") from None
    if not (0 <= state < 2**128 and 0 <= inc < 2**128 and has in (0, 1) and 0 <= extra < 2**32):
        raise ProtocolError("malformed generator state")
    return {"bit_generator": data["bit_generator"], "state": {"state": state, "inc": inc},
            "has_uint32": has, "uinteger": extra}


def generator_from(data) -> np.random.Generator:
    """A generator in the state ``generator_state`` gave (checked strictly)."""
    state = _bit_generator_state(data)
    bit = getattr(np.random, state["bit_generator"])()
    bit.state = state
    return np.random.Generator(bit)


def set_generator_state(gen, data) -> None:
    """Move ``gen`` on to the state ``generator_state`` gave (where the grader's draws left it)."""
    gen.bit_generator.state = _bit_generator_state(data)


LARGE = 2**20  # bytes on the wire: an answer this large is announced by its skeleton first


def wire_bytes(encoded) -> int:
    """About how many bytes ``encoded`` takes on the wire (arrays by their base64 text)."""
    total, stack = 0, [encoded]
    while stack:
        x = stack.pop()
        if type(x) is dict:
            data = x.get("__ndarray__")
            if type(data) is str:
                total += len(data)
            else:
                stack += list(x.values())
        elif type(x) is list:
            total += len(x)
            stack += x
        else:
            total += 8
    return total


def skeleton(encoded, _depth: int = 0):
    """An encoded answer with every array (and every long list of numbers) replaced by its shape
    and dtype: what the grader checks against the contract before taking the data."""
    if _depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if type(encoded) is list:
        if len(encoded) > 64 and all(type(x) in (int, float, bool) for x in encoded):
            return {"__skeleton__": {"shape": [len(encoded)], "dtype": "float64"}}
        return [skeleton(x, _depth + 1) for x in encoded]
    if type(encoded) is dict and "__ndarray__" in encoded:
        return {"__skeleton__": {"shape": encoded["shape"], "dtype": encoded["dtype"]}}
    if type(encoded) is dict and len(encoded) == 1:
        (key, val), = encoded.items()
        if key in ("__tuple__", "__list_array__"):
            return {key: [skeleton(x, _depth + 1) for x in val]}
        if key == "__dict__":
            return {key: [[k, skeleton(v, _depth + 1)] for k, v in val]}
    return encoded


def decode_skeleton(obj, _depth: int = 0):
    """``decode`` of a skeleton: each array a read-only zero-stride view of its shape (one
    element of memory, whatever the shape it claims)."""
    if _depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if type(obj) is dict and "__skeleton__" in obj:
        spec = obj["__skeleton__"]
        if type(spec) is not dict:
            raise ProtocolError("malformed skeleton")
        dtype = np.dtype(str(spec.get("dtype")))
        shape = spec.get("shape")
        if dtype.name not in _ALLOWED_DTYPES or type(shape) is not list or len(shape) > MAX_DEPTH \
                or not all(type(s) is int and 0 <= s < 2**40 for s in shape):
            raise ProtocolError("malformed skeleton")
        return np.broadcast_to(np.zeros((), dtype=dtype), tuple(shape))
    if type(obj) is list:
        return [decode_skeleton(x, _depth + 1) for x in obj]
    if type(obj) is dict and len(obj) == 1:
        (key, val), = obj.items()
        if key == "__tuple__" and type(val) is list:
            return tuple(decode_skeleton(x, _depth + 1) for x in val)
        if key == "__list_array__" and type(val) is list:
            return [decode_skeleton(x, _depth + 1) for x in val]
        if key == "__dict__" and type(val) is list:
            if not all(type(i) is list and len(i) == 2 and type(i[0]) is str for i in val):
                raise ProtocolError("malformed dict")
            return {k: decode_skeleton(v, _depth + 1) for k, v in val}
    return decode(obj, _depth)


def dumps(message) -> str:
    return json.dumps(message, allow_nan=False, separators=(",", ":"))


def loads(line):
    """Parse one message (str or bytes) under the size, item and nesting caps; ProtocolError if not."""
    if len(line) > LINE_CAP:
        raise ProtocolError("message too large")
    raw = line.encode() if isinstance(line, str) else bytes(line)
    # Cheap upper bound on the number of JSON values before building any of them.
    if raw.count(b",") + raw.count(b"[") + raw.count(b"{") > MAX_ITEMS:
        raise ProtocolError("message has too many values")
    try:
        return json.loads(raw)
    except RecursionError:
        raise ProtocolError("message nested too deeply") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"not JSON: {str(exc)[:100]}") from None


def short(text, limit: int = NOTE_CHARS) -> str:
    """A message written by the student's code, as plain bounded text."""
    text = text if isinstance(text, str) else repr(text)
    text = "".join(ch if ch.isprintable() or ch in "\n\t" else "?" for ch in text[:limit + 1])
    return text if len(text) <= limit else text[:limit] + " ..."


def roundtrip(value):
    """What the grader would receive had ``value`` crossed the wire."""
    return decode(loads(dumps(encode(value))))
