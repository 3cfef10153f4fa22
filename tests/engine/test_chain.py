"""A chain grows by sharing its prefix and stays immutable to every holder."""

from __future__ import annotations

import pickle

from steiner_tui.engine.chain import Chain, shared_prefix


def test_a_longer_chain_leaves_the_one_it_grew_from_as_it_was() -> None:
    short = Chain("abc")
    longer = short.plus("de")
    branch = short.plus("X")  # grown from an older view: its own list
    assert list(short) == ["a", "b", "c"]
    assert longer == ("a", "b", "c", "d", "e")
    assert branch == ["a", "b", "c", "X"]
    assert longer.extends(short) and not branch.extends(short)
    assert not short.extends(longer)


def test_a_chain_reads_as_a_tuple() -> None:
    chain = Chain(range(10)).plus([10])
    assert chain == tuple(range(11)) and tuple(range(11)) == chain
    assert chain[-1] == 10 and chain[2:4] == (2, 3) and chain[::-5] == (10, 5, 0)
    assert list(reversed(chain))[:2] == [10, 9]
    assert hash(chain) == hash(tuple(range(11)))
    assert pickle.loads(pickle.dumps(chain)) == chain
    assert Chain.of(chain) is chain


def test_shared_prefix() -> None:
    old = Chain("abc")
    assert shared_prefix(old, old.plus("d")) == 3
    assert shared_prefix((), ("a",)) == 0
    assert shared_prefix(("a", "b", "c"), ("a", "x", "c")) == 1
    assert shared_prefix(("a", "b", "c"), ("a", "b")) == 2
    assert shared_prefix(tuple("abcdefgh"), Chain("abcdefgX")) == 7
