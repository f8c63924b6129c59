"""The one place that imports JAX, equinox and optax (callers check :func:`core.deep.require`
first, so a missing extra is a clear message rather than a traceback).

JAX runs on the CPU unless the user installed a GPU jaxlib (then on the GPU, unchanged);
XLA's CPU kernels use one thread unless ``XLA_FLAGS`` says otherwise (the networks are small:
threads cost more than they gain on two cores). Arrays are float32. Host-side
randomness (Poisson sampling, the DP noise) stays in numpy: experiment mode draws it from a
seeded ``numpy.random.Generator``, release mode from the OS CSPRNG
(:class:`core.common.secure.SecureRandom`) — JAX's counter-based PRNG is not a secure source.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

import equinox as eqx  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402
from jax.flatten_util import ravel_pytree  # noqa: E402

__all__ = ["jax", "jnp", "eqx", "optax", "ravel_pytree"]
