"""An entry's control flow: basic blocks, their branches, natural loops, and the merge point
of every branch (its immediate post-dominator within the region being structured).

The lowering turns this graph back into structured code (if/else and loops); a graph that is
not reducible, or a loop with more than one way out, is a refusal at its PTX line, never a
guess.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .parse import Inst, Label, PtxError

EXIT = "<exit>"     # the virtual block every `ret`/`exit` goes to


@dataclass
class Block:
    """Instructions up to a branch: `taken` is the target of the closing branch (None: no
    branch), `cond` its guard register ('!%p1' negated; None: unconditional), `fall` the
    block that follows when it is not taken (None: it always is, or the block returns)."""

    name: str
    insts: list[Inst] = field(default_factory=list)
    taken: str | None = None
    cond: str | None = None
    fall: str | None = None
    branch: Inst | None = None      # the closing bra / ret, for messages

    def successors(self) -> list[str]:
        return [s for s in (self.taken, self.fall) if s is not None]


@dataclass(frozen=True)
class Loop:
    """A natural loop: its header, its blocks, and the blocks it leaves to (in order)."""

    header: str
    body: frozenset
    exits: tuple[str, ...]


def blocks(body: list) -> dict[str, Block]:
    """The basic blocks of an entry's body, in order (the first is the entry); blocks no
    branch reaches (the empty one after a final `ret`) are dropped."""
    order = [Block("<entry>")]
    n = 0
    for item in body:
        if isinstance(item, Label):
            order.append(Block(item.name))
            continue
        cur = order[-1]
        if cur.branch is not None:     # an instruction after a branch, with no label
            n += 1
            cur = Block(f"<after {n}>")
            order.append(cur)
        if item.name == "bra":
            cur.branch, cur.taken, cur.cond = item, item.operands[0], item.guard
        elif item.name in ("ret", "exit"):
            cur.branch, cur.taken, cur.cond = item, EXIT, item.guard
        else:
            cur.insts.append(item)
    for i, b in enumerate(order):
        if b.branch is None or b.cond is not None:
            b.fall = order[i + 1].name if i + 1 < len(order) else EXIT
    out = {b.name: b for b in order}
    reach = set(reachable(graph_of(out), order[0].name))
    return {name: b for name, b in out.items() if name in reach}


def graph_of(bs: dict[str, Block]) -> dict[str, list[str]]:
    """The blocks as a graph: each block's successors (EXIT has none)."""
    g = {EXIT: []}
    for b in bs.values():
        for s in b.successors():
            if s != EXIT and s not in bs:
                raise PtxError(f"a branch to {s}, a label the entry does not have")
        g[b.name] = list(dict.fromkeys(b.successors()))
    return g


def reachable(g: dict[str, list[str]], start: str) -> list[str]:
    """The nodes reachable from `start`, in reverse postorder (every node before the nodes
    it reaches, but along back edges)."""
    seen, post = {start}, []
    stack = [(start, iter(g.get(start, ())))]
    while stack:
        node, it = stack[-1]
        nxt = next((s for s in it if s not in seen), None)
        if nxt is None:
            stack.pop()
            post.append(node)
        else:
            seen.add(nxt)
            stack.append((nxt, iter(g.get(nxt, ()))))
    return post[::-1]


def immediate_dominators(g: dict[str, list[str]], start: str) -> dict[str, str]:
    """Each reachable node's immediate dominator (`start`'s is itself): Cooper, Harvey and
    Kennedy's iteration over reverse postorder."""
    order = reachable(g, start)
    index = {n: i for i, n in enumerate(order)}
    preds: dict[str, list[str]] = {n: [] for n in order}
    for n in order:
        for s in g.get(n, ()):
            if s in preds:
                preds[s].append(n)
    idom = {start: start}

    def meet(a: str, b: str) -> str:
        while a != b:
            while index[a] > index[b]:
                a = idom[a]
            while index[b] > index[a]:
                b = idom[b]
        return a
    changed = True
    while changed:
        changed = False
        for n in order[1:]:
            done = [p for p in preds[n] if p in idom]
            new = done[0]
            for p in done[1:]:
                new = meet(p, new)
            if idom.get(n) != new:
                idom[n] = new
                changed = True
    return idom


def dominates(idom: dict[str, str], a: str, b: str) -> bool:
    """Whether block `a` dominates block `b` (`idom`: immediate_dominators')."""
    while True:
        if a == b:
            return True
        if idom.get(b, b) == b:
            return False
        b = idom[b]


def loops(bs: dict[str, Block], entry: str) -> dict[str, Loop]:
    """The natural loops by header (a cycle that is not entered at a block dominating it
    makes the graph irreducible: refused)."""
    g = graph_of(bs)
    idom = immediate_dominators(g, entry)
    preds: dict[str, list[str]] = {}
    for n, succ in g.items():
        for s in succ:
            preds.setdefault(s, []).append(n)

    found: dict[str, set] = {}
    back = set()
    for u in idom:
        for h in g[u]:
            if h != EXIT and dominates(idom, h, u):
                back.add((u, h))
                body = found.setdefault(h, {h})
                stack = [u]
                while stack:
                    x = stack.pop()
                    if x not in body:
                        body.add(x)
                        stack.extend(preds.get(x, ()))
    forward = {n: [s for s in g[n] if (n, s) not in back] for n in idom}
    cycle = _a_cycle(forward)
    if cycle is not None:
        b = bs.get(cycle)
        raise PtxError(f"the branch at PTX line {b.branch.line if b and b.branch else '?'} "
                       "makes a loop entered other than at its head (an irreducible graph): "
                       "not lowered")
    out = {}
    order = {name: n for n, name in enumerate(bs)}
    order[EXIT] = len(order)
    for h, body in found.items():
        exits = sorted({s for x in body for s in g[x] if s not in body}, key=order.get)
        out[h] = Loop(h, frozenset(body), tuple(exits))
    return out


def _a_cycle(g: dict[str, list[str]]) -> str | None:
    """A node on a cycle of `g`, or None when it has none."""
    state: dict[str, int] = {}     # 1: on the path, 2: done
    for root in g:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(g.get(root, ())))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return node
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(g.get(nxt, ()))))
    return None


def merge_points(bs: dict[str, Block], nodes, sink_of) -> dict[str, str]:
    """The immediate post-dominator of each node of a region: `nodes` its blocks,
    `sink_of(successor)` None for a successor inside the region, else the virtual sink the
    edge goes to (continue, break, return)."""
    sink = "<sink>"
    reverse: dict[str, list[str]] = {sink: []}
    for n in nodes:
        for s in bs[n].successors():
            end = sink_of(s)
            target = s if end is None else end
            reverse.setdefault(target, []).append(n)
            if end is not None and end not in reverse[sink]:
                reverse[sink].append(end)
    return immediate_dominators(reverse, sink)
