"""bigrams: the Aion paper's second micro-benchmark (seed aion-late-events-esteves.txt §5; docs/workloads.md,
docs/late-state.md): per key and window the count of every bigram (two adjacent words of one post) over synthetic
posts, in the same late-event windows as `average` (klinkctl.workloads.late_windows). The generator's arguments and
each window's exact result recomputed from the input topic: posts, words, bigrams, distinct bigrams and the digest
of the counts that io.klink.workloads.late.Bigrams emits."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl.run.config import RunSpec
from klinkctl.workloads import common, late_windows

JAVA_BUILDER = "io.klink.workloads.late.BigramsJob"
event_time = common.last_column_event_time  # w<key>,<words>,<post>,event_time
#: exact_results gets the generator's progress lines too: they move the watermark that drops late events.
READS_PROGRESS = True
#: io.klink.workloads.late.Bigrams.fields, then LateResults.EXECUTION_FIELDS.
DIGEST_FIELDS = ["posts", "words", "bigrams", "distinct_bigrams", "digest"]
FIELDS = [*DIGEST_FIELDS, *late_windows.EXECUTION_FIELDS]
#: Every field of the digest must be exact (exact.csv has the posts as `events`).
CHECKS = {"posts": "events", **{field: field for field in DIGEST_FIELDS[1:]}}
#: Bigrams.RANK_BITS and Bigrams.DIGEST_MASK.
RANK_BITS, DIGEST_MASK = 24, (1 << 53) - 1
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))

write_job_config = partial(late_windows.write_job_config, builder=JAVA_BUILDER)


def generator_args(config: RunSpec) -> list[str]:
    return ["--workload", "bigrams", "--payload-bytes", str(config.payload_bytes),
            "--vocabulary-size", str(config.vocabulary_size), "--word-skew", repr(config.word_skew)]


def word_ranks(text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per word (a maximal run of a-z in the bytes `text`) the rank it spells in bijective base 26 (a = 1,
    aa = 27), and the index of its first byte."""
    letter = (text >= ord("a")) & (text <= ord("z"))
    starts = letter & ~np.concatenate(([False], letter[:-1]))
    word = np.cumsum(starts)[letter] - 1  # each letter's word
    length = np.bincount(word, minlength=int(starts.sum()))
    last = np.cumsum(length) - 1  # each word's last letter, among the letters
    place = np.power(26.0, last[word] - np.arange(len(word)))
    ranks = np.bincount(word, weights=(text[letter] - (ord("a") - 1)) * place, minlength=len(length))
    return ranks.astype(np.int64), np.flatnonzero(starts)


def mix(bigrams: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Bigrams.mix: golden-ratio multiply, then the SplitMix64 finaliser, in wrapping 64-bit arithmetic."""
    with np.errstate(over="ignore"):
        z = bigrams.astype(np.uint64) * _MIX[0] + counts.astype(np.uint64)
        z = (z ^ (z >> np.uint64(30))) * _MIX[1]
        z = (z ^ (z >> np.uint64(27))) * _MIX[2]
        return z ^ (z >> np.uint64(31))


def digest(posts: list[bytes]) -> tuple[int, int, int, int]:
    """Words, bigrams, distinct bigrams and the digest (the sum of mix(bigram, count) modulo 2^53) of the posts,
    as io.klink.workloads.late.Bigrams computes them: pairs of adjacent words within one post."""
    text = np.frombuffer(b"\n".join(posts), dtype=np.uint8)
    if not text.size:
        return 0, 0, 0, 0
    ranks, starts = word_ranks(text)
    post = np.cumsum(text == ord("\n"))[starts]  # each word's post
    same_post = post[:-1] == post[1:]
    codes = (ranks[:-1] << RANK_BITS | ranks[1:])[same_post]
    unique, counts = np.unique(codes, return_counts=True)
    total = int(mix(unique, counts).sum(dtype=np.uint64)) if len(unique) else 0  # wraps modulo 2^64
    return len(ranks), int(counts.sum()), len(unique), total & DIGEST_MASK


def exact_results(values: Iterable[bytes], config: RunSpec, run_dir: Path, window_offset_ms: int) -> pd.DataFrame:
    """Per window and key over every post of the input topic: events = posts, exact = bigrams, the words, distinct
    bigrams and digest; and checked (late_windows.windowed)."""
    frame, checked = late_windows.windowed(late_windows.events(values, payload=True), config, window_offset_ms)
    rows = [(end, key, len(posts), *digest(posts.tolist()))
            for (end, key), posts in frame.groupby(["window_end", "key"])["payload"]]
    table = pd.DataFrame(rows, columns=["window_end", "key", "events", "words", "bigrams", "distinct_bigrams",
                                        "digest"])
    table = late_windows.with_checked(table.assign(exact=table["bigrams"].astype(float)), checked)
    return table[["window_end", "key", "exact", "events", "words", "bigrams", "distinct_bigrams", "digest", "checked"]]


#: Per window: |final emitted bigrams − exact| + |posts − exact posts| over keys, relative to the exact bigrams.
window_errors = late_windows.relative_errors(FIELDS, CHECKS, total="bigrams", count="posts")
