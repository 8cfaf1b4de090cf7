"""serve --data-dir goes on with the seed the directory was made with: a different --seed is ignored, and serve
says so on stderr (issue 52); the same seed, or none, says nothing."""

from __future__ import annotations

from test_data_dir import Serving


def test_another_seed_on_a_kept_directory_is_ignored_with_a_warning(tmp_path):
    data = str(tmp_path / "data")
    made = Serving("--data-dir", data, "--seed", "1")
    assert made.ready["seed"] == 1
    assert "is ignored" not in made.stop()  # an empty directory takes the seed asked for, silently

    other = Serving("--data-dir", data, "--seed", "2")
    assert other.ready["seed"] == 1  # the directory's seed wins
    err = other.stop()
    assert "was made with seed 1 and goes on with it: the seed asked for (2) is ignored" in err, err
    assert "WARNING" in err

    for same in (("--seed", "1"), ()):
        again = Serving("--data-dir", data, *same)
        assert again.ready["seed"] == 1
        assert "is ignored" not in again.stop()
