"""The job's settings: those every workload reads, and each workload's own (declared here, light, so that the
CLI is made without importing the workloads' NumPy/pandas code)."""

from __future__ import annotations

from klinkctl import catalog
from klinkctl.options import Section, option

#: The workloads java-udfs declares (io.klink.workloads.Workloads, through the catalog).
WORKLOADS = catalog.workloads()
SLIDING = ("nyt", "lrb")
#: A workload's own defaults, under the file and the command line (NYT: DEBS-style 2 s windows sliding by 1 s;
#: LRB: the paper's segment statistics over 5 s sliding by 3 s; kMeans: 3 s tumbling windows, the thesis'; a
#: sampler's sub-streams must divide NYT's 1 s slide, so 500 ms there; lrb-segments: tumbling, as long as lrb's
#: statistics window).
WORKLOAD_DEFAULTS: dict[str, dict[str, int]] = {"nyt": {"window_ms": 2000, "slide_ms": 1000, "substream_ms": 500},
                                                "lrb": {"window_ms": 5000, "slide_ms": 3000},
                                                "kmeans": {"window_ms": 3000},
                                                "rides": {"window_ms": 2000},
                                                "average": {"window_ms": 1000},
                                                "bigrams": {"window_ms": 1000,
                                                            "payload_bytes": catalog.bigrams()["meanPostBytes"]},
                                                "lrb-segments": {"window_ms": 5000}}
#: Where a query's tasks run (JobOptions.placement).
PLACEMENTS = ("query", "split")
#: Workloads measured per record (no windows), with a tail-latency technique between their stages.
RECORD_WORKLOADS = ("exclamation", "ysb-records")
#: Per-record workloads whose stages drop records (YSB's filter): the sinks expect fewer than were sent.
FILTERING_WORKLOADS = ("ysb-records",)


#: The largest fetch per source klinkctl accepts: 16 of them fit the smallest TaskManager heap measured here.
MAX_SOURCE_FETCH_BYTES = 16 * 1024 * 1024
#: The most poll batches a source may hold ahead of its task (each up to Kafka's max.poll.records, 500 records).
MAX_SOURCE_READ_AHEAD = 4096


class JobOptions(Section):
    workload: str = option("ysb", "The benchmark workload.", choices=WORKLOADS)
    queries: int = option(1, "Independent query pipelines, each with its own topic.", gt=0)
    window_ms: int = option(10_000, "Window size (ysb: tumbling, the paper's variant 3s; nyt: sliding, 2s; lrb: the "
                            "sliding segment statistics, 5s; kmeans: tumbling, 3s; average, bigrams: tumbling, 1s; "
                            "lrb-segments: tumbling, 5s).", duration=True, gt=0)
    slide_ms: int = option(0, "Slide of sliding windows (lrb's toll window is as long); 0 = tumbling. "
                           "[nyt 1s; lrb 3s]", duration=True, ge=0, workloads=SLIDING)
    watermark_bound_ms: int = option(1000, "Bounded out-of-orderness B of the watermarks.", duration=True, ge=0)
    marker_interval_ms: int = option(200, "Blocking latency marker period per source; 0 = no markers (to "
                                     "measure their overhead).", duration=True, ge=0)
    watermark_interval_ms: int = option(200, "How often sources emit watermarks.", duration=True, gt=0)
    source_fetch_bytes: int = option(0, "Bytes a source's Kafka consumer fetches per request "
                                     "(max.partition.fetch.bytes); 0 = Kafka's default, 1 MiB. Whatever the fetch "
                                     "size, Flink's Kafka source holds at most 2 poll batches ahead of its task "
                                     "(see --source-read-ahead).",
                                     ge=0, le=MAX_SOURCE_FETCH_BYTES)
    source_read_ahead: int = option(0, "Poll batches (up to 500 records each) a source's Kafka fetcher may hold "
                                    "ahead of its task, so that a paused source keeps reading its backlog into the "
                                    "TaskManager (the paper's Flink 1.8 queues) rather than leaving it in Kafka; "
                                    "0 = Flink's Kafka source, which holds 2; N = klink's own source of the same "
                                    "topic with room for N. Its fetchers and the buffered backlog cost the "
                                    "TaskManager CPU: on a quarter core it made Default and Klink worse "
                                    "(docs/scheduler.md).", ge=0, le=MAX_SOURCE_READ_AHEAD)
    placement: str = option("query", "query: each query's pipeline together (one slot); split: pipelines span "
                            "TaskManagers, each receiving from one other, as distributed Klink (§4) assumes — bench: "
                            "the sources on one TaskManager, the windows and what follows on another (needs "
                            "`up --taskmanagers 2`); simulate: a query's source on its node, the rest on the next "
                            "(needs --nodes 2 or more).", choices=PLACEMENTS,
                            workloads=("ysb", "nyt", "lrb", "kmeans", "rides"))
    accuracy: bool = option(False, "Write error.csv: each window's relative error against exact results computed "
                            "from the generated events (always on with a sampler; ysb, nyt, kmeans).", flag=True)


