"""The generated parts of the docs are current: the index of Notes in ARCHITECTURE.md and the deliberate
differences in docs/differences.md, both written by .ci/gen_docs (skipped without the source tree)."""
import importlib.machinery
import importlib.util
import pathlib

import pytest


def _repository():
    """The checkout holding this test file, or None (an installed wheel tested from a bare copy)."""
    for parent in pathlib.Path(__file__).resolve().parents:
        if (parent / ".ci" / "gen_docs").is_file():
            return parent
    return None


ROOT = _repository()
pytestmark = pytest.mark.skipif(ROOT is None or not (ROOT / "cpp").is_dir() or not (ROOT / "python").is_dir(),
                                reason="no source tree (cpp/, python/ and .ci/gen_docs)")


def _gen_docs():
    path = str(ROOT / ".ci" / "gen_docs")
    loader = importlib.machinery.SourceFileLoader("gen_docs", path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("gen_docs", loader))
    loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated():
    """path relative to the repository -> (text now, text regenerated)."""
    gen = _gen_docs()
    return {str(pathlib.Path(p).relative_to(ROOT)): (old, new) for p, old, new in gen.targets(str(ROOT))}


@pytest.mark.parametrize("doc", ["ARCHITECTURE.md", "docs/differences.md"])
def test_generated_section_is_current(generated, doc):
    old, new = generated[doc]
    assert old == new, f"{doc} is stale: run python .ci/gen_docs"


def test_notes_index_lists_every_defined_note():
    gen = _gen_docs()
    index = gen.notes_index(str(ROOT))
    assert index, "no Note [Title] definitions found under cpp/ and python/"
    for title, path in index.items():
        assert (ROOT / path).is_file(), f"Note [{title}]: {path} does not exist"
