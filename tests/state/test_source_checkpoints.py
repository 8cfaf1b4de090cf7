"""The seeded source's cheap checkpoints: a rewind puts the stream exactly where it was, however many
draws (and rebases) came between, and nested checkpoints rewind in either order of use."""

from __future__ import annotations

from simulator.clock import MAX_DRAWS_SINCE_BASE, Source


def draw(source: Source, count: int) -> list[object]:
    return [source.uuid4() if i % 3 else source.randbelow(1000 + i) for i in range(count)]


def test_a_rewind_replays_the_same_stream_across_rebases() -> None:
    for before in (0, 5, MAX_DRAWS_SINCE_BASE - 1, MAX_DRAWS_SINCE_BASE):
        for between in (0, 1, 7, MAX_DRAWS_SINCE_BASE + 3, 3 * MAX_DRAWS_SINCE_BASE):
            source, twin = Source(7), Source(7)
            draw(source, before), draw(twin, before)
            checkpoint = source.checkpoint()
            draw(source, between)
            source.rewind(checkpoint)
            assert draw(source, 40) == draw(twin, 40)
            assert source.state() == twin.state()


def test_nested_checkpoints_rewind_inner_then_outer() -> None:
    source, twin = Source(3), Source(3)
    outer = source.checkpoint()
    draw(source, 20)
    inner = source.checkpoint()
    draw(source, MAX_DRAWS_SINCE_BASE + 10)
    source.rewind(inner)
    draw(twin, 20)
    assert source.state() == twin.state()
    draw(source, 5)
    source.rewind(outer)
    assert draw(source, 30) == draw(Source(3), 30)


def test_a_restored_snapshot_state_starts_a_new_base() -> None:
    source = Source(11)
    saved = source.state()
    draw(source, 9)
    source.restore(saved)
    checkpoint = source.checkpoint()
    first = draw(source, 12)
    source.rewind(checkpoint)
    assert draw(source, 12) == first


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


def test_nested_checkpoints_rewind_outer_then_inner() -> None:
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


def test_ids_are_the_uuid_module_s_text_of_the_same_draws() -> None:
    """uuid4 and uuid7 write the 8-4-4-4-12 text themselves: the same text ``uuid.UUID`` makes of the same bytes."""
    import uuid

    ours, theirs = Source(7), Source(7)
    for n in range(2000):
        assert ours.uuid4() == str(uuid.UUID(bytes=theirs.bytes(16), version=4))
        now_ms = 1_700_000_000_000 + n * 977
        tail = bytearray(theirs.bytes(10))
        tail[0], tail[2] = 0x70 | (tail[0] & 0x0F), 0x80 | (tail[2] & 0x3F)
        made = ours.uuid7(now_ms)
        assert made == str(uuid.UUID(bytes=now_ms.to_bytes(6, "big") + bytes(tail)))
        assert uuid.UUID(made).version == 7 and uuid.UUID(made).variant == uuid.RFC_4122