class YsbOptions(Section):
    campaigns: int = option(100, "ysb: campaigns (window keys).", gt=0)
    ads_per_campaign: int = option(10, "ysb: ads per campaign.", gt=0)


class NytOptions(Section):
    data: str = option("", "Replay this DEBS 2015 trip CSV (17 columns; first 500 000 rows, cyclically) instead "
                       "of synthetic trips.", workloads=("nyt",))


class LrbOptions(Section):
    stressed: bool = option(False, "The toll window (the query's last) is a third of --slide, so its deadlines "
                            "come 3x as often (the paper's stressed LRB).", workloads=("lrb",), flag=True)
    accidents: float | None = option(None, "Accidents started per minute per query (seeded; 0 = none). [2]",
                                     workloads=("lrb", "lrb-segments"), ge=0, le=1000)


class KmeansOptions(Section):
    k: int = option(5, "Clusters each window's k-means finds.", workloads=("kmeans",), gt=0)
    kmeans_iterations: int = option(20, "Lloyd iterations per window at most.", workloads=("kmeans",), gt=0)


class TailOptions(Section):
    """The per-record pipelines (exclamation, ysb-records) and their tail-latency technique (seed
    tail-latency-storm-du-gupta.txt)."""
    tail: str = option("none", "Tail-latency technique: none = Flink's rebalance between the stages (the baseline), "
                       "rescale = Flink's rescale, adaptive = Flink 2.3's adaptive partitioner (FLIP-339; set for this job "
                       "only), latency-balance = Du & Gupta's Algorithm 2, replay = their "
                       "adaptive timeout with selective replay (Algorithm 1), replicate = blind replication of "
                       "--replicate-fraction of the records, shared-queue = a stage's tasks in one TaskManager share "
                       "one input queue (§3.2).", choices=catalog.tails,
                       workloads=RECORD_WORKLOADS)
    stages: int = option(3, "Operators after the spout, each behind its own exchange (the seed's 4-operator "
                         "exclamation topology: spout + 3; ysb-records has YSB's 4).", workloads=("exclamation",),
                         gt=0, le=20)
    stage_cost_us: int = option(200, "What each stage spends per record, microseconds (the mean for wall-exp).",
                                workloads=RECORD_WORKLOADS, ge=0, le=1_000_000)
    stage_cost_model: str = option("cpu", "How a stage spends --stage-cost-us: cpu = CPU time of the task's thread "
                                   "(a throttled TaskManager takes longer, as a slower machine would); wall = a "
                                   "wait on the wall clock, wall-exp = an exponentially distributed one, using no "
                                   "CPU: each task a server with a core of its own (the seed's M/M/c model, §3.2).",
                                   choices=catalog.stage_costs, workloads=RECORD_WORKLOADS)
    stage_speeds: str = option("", "Slower workers in the wall-clock server model: NUMBER=SPEED,... e.g. 2=0.5 "
                               "makes every wall or wall-exp service time on taskmanager-2 last 1/0.5 = 2x as long "
                               "(the seed's smaller VM, §5.1.3 scenario (c), without the CPU contention of a "
                               "--tm-quota). Speed in (0, 1]. [all 1]", workloads=RECORD_WORKLOADS)
    stall_every_ms: int = option(0, "Stalls: each stage task stops for --stall-length at random moments, on average "
                                 "this often (exponential gaps), as in a garbage-collection pause or a burst of an "
                                 "interfering process: a per-path straggler, the tail the seed's adaptive timeout "
                                 "replays around; 0 = never.", duration=True, workloads=RECORD_WORKLOADS, ge=0)
    stall_length_ms: int = option(100, "How long a stall (--stall-every) stops a stage task.", duration=True,
                                  workloads=RECORD_WORKLOADS, gt=0, le=60_000)
    stage_parallelism: int = option(4, "Tasks per stage (the seed: 5); the job needs this many slots.",
                                    workloads=RECORD_WORKLOADS, gt=0, le=64)
    buffer_timeout_ms: int = option(1, "How long a task's network buffer waits to fill before it is sent (Flink's "
                                    "execution.buffer-timeout); 0 = after every record. Flink's 100 ms default adds "
                                    "up to 100 ms per exchange at low rates, more than the tail being studied.",
                                    duration=True, workloads=RECORD_WORKLOADS, ge=0, le=1000)
    balance_period_ms: int = option(5000, "latency-balance: monitor period (the seed: 5 s).", duration=True,
                                    workloads=RECORD_WORKLOADS, gt=0)
    balance_alpha: float = option(0.5, "latency-balance: aging rate α of Wt = α·T + (1 − α)·Wt (the seed: 0.5).",
                                  workloads=RECORD_WORKLOADS, gt=0, le=1)
    balance_threshold: float = option(1.2, "latency-balance: slow/fast latency ratio above which a pair shifts "
                                      "traffic (the seed: 1.2).", workloads=RECORD_WORKLOADS, ge=1)
    balance_unit: float = option(0.01, "latency-balance: share of an upstream task's traffic one adjustment moves "
                                 "(the seed: 1 %).", workloads=RECORD_WORKLOADS, gt=0, le=1)

    replay_period_ms: int = option(1000, "replay: how often the adaptive timeout is set from the last period's "
                                   "latencies (the seed's Algorithm 1: 1 s).", duration=True,
                                   workloads=RECORD_WORKLOADS, gt=0)
    replicate_fraction: float = option(0.2, "replicate: fraction of the records the spout sends twice at once (the "
                                       "seed's blind replication baseline: 0.2, 0.5, 1).", workloads=RECORD_WORKLOADS,
                                       gt=0, le=1)

    @property
    def stage_speed_of(self) -> dict[int, float]:
        """--stage-speeds by TaskManager number; a malformed list or a speed outside (0, 1] is a KlinkError."""
        from klinkctl.stack.per_taskmanager import BadValue, finite_number, per_taskmanager

        def speed(text: str) -> float:
            value = finite_number(text)
            if not 0 < value <= 1:
                raise BadValue("a speed must be more than 0 and at most 1 (1 = unchanged)")
            return value
        return per_taskmanager(self.stage_speeds, "--stage-speeds", speed)


