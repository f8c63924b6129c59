"""Audit target: the logistics map release (thesis Ch. 4, Alg 7) of one agent.

What is audited. An intermediate agent releases an obfuscated map of its local area
(:meth:`core.logistics.planner.PlanningSession.publish`). Its only data-dependent noisy
step is Alg 7's Laplace-noised 1K degree histogram, rounded and clipped
(:func:`core.logistics.obfuscation.histogram_release`). Under the ``sound`` preset
(``pure_postprocessing`` rewiring) everything else in the release — the topology, the opaque
ids and their order, the route probabilities trained on the fake map — is a function of
that target histogram, the public centers and randomness independent of the map, so the
target histogram is a sufficient statistic of the release: an observer of the release can
learn no more than an observer of this code, and auditing it audits the release.

``sample_outputs`` therefore draws the release's target histogram through the *same
functions the planner calls* (:func:`core.logistics.planner.histogram_setup` for d_max and
the sensitivity, :func:`~core.logistics.obfuscation.check_degree_bound` — maps above the
declared d_max are refused — :func:`~core.logistics.obfuscation.degree_histogram` and
:func:`~core.logistics.obfuscation.histogram_release`, i.e. ``laplace_release``: OpenDP when
``rng`` is None), vectorised over n draws, and encodes each draw as one int:
``code = d_max + 16 · Σ_k min(t_k, 63) · 64^(k−1)`` (bins k = 1..d_max; d_max is part of
the code because under the thesis preset it is the map's own maximum degree, spec F3;
capping at 63 is post-processing of the code and only matters for the thesis preset, which
has no bin clip).

Claim (:func:`claimed`): what PrivPlan prints for the preset
(:func:`core.logistics.planner.preset_guarantee` with the default degree cap 4): ε per agent
for ``sound`` (ε_L on the histogram + ε_E charged on the route probabilities), none for
``thesis`` (F3 local d_max, F4 overlap rewiring, F5 deterministic softmax). Adjacency: node
adjacency — a local map with and without one base and its routes, every degree ≤ d_max.

Candidate pairs: the worst case for the histogram under that adjacency — a hub of degree
d_max = 4 on a 4-cycle, removed (the hub's bin and each of its four neighbours' bins move:
L1 = 9 = 2·d_max + 1) — Fig 4.4(a)'s map with and without (b,1) (L1 = 5, spec T9/T14),
and a leaf base (L1 = 3).

Exact distributions (:func:`exact_distribution`): under ``sound`` the bins are independent
rounded, clipped Laplace variables, so the law of the code is a product of per-bin
probabilities F(j + ½) − F(j − ½) (clipped ends aggregated), enumerated over the
(bin_clip + 1)^d_max codes; ``None`` for the thesis preset (no clip: infinite support).

Examples
--------
>>> claimed(1.0, "sound")[:2], claimed(1.0, "thesis")[0]
((1.0, 0.0), inf)
>>> desc, a, b = candidate_pairs(1.0, "sound")[0]
>>> desc["l1_change"], sample_outputs(a, 5, np.random.default_rng(0), 1.0, "sound").shape
(9, (5,))
>>> round(sum(exact_distribution(a, 1.0, "sound").values()), 12)
1.0
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import networkx as nx
import numpy as np

from core.logistics.model import DEFAULT_DEGREE_CAP
from core.logistics.obfuscation import check_degree_bound, degree_histogram, histogram_release
from core.logistics.planner import PlannerParams, histogram_setup, preset_guarantee
from core.privacy.laplace import check_epsilon

__all__ = ["claimed", "candidate_pairs", "sample_outputs", "exact_distribution",
           "encode", "LABEL", "DEFAULT_SAMPLES", "RELEASE_PATH", "parameters",
           "variant_from", "tight_epsilon", "exact_roc"]

LABEL = "Logistics map release (Alg 7 noisy degree histogram; the rest is post-processing)"
DEFAULT_SAMPLES = 100_000
RELEASE_PATH = True

#: per-bin cap of the code (post-processing; the sound preset clips bins at 10 anyway)
_CODE_BIN_CAP = 63
_MAX_EXACT_CODES = 300_000


def _params(epsilon: float, preset: str) -> PlannerParams:
    return PlannerParams.preset_params(str(preset), epsilon=check_epsilon(epsilon))


def variant_from(params: Mapping[str, Any]) -> tuple[float, str]:
    """ε and the preset name (``"sound"`` or ``"thesis"``) from the audit's parameters."""
    epsilon, preset = check_epsilon(params["epsilon"]), str(params["preset"])
    _params(epsilon, preset)  # checks the preset
    return epsilon, preset

