"""The networks' suite (the optional ``deep`` extra): it runs in the main venv, where
``make test`` installs JAX. A missing JAX is an error here, not a skip: the extra must be
installed for this suite to mean anything.
"""

from __future__ import annotations

import jax  # noqa: F401  (fails loudly when the extra is missing)
