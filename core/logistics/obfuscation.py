"""Step 2.1 and 2.3 of the planner: Laplace topology obfuscation and EM redistribution.

Size: steps 2.1 and 2.3 of the planner, the topology release and its redistribution, share the
sensitivity, the release form and the guarantee; most lines are the rewiring that makes the
released histogram a connected graph.

* :func:`degree_histogram` — the 1K distribution P(k), k = 1..d_max (Alg 7 line 4).
* :func:`obfuscate_topology` — Alg 7: Laplace noise on the histogram (through
  :func:`core.privacy.laplace.laplace_release`, so OpenDP in release mode), then
  :func:`rewire_to_histogram`, which builds a *connected* graph that keeps every center
  (Lemma 4.1 made true, spec F8) and matches the noisy histogram as well as it can.
* :func:`em_softmax` — Eq. 4.2, the thesis's "exponential mechanism" redistribution: a
  deterministic softmax, so invertible by :func:`em_invert` (spec F5);
  :func:`em_fixed_point_epsilon` is Remark 3's ε at which the softmax returns its input.

Sensitivity: the thesis uses ΔS = 1 per bin with d_max bins (scale ΔS·d_max/ε). Under
node adjacency a node of degree d moves up to 2d + 1 units of the histogram (spec F2), so
the sound preset adds Laplace((2·D_MAX + 1)/ε) per bin (:func:`node_dp_sensitivity`).

**Degree bound.** That sensitivity holds only on maps whose every degree is ≤ d_max: a hub
of degree 8 moves the histogram by up to 17 in L1. The rule is *refusal*: a local map with
a node above the declared d_max is not released (:func:`check_degree_bound`, an
:class:`~core.common.errors.InputError` naming the node), so the histogram never needs its
top bin to absorb larger degrees and the sensitivity 2·d_max + 1 is computed from the
declared d_max, a public parameter.

**What a release proves** (:func:`topology_guarantee`): with a public d_max and
``pure_postprocessing`` rewiring the released topology is a function of the noisy
histogram, the public centers and randomness independent of the map, hence
ε·max(1, (2·d_max + 1)/sensitivity)-DP for node adjacency (one base and its routes added or
removed, every degree ≤ d_max). ``overlap`` rewiring keeps real routes (spec F4) and a
local d_max leaks the map's maximum degree (F3): no finite ε covers those releases.

**Form of the release.** Every non-center node gets a fresh opaque id (the owner's name
and six random hex digits), and nodes and routes are listed in a uniformly random order
(routes with a random orientation), drawn from the ``rng`` passed in — the session's
seeded stream in experiment mode, :class:`core.logistics.randomness.SecureGenerator` in
release mode — so neither ids nor positions tell fake from real.

Examples
--------
>>> from core.logistics.examples import fig41
>>> degree_histogram(fig41().local("b"), 4).tolist()
[0, 4, 2, 1]
>>> em_softmax([0.7, 0.3], 2.0).round(5).tolist()
[0.59869, 0.40131]
>>> em_invert([0.598687660112452, 0.401312339887548], 2.0).round(12).tolist()
[0.7, 0.3]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np

from core.common.errors import InputError
from core.privacy.laplace import check_epsilon, exponential_probabilities, laplace_release

__all__ = ["degree_histogram", "node_dp_sensitivity", "histogram_sensitivity",
           "deniability_size", "check_release_size", "MAX_RELEASED_NODES", "em_softmax",
           "em_invert", "em_fixed_point_epsilon",
           "ObfuscatedTopology", "obfuscate_topology", "rewire_to_histogram",
           "check_degree_bound", "histogram_release", "topology_guarantee",
           "REWIRE_MODES", "SENSITIVITY_MODES", "PUBLIC_LENGTH_SCALE", "NODE_ADJACENCY",
           "F3_REASON", "F4_REASON"]

REWIRE_MODES = ("overlap", "pure_postprocessing")
SENSITIVITY_MODES = ("thesis", "node_dp_l1")

#: fake route lengths under ``pure_postprocessing`` are this public scale × U(0.5, 1.5)
#: (spec §6.4's target mean length), never the owner's real mean length
PUBLIC_LENGTH_SCALE = 45.0

NODE_ADJACENCY = ("node adjacency: the agent's local map with and without one base and its "
                  "routes (lengths included), every degree <= d_max, the same public centers")
F3_REASON = ("F3: d_max is the map's own maximum degree, so the number of bins and the noise "
             "scale depend on the private map")
F4_REASON = ("F4: overlap rewiring keeps real routes and real bases in the released map, "
             "which the histogram's noise does not cover")


def degree_histogram(graph: nx.Graph, dmax: int) -> np.ndarray:
    """P(k) for k = 1..dmax: the number of nodes of degree k (degrees above dmax in bin dmax;
    a release refuses such maps first, see :func:`check_degree_bound`).

    Degree-0 nodes are not counted (the thesis: "P(0) is not counted").

    Parameters
    ----------
    graph : networkx.Graph
        A local map (or a released one).
    dmax : int
        Number of bins.

    Returns
    -------
    numpy.ndarray
        ``dmax`` integer counts, bin k-1 for degree k.
    """
    h = np.zeros(int(dmax), dtype=np.int64)
    for _, d in graph.degree():
        if d >= 1:
            h[min(int(d), int(dmax)) - 1] += 1
    return h


def node_dp_sensitivity(dmax: int) -> int:
    """L1 sensitivity of the 1K histogram under node adjacency: 2·d_max + 1 (spec F2).

    Parameters
    ----------
    dmax : int
        The public degree cap.

    Returns
    -------
    int

    Examples
    --------
    >>> node_dp_sensitivity(4)
    9
    """
    return 2 * int(dmax) + 1


def histogram_sensitivity(mode: str, dmax: int, delta_s: float = 1.0) -> float:
    """The L1 sensitivity used for the whole histogram vector.

    ``"thesis"``: ΔS·d_max (each of d_max bins gets ε/d_max with ΔS = 1; sequential
    composition), ``"node_dp_l1"``: 2·d_max + 1.

    Parameters
    ----------
    mode : str
        ``"thesis"`` or ``"node_dp_l1"``.
    dmax : int
        The degree cap.
    delta_s : float
        ΔS of the thesis's mode.

    Returns
    -------
    float

    Raises
    ------
    InputError
        For an unknown mode.
    """
    if mode == "thesis":
        return float(delta_s) * int(dmax)
    if mode == "node_dp_l1":
        return float(node_dp_sensitivity(dmax))
    raise InputError(f"must be one of {SENSITIVITY_MODES}, got {mode!r}",
                     field="laplace_sensitivity")


def deniability_size(epsilon: float, dmax: int, delta_s: float = 1.0) -> int:
    """Corollary 4.1's heuristic ⌈ΔS·d_max/ε⌉ (a heuristic, spec F9, not a DP guarantee).

    Parameters
    ----------
    epsilon : float
        ε of the histogram release.
    dmax : int
        The degree cap.
    delta_s : float
        ΔS.

    Returns
    -------
    int

    Examples
    --------
    >>> [deniability_size(e, 4) for e in (0.5, 0.2, 0.8)]
    [8, 20, 5]
    """
    return int(math.ceil(float(delta_s) * int(dmax) / check_epsilon(epsilon) - 1e-12))


#: Most nodes a released (obfuscated) local map may be expected to have: beyond it the
#: rewiring takes minutes and the map is noise. Decided from public parameters only.
MAX_RELEASED_NODES = 5_000


def check_release_size(epsilon: float, *, dmax: int, sensitivity: float,
                       bin_clip: int | None) -> None:
    """Refuse an ε whose noisy histogram would ask for an unbuildable released map.

    The decision uses public parameters only — never the map's own size or the noisy draw,
    since whether a run is refused would then tell an observer about the private map: the
    noise's share of the released map is d_max bins of mean |Laplace| = sensitivity / ε
    each (or the public ``bin_clip`` when bins are clipped).

    Parameters
    ----------
    epsilon : float
        ε of the histogram release.
    dmax : int
        Number of bins.
    sensitivity : float
        L1 sensitivity of the histogram.
    bin_clip : int or None
        The public maximum of a bin, if any.

    Raises
    ------
    InputError
        On ``epsilon``, with the estimate and the smallest ε that fits.
    """
    per_bin = float(bin_clip) if bin_clip is not None else sensitivity / epsilon
    expected = dmax * per_bin
    if expected > MAX_RELEASED_NODES:
        eps_min = dmax * sensitivity / MAX_RELEASED_NODES
        raise InputError(
            f"at {epsilon:g} the noisy degree histogram ({dmax} bins, Laplace scale "
            f"{sensitivity / epsilon:.3g}) adds about {expected:,.0f} nodes to each released "
            f"map; PrivPlan builds up to {MAX_RELEASED_NODES:,} (use epsilon >= "
            f"{eps_min:.2g}, or a preset that clips bins)", field="epsilon")


def check_degree_bound(local: nx.Graph, dmax: int, owner: str = "") -> None:
    """Refuse a map with a node of degree > ``dmax`` (the stated rule; nothing is released).

    The histogram's L1 sensitivity 2·d_max + 1 assumes every degree ≤ d_max: removing a
    base of degree d moves its own bin and each of its d neighbours' bins, up to 2d + 1.

    Parameters
    ----------
    local : networkx.Graph
        The local map.
    dmax : int
        The declared cap.
    owner : str
        The agent (named in the error).

    Raises
    ------
    InputError
        On ``d_max``, naming the node and its degree.

    Examples
    --------
    >>> import networkx as nx
    >>> check_degree_bound(nx.star_graph(8), 8)
    >>> check_degree_bound(nx.star_graph(8), 4)
    Traceback (most recent call last):
    ...
    core.common.errors.InputError: d_max: node 0 has 8 routes, more than the declared d_max = 4 ...
    """
    for v, d in sorted(local.degree(), key=lambda x: (-x[1], str(x[0]))):
        if d > int(dmax):
            who = f" in agent {owner}'s area" if owner else ""
            raise InputError(
                f"node {v} has {d} routes{who}, more than the declared d_max = {int(dmax)} "
                f"(the histogram sensitivity 2*d_max+1 = {node_dp_sensitivity(dmax)} assumes "
                f"every degree <= d_max); declare d_max >= {d}. Nothing was released",
                field="d_max")
        break


def histogram_release(h: "np.ndarray | list[int]", *, epsilon: float, sensitivity: float,
                      rng: "np.random.Generator | None", bin_clip: int | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Alg 7 lines 5–6: (noisy, target) for histogram ``h`` — the one noisy step.

    ``noisy`` = h + Laplace(sensitivity/ε) per bin (:func:`core.privacy.laplace.
    laplace_release`: OpenDP when ``rng`` is None); ``target`` = the noisy bins rounded
    (``np.rint``), clipped at 0 and, if given, at ``bin_clip`` (post-processing). ``h`` may
    be a batch of shape (n, bins) (the audit draws many releases at once through here).

    Parameters
    ----------
    h : array_like of int
        The true histogram (one row, or a batch of rows).
    epsilon : float
        ε of the release.
    sensitivity : float
        The histogram's L1 sensitivity.
    rng : numpy.random.Generator or None
        Seeded noise; None draws from OpenDP (release mode).
    bin_clip : int, optional
        The public maximum of a rounded bin.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``noisy`` (floats) and ``target`` (non-negative integers), shaped like ``h``.
    """
    noisy = laplace_release(np.asarray(h, dtype=np.float64), epsilon=epsilon,
                            sensitivity=sensitivity, rng=rng)
    target = np.maximum(0, np.rint(noisy)).astype(np.int64)
    if bin_clip is not None:
        target = np.minimum(target, int(bin_clip))
    return noisy, target


