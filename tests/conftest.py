"""Shared test set-up: hypothesis profiles and the backend under test.

The whole suite runs once per backend (``CTXSIEVE_BACKEND=native`` and ``=python``); tests that
compare the two import both directly. ``CTXSIEVE_HYPOTHESIS_PROFILE`` picks the example budget:
``ci`` (bounded, the default under CI=true), ``dev`` (the local default) or ``slow``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=150, deadline=None)
settings.register_profile("slow", max_examples=2000, deadline=None)
_default = "ci" if os.environ.get("CI") else "dev"
settings.load_profile(os.environ.get("CTXSIEVE_HYPOTHESIS_PROFILE", _default))
