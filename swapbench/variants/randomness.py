"""Per-example randomness: each example's generator depends only on the seed, the variant and the pairID."""

from __future__ import annotations

import functools
import hashlib
import math

from ..parsing.base import can_reorder


def example_rng(seed: int, pair_id: str, variant: str) -> ExampleRandom:
    """The generator of one example: it depends only on the seed, the pair and the variant, so the order in which
    pairs are perturbed, and any parallelism, change nothing."""
    return ExampleRandom(f"{seed}\x00{variant}\x00{pair_id}".encode())


class ExampleRandom:
    """Exactly uniform draws from BLAKE2b hashes of (key, block number), the key naming one example.

    Creating one costs nothing and a hash gives 64 bytes, enough for several draws, where seeding a Mersenne
    Twister per example and variant cost more than the shuffles themselves. A number below m is read from m's bit
    length plus 32 fresh bits and drawn again when it falls in the incomplete last block (a chance below 2**-32),
    so every draw is exactly uniform and independent of the others."""

    __slots__ = ("_key", "_blocks", "_pool", "_at")

    def __init__(self, key: bytes):
        self._key = key
        self._blocks = 0
        self._pool = b""
        self._at = 0

    def below(self, m: int) -> int:
        """A uniform integer in [0, m)."""
        if m < 1:
            raise ValueError(f"below({m}): m must be at least 1")
        size, limit = _draw_shape(m)
        value = int.from_bytes(self._bytes(size), "little")
        while value >= limit:
            value = int.from_bytes(self._bytes(size), "little")
        return value % m

    def permutation(self, n: int) -> list[int]:
        """A uniform order of range(n): one number below n!, read digit by digit as a Fisher-Yates shuffle."""
        code = self.below(_factorial(n))
        return list(_orders(n)[code]) if n <= _TABLED else _decode(code, n)

    def _bytes(self, size: int) -> bytes:
        """The next `size` unread bytes of the hash stream."""
        at, end = self._at, self._at + size
        if end > len(self._pool):
            pool = self._pool[at:]
            while len(pool) < size:
                pool += self._block()
            self._pool, at, end = pool, 0, size
        self._at = end
        return self._pool[at:end]

    def _block(self) -> bytes:
        # The block's number comes first, in fixed width, so no two (key, block) hash the same input.
        block = self._blocks.to_bytes(8, "little")
        self._blocks += 1
        return _blake2b(block + self._key).digest()


def _decode(code: int, n: int) -> list[int]:
    """The order of range(n) that a number below n! stands for, its digits in bases 2..n the Fisher-Yates draws."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        code, j = divmod(code, i + 1)
        order[i], order[j] = order[j], order[i]
    return order


_TABLED = 6  # orders of up to 6 words are looked up (720 of them), not decoded: shuffle-3 to -5 draw most


@functools.cache
def _orders(n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(_decode(code, n)) for code in range(_factorial(n)))


@functools.lru_cache(maxsize=4096)
def _draw_shape(m: int) -> tuple[int, int]:
    """The bytes a draw below m reads (m's bits and 32 more) and the bound under which a value is kept."""
    size = (m.bit_length() + 32 + 7) // 8
    span = 1 << (8 * size)
    return size, span - span % m


_blake2b = hashlib.blake2b
_factorial = functools.cache(math.factorial)


def changed_order(folded: tuple[str, ...], rng: ExampleRandom, max_tries: int = 1000) -> list[int] | None:
    """A uniformly drawn order of the words `folded` (casefolded) that reads differently, or None if none can.

    Case is ignored so that an uncased model never sees an unchanged sentence ("The the" -> "the The"). Drawing
    until the sequence changes samples uniformly among the orders that change it; with two or more distinct words
    at least half of all orders do, so the loop ends fast.
    """
    if not can_reorder(folded):
        return None
    items = list(folded)
    for _ in range(max_tries):
        order = rng.permutation(len(items))
        if [items[k] for k in order] != items:
            return order
    return None