def topology_guarantee(epsilon: float, *, dmax: int, sensitivity_mode: str,
                       delta_s: float = 1.0, rewire: str, dmax_public: bool = True
                       ) -> tuple[float, str]:
    """(ε proven for the released topology, reason if none) — public parameters only.

    Finite only for a public d_max and ``pure_postprocessing`` rewiring; then the Laplace
    step with L1 sensitivity ``s`` and scale s/ε is ε·max(1, (2·d_max + 1)/s)-DP under
    node adjacency (spec F2; the thesis's s = ΔS·d_max gives the (2·d_max + 1)/d_max
    factor), and the rewiring is post-processing.

    Parameters
    ----------
    epsilon : float
        The nominal ε of the Laplace step.
    dmax : int
        The degree cap.
    sensitivity_mode : str
        ``"thesis"`` or ``"node_dp_l1"``.
    delta_s : float
        ΔS of the thesis's mode.
    rewire : str
        ``"pure_postprocessing"`` or ``"overlap"``.
    dmax_public : bool
        Whether ``dmax`` is a declared public cap.

    Returns
    -------
    (float, str)
        The proven ε (``math.inf`` when none) and, then, why.

    Examples
    --------
    >>> topology_guarantee(0.25, dmax=4, sensitivity_mode="node_dp_l1",
    ...                    rewire="pure_postprocessing")
    (0.25, '')
    >>> topology_guarantee(0.5, dmax=4, sensitivity_mode="thesis", rewire="pure_postprocessing")
    (1.125, '')
    >>> topology_guarantee(0.5, dmax=4, sensitivity_mode="node_dp_l1", rewire="overlap")[0]
    inf
    """
    eps = check_epsilon(epsilon)
    reasons = []
    if not dmax_public:
        reasons.append(F3_REASON)
    if rewire == "overlap":
        reasons.append(F4_REASON)
    if reasons:
        return math.inf, "; ".join(reasons)
    sens = histogram_sensitivity(sensitivity_mode, dmax, delta_s)
    return eps * max(1.0, node_dp_sensitivity(dmax) / sens), ""


