"""mkdocs hooks (mkdocs.yml ``hooks:``): the docs' code blocks carry a second word in their info
string that says how tests/docs/test_readme.py runs them (```yaml scenario, ```js file test/x.ts,
```python pytest). GitHub reads only the first word; Python-Markdown's fences take none, so the
site sees the language alone, and a ``js file`` block shows its file name as the block's title.
"""

from __future__ import annotations

import re
from typing import Any

FENCE = re.compile(r"^```(\w+)[ \t]+([^\n`]*)$", re.M)


def info_string(match: re.Match[str]) -> str:
    language, rest = match.group(1), match.group(2).strip()
    if rest.startswith("file "):
        return f'```{language} title="{rest.removeprefix("file ").strip()}"'
    return f"```{language}"


def on_page_markdown(markdown: str, **_: Any) -> str:
    return FENCE.sub(info_string, markdown)
