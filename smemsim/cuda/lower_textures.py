"""Texture fetches as the global reads they are (a mixin of KernelLowering).

A texture is global memory read through the texture unit: it touches no shared memory, so
what it contributes to an analysis is the values its fetches return. The importer reads a
texture object parameter (`cudaTextureObject_t tex`) or a file-scope texture reference
(`texture<float, 1, cudaReadModeElementType> t;`, removed in CUDA 12 but still in public
code) as a read-only global array of that name, its texels row by row, and its fetches as:

- `tex1Dfetch<T>(tex, i)` / `tex1Dfetch(ref, i)`: texel i, and 0 outside 0..width-1 (a
  linear-memory texture reads zeros out of range);
- `tex2D<T>(tex, x, y)` / `tex2D(ref, x, y)`: the texel at (floor(x), floor(y)), each
  clamped to the texture's extent: point sampling with unnormalized coordinates and clamp
  addressing. That is the host's `cudaTextureDesc` as zero-initialized (filter point,
  coordinates unnormalized, address mode 0, which unnormalized coordinates read as clamp);
  the host's own descriptor is not read. Linear filtering returns the same value at texel
  centers (x + 0.5, as cuda-samples' dct8x8 fetches), not between them.

A texture's extent is what the host allocated: `--texture NAME=WIDTH[,HEIGHT]` (C
expressions of the parameters); a 1-D texture without it takes `--length NAME` or the
default length, as any global array (and is said so); a 2-D one without it is a question
at the fetch.
"""
from __future__ import annotations

from kernels_ir import Expr, call, cast, const, f32, i32, smax, smin

from .parse import short, split_top_level, text
from .symbols import BY_NAME, SIZES, Sym
from .unit import lowering_expr

TEXTURE_FETCHES = ("tex1Dfetch", "tex2D")
TEXTURE_OBJECT = "cudaTextureObject_t"


