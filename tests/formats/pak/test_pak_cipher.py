"""Nadeo little-endian Blowfish-CBC with ivXor (gbxfs.formats.pak.cipher)."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pak_testkit import _rev, calc_ivxor_seed, reference_encrypt

from gbxfs.formats.pak.cipher import PAGE, PakKey, apply_folds, calc_ivxor, swap32
from gbxfs.formats.pak.stream import plain_range

# Standard (big-endian) Blowfish vectors (Schneier's ECB table).
VECTORS = [
    ("0000000000000000", "0000000000000000", "4EF997456198DD78"),
    ("FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFFF", "51866FD5B85ECB8A"),
    ("0123456789ABCDEF", "1111111111111111", "61F9C3802281B096"),
    ("FEDCBA9876543210", "0123456789ABCDEF", "0ACEAB0FC6A0A28D"),
]


@pytest.mark.parametrize("key,plain,cipher", VECTORS)
def test_little_endian_blowfish_matches_standard_vectors_with_reversed_words(key, plain, cipher):
    # docs/formats/pak.md: the LE cipher equals the standard one with each 4-byte group of key
    # and block reversed before and after; with IV 0 one CBC block is ECB.
    k, p, c = (bytes.fromhex(x) for x in (key, plain, cipher))
    enc = PakKey(_rev(k)).encrypter(bytes(8))
    assert enc.encrypt(_rev(p)) == _rev(c)
    dec = PakKey(_rev(k)).decrypter(bytes(8))
    assert dec.decrypt(_rev(c)) == _rev(p)


def test_swap32_reverses_each_group():
    assert swap32(b"\x01\x02\x03\x04\x05\x06\x07\x08") == b"\x04\x03\x02\x01\x08\x07\x06\x05"


@given(st.integers(0, (1 << 64) - 1), st.binary(max_size=40))
def test_calc_ivxor_is_the_seed_pseudo_code(start, data):
    assert calc_ivxor(start, data) == calc_ivxor_seed(start, data)


def test_calc_ivxor_known_values():
    # one byte from zero: (0 rotl 13) ^ (b | 0xAA)
    assert calc_ivxor(0, b"\x00") == 0xAA
    assert calc_ivxor(0, b"\xff") == 0xFF
    # a second byte rotates the first left by 13 bits
    assert calc_ivxor(0, b"\x00\x00") == (0xAA << 13) ^ 0xAA
    # the top bits wrap around to the bottom (64-bit rotation, not a shift)
    assert calc_ivxor(1 << 63, b"\x00") == (1 << 12) ^ 0xAA


def _encrypt_with_feeds(key: bytes, iv: bytes, plain: bytes, feeds: dict[int, bytes]):
    """Encrypt page by page, feeding `feeds[page]` before fetching that page."""
    enc = PakKey(key).encrypter(iv)
    out = bytearray()
    for at in range(0, len(plain), PAGE):
        if at in feeds:
            enc.feed(feeds[at])
        out += enc.encrypt(plain[at:at + PAGE])
    return bytes(out), dict(enc.folds)


@settings(max_examples=40, deadline=None)
@given(st.binary(min_size=16, max_size=16), st.integers(1, 12), st.data())
def test_encrypt_matches_reference_and_decrypt_inverts(key, pages, data):
    iv = data.draw(st.binary(min_size=8, max_size=8))
    n = pages * PAGE - data.draw(st.sampled_from([0, 8, 248]))
    plain = data.draw(st.binary(min_size=n, max_size=n))
    feed_pages = data.draw(st.sets(st.integers(0, pages - 1)))
    feeds = {p * PAGE: data.draw(st.binary(min_size=1, max_size=6)) for p in feed_pages}
    cipher, folds = _encrypt_with_feeds(key, iv, plain, feeds)
    # the fold happens at the first block of the fed page, with the accumulated value
    expected = {}
    for at, fed in feeds.items():
        v = calc_ivxor_seed(0, fed)
        if v and at < len(plain):
            expected[at] = v
    assert folds == expected
    assert cipher == reference_encrypt(key, iv, plain, expected)
    dec = PakKey(key).decrypter(iv)
    got = bytearray()
    for at in range(0, len(cipher), PAGE):
        if at in feeds:
            dec.feed(feeds[at])
        got += dec.decrypt(cipher[at:at + PAGE])
    assert bytes(got) == plain
    assert dec.folds == folds


def test_fold_changes_only_the_first_block_of_the_page():
    rnd = random.Random(1)
    key, iv = rnd.randbytes(16), rnd.randbytes(8)
    plain = rnd.randbytes(3 * PAGE)
    cipher = reference_encrypt(key, iv, plain, {})
    dec = PakKey(key).decrypter(iv)
    first = dec.decrypt(cipher[:PAGE])
    dec.feed(b"\x01\x02\x03\x04")
    rest = dec.decrypt(cipher[PAGE:])
    value = calc_ivxor_seed(0, b"\x01\x02\x03\x04")
    assert first == plain[:PAGE]
    diff = [i for i in range(2 * PAGE) if rest[i] != plain[PAGE + i]]
    assert diff and max(diff) < 8          # only the first block of page 1
    assert int.from_bytes(rest[:8], "little") ^ int.from_bytes(plain[PAGE:PAGE + 8], "little") == value
    assert dec.folds == {PAGE: value}


def test_fold_mid_fetch_lands_on_next_page_start():
    # a fetch that starts inside a page folds at the next page boundary it covers
    rnd = random.Random(2)
    key, iv = rnd.randbytes(16), rnd.randbytes(8)
    plain = rnd.randbytes(2 * PAGE)
    folds = {PAGE: calc_ivxor_seed(0, b"x")}
    cipher = reference_encrypt(key, iv, plain, folds)
    dec = PakKey(key).decrypter(iv)
    out = dec.decrypt(cipher[:64])
    dec.feed(b"x")
    out += dec.decrypt(cipher[64:])
    assert out == plain and dec.folds == folds


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 3000), st.integers(0, 700), st.data())
def test_plain_range_is_random_access_with_folds(offset, size, data):
    key = data.draw(st.binary(min_size=16, max_size=16))
    iv = data.draw(st.binary(min_size=8, max_size=8))
    plain = data.draw(st.binary(min_size=3000, max_size=3000))
    fold_pages = data.draw(st.sets(st.integers(0, 11)))
    folds = {p * PAGE: data.draw(st.integers(0, (1 << 64) - 1)) | 1 for p in fold_pages if p * PAGE < 3000}
    cipher = reference_encrypt(key, iv, plain, folds)
    blob = b"pad" + iv + cipher
    got = plain_range(lambda o, n: blob[o:o + n], PakKey(key), 3, len(cipher), offset, size,
                      sorted(folds.items()))
    assert got == plain[offset:offset + size]


def test_apply_folds_only_touches_blocks_in_range():
    plain = bytes(64)
    out = apply_folds(plain, 256, [(0, 5), (256 + 8, 0xFF), (400, 7)])
    assert out == bytes(8) + b"\xff" + bytes(55)


def test_key_length_checked():
    with pytest.raises(ValueError):
        PakKey(b"abc")
    with pytest.raises(ValueError):
        PakKey(bytes(60))


def test_threads_sharing_one_key_decrypt_what_each_would_alone():
    """A key's one ECB object serves every thread (its key schedule is only read):
    many threads decrypting different streams at once get each stream's own bytes."""
    from concurrent.futures import ThreadPoolExecutor
    rng = random.Random(7)
    key = PakKey(bytes(rng.randrange(256) for _ in range(16)))
    jobs = [(bytes(rng.randrange(256) for _ in range(8)), bytes(rng.randrange(256) for _ in range(8 * 4096)))
            for _ in range(64)]
    alone = [PakKey(key.key).cbc_decrypt(prev, cipher) for prev, cipher in jobs]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda job: key.cbc_decrypt(*job), jobs * 4))
    assert together == alone * 4