def parameters(epsilon: float, preset: str) -> dict[str, Any]:
    """Public parameters of the audited release (reported next to the audit).

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    preset : str
        The public parameters: the preset, ``"sound"`` or ``"thesis"``.

    Returns
    -------
    dict
    """
    p = _params(epsilon, preset)
    return {"preset": p.preset, "epsilon": p.epsilon, "epsilon_laplace": p.epsilon_laplace,
            "d_max": (DEFAULT_DEGREE_CAP if p.dmax_mode == "public_cap"
                      else "local (the map's own maximum degree)"),
            "laplace_sensitivity": p.laplace_sensitivity, "rewire": p.rewire,
            "bin_clip": p.bin_clip}


def claimed(epsilon: float, preset: str) -> tuple[float, float, str]:
    """(epsilon_claimed — math.inf if unbounded, delta_claimed, adjacency text) of the release
    audited: exactly what PrivPlan states for the preset (per agent).

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    preset : str
        The public parameters: the preset, ``"sound"`` or ``"thesis"``.

    Returns
    -------
    tuple
        (ε claimed, ``math.inf`` if PrivPlan proves none; δ claimed; the adjacency) — from the
        mechanism's own accountant, never from the audit; a 4th element gives the reason when
        ε is unbounded.
    """
    g = preset_guarantee(_params(epsilon, preset), "dp", DEFAULT_DEGREE_CAP)
    text = g.adjacency if g.bounded else f"{g.adjacency} (no finite bound: {g.reason})"
    return g.epsilon, g.delta, text


def _local(nodes: list[tuple[str, str]], edges: list[tuple[str, str, float]]) -> nx.Graph:
    g = nx.Graph()
    for v, kind in nodes:
        g.add_node(v, kind=kind)
    for u, v, ell in edges:
        g.add_edge(u, v, length=float(ell))
    return g


def _describe(name: str, a: nx.Graph, b: nx.Graph, removed: str, note: str) -> dict[str, Any]:
    ha, hb = degree_histogram(a, DEFAULT_DEGREE_CAP), degree_histogram(b, DEFAULT_DEGREE_CAP)
    return {"name": name, "removed_base": removed, "note": note,
            "histogram_a": ha.tolist(), "histogram_b": hb.tolist(),
            "l1_change": int(np.abs(ha - hb).sum()),
            "nodes_a": sorted(a.nodes), "edges_a": sorted(sorted(e) for e in a.edges),
            "nodes_b": sorted(b.nodes), "edges_b": sorted(sorted(e) for e in b.edges)}


def candidate_pairs(epsilon: float, preset: str) -> list[tuple[dict[str, Any], object, object]]:
    """Neighbouring local maps (json-able description, map_a, map_b): one base and its
    routes removed, every degree ≤ 4, the same public centers.

    Parameters
    ----------
    epsilon : float
        The claimed ε parameter of the mechanism.
    preset : str
        The public parameters: the preset, ``"sound"`` or ``"thesis"``.

    Returns
    -------
    list of (dict, Any, Any)
        (JSON-able description, input a, input b).
    """
    _params(epsilon, preset)  # validates
    pairs: list[tuple[dict[str, Any], object, object]] = []
    # 1. worst case: a hub of degree 4 joined to all four nodes of a 4-cycle A-n1-B-n2
    ring = [("A", "n1", 40.0), ("n1", "B", 35.0), ("B", "n2", 45.0), ("n2", "A", 50.0)]
    nodes = [("A", "center"), ("B", "center"), ("n1", "base"), ("n2", "base")]
    hub_a = _local(nodes + [("h", "base")],
                   ring + [("h", x, 30.0) for x in ("A", "n1", "B", "n2")])
    hub_b = _local(nodes, ring)
    pairs.append((_describe("hub of degree 4 on a 4-cycle, removed", hub_a, hub_b, "h",
                            "worst case: L1 = 2*d_max + 1 = 9"), hub_a, hub_b))
    # 2. Fig 4.4(a): agent b's map with and without (b,1) (spec T9 / T14)
    from core.logistics.examples import fig41

    fb = nx.Graph(fig41().local("b"))
    fb_minus = nx.Graph(fb)
    fb_minus.remove_node("b1")  # b's map stays connected (chain b2-b3-b4-b5)
    pairs.append((_describe("Fig 4.4(a): agent b's map with and without (b,1)", fb,
                            fb_minus, "b1", "spec T9: L1 = 5"), fb, fb_minus))
    # 3. a leaf base
    path = [("A", "p1", 40.0), ("p1", "p2", 30.0), ("p2", "B", 45.0)]
    pnodes = [("A", "center"), ("B", "center"), ("p1", "base"), ("p2", "base")]
    leaf_a = _local(pnodes + [("q", "base")], path + [("p1", "q", 25.0)])
    leaf_b = _local(pnodes, path)
    pairs.append((_describe("a leaf base, removed", leaf_a, leaf_b, "q",
                            "L1 = 3 (its own bin and its neighbour's move)"), leaf_a, leaf_b))
    return pairs


