"""What a Python program's host code says, read from its syntax tree, never run: the values
its names hold where it launches a kernel (numbers, tuples, numpy arrays' types and shapes),
statement by statement as the interpreter would bind them.

Only straight-line code is followed: a name bound inside an `if`, a loop, a `with` or a
`try` is unknown after it (and inside it), as is anything computed by a call smemsim does
not know. What it knows: literals, + - * / // % ** and unary minus of numbers, tuples and
their items, `math.ceil/floor`, `int/float/min/max/abs/len`, numpy's allocators (`zeros`,
`ones`, `empty`, `full`, `arange`, `*_like`, `random.rand/random/randn/randint`) with
`dtype=`, `.reshape`, `.astype`, `.T`, `.shape/.size/.ndim/.dtype`, numpy scalar types
(`np.float32(x)`), numba's `cuda.to_device/device_array/device_array_like`, torch's
allocators (`torch.randn(M, K, dtype=torch.float16)`, `empty_like`, ...) with `.stride(i)`,
`.numel()`, `.contiguous()`, `.to(...)`, and Triton's `cdiv` and `next_power_of_2`; a
`lambda` (a Triton grid) is kept to be called with its argument's value. cupy's allocators
are numpy's; pycuda's `gpuarray.to_gpu/zeros/empty` and `driver.In/Out/InOut(a)` are the
array they hold.

Text (the CUDA a cupy or pycuda program compiles): string literals, `+` of texts, `%` with a
tuple, a dict or one value, `.format(...)` of plain fields, f-strings, `string.Template(t)
.substitute(...)`, and `str(x)` of a number; each text knows the line of the file its first line stands on while its lines are
the literal's (Text.line; None once text of several lines is spliced into it). Formatting
reads no attribute or item of a value, and a result over MAX_TEXT characters is unknown.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

# how deep an expression is read (a deeper one is unknown: never a RecursionError)
MAX_DEPTH = 100
# the longest text formatting may make (`"%999999999d" % 1`, `"x" * 10**9`: unknown instead)
MAX_TEXT = 1 << 24


class Text(str):
    """A string with the line of the file its first line stands on (None: not known)."""

    line: int | None

    def __new__(cls, value: str, line: int | None):
        out = super().__new__(cls, value)
        out.line = line
        return out


@dataclass(frozen=True)
class Module:
    """A module (or a module's attribute: `numba.float32`) a name is bound to by an import."""

    path: str


@dataclass(frozen=True)
class Array:
    """A numpy (or device) array: numpy dtype name, shape, memory order ('C' or 'F')."""

    dtype: str
    shape: tuple
    order: str = "C"

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class Lambda:
    """A `lambda` (a Triton grid: `lambda META: (triton.cdiv(n, META['BLOCK']),)`), with
    the names bound where it was made."""

    node: ast.Lambda
    names: dict

    def __hash__(self) -> int:
        return id(self.node)

    def call(self, *args):
        """Its value for these arguments (None where unknown)."""
        params = [a.arg for a in self.node.args.args]
        if len(params) != len(args) or self.node.args.vararg or self.node.args.kwarg:
            return None
        return Scope({**self.names, **dict(zip(params, args))}).value(self.node.body)


@dataclass(frozen=True)
class Template:
    """A `string.Template` of a known text."""

    text: str

    def substitute(self, args: list, kw: dict, safe: bool):
        """Its `substitute(mapping, **kw)` (or `safe_substitute`) of known values, or None."""
        import string
        mapping = dict(args[0]) if len(args) == 1 and isinstance(args[0], dict) else \
            {} if not args else None
        if mapping is None:
            return None
        mapping.update(kw)
        if any(not isinstance(x, (int, float, str)) or isinstance(x, bool)
               for x in mapping.values()):
            return None
        try:
            t = string.Template(self.text)
            out = t.safe_substitute(mapping) if safe else t.substitute(mapping)
        except (KeyError, ValueError):
            return None
        return _formatted(self.text, out, tuple(mapping.values()))


@dataclass(frozen=True)
class Scalar:
    """A number of a stated numpy type (`np.float32(1.5)`)."""

    dtype: str
    value: int | float


_NUMPY = "numpy"
_SCALAR_TYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "bfloat16", "float32", "float64", "bool_", "intc", "uintc", "intp"}
_TORCH_ALIASES = {"half": "float16", "float": "float32", "int": "int32", "long": "int64",
                  "double": "float64", "bool": "bool_", "short": "int16"}
