"""The networks' suite (the optional ``deep`` extra): it runs in the main venv, where
``make test`` installs JAX. A missing JAX is an error here, not a skip: the extra must be
installed for this suite to mean anything.
"""

from __future__ import annotations

import os
import tempfile

# JAX's persistent compilation cache (the deep extra's networks): a network compiled once is
# read back, not compiled again, by the other xdist worker, by the next suite of the same
# `make test` (GUI, then deep) and by the next run; compiling, not training, is most of a
# small network test's time (a DQN run on a 7x7 grid: 11 s of CPU cold, 2 s from the cache).
# Entries are keyed by the computation, JAX's version and the XLA flags, so a changed network
# is compiled afresh. Set JAX_COMPILATION_CACHE_DIR to use another folder. (The same lines
# are in tests/gui/conftest.py.)
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", os.path.join(
    tempfile.gettempdir(), f"privplan-jax-cache-{getattr(os, 'getuid', lambda: 'user')()}"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "-1")

import jax  # noqa: E402,F401  (fails loudly when the extra is missing)
