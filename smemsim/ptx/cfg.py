"""An entry's control flow: basic blocks, their branches, natural loops, and the merge point
of every branch (its immediate post-dominator within the region being structured).

The lowering turns this graph back into structured code (if/else and loops); a graph that is
not reducible, or a loop with more than one way out, is a refusal at its PTX line, never a
guess.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

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
    g = graph_of(out)
    reach = nx.descendants(g, order[0].name) | {order[0].name}
    return {name: b for name, b in out.items() if name in reach}


def graph_of(bs: dict[str, Block]) -> nx.DiGraph:
    """The blocks as a directed graph, with EXIT."""
    g = nx.DiGraph()
    g.add_node(EXIT)
    for b in bs.values():
        g.add_node(b.name)
        for s in b.successors():
            if s != EXIT and s not in bs:
                raise PtxError(f"a branch to {s}, a label the entry does not have")
            g.add_edge(b.name, s)
    return g


def loops(bs: dict[str, Block], entry: str) -> dict[str, Loop]:
    """The natural loops by header (a retreating edge to a block that does not dominate its
    source makes the graph irreducible: refused)."""
    g = graph_of(bs)
    idom = nx.immediate_dominators(g, entry)

    def dominates(a, b):
        while True:
            if a == b:
                return True
            if idom.get(b, b) == b:
                return False
            b = idom[b]
    found: dict[str, set] = {}
    back = set()
    for u, h in g.edges:
        if h != EXIT and u in idom and dominates(h, u):
            back.add((u, h))
            body = found.setdefault(h, {h})
            stack = [u]
            while stack:
                x = stack.pop()
                if x not in body:
                    body.add(x)
                    stack.extend(g.predecessors(x))
    forward = g.subgraph([n for n in g if n in idom]).copy()
    forward.remove_edges_from(back)
    if not nx.is_directed_acyclic_graph(forward):
        cycle = nx.find_cycle(forward)
        b = bs.get(cycle[0][0])
        raise PtxError(f"the branch at PTX line {b.branch.line if b and b.branch else '?'} "
                       "makes a loop entered other than at its head (an irreducible graph): "
                       "not lowered")
    out = {}
    order = {name: n for n, name in enumerate(bs)}
    order[EXIT] = len(order)
    for h, body in found.items():
        exits = sorted({s for x in body for s in g.successors(x) if s not in body},
                       key=order.get)
        out[h] = Loop(h, frozenset(body), tuple(exits))
    return out


def merge_points(bs: dict[str, Block], nodes, sink_of) -> dict[str, str]:
    """The immediate post-dominator of each node of a region: `nodes` its blocks,
    `sink_of(successor)` None for a successor inside the region, else the virtual sink the
    edge goes to (continue, break, return)."""
    g = nx.DiGraph()
    sink = "<sink>"
    g.add_node(sink)
    for n in nodes:
        g.add_node(n)
        for s in bs[n].successors():
            end = sink_of(s)
            g.add_edge(n, s if end is None else end)
            if end is not None:
                g.add_edge(end, sink)
    return nx.immediate_dominators(g.reverse(copy=False), sink)
