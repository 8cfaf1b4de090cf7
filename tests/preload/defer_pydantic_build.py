"""The suite's own processes only: pydantic models build their validators on first use, not at class creation.

turnkey-http's dependency turnkey_sdk_types defines ~1,300 pydantic models; building them all when it is imported
costs ~5 s in every process that imports it (each xdist worker at collection, each nested pytest run or README
script that uses the official client). Deferred, the import takes ~0.3 s and each model is built the first time it
is used, with the same validation. This is a test-process setting and never belongs in simulator/: there it would
change how a user's own pydantic models behave.

tests/conftest.py calls :func:`defer_model_builds`; processes the suite starts load this module as a pytest plugin
(``PYTEST_PLUGINS``) or import it before running a script, with this folder on ``PYTHONPATH``
(see ``conftest.preloaded_env``).
"""

from __future__ import annotations


def defer_model_builds() -> None:
    try:
        import pydantic
    except ImportError:  # an environment without pydantic has no models to defer
        return
    pydantic.BaseModel.model_config["defer_build"] = True


defer_model_builds()
