"""Sybil runs every ```python block of the README and of docs/ as a test (see
docs/architecture.md, "Documentation that cannot rot"). pyproject.toml's testpaths lists
README.md and docs/ beside tests/ so that the suite's one command collects them."""

from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser

pytest_collect_file = Sybil(
    parsers=[PythonCodeBlockParser()],
    patterns=["README.md", "docs/*.md", "docs/*/*.md"],
).pytest()
