"""Building blocks of the ops composed in Python: Note [Composed-op layers].

Note [Composed-op layers]: the ops written in Python stand in three layers inside ``_ops``.
  * the bottom: ``_raw`` (every registry op as an internal handle, generated), ``_wrap`` (the builders
    of public handles and ``convert_arg``) and ``_dispatch`` (``@dispatch``);
  * bindings and building blocks: modules whose public names are all registry ops bound to TF's
    argument lists (``math/elementwise.py``, ``math/reduction.py``, ...), and modules with no public
    op at all: this package, of functions on tensors that several families share (they take tensors
    already converted and run no dispatch), and a family's own helpers (``image/_common.py``,
    ``random/host.py``, ...);
  * composed ops: modules declaring public ops with ``@dispatch``. They import the two layers below,
    never one another (a piece two of them share goes to ``_lib`` or the family's helper
    module); tests/test_layering.py checks it.
"""