RIDES = ("rides",)


class RidesOptions(Section):
    """The AdCom ride aggregation (seed adcom-edbt21.txt, docs/combiner.md): the combiner before the shuffle and
    its PI controller (§3.2), the aggregate, the key skew."""
    combiner: str = option("none", "rides: pre-aggregation before the shuffle: none = every trip is shuffled, adcom "
                           "= AdCom's adaptive combiner (λ from the PI controller on the combiners' output-buffer "
                           "use, §3.2), local-global = the same combiner with a fixed --combiner-interval and "
                           "--combiner-max-records (two-phase aggregation), minibatch = Flink's Table API mini-batch "
                           "aggregation (table.exec.mini-batch.*, two phases: Flink's own local and global "
                           "aggregates) with the same fixed interval and count, its output a changelog (window "
                           "latency = last update at the output − window end, docs/combiner.md).",
                           choices=catalog.combiners,
                           workloads=RIDES)
    ride_aggregate: str = option("passengers", "rides: the aggregate per region and window: passengers = trips, "
                                 "passengers summed and the highest fare (distributive, §4.1's Q1); drivers = "
                                 "distinct drivers (not distributive: partials carry the drivers' set).",
                                 choices=catalog.ride_aggregates, workloads=RIDES)
    combiner_parallelism: int = option(2, "rides: parallel instances of the parse and combiner stage (the global "
                                       "window runs once per query).", workloads=RIDES, gt=0, le=16)
    combiner_interval_ms: int = option(500, "rides: the combiner's mini-batch interval λ: adcom's initial one (the "
                                       "paper starts at 500 ms, §4.2), local-global's fixed one (the paper's "
                                       "baseline: 3 s), minibatch's table.exec.mini-batch.allow-latency.", duration=True, workloads=RIDES, ge=20, le=60_000)
    combiner_max_records: int = option(0, "rides: the combiner also emits after this many trips (the paper's "
                                       "baseline: 3000; minibatch: table.exec.mini-batch.size, rows per "
                                       "aggregate instance); 0 = on the interval only.", workloads=RIDES, ge=0,
                                       le=100_000_000)
    adcom_band_low: float = option(0.5, "rides, adcom: lower end of the desired buffer utilisation ρ_d (§3.2: "
                                   "50-80 % of the network buffers); in (0, 1).", workloads=RIDES, gt=0, lt=1)
    adcom_band_high: float = option(0.8, "rides, adcom: upper end of ρ_d; in (0, 1), >= --adcom-band-low.",
                                    workloads=RIDES, gt=0, lt=1)
    adcom_kp: float = option(1000.0, "rides, adcom: proportional gain K_P, ms of λ per unit of error e(t) (Eq. 1; "
                             "the paper gives no value).", workloads=RIDES, ge=0, le=1e6)
    adcom_ki: float = option(500.0, "rides, adcom: integral gain K_I, ms of λ per unit of the last three errors' "
                             "sum (Eq. 2; the paper gives no value).", workloads=RIDES, ge=0, le=1e6)
    adcom_min_interval_ms: int = option(20, "rides, adcom: the shortest λ the controller sets.", duration=True,
                                        workloads=RIDES, ge=20, le=60_000)
    adcom_max_interval_ms: int = option(10_000, "rides, adcom: the longest λ the controller sets.", duration=True,
                                        workloads=RIDES, ge=20, le=600_000)
    adcom_period_ms: int = option(1000, "rides: the controller's period (Flink's REST metrics refresh once a "
                                  "second); local-global records the buffer use as often.", duration=True,
                                  workloads=RIDES, ge=200, le=60_000)
    regions: int = option(50, "rides: pick-up regions (the keys).", workloads=RIDES, gt=0, le=100_000)
    key_skew: float = option(0.0, "rides: Zipf exponent s of the regions' shares (0 = uniform; the issue's "
                             "0.5-1.5).", workloads=RIDES, ge=0, le=10)


