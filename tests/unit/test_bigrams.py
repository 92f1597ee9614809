"""The bigrams workload (docs/workloads.md, docs/late-state.md): its options and their one-line refusals, the
generator's arguments, and the harness's exact recomputation — the same digest of every window's bigram counts
that io.klink.workloads.late.Bigrams emits (BigramsTest has the same numbers) — checked against the final results
like average's."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from klinkctl import catalog
from klinkctl.cli import main
from klinkctl.errors import KlinkError
from klinkctl.run import late_state
from klinkctl.run.config import resolve
from klinkctl.workloads import bigrams, common


def naive_digest(posts: list[str]) -> tuple[int, int, int, int]:
    """Words, bigrams, distinct bigrams and digest by plain Python: the definition, spelled out."""
    def rank(word: str) -> int:
        value = 0
        for letter in word:
            value = value * 26 + ord(letter) - ord("a") + 1
        return value
    words = [[rank(w) for w in post.split()] for post in posts]
    counts = Counter((a << 24 | b) for post in words for a, b in zip(post, post[1:]))
    mask = (1 << 64) - 1
    total = 0
    for code, count in counts.items():
        z = (code * 0x9E3779B97F4A7C15 + count) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        total += z ^ (z >> 31)
    return sum(map(len, words)), sum(counts.values()), len(counts), total & ((1 << 53) - 1)


def test_the_digest_is_javas_and_pairs_words_within_a_post_only():
    # (a,b) x2, (b,a) x2, (a,zz) x1 — BigramsTest.countsAdjacentWordPairsWithinEachPostAndDigestsTheCounts
    assert bigrams.digest([b"a b a b", b"b a zz"]) == (7, 5, 3, 351157171146550)
    assert bigrams.digest([b"a b a b", b"b a zz"]) == naive_digest(["a b a b", "b a zz"])
    assert bigrams.digest([b""]) == (0, 0, 0, 0)
    assert bigrams.digest([b"zz", b"aaa"]) == (2, 0, 0, 0)  # one word per post: no bigram across posts
    ranks, starts = bigrams.word_ranks(np.frombuffer(b"a z aa zz aaa", dtype=np.uint8))
    assert ranks.tolist() == [1, 26, 27, 702, 703] and starts.tolist() == [0, 2, 4, 7, 10]


def test_the_vectorised_digest_matches_the_definition_on_random_posts():
    rng = np.random.default_rng(4)
    words = ["a", "b", "zz", "abc", "zzzzz", "q"]
    posts = [" ".join(rng.choice(words, size=rng.integers(1, 40))) for _ in range(200)]
    assert bigrams.digest([p.encode() for p in posts]) == naive_digest(posts)


def test_options_default_to_the_papers_post_size_and_a_zipf_vocabulary():
    config = resolve(None, {"workload": "bigrams"})
    model = catalog.bigrams()
    assert (config.payload_bytes, config.vocabulary_size, config.word_skew, config.window_ms) == (
        3584, model["vocabularySize"], model["wordSkew"], 1000)
    assert config.measures_accuracy  # results.csv and exact.csv are always written
    config = resolve(None, {"workload": "bigrams", "late_state": "aion", "vocabulary_size": 1000, "word_skew": 0.8,
                            "payload_bytes": 500, "allowed_lateness": "2s"})
    assert bigrams.generator_args(config) == ["--workload", "bigrams", "--payload-bytes", "500",
                                              "--vocabulary-size", "1000", "--word-skew", "0.8"]
    with pytest.raises(KlinkError, match="--vocabulary-size applies to the bigrams workload only, not average"):
        resolve(None, {"workload": "average", "vocabulary_size": 10})


def test_the_job_config_is_the_late_window_jobs_with_its_own_builder(tmp_path: Path):
    config = resolve(None, {"workload": "bigrams", "late_state": "aion", "allowed_lateness": "3s"})
    job = json.loads(bigrams.write_job_config(common.plan(config, "r1"), config, "localhost:1", tmp_path).read_text())
    assert job["builder"] == "io.klink.workloads.late.BigramsJob"
    assert (job["lateState"], job["allowedLatenessMs"], job["windowMs"]) == ("aion", 3000, 1000)


@pytest.mark.parametrize("option, value, message", [
    ("--vocabulary-size", "0", "--vocabulary-size must be at least 1"),
    ("--vocabulary-size", "2000000", "--vocabulary-size must be at most"),
    ("--word-skew", "-1", "--word-skew"),
    ("--word-skew", "11", "--word-skew"),
    ("--payload-bytes", "0", "bigrams posts need a mean size of at least 1 byte"),
    ("--sampler", "aion", "--sampler does not apply to the bigrams workload"),
])
def test_bad_bigrams_input_is_one_line_and_starts_nothing(tmp_path, option, value, message):
    state = tmp_path / "state"
    result = CliRunner().invoke(main, ["bench", "bigrams", "--state-dir", str(state), option, value])
    assert result.exit_code != 0
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert message in result.output
    assert not state.exists()


def test_exact_results_digest_each_window_and_key_and_mark_the_checked_windows():
    config = resolve(None, {"workload": "bigrams", "allowed_lateness": "1s", "watermark_bound": "100ms"})
    values = [b"w1,4,a b a b,100", b"w2,2,c d,200", b"w1,3,b a zz,900", b"w1,2,a b,1500", b"#progress,2050",
              b"w1,x,bad,100"]
    exact = bigrams.exact_results(values, config, None, 0)
    assert exact.to_dict("records") == [
        {"window_end": 1000, "key": "w1", "exact": 5.0, "events": 2, "words": 7, "bigrams": 5, "distinct_bigrams": 3,
         "digest": 351157171146550, "checked": True},
        {"window_end": 1000, "key": "w2", "exact": 1.0, "events": 1, "words": 2, "bigrams": 1, "distinct_bigrams": 1,
         "digest": naive_digest(["c d"])[3], "checked": True},
        {"window_end": 2000, "key": "w1", "exact": 1.0, "events": 1, "words": 2, "bigrams": 1, "distinct_bigrams": 1,
         "digest": naive_digest(["a b"])[3], "checked": False}]  # the last watermark, 1949, may never reach 1999


def results_rows(rows):
    return pd.DataFrame([{"query": "q00", "window_end": end, "key": key, "value": int(fields[0]), "weight": 1.0,
                          "fields": json.dumps(fields)} for end, key, fields in rows])


def test_the_final_execution_must_match_every_digest_field():
    exact = pd.DataFrame([{"query": "q00", "window_end": 1000, "key": "w1", "exact": 5.0, "events": 2, "words": 7,
                           "bigrams": 5, "distinct_bigrams": 3, "digest": 351157171146550, "checked": True}])
    right = [2, 7, 5, 3, 351157171146550.0]
    report = late_state.verdict(results_rows([(1000, "w1", [1, 4, 3, 2, 99.0, 1, 0]), (1000, "w1", [*right, 2, 1])]),
                                exact, workload="bigrams")
    assert (report["windows_checked"], report["windows_equal"], report["late_accepted"]) == (1, 1, 1)
    wrong = late_state.verdict(results_rows([(1000, "w1", [2, 7, 5, 3, 351157171146551.0, 2, 1])]), exact,
                               workload="bigrams")
    assert (wrong["windows_equal"], wrong["all_checked_equal"]) == (0, False)
    assert wrong["mismatches"][0]["digest"] == 351157171146551.0
    assert wrong["mismatches"][0]["exact_digest"] == 351157171146550.0
    errors = bigrams.window_errors(results_rows([(1000, "w1", [2, 7, 4, 3, 1.0, 2, 1])]), exact)
    assert errors["relative_error"].tolist() == [0.2]  # one bigram of five missing
