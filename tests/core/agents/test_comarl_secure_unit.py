"""Unit tests of core.comarl.secure: fixed-point encoding, additive shares, the 3-step protocol.

Every expected value is derived independently (integer arithmetic in Python, a plain sum), not
read back from the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.comarl import secure
from core.comarl.secure import MAX_ABS_SUM, PRECISION, SCALE, P, dec, enc, secure_sum, share
from core.common.errors import InputError

finite = st.floats(min_value=-1000.0, max_value=1000.0, allow_nan=False, allow_infinity=False)


def test_constants_follow_the_documented_field_and_precision():
    assert P == 2147483647
    assert SCALE == 10 ** PRECISION == 100000
    # (p // 2) / 10^5: the largest representable |sum|
    assert MAX_ABS_SUM == pytest.approx(10737.41823)


@pytest.mark.parametrize("x, expected", [
    (0.0, 0), (1.0, 100000), (1.5, 150000), (-1.5, P - 150000), (1e-5, 1),
    (-1e-5, P - 1), (2.3456789, 234567), (-2.3456789, P - 234567)])
def test_enc_truncates_toward_zero_and_reduces_mod_p(x, expected):
    assert int(enc(x)) == expected


def test_enc_keeps_shape_and_returns_int64():
    x = np.array([[0.5, -0.25], [3.0, -7.0]])
    e = enc(x)
    assert e.shape == (2, 2) and e.dtype == np.int64
    assert ((0 <= e) & (e < P)).all()


@pytest.mark.parametrize("v, expected", [
    (0, 0.0), (1, 1e-5), (P // 2, (P // 2) / SCALE), (P // 2 + 1, (P // 2 + 1 - P) / SCALE),
    (P - 1, -1e-5)])
def test_dec_maps_upper_half_to_negatives(v, expected):
    assert float(dec(v)) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=30)
@given(finite)
def test_dec_inverts_enc_up_to_the_truncation(x):
    back = float(dec(enc(x)))
    # truncation toward zero: |back| <= |x| and the gap is below one unit of 1e-5
    assert abs(back) <= abs(x) + 1e-12
    assert abs(x - back) < 1e-5 + 1e-9


@settings(max_examples=30)
@given(st.integers(min_value=-(P // 2), max_value=P // 2))
def test_enc_of_an_exact_grid_value_round_trips(k):
    x = k / SCALE
    assert float(dec(enc(x))) == pytest.approx(x, abs=1.01e-5)


@settings(max_examples=30)
@given(st.lists(st.integers(min_value=0, max_value=P - 1), min_size=1, max_size=5),
       st.integers(min_value=2, max_value=6), st.integers(min_value=0, max_value=2**32 - 1))
def test_shares_sum_to_the_secret_mod_p(secret, n, seed):
    s = np.array(secret, dtype=np.int64)
    sh = share(s, n, np.random.default_rng(seed))
    assert sh.shape == (n, len(secret))
    # exact integer arithmetic in Python, independent of numpy's int64
    for k, value in enumerate(secret):
        assert sum(int(sh[i, k]) for i in range(n)) % P == value


@settings(max_examples=30)
@given(st.integers(min_value=0, max_value=P - 1), st.integers(min_value=2, max_value=5))
def test_the_first_shares_are_field_elements_and_the_last_is_bounded(secret, n):
    sh = share(np.array(secret), n, np.random.default_rng(secret))
    assert ((sh[:-1] >= 0) & (sh[:-1] < P)).all()
    # r_n = p - (sum mod p) + s lies in (s, p + s]: not reduced (erratum 5)
    assert secret < int(sh[-1]) <= P + secret


def test_share_without_a_generator_uses_the_os_and_still_sums_correctly():
    s = enc(np.array([1.25, -3.5, 0.0]))
    sh = share(s, 4)
    assert sh.shape == (4, 3)
    assert (np.mod(sh.sum(axis=0), P) == s).all()
    assert ((sh[:-1] >= 0) & (sh[:-1] < P)).all()


def test_os_uniform_draws_cover_the_field_roughly_uniformly():
    draws = secure._uniform((4000,), None)
    assert draws.dtype == np.int64 and draws.shape == (4000,)
    assert ((draws >= 0) & (draws < P)).all()
    # mean of U{0..p-1} is (p-1)/2, sd p/sqrt(12); the mean of 4000 has sd p/sqrt(12*4000)
    sd = P / np.sqrt(12 * 4000)
    assert abs(draws.mean() - (P - 1) / 2) < 6 * sd
    # two independent draws differ (collision probability ~ 4000/2^31 per element)
    assert (draws != secure._uniform((4000,), None)).mean() > 0.99


def test_seeded_uniform_is_reproducible():
    a = secure._uniform((3, 5), np.random.default_rng(7))
    b = secure._uniform((3, 5), np.random.default_rng(7))
    assert a.shape == (3, 5) and (a == b).all()


def test_single_share_reveals_nothing_about_the_secret_statistically():
    # the first share of secret 0 and of secret p-1 come from the same uniform generator
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    a = share(np.zeros(500, dtype=np.int64), 3, rng_a)[0]
    b = share(np.full(500, P - 1, dtype=np.int64), 3, rng_b)[0]
    assert (a == b).all()


@settings(max_examples=30)
@given(st.integers(min_value=2, max_value=6), st.integers(min_value=1, max_value=4),
       st.integers(min_value=0, max_value=10_000))
def test_secure_sum_equals_the_plain_sum_within_encoding_error(n, k, seed):
    rng = np.random.default_rng(seed)
    m = rng.uniform(-50, 50, size=(n, k))
    total = secure_sum(m, np.random.default_rng(seed + 1))
    # each message loses < 1e-5 to truncation
    np.testing.assert_allclose(total, m.sum(axis=0), atol=n * 1e-5 + 1e-9)


def test_secure_sum_is_exact_on_the_grid():
    m = np.array([[0.12345, -7.5], [3.0, 2.25], [-1.00001, 0.0], [4.4, 1.0]])
    total = secure_sum(m, np.random.default_rng(0))
    expected = [sum(int(round(v * SCALE)) for v in m[:, j]) / SCALE for j in range(2)]
    np.testing.assert_allclose(total, expected, atol=1e-12)


def test_secure_sum_keeps_trailing_shape():
    m = np.arange(2 * 3 * 4, dtype=float).reshape(2, 3, 4) / 10
    total = secure_sum(m, np.random.default_rng(1))
    assert total.shape == (3, 4)
    np.testing.assert_allclose(total, m.sum(axis=0), atol=2e-5)


def test_transcript_is_consistent_with_the_protocol():
    m = np.array([[1.5, -2.0], [0.25, 4.0], [-3.0, 0.5]])
    total, tr = secure_sum(m, np.random.default_rng(5), transcript=True)
    n = 3
    assert tr.received.shape == (n, n, 2) and tr.broadcasts.shape == (n, 2)
    np.testing.assert_array_equal(tr.total, total)
    # row i of received: the shares of party i's secret, which sum to enc(m_i) mod p
    for i in range(n):
        assert (np.mod(tr.received[i].sum(axis=0), P) == enc(m[i])).all()
    # broadcast j: party j's received shares (column j) summed mod p
    for j in range(n):
        assert (tr.broadcasts[j] == np.mod(tr.received[:, j].sum(axis=0), P)).all()
    np.testing.assert_allclose(total, m.sum(axis=0), atol=1e-9)


def test_two_parties_reveal_the_partner_message_exactly():
    # the documented leak: with two parties, total - own message = the partner's message
    m = np.array([[2.5, -1.0], [7.25, 3.0]])
    total = secure_sum(m, np.random.default_rng(11))
    np.testing.assert_allclose(total - m[0], m[1], atol=1e-9)


def test_secure_sum_results_do_not_depend_on_the_share_randomness():
    m = np.array([[1.0, 2.0], [3.0, -4.0], [0.5, 0.5]])
    a = secure_sum(m, np.random.default_rng(1))
    b = secure_sum(m, np.random.default_rng(2))
    c = secure_sum(m)  # OS CSPRNG
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("m", [np.zeros((1, 3)), np.zeros((0, 2))])
def test_fewer_than_two_parties_is_refused_naming_agents(m):
    with pytest.raises(InputError) as err:
        secure_sum(m)
    assert err.value.field == "agents"


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_messages_are_refused(bad):
    m = np.array([[1.0, bad], [2.0, 3.0]])
    with pytest.raises(InputError) as err:
        secure_sum(m, np.random.default_rng(0))
    assert err.value.field == "messages"


def test_a_sum_beyond_the_encoding_range_is_refused():
    half = MAX_ABS_SUM / 2 + 1
    m = np.array([[half], [half]])
    with pytest.raises(InputError) as err:
        secure_sum(m, np.random.default_rng(0))
    assert err.value.field == "messages"
    assert "10737.41823" in err.value.problem


def test_large_messages_that_cancel_are_summed_correctly():
    # each message is near the limit but the sum is small: the encoding only needs |sum|
    m = np.array([[9000.0], [-8999.5]])
    total = secure_sum(m, np.random.default_rng(0))
    assert float(total[0]) == pytest.approx(0.5, abs=1e-9)


def test_a_sum_just_inside_the_range_decodes_correctly():
    m = np.array([[5000.0], [5000.0], [700.0]])
    total = secure_sum(m, np.random.default_rng(0))
    assert float(total[0]) == pytest.approx(10700.0, abs=1e-9)
    neg = secure_sum(-m, np.random.default_rng(0))
    assert float(neg[0]) == pytest.approx(-10700.0, abs=1e-9)