def em_softmax(u: "np.ndarray | list[float]", epsilon: float, delta_u: float = 1.0
               ) -> np.ndarray:
    """Eq. 4.2: u′_i = exp(ε u_i/(2Δu)) / Σ_j exp(ε u_j/(2Δu)), computed max-subtracted.

    Deterministic (no noise is drawn), hence not differentially private (spec F5).

    Parameters
    ----------
    u : array_like
        Utilities.
    epsilon : float
        ε of the exponential mechanism.
    delta_u : float
        The utility's sensitivity Δu.

    Returns
    -------
    numpy.ndarray
        The probabilities u′ (sum 1).
    """
    return exponential_probabilities(np.asarray(u, dtype=np.float64), epsilon=epsilon,
                                     sensitivity=delta_u)


def em_invert(u_prime: "np.ndarray | list[float]", epsilon: float, delta_u: float = 1.0
              ) -> np.ndarray:
    """The F5 inversion attack: recover u from the softmax output and the public ε.

    u_i = 1/k + (2Δu/ε)(ln u′_i − mean_j ln u′_j), using Σ u = 1.

    Parameters
    ----------
    u_prime : array_like
        The released probabilities.
    epsilon : float
        The public ε.
    delta_u : float
        The public Δu.

    Returns
    -------
    numpy.ndarray
        The utilities u that produced ``u_prime`` (exactly, up to rounding).
    """
    up = np.asarray(u_prime, dtype=np.float64)
    e = check_epsilon(epsilon)
    lg = np.log(up)
    result: np.ndarray = 1.0 / up.size + (2.0 * float(delta_u) / e) * (lg - lg.mean())
    return result


