"""The seeded source's checkpoints (simulator/clock.py): a refused request's rewind puts the stream
back exactly, whether or not anything was drawn after the checkpoint, and nested checkpoints
(the pipeline's around the handler's) rewind in either order."""

from __future__ import annotations

from simulator.clock import Source


def draws(source: Source, count: int = 3) -> list[str]:
    return [source.uuid4() for _ in range(count)]


def test_rewind_after_draws_replays_the_same_ids() -> None:
    source = Source(7)
    mark = source.checkpoint()
    first = draws(source)
    source.rewind(mark)
    assert draws(source) == first


def test_rewind_with_nothing_drawn_changes_nothing() -> None:
    plain, checked = Source(7), Source(7)
    checked.rewind(checked.checkpoint())
    assert draws(checked) == draws(plain)


def test_nested_checkpoints_rewind_inner_then_outer() -> None:
    source, reference = Source(7), Source(7)
    outer = source.checkpoint()
    draws(source, 2)
    inner = source.checkpoint()  # nothing drawn after it yet
    source.rewind(outer)  # the outer goes back first: the inner must still know where it was
    assert draws(source, 2) == draws(reference, 2)
    after_inner = draws(source, 2)
    source.rewind(inner)
    assert draws(source, 2) == after_inner


def test_a_restored_snapshot_leaves_pending_checkpoints_where_they_were() -> None:
    source = Source(7)
    saved = source.state()
    draws(source, 2)
    mark = source.checkpoint()
    expected = draws(Source(7), 4)[2:]
    source.restore(saved)  # the stream moves: the pending checkpoint keeps its position
    source.rewind(mark)
    assert draws(source, 2) == expected
