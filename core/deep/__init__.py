"""Networks on JAX: the seeds' deep systems (the optional ``deep`` extra).

PrivPlan's learning capabilities are small faithful versions in numpy (one-hidden-layer
victims, tabular kickstarting, tabular DP-DRL, tabular PE-VDN). This package runs the papers'
own kinds of system on JAX (CPU by default; a GPU jaxlib works unchanged):

* :mod:`core.deep.dpsgd` — DP-SGD with per-example gradients by ``jax.vmap``, clipping,
  Poisson subsampling and Gaussian noise, accounted by :mod:`core.privacy.dpsgd` (the
  numbers of ``accountant dpsgd``);
* :mod:`core.deep.nets` and :mod:`core.deep.victims` — MLP, CNN, GRU and LSTM victims of the
  model privacy lab (``mia --model``), behind the lab's victim interfaces: the shadow-model
  study's network factory and a :class:`~core.modelprivacy.victim.VictimKind` for LiRA, the
  loss attack, the population shadow attack and the canary audit (``mia --attack ...
  --model``); :mod:`core.deep.claims` — those attacks as a paired many-seed study;
* :mod:`core.deep.ppo` and :mod:`core.deep.lipschitz` — a PPO teacher and kickstarted PPO
  students on gymnasium's classic control, the teacher's policy released through the
  shared-policy (Dirichlet) mechanism with its network's Lipschitz constant bounded by
  spectral norms (``share ENV --agent ppo``);
* :mod:`core.deep.dqn` — a DQN under DP-DRL's obfuscated observations against the map-recovery
  attack (``drl --agent dqn``);
* :mod:`core.deep.vdn` — PE-VDN with per-agent networks, secure summation and DP-SGD under
  the replay-window accountant (``comarl --agent net``).

Nothing outside this package imports JAX, and only the command line and the GUI's network
runners import this package — lazily, inside the function that needs it (an import-linter
contract keeps it so). Importing ``core.deep`` itself needs no JAX: :func:`require` checks
for it and raises :class:`DeepUnavailable` (an :class:`~core.common.errors.InputError`, so
the command line exits 2 with one line) naming the extra to install.
"""

import lazy_loader as _lazy

# The public names are listed once, in each module's __all__; __init__.pyi is generated
# from them (tools/facades.py) and the modules load on first use.
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