_ALIASES = {"bool": "bool_", "boolean": "bool_", "b1": "bool_", "intc": "int32", "uintc": "uint32", "intp": "int64", "float_": "float64",
            "double": "float64", "single": "float32", "half": "float16", "int_": "int64"}


def dtype_name(value) -> str | None:
    """The numpy dtype a value names (`np.float32`, `numba.float32`, 'float32',
    `float`), or None."""
    if isinstance(value, Module):
        last = value.path.rsplit(".", 1)[-1]
        last = (_TORCH_ALIASES if value.path.startswith("torch.") else _ALIASES).get(last,
                                                                                      last)
        return last if last in _SCALAR_TYPES else None
    if isinstance(value, str):
        value = _ALIASES.get(value, value)
        return value if value in _SCALAR_TYPES else None
    if value is float:
        return "float64"
    if value is int:
        return "int64"
    if value is bool:
        return "bool_"
    return None


class Scope:
    """The names of one scope as the program binds them, statement by statement. `given`:
    the values the user states for names the file does not say (`--host NAME=VALUE`): a
    name bound to something unknown, a function's parameter, holds its given value."""

    def __init__(self, names: dict | None = None, given: dict | None = None):
        self.given = dict(given or {})
        self.names: dict = {**self.given, **(names or {})}

    def run(self, statements, visit=None) -> None:
        """Bind what `statements` bind, in order; `visit(statement, scope)` is called before
        each statement (launches and definitions are found there). A nested function is
        visited with a copy of the names its enclosing scope has where it is defined."""
        for s in statements:
            if visit is not None:
                visit(s, self)
            if isinstance(s, ast.Import):
                for a in s.names:
                    if a.asname:
                        self.names[a.asname] = Module(a.name)
                    else:
                        top = a.name.split(".")[0]
                        self.names[top] = Module(top)
            elif isinstance(s, ast.ImportFrom):
                for a in s.names:
                    if a.name != "*" and s.level == 0 and s.module:
                        self.names[a.asname or a.name] = Module(f"{s.module}.{a.name}")
            elif isinstance(s, ast.Assign):
                value = self.value(s.value)
                for t in s.targets:
                    self._bind(t, value)
            elif isinstance(s, ast.AnnAssign) and s.value is not None:
                self._bind(s.target, self.value(s.value))
            elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                self._bind(s.target, self.value(ast.BinOp(
                    ast.Name(s.target.id, ast.Load()), s.op, s.value)))
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if visit is not None:
                    inner = dict(self.names)
                    if not isinstance(s, ast.ClassDef):   # its parameters: what is given
                        a = s.args
                        for p in a.posonlyargs + a.args + a.kwonlyargs + \
                                [x for x in (a.vararg, a.kwarg) if x is not None]:
                            inner[p.arg] = self.given.get(p.arg)
                    Scope(inner, self.given).run(s.body, visit)
                self.names[s.name] = None
            elif isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try,
                                ast.AsyncFor, ast.AsyncWith)) or \
                    type(s).__name__ in ("Match", "TryStar"):
                # what a branch or a loop binds is unknown inside it and after it
                for name in _stored(s):
                    self.names[name] = self.given.get(name)
                if visit is not None:
                    for body in _bodies(s):
                        Scope(self.names, self.given).run(body, visit)
            elif isinstance(s, ast.Delete):
                for name in _stored(s):
                    self.names.pop(name, None)

    def _bind(self, target, value) -> None:
        if isinstance(target, ast.Name):
            self.names[target.id] = value if value is not None else \
                self.given.get(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value if isinstance(value, tuple) and len(value) == len(target.elts) \
                else (None,) * len(target.elts)
            for t, v in zip(target.elts, items):
                self._bind(t, v)
        # (an attribute or an item assigned: nothing this reader follows)

    def value(self, node, depth: int = 0):
        """The value of an expression, or None where it is not known."""
        if depth > MAX_DEPTH or node is None:
            return None
        depth += 1
        v = lambda n: self.value(n, depth)  # noqa: E731
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return Text(node.value, node.lineno)
            return node.value if isinstance(node.value, (int, float, bool)) else None
        if isinstance(node, ast.JoinedStr):
            return _joined(node, v)
        if isinstance(node, ast.Dict):
            keys = [v(k) if k is not None else None for k in node.keys]
            if any(not isinstance(k, str) for k in keys):
                return None
            return {str(k): v(x) for k, x in zip(keys, node.values)}
        if isinstance(node, ast.Name):
            if node.id in ("float", "int", "bool") and node.id not in self.names:
                return {"float": float, "int": int, "bool": bool}[node.id]
            return self.names.get(node.id)
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(v(e) for e in node.elts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            x = _number(v(node.operand))
            return None if x is None else -x
        if isinstance(node, ast.BinOp):
            left, right = v(node.left), v(node.right)
            if isinstance(left, str):
                return _text_op(node.op, left, right)
            return _arith(node.op, _number(left), _number(right))
        if isinstance(node, ast.Subscript):
            base, index = v(node.value), v(node.slice)
            if isinstance(base, tuple) and isinstance(index, int) and \
                    -len(base) <= index < len(base):
                return base[index]
            if isinstance(base, dict) and isinstance(index, str):
                return base.get(index)
            return None
        if isinstance(node, ast.Lambda):
            return Lambda(node, dict(self.names))
        if isinstance(node, ast.IfExp):
            test = v(node.test)
            return None if not isinstance(test, (bool, int)) else \
                v(node.body) if test else v(node.orelse)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a, b = _number(v(node.left)), _number(v(node.comparators[0]))
            if a is None or b is None:
                return None
            ops = {ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b,
                   ast.Eq: a == b, ast.NotEq: a != b}
            return ops.get(type(node.ops[0]))
        if isinstance(node, ast.Attribute):
            return self._attribute(v(node.value), node.attr)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        return None

    @staticmethod
    def _attribute(base, attr: str):
        if isinstance(base, Module):
            return Module(f"{base.path}.{attr}")
        if isinstance(base, Array):
            return {"shape": base.shape, "size": base.size, "ndim": len(base.shape),
                    "dtype": base.dtype,
                    "T": Array(base.dtype, base.shape[::-1], "F" if base.order == "C" else "C")
                    }.get(attr)
        return None

    def _call(self, node: ast.Call, depth: int):
        v = lambda n: self.value(n, depth)  # noqa: E731
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if any(k.arg is None for k in node.keywords) or \
                any(isinstance(a, ast.Starred) for a in node.args):
            return None
        args = [v(a) for a in node.args]
        if isinstance(node.func, ast.Attribute):
            owner = v(node.func.value)
            if isinstance(owner, Array):
                return _array_method(owner, node.func.attr, args,
                                     {k: v(x) for k, x in kw.items()})
            if isinstance(owner, str) and node.func.attr == "format":
                return _format(owner, args, {k: v(x) for k, x in kw.items()})
            if isinstance(owner, Template) and node.func.attr in ("substitute",
                                                                  "safe_substitute"):
                return owner.substitute(args, {k: v(x) for k, x in kw.items()},
                                        node.func.attr == "safe_substitute")
        f = v(node.func)
        if f in (float, int):
            x = _number(args[0]) if len(args) == 1 else None
            return None if x is None else f(x)
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max", "abs", "len",
                                                                "str") \
                and node.func.id not in self.names:
            return _builtin(node.func.id, args)
        if not isinstance(f, Module):
            return None
        path = f.path
        if path == "string.Template" and len(args) == 1 and isinstance(args[0], str) and \
                not kw:
            return Template(args[0])
        if path in ("math.ceil", "math.floor"):
            x = _number(args[0]) if len(args) == 1 else None
            return None if x is None else (math.ceil if path.endswith("ceil") else
                                           math.floor)(x)
        root, _, name = path.partition(".")
        name = name.rsplit(".", 1)[-1] if root == "numba" else name
        if root == "triton" and name in ("cdiv", "next_power_of_2") and not kw:
            numbers = [_number(a) for a in args]
            if any(not isinstance(n, int) for n in numbers):
                return None
            if name == "cdiv" and len(numbers) == 2 and numbers[1] > 0:
                return -(-numbers[0] // numbers[1])
            if name == "next_power_of_2" and len(numbers) == 1 and 0 <= numbers[0] < 1 << 62:
                return 1 << max(0, numbers[0] - 1).bit_length()
            return None
        if root == "torch" and name in _TORCH_ALLOCATORS:
            return _torch_allocate(name, args, {k: v(x) for k, x in kw.items()})
        keywords = {k: v(x) for k, x in kw.items()}
        # np.float32(1.5), and cupy's own scalar types (cp.int32(n))
        if root in _NUMPY_LIKE and dtype_name(f) and len(args) == 1:
            x = _number(args[0])
            return None if x is None else Scalar(dtype_name(f), x)
        if root in _NUMPY_LIKE and name in _NUMPY_ALLOCATORS or \
                (root == "numba" and name in _DEVICE_ALLOCATORS):
            return _allocate(name, args, keywords)
        if root == "cupy" and name in ("asarray", "array", "ascontiguousarray") and args and \
                isinstance(args[0], Array):
            return args[0]
        if root == "pycuda" and name.rsplit(".", 1)[-1] in _PYCUDA_HOLDERS and \
                len(args) == 1 and isinstance(args[0], Array):
            return args[0]      # gpuarray.to_gpu(a), driver.In(a): the same array's shape
        if root == "pycuda" and name in ("gpuarray.zeros", "gpuarray.empty"):
            return _allocate(name.rsplit(".", 1)[-1], args, keywords)
        return None


_TORCH_ALLOCATORS = {"randn", "rand", "zeros", "ones", "empty", "full", "arange", "randint",
                     "empty_like", "zeros_like", "ones_like", "randn_like", "rand_like",
                     "full_like", "empty_strided"}


def _torch_allocate(name: str, args: list, kw: dict):
    """The tensor a torch allocation makes (float32 unless `dtype=` says), or None."""
    dtype = kw.get("dtype")
    t = dtype_name(dtype) if dtype is not None else None
    if dtype is not None and t is None:
        return None
    if name.endswith("_like"):
        src = args[0] if args else None
        return Array(t or src.dtype, src.shape) if isinstance(src, Array) else None
    if name == "arange":
        count = _arange(args)
        return None if count is None else \
            Array(t or ("int64" if count[1] else "float32"), (count[0],))
    if name == "randint":
        shape = _shape(kw.get("size", args[-1] if args else None))
        return Array(t or "int64", shape) if shape else None
    if name == "full":
        shape = _shape(args[0] if args else kw.get("size"))
        return Array(t or "float32", shape) if shape else None
    dims = args[0] if len(args) == 1 and isinstance(args[0], tuple) else tuple(args)
    shape = _shape(dims if dims else kw.get("size"))
    return Array(t or "float32", shape) if shape else None


_NUMPY_LIKE = (_NUMPY, "cupy")      # cupy's allocators take numpy's arguments
_PYCUDA_HOLDERS = {"to_gpu", "to_gpu_async", "In", "Out", "InOut"}
_NUMPY_ALLOCATORS = {"zeros", "ones", "empty", "full", "arange", "zeros_like", "ones_like",
                     "empty_like", "full_like", "random.rand", "random.random",
                     "random.randn", "random.random_sample", "random.randint",
                     "random.uniform", "ascontiguousarray", "array"}
_DEVICE_ALLOCATORS = {"to_device", "device_array", "device_array_like", "pinned_array",
                      "mapped_array", "managed_array"}


def _allocate(name: str, args: list, kw: dict):
    """The array a numpy or numba allocation makes, or None."""
    dtype = kw.get("dtype")
    order = kw.get("order", "C")
    if order not in ("C", "F"):
        return None
    if name in ("to_device", "ascontiguousarray", "zeros_like", "ones_like", "empty_like",
                "device_array_like", "full_like"):
        src = args[0] if args else None
        if not isinstance(src, Array):
            return None
        t = dtype_name(dtype) if dtype is not None else src.dtype
        return Array(t, src.shape, "C" if name == "ascontiguousarray" else src.order) \
            if t else None
    if name == "array":
        return None
    if name == "arange":
        count = _arange(args)
        if count is None:
            return None
        t = dtype_name(dtype) if dtype is not None else \
            ("int64" if count[1] else "float64")
        return Array(t, (count[0],)) if t else None
    if name in ("random.rand", "random.randn"):
        dims = [_number(a) for a in args]
        return Array("float64", tuple(dims)) if all(isinstance(d, int) for d in dims) \
            else None
    if name in ("random.random", "random.random_sample", "random.uniform", "random.randint"):
        at = 0 if name in ("random.random", "random.random_sample") else 2
        size = kw.get("size", args[at] if len(args) > at else None)
        shape = _shape(size)
        if shape is None:
            return None
        t = "int64" if name == "random.randint" else "float64"
        return Array(dtype_name(dtype) or t if dtype is not None else t, shape)
    shape = _shape(args[0] if args else kw.get("shape"))
    if shape is None:
        return None
    if dtype is None and name == "full" and len(args) > 1:
        dtype = "int64" if isinstance(args[1], int) else "float64"
    if dtype is None and len(args) > (2 if name == "full" else 1):
        dtype = args[2 if name == "full" else 1]
    t = dtype_name(dtype) if dtype is not None else "float64"
    return Array(t, shape, order) if t else None


def _arange(args: list) -> tuple | None:
    """(elements, whether every bound is an integer) of `arange(stop)`, `arange(start,
    stop[, step])`, or None."""
    numbers = [_number(a) for a in args]
    if not 1 <= len(numbers) <= 3 or any(n is None for n in numbers):
        return None
    start, stop, step = (0, numbers[0], 1) if len(numbers) == 1 else \
        (numbers[0], numbers[1], numbers[2] if len(numbers) == 3 else 1)
    if step == 0:
        return None
    return max(0, math.ceil((stop - start) / step)), all(isinstance(n, int) for n in numbers)


def _array_method(array: Array, method: str, args: list, kw: dict):
    if method == "reshape":
        shape = _shape(args[0] if len(args) == 1 else tuple(args))
        if shape is None:
            return None
        if -1 in shape:
            known = math.prod(d for d in shape if d != -1)
            if shape.count(-1) > 1 or known == 0 or array.size % known:
                return None
            shape = tuple(array.size // known if d == -1 else d for d in shape)
        return Array(array.dtype, shape) if math.prod(shape) == array.size else None
    if method == "astype" and args:
        t = dtype_name(args[0])
        return Array(t, array.shape, array.order) if t else None
    if method in ("copy", "copy_to_host", "flatten", "ravel"):
        return array if method in ("copy", "copy_to_host") else \
            Array(array.dtype, (array.size,))
    if method in ("contiguous", "cuda", "to", "clone", "detach") and not (
            method == "to" and any(dtype_name(a) for a in args)):
        return Array(array.dtype, array.shape) if method == "contiguous" else array
    if method == "stride" and len(args) == 1 and isinstance(args[0], int) and \
            -len(array.shape) <= args[0] < len(array.shape):
        return element_strides(array)[args[0]]
    if method in ("numel", "nelement") and not args:
        return array.size
    if method == "size" and len(args) == 1 and isinstance(args[0], int) and \
            -len(array.shape) <= args[0] < len(array.shape):
        return array.shape[args[0]]
    return None


def element_strides(array: Array) -> tuple:
    """An array's strides in elements (C order: the last dimension's is 1)."""
    out, step = [0] * len(array.shape), 1
    dims = range(len(array.shape) - 1, -1, -1) if array.order == "C" else \
        range(len(array.shape))
    for d in dims:
        out[d] = step
        step *= array.shape[d]
    return tuple(out)


def _shape(value) -> tuple | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (value,) if value >= 0 else None
    if isinstance(value, tuple) and value and all(isinstance(d, int) and
                                                   not isinstance(d, bool) for d in value):
        return value
    return None


def _builtin(name: str, args: list):
    if name == "str":
        x = _number(args[0]) if len(args) == 1 else None
        return None if x is None else Text(str(x), None)
    if name == "len" and len(args) == 1:
        a = args[0]
        return a.shape[0] if isinstance(a, Array) and a.shape else \
            len(a) if isinstance(a, tuple) else None
    numbers = [_number(a) for a in args]
    if not numbers or any(n is None for n in numbers):
        return None
    if name == "abs":
        return abs(numbers[0]) if len(numbers) == 1 else None
    return (min if name == "min" else max)(numbers) if name in ("min", "max") else None


def _number(value) -> int | float | None:
    if isinstance(value, Scalar):
        return value.value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return None


def _arith(op, a, b):
    if a is None or b is None:
        return None
    try:
        if isinstance(op, ast.Add):
            r = a + b
        elif isinstance(op, ast.Sub):
            r = a - b
        elif isinstance(op, ast.Mult):
            r = a * b
        elif isinstance(op, ast.Div):
            r = a / b
        elif isinstance(op, ast.FloorDiv):
            r = a // b
        elif isinstance(op, ast.Mod):
            r = a % b
        elif isinstance(op, ast.Pow) and isinstance(b, int) and 0 <= b <= 64:
            r = a ** b
        elif isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) and \
                not isinstance(b, bool) and isinstance(op, (ast.LShift, ast.RShift, ast.BitOr,
                                                            ast.BitAnd, ast.BitXor)):
            # (`N = 1 << 24`, as pycuda's and cupy's examples size their arrays)
            if isinstance(op, (ast.LShift, ast.RShift)) and not 0 <= b <= 64:
                return None
            r = a << b if isinstance(op, ast.LShift) else a >> b if isinstance(op, ast.RShift) \
                else a | b if isinstance(op, ast.BitOr) else a & b \
                if isinstance(op, ast.BitAnd) else a ^ b
        else:
            return None
    except (ZeroDivisionError, OverflowError):
        return None
    return r if abs(r) < 1 << 64 else None


def _stored(node) -> set:
    """The names a statement binds anywhere inside it."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
    return out


def _bodies(node) -> list:
    """The statement lists of a compound statement."""
    out = []
    for field in ("body", "orelse", "finalbody"):
        if isinstance(getattr(node, field, None), list):
            out.append(getattr(node, field))
    for h in getattr(node, "handlers", []) or []:
        out.append(h.body)
    for c in getattr(node, "cases", []) or []:
        out.append(c.body)
    return out


# ------------------------------------------------------------------ text

def _text_op(op, left: str, right):
    """`left + right`, `left % right` or `left * n` of a text, or None."""
    if isinstance(op, ast.Add) and isinstance(right, str):
        return _joined_texts(left, right)
    if isinstance(op, ast.Mult) and isinstance(right, int) and not isinstance(right, bool):
        if right < 0 or len(left) * right > MAX_TEXT:
            return None
        return Text(left * right, getattr(left, "line", None) if "\n" not in left or
                    right <= 1 else None)
    if isinstance(op, ast.Mod):
        return _percent(left, right)
    return None


def _joined_texts(left: str, right: str) -> Text | None:
    if len(left) + len(right) > MAX_TEXT:
        return None
    line = getattr(left, "line", None)
    # the right text lands on the left's last line: the result's lines are the file's where
    # the right text is the literal written there (`"a\n" +` then `"b"` on the next line),
    # or a value of one line with no line of its own (`str(N)`, formatted in)
    after = getattr(right, "line", None)
    if right and not (after is None and "\n" not in right) and (
            line is None or after != line + left.count("\n")):
        line = None
    return Text(left + right, line)


_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d*)(?:\.(\*|\d*))?[hlL]?"
                                    r"([diouxXeEfFgGcrsa%])")


def _percent(template: str, values) -> Text | None:
    """`template % values` where every value is a known number or text and no width or
    precision is over 4 digits; the line is the template's while the values add no line."""
    plain = (int, float, str)
    if isinstance(values, dict):
        if any(not isinstance(x, plain) or isinstance(x, bool) for x in values.values()):
            return None
    elif isinstance(values, tuple):
        if any(not isinstance(x, plain) or isinstance(x, bool) for x in values):
            return None
    elif isinstance(values, Scalar):
        values = values.value
    elif not isinstance(values, plain) or isinstance(values, bool):
        return None
    for m in _PERCENT.finditer(template):
        if m.group(3) in "ra" or any(p and (p == "*" or len(p) > 4) for p in m.group(1, 2)):
            return None
    try:
        out = template % values
    except (TypeError, ValueError, KeyError, OverflowError):
        return None
    return _formatted(template, out, values)


def _formatted(template: str, out: str, values) -> Text | None:
    if len(out) > MAX_TEXT:
        return None
    items = values.values() if isinstance(values, dict) else \
        values if isinstance(values, tuple) else (values,)
    grew = any(isinstance(x, str) and "\n" in x for x in items)
    return Text(out, None if grew else getattr(template, "line", None))


def _format(template: str, args: list, kw: dict) -> Text | None:
    """`template.format(...)` of plain fields (`{}`, `{0}`, `{name}`, with a format spec of
    at most 4 digits of width): no attribute or item of a value is read."""
    import string
    values = {**{str(i): a for i, a in enumerate(args)}, **kw}
    if any(not isinstance(x, (int, float, str)) or isinstance(x, bool)
           for x in values.values()):
        return None
    out, auto = [], 0
    try:
        for literal, field, spec, conversion in string.Formatter().parse(template):
            out.append(literal)
            if field is None:
                continue
            if field == "":
                field, auto = str(auto), auto + 1
            if not (field.isdigit() or field.isidentifier()) or field not in values or \
                    conversion not in (None, "s") or "{" in (spec or "") or \
                    _too_wide(spec or ""):
                return None
            out.append(format(values[field], spec or ""))
    except (ValueError, TypeError):
        return None
    return _formatted(template, "".join(out), tuple(values.values()))


def _joined(node: ast.JoinedStr, v) -> Text | None:
    """An f-string of known numbers and texts (plain conversions, specs of at most 4 digits
    of width)."""
    out, grew = [], False
    for part in node.values:
        if isinstance(part, ast.Constant):
            out.append(str(part.value))
            continue
        if not isinstance(part, ast.FormattedValue) or part.conversion not in (-1, ord("s")):
            return None
        value = v(part.value)
        if isinstance(value, Scalar):
            value = value.value
        spec = "" if part.format_spec is None else _joined(part.format_spec, v)
        if spec is None or not isinstance(value, (int, float, str)) or \
                isinstance(value, bool) or _too_wide(spec):
            return None
        try:
            out.append(format(value, spec))
        except (ValueError, TypeError):
            return None
        grew = grew or (isinstance(value, str) and "\n" in value)
    text = "".join(out)
    return Text(text, None if grew else node.lineno) if len(text) <= MAX_TEXT else None


def _too_wide(spec: str) -> bool:
    """Whether a format spec asks for a width or precision of more than 4 digits."""
    return any(len(w) > 4 for w in re.findall(r"\d+", spec))