class TexturesMixin:
    """Methods of KernelLowering (smemsim/cuda/lower.py)."""

    def texture_param(self, p) -> bool:
        """`cudaTextureObject_t tex`: a texture, its array made at its first fetch (the
        element type is the fetch's)."""
        type_node = p.child_by_field_name("type")
        if type_node is None or text(type_node).split("::")[-1] != TEXTURE_OBJECT:
            return False
        d = p.child_by_field_name("declarator")
        if d is None or d.type != "identifier":
            raise self.error(p, f"kernel parameter `{short(p)}`: a texture object by value "
                                "expected")
        self.declare(text(d), Sym("texture", {"name": text(d), "dtype": None}, "u64"))
        return True

    def texture_ref(self, name: str, node) -> Sym:
        """A file-scope `texture<T, dim, mode> name;`: a texture of element type T."""
        decl, type_node, mode = self.u.texture_refs[name]
        if mode is not None and text(mode) != "cudaReadModeElementType":
            raise self.error(decl, f"`{short(decl)}`: a texture read as {text(mode)} (its "
                                   "texels converted) is not read; cudaReadModeElementType is")
        sym = self.scopes[0].get(name)
        if sym is None:
            # (of a vector type too: `texture<Node>` of `typedef int2 Node;`, Parboil bfs)
            dtype, lanes = self.vtype(type_node, decl)
            holder = {"name": name, "dtype": dtype}
            if lanes > 1:
                holder["lanes"] = lanes
            sym = Sym("texture", holder, "u64")
            self.scopes[0][name] = sym
        return sym

    def texture_call(self, node, name: str, type_args, args) -> Expr | None:
        """A texture fetch (see the module docstring), or None when `name` is none."""
        if name not in TEXTURE_FETCHES:
            return None
        return self.texel(node, name, type_args, args, 1)[0]

    def texel(self, node, name: str, type_args, args, lanes: int) -> list:
        """The lanes of one texel fetched (`tex2D<float4>(tex, x, y)`: four, one 16-byte
        load of the texture's array; a scalar texel: one)."""
        rank = 1 if name == "tex1Dfetch" else 2
        if len(args) != 1 + rank or args[0].type != "identifier":
            raise self.error(node, f"`{short(node)}`: {name}(texture, "
                                   f"{'i' if rank == 1 else 'x, y'}) expected")
        tex = self.lookup(text(args[0]), args[0])
        if tex.kind != "texture":
            raise self.error(node, f"`{short(node)}`: '{text(args[0])}' is not a texture")
        holder = tex.value
        dtype, have = holder["dtype"], holder.get("lanes", lanes)
        if type_args is not None:
            named, count = self.vtype(type_args[0], node)
            if dtype is not None and (named, count) != (dtype, have):
                raise self.error(node, f"`{short(node)}`: a texture of {dtype} x {have} "
                                       f"fetched as {named} x {count}")
            dtype = named
            if count != lanes:
                raise self.error(node, f"`{short(node)}` fetches {count} lane(s), where "
                                       f"{lanes} are read")
        if dtype is None:
            raise self.error(node, f"`{short(node)}`: the texel type is not known (write "
                                   f"{name}<float>(...))")
        if holder.get("lanes", lanes) != lanes:
            raise self.error(node, f"`{short(node)}`: texture '{holder['name']}' holds "
                                   f"texels of {holder['lanes']} lane(s), read here as {lanes}")
        if lanes > 1 and lanes * SIZES[dtype] not in (8, 16):
            raise self.error(node, f"`{short(node)}`: a texel of {lanes} x {dtype} (one "
                                   "8- or 16-byte load is read)")
        holder.setdefault("lanes", lanes)
        arr, width, height = self.texture_array(holder, dtype, rank, node)
        coords = [self.expr(a) for a in args[1:]]
        with self.at(node):
            out = [self.kb.let(f"{holder['name']}_texel", const(0, BY_NAME[dtype]), dtype)
                   for _ in range(lanes)]
            if rank == 1:
                i = cast(coords[0], i32)
                with self.kb.if_((i >= 0) & (i < width)):
                    got = arr.load((i * lanes,), width=lanes, name=f"{holder['name']}_v")
                    for k, ref in enumerate(out):
                        ref.set(got[k] if lanes > 1 else got)
                return out
            x, y = (smin(smax(cast(call("floor", cast(c, f32)), i32), 0), extent - 1)
                    for c, extent in zip(coords, (width, height)))
            got = arr.load(((y * width + x) * lanes,), width=lanes, name=f"{holder['name']}_v")
            for k, ref in enumerate(out):
                ref.set(got[k] if lanes > 1 else got)
            return out

    def texture_array(self, holder: dict, dtype: str, rank: int, node):
        """(the texture's global array, width, height) made at its first fetch."""
        if "array" in holder:
            if holder["rank"] != rank:
                raise self.error(node, f"`{short(node)}`: texture '{holder['name']}' is "
                                       f"fetched as {holder['rank']}-D and {rank}-D")
            return holder["array"], holder["width"], holder["height"]
        name = holder["name"]
        given = self.u.options.textures.get(name)
        if given is not None:
            parts = split_top_level(given)
            if len(parts) != rank:
                raise self.error(node, f"--texture {name}={given}: a {rank}-D texture takes "
                                       f"{'WIDTH' if rank == 1 else 'WIDTH,HEIGHT'}")
            extents = [cast(lowering_expr(self.u, part, self, f"--texture {name}"), i32)
                       for part in parts]
        elif rank == 1:
            extents = [cast(self.u.length_of(name, self), i32)]
        else:
            raise self.error(node, f"`{short(node)}`: the extent of 2-D texture '{name}' is "
                                   "what the host allocated: give --texture "
                                   f"{name}=WIDTH,HEIGHT (texels)")
        width = extents[0]
        height = extents[1] if rank == 2 else const(1)
        with self.at(node):   # (a texel of several lanes: that many elements, in a row)
            arr = self.kb.global_array(name, dtype, width * height * holder.get("lanes", 1),
                                       intent="in")
        arr.texture = ("a texture read by tex1Dfetch: texel i, 0 outside the texture" if rank == 1
                       else "a texture read by tex2D with point sampling of unnormalized "
                       "coordinates, clamped to its extent (the zero-initialized "
                       "cudaTextureDesc: the host's own is not read)")
        holder.update(array=arr, width=width, height=height, rank=rank, dtype=dtype)
        return arr, width, height
