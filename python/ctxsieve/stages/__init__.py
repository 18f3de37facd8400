"""The build stages, one module and one entry point each: ``estimate``, ``calibrate``,
``score`` (``rescore``), ``dedupe``, ``select`` (with ``policies``), ``order`` and ``render``.

Each is a function over ``Candidates`` (the build's columns); the heavy part of each is one
kernel call.
"""
