"""Prompt assembly: the seven-step source plan, budgets, blocks, preamble and static cache.

Modules, leaf first: ``files`` (the filesystem seam), ``sources`` (the plan), ``budget``,
``session_date``, ``agents_md``, ``project_context``, ``preamble``, ``blocks``,
``static_cache`` and ``assembler``. This package ``__init__`` imports nothing, so a leaf such as
``files`` can be reused (skills discovery does) without pulling in the whole assembler.
"""
