"""Every Python block of python/README.md runs."""

import re

import pytest

from conftest import REPO

BLOCKS = re.findall(r"```python\n(.*?)```", (REPO / "python" / "README.md").read_text(), re.S)


def test_the_readme_has_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code):
    exec(compile(code, "README.md", "exec"), {})