def em_fixed_point_epsilon(u: "np.ndarray | list[float]", delta_u: float = 1.0) -> np.ndarray:
    """Remark 3: ε_i = 2Δu(k·ln u_i − Σ_j ln u_j)/(k·u_i − Σ_j u_j), one value per entry.

    For k = 2 both entries agree (ε* = 2Δu(ln u₁ − ln u₂)/(u₁ − u₂)); for k ≥ 3 they
    generally do not (the source's equations are inconsistent). Entries with k·u_i = Σu
    give nan.

    Parameters
    ----------
    u : array_like
        Utilities (k entries).
    delta_u : float
        Δu.

    Returns
    -------
    numpy.ndarray
        One ε per entry (nan where undefined).

    Examples
    --------
    >>> em_fixed_point_epsilon([0.7, 0.3]).round(4).tolist()
    [4.2365, 4.2365]
    """
    x = np.asarray(u, dtype=np.float64)
    k = x.size
    num = 2.0 * float(delta_u) * (k * np.log(x) - np.log(x).sum())
    den = k * x - x.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(den) > 1e-15, num / np.where(den == 0, 1.0, den), np.nan)


@dataclass(frozen=True, eq=False)
class ObfuscatedTopology:
    """Agent ``owner``'s obfuscated local map (Fig 4.4(b)) with its private annotations.

    ``graph`` uses opaque ids for every non-center node and carries, *for the owner and
    the evaluator only*, the edge ``length`` and ``fake`` flags and the node ``fake`` flag;
    :meth:`topology` is what may be released (ids and edges only). ``relabel`` maps the
    owner's real base ids to their opaque ids (kept real nodes only).
    """

    owner: str
    graph: nx.Graph
    relabel: dict[str, str]
    histogram: tuple[int, ...]
    noisy: tuple[float, ...]
    target: tuple[int, ...]
    realised: tuple[int, ...]
    dmax: int
    epsilon: float
    sensitivity: float
    scale: float
    rewire: str
    n_fake_nodes: int
    n_fake_edges: int
    dropped: tuple[str, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def topology(self) -> nx.Graph:
        """The releasable view: node ids (centers public, others opaque) and edges only."""
        t = nx.Graph()
        for v, d in self.graph.nodes(data=True):
            t.add_node(v, kind=d["kind"])
        t.add_edges_from(self.graph.edges())
        return t

    @property
    def histogram_l1_deviation(self) -> int:
        """Σ_k |realised(k) − target(k)|: how far the rewiring is from the noisy histogram."""
        return int(sum(abs(a - b) for a, b in zip(self.realised, self.target)))


def _token(rng: np.random.Generator, taken: set[str], owner: str) -> str:
    while True:
        t = f"{owner}:{int(rng.integers(16 ** 6)):06x}"
        if t not in taken:
            taken.add(t)
            return t


def _fix_targets(targets: dict[str, int], dmax: int, rng: np.random.Generator,
                 notes: list[str]) -> None:
    n = len(targets)
    names = list(targets)
    cap = min(dmax, max(n - 1, 1))
    for v in names:
        targets[v] = min(max(targets[v], 1), cap)
    s0 = sum(targets.values())
    while sum(targets.values()) < 2 * (n - 1):  # a connected graph needs n - 1 edges
        low = min((v for v in names if targets[v] < cap), key=lambda v: targets[v], default=None)
        if low is None:
            break
        targets[low] += 1
    if sum(targets.values()) % 2:
        up = [v for v in names if targets[v] < cap]
        if up:
            targets[up[int(rng.integers(len(up)))]] += 1
        else:
            down = [v for v in names if targets[v] > 1]
            targets[down[int(rng.integers(len(down)))]] -= 1
    for _ in range(4 * n):
        if nx.is_graphical(list(targets.values())):
            break
        hi = max(names, key=lambda v: targets[v])
        lo = min(names, key=lambda v: targets[v])
        targets[hi] -= 1
        targets[lo] += 1
    if sum(targets.values()) != s0:
        notes.append(f"degree targets adjusted from sum {s0} to {sum(targets.values())} "
                     "(connectivity, parity, graphicality)")


def rewire_to_histogram(local: nx.Graph, target: "np.ndarray | list[int]", *, owner: str,
                        rng: np.random.Generator, rewire: str = "overlap",
                        fake_len: tuple[float, float] = (0.5, 1.5), max_tries: int = 200
                        ) -> tuple[nx.Graph, dict[str, str], int, int, tuple[str, ...],
                                   list[str]]:
    """Alg 7 line 8: a connected graph, keeping all centers, close to histogram ``target``.

    ``"overlap"`` (default) keeps real edges where the degree targets allow (with their
    real lengths; spec F4: not pure post-processing of the histogram) and assigns the
    largest targets to the real nodes of largest degree, so that a noiseless histogram
    gives back the true map exactly. ``"pure_postprocessing"`` ignores the real edges: a
    random connected graph with the target degrees, centers placed on nodes of matching
    degree, every length fake. Fake lengths are L̄·U(0.5, 1.5) rounded (L̄ = mean real
    length under ``overlap``; the public :data:`PUBLIC_LENGTH_SCALE` under
    ``pure_postprocessing``, whose output must not depend on the map beyond ``target``
    and the public centers).

    The returned graph is in *release form*: every non-center node has a fresh random
    opaque id, nodes are listed in a uniformly random order and routes in a uniformly
    random order with random orientation (all drawn from ``rng``), so a node's position,
    id or the order of the routes says nothing about whether it is real or fake.

    Under ``pure_postprocessing`` the result is a function of ``target``, the public
    centers and ``rng`` only: the same ``target`` and the same random stream give the
    same released graph for any two maps with the same centers.

    Returns ``(graph, relabel, n_fake_nodes, n_fake_edges, dropped, notes)``.

    Parameters
    ----------
    local : networkx.Graph
        The true local map.
    target : array_like of int
        The degree histogram to realise.
    owner : str
        The agent (its centers are kept).
    rng : numpy.random.Generator
        Drives every choice and the release form.
    rewire : str
        ``"overlap"`` or ``"pure_postprocessing"``.
    fake_len : (float, float)
        The range of the fake lengths' factor.
    max_tries : int
        Attempts at a connected realisation before the closest one is kept.

    Returns
    -------
    tuple
        (released graph, ``{real id: opaque id}``, fake nodes, fake routes, dropped real
        nodes, notes).
    """
    if rewire not in REWIRE_MODES:
        raise InputError(f"must be one of {REWIRE_MODES}, got {rewire!r}", field="rewire")
    tgt = [max(0, int(x)) for x in target]
    dmax = len(tgt)
    notes: list[str] = []
    centers = sorted(v for v, d in local.nodes(data=True) if d.get("kind") == "center")
    bases = sorted(v for v, d in local.nodes(data=True) if d.get("kind") != "center")
    overlap = rewire == "overlap"
    lbar = PUBLIC_LENGTH_SCALE
    if overlap and local.number_of_edges():
        lbar = float(np.mean([d["length"] for *_, d in local.edges(data=True)]))
    targets, n_fake, dropped = _degree_targets(local, tgt, centers, bases, overlap, rng, notes)
    _fix_targets(targets, dmax, rng, notes)
    rw = _Rewiring(nx.Graph(), dict(targets), rng, lbar, fake_len)
    for v in targets:
        rw.g.add_node(v)
    if overlap:
        rw.keep_real_edges(local, targets)
    forced = rw.connect(list(targets), dmax)
    if forced:
        notes.append(f"{forced} connecting edge(s) beyond the degree targets")
    left = rw.match_stubs(list(targets), max_tries)
    left = rw.swap_in(left, max_tries)
    if left:
        notes.append(f"{len(left)} degree stub(s) left unmatched")
    if overlap:
        mapping, relabel = _overlap_names(targets, centers, rng, owner)
    else:
        mapping, relabel = _placed_names(targets, centers, rng, owner), {}
        dropped = tuple(bases)
    out = _release_form(list(targets), mapping, centers, rw.g, overlap, rng)
    n_fake_edges = rw.n_fake_edges if overlap else out.number_of_edges()
    return out, relabel, n_fake, n_fake_edges, dropped, notes


def _degree_targets(local: nx.Graph, tgt: list[int], centers: list[str], bases: list[str],
                    overlap: bool, rng: np.random.Generator, notes: list[str]
                    ) -> tuple[dict[str, int], int, tuple[str, ...]]:
    """The released nodes and their degree targets (the histogram's degrees, largest
    first, padded with 2s up to every center), the number of fake nodes and the real bases
    dropped. ``overlap``: the real nodes kept (all, or a random subset when the histogram
    has fewer nodes) take the largest targets by real degree, fakes ``__fake{i}`` the
    rest; otherwise every node is a slot ``__node{i}``."""
    n_target = sum(tgt)
    n_new = max(n_target, len(centers), 2)
    if n_new != n_target:
        notes.append(f"node count raised from {n_target} to {n_new} (every center is kept)")
    multiset = sorted((k + 1 for k in range(len(tgt)) for _ in range(tgt[k])), reverse=True)
    multiset += [2] * (n_new - len(multiset))
    if not overlap:
        slots = [f"__node{i}" for i in range(n_new)]
        return {v: multiset[i] for i, v in enumerate(slots)}, n_new - len(centers), ()
    dropped: tuple[str, ...] = ()
    if n_new >= len(centers) + len(bases):
        keep_bases = list(bases)
    else:
        pick = rng.choice(len(bases), size=n_new - len(centers), replace=False)
        keep_bases = [bases[int(i)] for i in sorted(pick)]
        dropped = tuple(b for b in bases if b not in set(keep_bases))
    kept = centers + keep_bases
    n_fake = n_new - len(kept)
    order = [kept[int(i)] for i in rng.permutation(len(kept))]
    order.sort(key=lambda v: -local.degree(v))  # stable: ties stay random
    fakes = [f"__fake{i}" for i in range(n_fake)]
    return {v: multiset[i] for i, v in enumerate(order + fakes)}, n_fake, dropped


@dataclass
class _Rewiring:
    """The graph being rewired, each node's residual degree target and the fake routes
    added (with lengths L̄·U(fake_len) rounded, drawn from ``rng``)."""

    g: nx.Graph
    resid: dict[str, int]
    rng: np.random.Generator
    lbar: float
    fake_len: tuple[float, float]
    n_fake_edges: int = 0

    def add_fake(self, x: str, y: str) -> None:
        """Add a fake route x–y and count it against both residual targets."""
        length = float(max(1, round(self.lbar * self.rng.uniform(*self.fake_len))))
        self.g.add_edge(x, y, length=length, fake=True)
        self.resid[x] = max(0, self.resid[x] - 1)
        self.resid[y] = max(0, self.resid[y] - 1)
        self.n_fake_edges += 1

    def keep_real_edges(self, local: nx.Graph, targets: dict[str, int]) -> None:
        """``overlap``: keep the real routes between kept nodes, in random order, while
        both ends' targets allow (with their real lengths)."""
        real = [(u, v) for u, v in local.edges() if u in targets and v in targets]
        for i in self.rng.permutation(len(real)):
            u, v = real[int(i)]
            if self.resid[u] > 0 and self.resid[v] > 0:
                self.g.add_edge(u, v, length=float(local[u][v]["length"]), fake=False)
                self.resid[u] -= 1
                self.resid[v] -= 1

    def _end(self, comp: list[str], dmax: int) -> str:
        """A random end in ``comp`` for a connecting route: one with residual target
        left, else one under ``dmax``, else any."""
        g, resid, rng = self.g, self.resid, self.rng
        for cond in (lambda v: resid[v] > 0, lambda v: g.degree(v) < dmax):
            pool = [v for v in comp if cond(v)]
            if pool:
                return pool[int(rng.integers(len(pool)))]
        return comp[int(rng.integers(len(comp)))]

    def connect(self, names: list[str], dmax: int) -> int:
        """Join the components by fake routes, the first two (in ``names`` order) at a
        time (Lemma 4.1 enforced); returns how many went beyond the degree targets."""
        rank = {v: i for i, v in enumerate(names)}
        comps = sorted((sorted(c, key=rank.__getitem__)
                        for c in nx.connected_components(self.g)),
                       key=lambda c: rank[c[0]])
        forced = 0
        while len(comps) > 1:
            a, b = comps[0], comps[1]
            x, y = self._end(a, dmax), self._end(b, dmax)
            if self.resid[x] == 0 or self.resid[y] == 0:
                forced += 1
            self.add_fake(x, y)
            comps = [sorted(a + b, key=rank.__getitem__)] + comps[2:]
        return forced

    def match_stubs(self, names: list[str], max_tries: int) -> list[str]:
        """Random stub matching on the remaining degree (no loops or parallel routes);
        returns the stubs left unpaired."""
        g = self.g
        stubs = [v for v in names for _ in range(self.resid[v])]
        stubs = [stubs[int(i)] for i in self.rng.permutation(len(stubs))]
        left: list[str] = []
        tries = 0
        while len(stubs) >= 2:
            x = stubs.pop()
            j = len(stubs) - 1
            while j >= 0 and (stubs[j] == x or g.has_edge(x, stubs[j])):
                j -= 1
                tries += 1
            if j < 0 or tries > max_tries * max(1, len(names)):
                left.append(x)
                continue
            y = stubs.pop(j)
            self.add_fake(x, y)
        return left + stubs

    def _try_swap(self, x: str, y: str, u: str, v: str) -> bool:
        """Swap route (u, v) for (x, u) and (y, v) if allowed and the map stays
        connected; otherwise leave the graph as it was."""
        g = self.g
        if len({x, u, v}) < 3 or len({y, u, v}) < 3 or g.has_edge(x, u) or \
                g.has_edge(y, v) or (x == y and u == v):
            return False
        old = dict(g[u][v])
        g.remove_edge(u, v)
        self.add_fake(x, u)
        self.add_fake(y, v)
        if nx.is_connected(g):
            self.n_fake_edges -= 1 if old.get("fake") else 0
            return True
        g.remove_edge(x, u)
        g.remove_edge(y, v)
        self.n_fake_edges -= 2
        g.add_edge(u, v, **old)
        return False

    def _swap_pair(self, x: str, y: str, max_tries: int) -> bool:
        """Place stubs x and y by one edge swap, trying up to ``max_tries`` random routes
        in both orientations."""
        edges = list(self.g.edges())
        for i in self.rng.permutation(len(edges))[:max_tries]:
            e0, e1 = edges[int(i)]
            for u, v in ((e0, e1), (e1, e0)):
                if self._try_swap(x, y, u, v):
                    return True
        return False

    def swap_in(self, left: list[str], max_tries: int) -> list[str]:
        """Stubs that cannot pair directly: swap an edge (u, v) for (x, u) and (y, v),
        which keeps every degree target, as long as the map stays connected. Returns the
        stubs still unmatched."""
        while len(left) >= 2:
            x, y = left.pop(), left.pop()
            if not self._swap_pair(x, y, max_tries):
                left += [x, y]
                break
        return left


def _overlap_names(targets: dict[str, int], centers: list[str], rng: np.random.Generator,
                   owner: str) -> tuple[dict[str, str], dict[str, str]]:
    """``overlap`` release names: centers public, every other node a fresh opaque id;
    also ``{real id: opaque id}`` for the kept real nodes."""
    taken: set[str] = set()
    relabel: dict[str, str] = {}
    mapping: dict[str, str] = {}
    for v in targets:
        if v in centers:
            mapping[v] = v
        else:
            mapping[v] = _token(rng, taken, owner)
            if not v.startswith("__fake"):
                relabel[v] = mapping[v]
    return mapping, relabel


def _placed_names(targets: dict[str, int], centers: list[str], rng: np.random.Generator,
                  owner: str) -> dict[str, str]:
    """``pure_postprocessing`` release names: the centers placed on uniformly random
    nodes (their true degrees are private), every other node a fresh opaque id."""
    taken: set[str] = set()
    mapping: dict[str, str] = {}
    free = list(targets)
    for c in centers:
        v = free.pop(int(rng.integers(len(free))))
        mapping[v] = c
    for v in free:
        mapping[v] = _token(rng, taken, owner)
    return mapping


def _release_form(names: list[str], mapping: dict[str, str], centers: list[str],
                  g: nx.Graph, overlap: bool, rng: np.random.Generator) -> nx.Graph:
    """The released graph: nodes in a random order, routes in a random order and
    orientation; under ``pure_postprocessing`` every non-center node and every route is
    marked fake."""
    out = nx.Graph()
    for i in rng.permutation(len(names)):
        v = names[int(i)]
        nv = mapping[v]
        is_center = nv in centers
        is_fake = (not is_center) and (not overlap or v.startswith("__fake"))
        out.add_node(nv, kind="center" if is_center else "node", fake=is_fake)
    edges = list(g.edges(data=True))
    flips = rng.integers(0, 2, size=len(edges)) if edges else np.zeros(0, dtype=np.int64)
    for i in rng.permutation(len(edges)):
        u, v, d = edges[int(i)]
        if flips[int(i)]:
            u, v = v, u
        out.add_edge(mapping[u], mapping[v], length=d["length"],
                     fake=bool(d["fake"]) or not overlap)
    return out


def obfuscate_topology(local: nx.Graph, *, owner: str, epsilon: float, dmax: int,
                       sensitivity_mode: str = "node_dp_l1", delta_s: float = 1.0,
                       rewire: str = "pure_postprocessing", rng: Any,
                       noise_rng: "np.random.Generator | None",
                       fake_len: tuple[float, float] = (0.5, 1.5), ledger: Any = None,
                       mode: str = "experiment", seed: int | None = None,
                       bin_clip: int | None = None, dmax_public: bool = True
                       ) -> ObfuscatedTopology:
    """Algorithm 7 on agent ``owner``'s local map.

    A map with a node of degree > ``dmax`` is refused (:func:`check_degree_bound`). The
    histogram noise is one :func:`histogram_release` call (``noise_rng=None``: OpenDP,
    release mode) and is recorded in ``ledger`` (a :class:`core.privacy.ledger.
    PrivacyLedger`) when given, with the ε :func:`topology_guarantee` proves (``math.inf``
    and the reason where it proves none; the nominal ε_L is in its parameters). ``rng``
    drives the rewiring choices (which bases to drop, fake routes and lengths) and the
    release form (opaque ids, node and route order): pass
    :class:`core.logistics.randomness.SecureGenerator` in release mode. ``bin_clip`` clips
    every rounded bin at a public maximum (post-processing of the noisy histogram, so free
    in privacy terms; a PrivPlan addition that bounds the released map's size — with
    Laplace(36) noise per bin the sound preset at ε = 0.5 otherwise releases maps of up to
    several hundred nodes). ``dmax_public`` says whether ``dmax`` is a declared public cap
    (False for the thesis's local maximum degree, spec F3).

    Parameters
    ----------
    local : networkx.Graph
        The agent's true local map.
    owner : str
        The agent (the ledger's dataset is ``agent:<owner>``).
    epsilon : float
        ε of the histogram release (nominal ε_L).
    dmax : int
        The degree cap.
    sensitivity_mode, delta_s, rewire, bin_clip, dmax_public
        See :func:`histogram_sensitivity`, :func:`rewire_to_histogram` and above.
    rng : numpy.random.Generator or SecureGenerator
        The rewiring's randomness.
    noise_rng : numpy.random.Generator or None
        The Laplace noise's (None: OpenDP).
    fake_len : (float, float)
        The range of the fake lengths' factor.
    ledger : PrivacyLedger, optional
        Where the release is recorded.
    mode : str
        ``"experiment"`` or ``"release"`` (recorded).
    seed : int, optional
        The experiment's seed (recorded).

    Returns
    -------
    ObfuscatedTopology
        The released graph with its histograms, ε, scale and rewiring counts.

    Raises
    ------
    InputError
        For a node above ``dmax`` or an ε whose released maps would be too large
        (:func:`check_release_size`).

    Examples
    --------
    >>> import numpy as np
    >>> from core.logistics.examples import fig41
    >>> o = obfuscate_topology(fig41().local("b"), owner="b", epsilon=1e9, dmax=4,
    ...                        rewire="overlap", rng=np.random.default_rng(0),
    ...                        noise_rng=np.random.default_rng(1))
    >>> o.target, o.n_fake_nodes, o.n_fake_edges, o.graph.number_of_edges()
    ((0, 4, 2, 1), 0, 0, 9)
    """
    eps = check_epsilon(epsilon)
    dmax = int(dmax)
    check_degree_bound(local, dmax, owner)
    h = degree_histogram(local, dmax)
    sens = histogram_sensitivity(sensitivity_mode, dmax, delta_s)
    check_release_size(eps, dmax=dmax, sensitivity=sens, bin_clip=bin_clip)
    noisy, target = histogram_release(h, epsilon=eps, sensitivity=sens, rng=noise_rng,
                                      bin_clip=bin_clip)
    if ledger is not None:
        proven, why = topology_guarantee(eps, dmax=dmax, sensitivity_mode=sensitivity_mode,
                                         delta_s=delta_s, rewire=rewire,
                                         dmax_public=dmax_public)
        extra = {"reason": why} if why else {}
        ledger.record(dataset=f"agent:{owner}", mechanism="laplace", epsilon=proven,
                      parameters={"nominal_epsilon": eps, "sensitivity": sens,
                                  "scale": sens / eps, "bins": dmax, "d_max": dmax,
                                  "d_max_public": bool(dmax_public),
                                  "sensitivity_mode": sensitivity_mode, "rewire": rewire,
                                  "bin_clip": bin_clip},
                      adjacency=NODE_ADJACENCY,
                      released=f"obfuscated topology of agent {owner}'s local map (opaque "
                               "ids, random order): the 1K degree histogram "
                               f"({dmax} bins) with Laplace noise, rounded and clipped, "
                               f"realised by {rewire} rewiring",
                      mode=mode, seed=seed, source="logistics: Alg 7", **extra)
    g, relabel, nf, nfe, dropped, notes = rewire_to_histogram(
        local, target, owner=owner, rng=rng, rewire=rewire, fake_len=fake_len)
    realised = degree_histogram(g, dmax)
    over = sum(1 for _, d in g.degree() if d > dmax)
    if over:
        notes.append(f"{over} node(s) above degree {dmax} (connectivity forced)")
    return ObfuscatedTopology(
        owner=owner, graph=g, relabel=relabel, histogram=tuple(int(x) for x in h),
        noisy=tuple(float(x) for x in noisy), target=tuple(int(x) for x in target),
        realised=tuple(int(x) for x in realised), dmax=dmax, epsilon=eps, sensitivity=sens,
        scale=sens / eps, rewire=rewire, n_fake_nodes=nf, n_fake_edges=nfe, dropped=dropped,
        notes=tuple(notes))