#: The late-event workloads (io.klink.workloads.late.LateWindowJob): the Aion paper's micro-benchmarks and LRB's
#: segment statistics.
LATE = ("average", "bigrams", "lrb-segments")
#: Those whose generator writes a --payload-bytes payload (lrb-segments reads lrb's reports, which have none).
PAYLOADS = ("average", "bigrams")
#: The longest allowed lateness and m-bucket klinkctl accepts (a run keeps every window that long; an m-bucket
#: beyond it would not fit the TaskManager's heap anyway).
MAX_LATENESS_MS = 3_600_000
MAX_M_BUCKET_EVENTS = 10_000_000
#: io.klink.generator.AverageEventCodec.MAX_PAYLOAD_BYTES
MAX_PAYLOAD_BYTES = 60_000


class LateStateOptions(Section):
    """Late-event window state (seed aion-late-events-esteves.txt, docs/late-state.md): Flink's window operator on
    one of its state backends, or AION's m-buckets and p-buckets (§3.1-3.3)."""
    late_state: str = option("flink-heap", "Where windows keep their state for late events: flink-heap / "
                             "flink-rocksdb / flink-forst = Flink's window operator with allowedLateness on that "
                             "state backend (refused if the installed Flink lacks it); aion = AION's bounded "
                             "in-memory m-buckets and p-buckets on local disk (§3.1-3.3).", choices=catalog.late_states,
                             workloads=LATE)
    allowed_lateness_ms: int = option(10_000, "How long after its end a window still takes late events "
                                      "(Flink's allowedLateness; then its state is dropped); at most 1h.",
                                      duration=True, workloads=LATE, ge=0, le=MAX_LATENESS_MS)
    payload_bytes: int = option(0, "average: characters of payload per event, kept with it in the window state "
                                "(the paper's events are 1.5-3.5 KB; what makes the state large); 0 = none. bigrams: "
                                "a post's mean size in bytes (log-normal, σ = "
                                f"{catalog.bigrams()['postLengthSigma']} of its log; the paper's 3584), at least 1. "
                                f"[bigrams: {catalog.bigrams()['meanPostBytes']}]",
                                workloads=PAYLOADS, ge=0, le=MAX_PAYLOAD_BYTES)
    m_bucket_events: int = option(500_000, "aion: events a window keeps in memory before the rest goes "
                                  "to its p-bucket (§3.3; the paper's 500,000).", workloads=LATE, ge=1,
                                  le=MAX_M_BUCKET_EVENTS)
    rho_min: float = option(0.05, "aion: fraction ρ_min of a window's first events kept in memory when "
                            "it expires and is destaged (§3.2's bootstrap set); in [0, 1].", workloads=LATE, ge=0,
                            le=1)
    late_trigger: str = option("watermark", "aion: when a past window with new late events re-executes: "
                               "watermark = on the next watermark or tick; staleness = §3.4's trigger, at the "
                               "fewest executions keeping its staleness t·n/(T·N) within --staleness-bound over the "
                               "late arrivals of the windows already cleaned up, balanced; delta-t = the paper's "
                               "time-based baseline, every T/k (k = --late-executions); delta-ev = its count-based "
                               "one, each time another 1/k of the learned late arrivals is expected. A planned "
                               "execution without new late events is skipped.",
                               choices=catalog.late_triggers, workloads=LATE)
    late_executions: int = option(10, "aion, --late-trigger delta-t|delta-ev: executions k per window over its "
                                  "allowed lateness T, the last at T.", workloads=LATE, ge=1, le=1000)
    staleness_bound: float = option(0.05, "aion, --late-trigger staleness: the largest staleness "
                                    "t·n/(T·N) allowed between a window's executions; in (0, 1].", workloads=LATE,
                                    gt=0, le=1)
    prestaging: bool = option(True, "aion: §3.2's proactive caching: a past window's p-bucket is read back "
                              "one watermark interval plus its expected staging time (Δt, measured per event) "
                              "before its next execution is due (with the watermark trigger: as soon as it has new "
                              "late events), so the execution finds it in memory. --no-prestaging: read on demand "
                              "when it executes (the paper's ablation).",
                              workloads=LATE)
    destage_idle_ms: int = option(0, "aion: §3.2's local policy 2: destage a current window (all but its "
                                  "ρ_min bootstrap set) once it got neither an event nor a watermark for this long "
                                  "of processing time (τ); 0 = off.", duration=True, workloads=LATE, ge=0,
                                  le=MAX_LATENESS_MS)
    destage_scarce: float = option(0.0, "aion: §3.2's global policy: while the TaskManager's free heap (after "
                                   "its latest GC) is below this fraction, destage one current window per tick, in "
                                   "--destage-order; 0 = off.", workloads=LATE, ge=0, lt=1)
    destage_very_scarce: float = option(0.0, "aion: §3.2's global policy: while the free heap is below this "
                                        "fraction (the paper's example: 0.1), destage every current window; 0 = off; "
                                        "at most --destage-scarce when that is set.", workloads=LATE, ge=0, lt=1)
    destage_order: str = option("size", "aion, --destage-scarce: which window goes first: size = the "
                                "largest m-bucket (faster savings), rate = the slowest ingestion (least delay).",
                                choices=catalog.destage_orders, workloads=LATE)
    predictive_cleanup: float = option(0.0, "aion: §3.4's predictive cleanup: each new window is kept for "
                                       "the lateness covering this fraction of the late events observed (upper 95 % "
                                       "confidence bound, e.g. 0.99), at most --allowed-lateness (the conservative "
                                       "start); 0 = the fixed --allowed-lateness.", workloads=LATE, ge=0, lt=1)


class BigramsOptions(Section):
    """The bigrams workload's synthetic posts (io.klink.generator.BigramsEventCodec, which declares the defaults and
    limits; docs/workloads.md): words drawn from a Zipf law over a vocabulary."""
    vocabulary_size: int = option(catalog.bigrams()["vocabularySize"], "bigrams: words the posts are drawn from "
                                  "(rank k spelled in base 26: a, b, …, aa, …).", workloads=("bigrams",), ge=1,
                                  le=catalog.bigrams()["maxVocabularySize"])
    word_skew: float = option(catalog.bigrams()["wordSkew"], "bigrams: Zipf exponent s of the words' frequencies "
                              "(P(rank k) ∝ 1/k^s; 1 = Zipf's law of natural text, 0 = uniform).",
                              workloads=("bigrams",), ge=0, le=catalog.bigrams()["maxWordSkew"])


WORKLOAD_SECTIONS = (JobOptions, YsbOptions, NytOptions, LrbOptions, KmeansOptions, TailOptions, RidesOptions,
                     LateStateOptions, BigramsOptions)