def encode(dmax: int, target: np.ndarray) -> np.ndarray:
    """Int codes of target histograms (rows of ``target``); see the module docstring.

    Parameters
    ----------
    dmax : int
        Bins of the histogram.
    target : numpy.ndarray
        Histograms (rows).

    Returns
    -------
    numpy.ndarray
        One int code per row.
    """
    t = np.minimum(np.asarray(target, dtype=np.int64), _CODE_BIN_CAP)
    weights = (64 ** np.arange(t.shape[-1], dtype=np.int64)).astype(np.int64)
    result: np.ndarray = int(dmax) + 16 * (t * weights).sum(axis=-1)
    return result


def sample_outputs(inp: object, n: int, rng: "np.random.Generator | None", epsilon: float,
                   preset: str) -> np.ndarray:
    """n independent draws of the release's target histogram, as int codes of shape (n,).

    ``rng=None`` samples through the release path (OpenDP Laplace).

    Parameters
    ----------
    inp : Any
        One input of a pair.
    n : int
        Draws.
    rng : numpy.random.Generator or None
        Seeded draws; None samples through the release path where the module has one.
    epsilon : float
        The claimed ε parameter of the mechanism.
    preset : str
        The public parameters: the preset, ``"sound"`` or ``"thesis"``.

    Returns
    -------
    numpy.ndarray
        What the observer sees: int codes of shape (n,) or float features of shape (n, d).
    """
    p = _params(epsilon, preset)
    local = inp if isinstance(inp, nx.Graph) else nx.Graph(inp)
    dmax, _public, sens = histogram_setup(p, local, DEFAULT_DEGREE_CAP)
    check_degree_bound(local, dmax)
    h = degree_histogram(local, dmax)
    _noisy, target = histogram_release(np.tile(h, (int(n), 1)), epsilon=p.epsilon_laplace,
                                       sensitivity=sens, rng=rng, bin_clip=p.bin_clip)
    return encode(dmax, target)


def _laplace_cdf(x: np.ndarray, mu: float, b: float) -> np.ndarray:
    z = (np.asarray(x, dtype=np.float64) - mu) / b
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(
        z, 0.0)))


def exact_distribution(inp: object, epsilon: float, preset: str) -> dict[int, float] | None:
    """Exact law of :func:`sample_outputs`' code (None without a bin clip: thesis preset).

    Parameters
    ----------
    inp : Any
        One input of a pair.
    epsilon : float
        The claimed ε parameter of the mechanism.
    preset : str
        The public parameters: the preset, ``"sound"`` or ``"thesis"``.

    Returns
    -------
    dict or None
        ``{code: probability}``; None for continuous outputs or an intractable law.
    """
    p = _params(epsilon, preset)
    if p.bin_clip is None:
        return None
    local = inp if isinstance(inp, nx.Graph) else nx.Graph(inp)
    dmax, _public, sens = histogram_setup(p, local, DEFAULT_DEGREE_CAP)
    check_degree_bound(local, dmax)
    clip = int(p.bin_clip)
    if (clip + 1) ** dmax > _MAX_EXACT_CODES:
        return None
    h = degree_histogram(local, dmax)
    b = sens / p.epsilon_laplace
    j = np.arange(clip + 1, dtype=np.float64)
    per_bin = []
    for hk in h:
        upper = _laplace_cdf(j + 0.5, float(hk), b)
        lower = _laplace_cdf(j - 0.5, float(hk), b)
        pk = upper - lower
        pk[0] = upper[0]                      # rint(x) <= 0: clipped to 0
        pk[clip] = 1.0 - lower[clip]          # rint(x) >= clip: clipped to clip
        per_bin.append(pk)
    out: dict[int, float] = {}
    weights = [64 ** k for k in range(dmax)]
    for combo in itertools.product(range(clip + 1), repeat=dmax):
        pr = 1.0
        for k, t in enumerate(combo):
            pr *= float(per_bin[k][t])
        if pr > 0.0:
            code = dmax + 16 * sum(min(t, _CODE_BIN_CAP) * w for t, w in zip(combo, weights))
            out[code] = out.get(code, 0.0) + pr
    return out


def tight_epsilon(a: Any, b: Any, delta: float, epsilon: Any, variant: Any
                  ) -> tuple[float, str] | None:
    """No closed form for the pair (:meth:`core.audit.target.AuditTarget.tight_epsilon`):
    the runner uses the exact output distributions where there are any."""
    return None


def exact_roc(a: Any, b: Any, epsilon: Any, variant: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """No optimal-test ROC in closed form (:meth:`core.audit.target.AuditTarget.exact_roc`):
    the runner ranks the pairs from the exact distributions or a pre-screen."""
    return None
