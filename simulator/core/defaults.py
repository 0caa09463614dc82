"""Default numbers, each with its source. A scenario overrides any of them.

Where a default is an assumption without a public measurement it says so; the model notes
(docs/MODEL.md) list those assumptions too.
"""

from __future__ import annotations

import math

# Cloud VMs lose 5-10 % to virtualization (founding brief); the midpoint is the default.
# Bare metal and owned servers lose nothing.
VIRTUALIZATION_OVERHEAD = 0.075

# Share of a step an 8-GPU DDP job spends synchronising on InfiniBand HDR (founding brief: 8 %).
# A job class's comm_share is expressed on this reference link.
COMM_SHARE = 0.08
REFERENCE_LINK = "ib_hdr"

# Straight-line over 18-24 months (PRODUCT.md, founding brief's payback window); the upper end.
DEPRECIATION_MONTHS = 24

# Value left after 24 months: SpotWire vintage curve year 2 (0.60) x condition "used" (0.72)
# = 0.43 (spotwire.ai/data/valuator_data.json, 2026-06-04; shared costs.md section 5).
SALVAGE_FRACTION = 0.43

# Declining-balance factor: 2 = double-declining balance, the textbook default.
DECLINING_BALANCE_FACTOR = 2.0

# Uptime Institute global average PUE, 2023 survey (1.58; shared costs.md 2b).
PUE = 1.58
PUE_SOURCE = "Uptime Institute global average PUE, 2023 survey (1.58)"

# US industrial electricity, 2025 average: $0.0826/kWh (Epoch energy_price(), EIA; costs.md 2d).
ELECTRICITY_USD_PER_KWH = 0.0826

# CBRE North America wholesale colocation, H2 2024: $184.06 per kW per month (costs.md 2c).
COLOCATION_USD_PER_KW_MONTH = 184.06

# A GPU server draws 75 % of its maximum power during training (Epoch server_TDP_fraction()).
BUSY_POWER_FRACTION = 0.75

# ASSUMPTION: an idle GPU server draws 25 % of its maximum power. The closest measurements
# (shared/data/hardware/facility_power.csv, both low confidence, GPU only, no host): an idle H200
# drew 80 W of 593 W loaded (11 % of its 700 W TDP; a vendor benchmark page), a "hot idle" A100
# with a model loaded 147 W (37 % of 400 W; a self-published paper). 25 % lies between; read it as
# 11-37 % and override it with a measured figure where you have one.
IDLE_POWER_FRACTION = 0.25

# AWS bills Linux instances per second with a 60-second minimum per launch.
CLOUD_BILLING_INCREMENT_S = 1.0
CLOUD_BILLING_MINIMUM_S = 60.0

# Shared cloud instances are released after this many idle minutes: the Ray cluster launcher's
# default idle_timeout_minutes (docs.ray.io, "Cluster YAML Configuration Options").
IDLE_RELEASE_MINUTES = 5.0

# Spot interruptions. The Spot Instance Advisor gives, per type and region, the share of capacity
# reclaimed in the trailing month as a bucket (shared/data/aws README, section 6). Each bucket
# stands for its midpoint; the open bucket ">20%" for 25 % (a GUESS: the advisor gives no upper
# bound, and 276 of the 568 GPU rows sit in it). A share p of instances interrupted within a month
# of running is a Poisson rate of -ln(1 - p) per instance-month.
SPOT_BUCKET_SHARE = {"<5%": 0.025, "5-10%": 0.075, "10-15%": 0.125, "15-20%": 0.175, ">20%": 0.25}
HOURS_PER_MONTH = 730.0  # AWS's month of usage: 8,760 h / 12


# The bounds of each bucket, for the odds (which draw where in its bucket a type's rate sits):
# the advisor's own; the open ">20%" bucket taken up to 40 % (a GUESS, like its 25 % midpoint).
SPOT_BUCKET_RANGE = {
    "<5%": (0.0, 0.05),
    "5-10%": (0.05, 0.10),
    "10-15%": (0.10, 0.15),
    "15-20%": (0.15, 0.20),
    ">20%": (0.20, 0.40),
}


def spot_rate_per_month(bucket: str, quantile: float | None = None) -> float:
    """Interruptions per instance-month that an advisor bucket stands for (``quantile``: where
    in the bucket, 0 its low bound, 1 its high; None: the midpoint)."""
    share = SPOT_BUCKET_SHARE[bucket]
    if quantile is not None:
        low, high = SPOT_BUCKET_RANGE[bucket]
        share = low + quantile * (high - low)
    return -math.log1p(-share)


# On-demand price moves over a horizon, for the odds: AWS cut on-demand GPU prices once in
# June 2025, by 25 % (P5en) to 44 % (P5) (shared/data/aws/savings_plans_gpu_price_cuts_2025-06.csv,
# AWS News Blog 2025-06-05); no rise is on record. Such a cut at a random month of the horizon
# takes on average half of it off the total: a multiplier from 1 - 0.44/2 to 1, most likely 1.
ON_DEMAND_MOVE = (0.78, 1.0, 1.0)  # (low, mode, high) of a triangular multiplier

# Spot scarcity for the odds: the assumed capacity figures are guesses, taken from half to twice.
SPOT_SCARCITY_RANGE = (0.5, 2.0)

# Spot capacity at launch. ASSUMPTION: no public measurement of GPU spot capacity was found (the
# NSDI'24 "Can't Be Late" traces cover V100s and were not read; the Spot Placement Score is per
# account); what is known is that 8-GPU instances are the scarce ones. Per size of instance (up to
# this many GPUs): the chance a spot request finds no capacity, and the mean of the exponential
# wait for it then. The odds scale both (``kinds.market.Market.spot_scarcity``, 0.5-2x).
SPOT_CAPACITY = ((1, 0.05, 2.0), (4, 0.15, 4.0), (8, 0.40, 12.0))


def spot_capacity(gpus_per_instance: int) -> tuple[float, float]:
    """(chance a launch finds no capacity, mean wait in hours then) for an instance size."""
    for most, short, wait in SPOT_CAPACITY:
        if gpus_per_instance <= most:
            return short, wait
    return SPOT_CAPACITY[-1][1:]


# ASSUMPTION (no measurement in the research): a training job writes a checkpoint every hour of
# work and spends 10 minutes after an interruption getting a new instance and reloading. A write
# pauses the job for its checkpoint over the write bandwidth of the store it writes to. A
# checkpoint is one copy of the job's model state (a data-parallel job writes its replica once):
# its weights and optimizer states where the work is stated as a model, else one GPU's memory
# (memory_gb, an upper bound: activations are not saved). Set them to the job's figures.
CHECKPOINT_INTERVAL_HOURS = 1.0
RESTART_OVERHEAD_MINUTES = 10.0
# Write bandwidth a job gets, GB/s, by where it writes (a spot option's checkpoint_store):
CHECKPOINT_STORES: dict[str, tuple[float, str]] = {
    "object_store": (
        1.0,
        "ASSUMPTION: one instance's sustained upload to object storage (S3's performance"
        " guidelines allow up to 100 Gb/s an instance over many connections: a ceiling)",
    ),
    "shared_fs": (
        1.2,
        "FSx for Lustre Persistent-125's 125 MB/s a TiB provisioned (its tier's name,"
        " storage_prices.csv) on an ASSUMED 9.6 TiB file system",
    ),
    "local_nvme": (
        2.0,
        "ASSUMPTION: one NVMe instance-store SSD's sequential write, no measurement found",
    ),
}
CHECKPOINT_STORE = "object_store"
CHECKPOINT_WRITE_GB_PER_S = CHECKPOINT_STORES[CHECKPOINT_STORE][0]

# ASSUMPTION (training.memory): a GPU's memory not available to a training job's tensors: the
# CUDA context and libraries (0.5 GB; PyTorch's CUDA context alone takes a few hundred MB) and
# the caching allocator's fragmentation (10 % of what the job holds).
TRAINING_CONTEXT_GB = 0.5
TRAINING_FRAGMENTATION = 0.10

# Financing of owned servers. Rate: CoreWeave's OEM (vendor) financing, 9-10 % effective (10-Q
# Q2 2025, Note 10; shared/data/hardware/financing.csv), the midpoint; its GPU-backed and other
# debt ran 7-15 %. Term: 36 months, the short end of GPU sale-leasebacks (36-60 months,
# gpuleaseindex.com, marketing). Down payment 10 % and lease advance 5 %: midpoints of a GPU
# vendor's ranges (financing 0-20 % down, operating lease 0-10 % upfront; slyd.com, ~2026).
FINANCING_ANNUAL_RATE = 0.095
FINANCING_TERM_MONTHS = 36
LOAN_DOWN_PAYMENT = 0.10
LEASE_UPFRONT = 0.05

# GPU failures: Meta's Llama 3 pre-training cluster (16,384 H100, 54 days) saw 268 GPU-attributed
# unexpected interruptions: 0.303 per 1,000 GPU-days (The Llama 3 Herd of Models, Table 5; row
# "GPU-attributed interruptions" of shared/data/hardware/reliability.csv). Repair: 14 days, the
# short end of a server reseller's 2-4 week replacement lead time (same file, "warranty" row); a
# recoverable fault takes hours (Delta: a 19 h example), so this errs long.
GPU_FAILURES_PER_1000_GPU_DAYS = 0.303
REPAIR_DAYS = 14.0
# A whole server down (host, network, power; not the GPU): off unless asked for, as the public
# rates mix causes: all unexpected interruptions were 3.79 per 1,000 node-days on Llama 3's
# 8-GPU hosts, of which GPU-attributed ones are about 2.4; Meta RSC-1/RSC-2 node failure rates
# 6.50 and 2.34 (reliability.csv). Back after 19 h: NCSA Delta's one double-bit-error example of
# node downtime (same file; one example).
NODE_REPAIR_DAYS = 19.0 / 24.0
# A failed GPU's repair from a spare on site (cluster.failures). ASSUMPTIONS, no public
# measurement of either was found: the drain waits for the other jobs on the server to reach
# their next checkpoint (hourly by default, CHECKPOINT_INTERVAL_HOURS); the swap (power down,
# replace the module or board, burn-in test) takes the 4 h a 24x7x4 on-site support contract
# promises at most (reliability.csv, "warranty" row). The spare pool is sized so that 95 % of
# failures find a part (a textbook base-stock fill rate).
# Maintenance under a support contract (cluster.failures, maintenance: vendor): the vendor
# ships the part, next business day (the reseller terms of reliability.csv's "warranty" row:
# NBD, or 24x7x4 on-site at extra cost), 1.5 calendar days on average over a week with its
# weekend (ASSUMPTION from that term), then the part is swapped (SWAP_HOURS).
VENDOR_RESPONSE_DAYS = 1.5
DRAIN_HOURS = 1.0
SWAP_HOURS = 4.0
SPARE_STOCKOUT = 0.05
# A spare GPU's price: its server's price per GPU over Epoch AI's server/chip cost ratio 1.64
# (cost_analysis_standalone.py; shared costs.md section 1), the module without its share of the
# chassis.
SERVER_TO_CHIP_COST = 1.64

# What a seller of used GPU servers receives, as a share of the used market's price (what buyers
# pay: the fitted curves of pricing/used_market.py rest on sold prices and listings), and the
# months the sale takes, during which the servers keep losing value. SpotWire's valuator
# (spotwire.ai/data/valuator_data.json, CC-BY-4.0, as of 2026-06-04; shared costs.md section 5
# and gpu_price_history.csv; a model's factors, not measurements): through a broker over 90 days
# 0.85 of the market value, at auction in 30 days 0.65, distressed in 7 days 0.45. The default
# is the broker's channel. The odds draw the share from the auction's 0.65 to 0.95 (ASSUMPTION:
# a direct sale to a buyer keeps more, no source found) and the months from the auction's 1 to
# 6 (ASSUMPTION: a large lot in a slow market).
RESALE_RECEIVED_SHARE = 0.85
RESALE_RECEIVED_RANGE = (0.65, 0.85, 0.95)  # (low, mode, high) of a triangular draw
MONTHS_TO_SELL = 3.0
MONTHS_TO_SELL_RANGE = (1.0, 3.0, 6.0)
# Network gear (switches, cables, optics) resold: what a dealer pays falls exp(-0.76 a year).
# From one dealer's account (gocomsys.com, "Never accept the first trade-in price", undated,
# SECONDARY, low confidence): 120 48-port switches bought 2-3 years earlier at about 20 x $200
# = $4,000 each fetched about $600 from a dealer (0.15; the maker offered 0.05): ln(1/0.15) /
# 2.5 years = 0.76 a year (0.63-0.95 over the 2-3 years). A dealer's price is what the seller
# receives: no further spread. Epoch AI's cost model (Cottier et al. 2024, arXiv 2405.21015)
# amortises the cluster's interconnect (9-13 % of a frontier run's cost) with its accelerators;
# 0.19.0 resold none of it, so a cluster held for months lost its whole network.
NETWORK_RESALE_PER_YEAR = 0.76

# Bare metal is rented by the hour (PRODUCT.md): each rental is rounded up to whole hours.
BARE_METAL_BILLING_INCREMENT_S = 3600.0
BARE_METAL_BILLING_MINIMUM_S = 3600.0

# AWS Partial Upfront Savings Plans: at least half of the commitment is paid upfront.
PARTIAL_UPFRONT_FRACTION = 0.5

# EASY backfill looks at most this many queued jobs per pass: Slurm's bf_max_job_test default.
BACKFILL_DEPTH = 500

HOURS_PER_YEAR = 8760.0


# Where each default comes from, for the report's assumptions table.
SOURCES: dict[str, tuple[float, str]] = {
    "virtualization_overhead": (
        VIRTUALIZATION_OVERHEAD,
        "founding brief: cloud VMs lose 5-10 %; midpoint",
    ),
    "comm_share": (COMM_SHARE, "founding brief: 8-GPU DDP syncs 8 % of the time on InfiniBand HDR"),
    "depreciation_months": (DEPRECIATION_MONTHS, "PRODUCT.md / brief: 18-24 months; upper end"),
    "salvage_fraction": (
        SALVAGE_FRACTION,
        "SpotWire vintage curve y2 0.60 x 'used' 0.72 (2026-06-04)",
    ),
    "declining_balance_factor": (DECLINING_BALANCE_FACTOR, "double-declining balance (textbook)"),
    "pue": (PUE, "Uptime Institute global average, 2023 survey"),
    "electricity_usd_per_kwh": (ELECTRICITY_USD_PER_KWH, "US industrial average 2025 (Epoch, EIA)"),
    "colocation_usd_per_kw_month": (COLOCATION_USD_PER_KW_MONTH, "CBRE North America, H2 2024"),
    "busy_power_fraction": (BUSY_POWER_FRACTION, "Epoch server_TDP_fraction() for GPU servers"),
    "idle_power_fraction": (
        IDLE_POWER_FRACTION,
        "ASSUMPTION between GPU-only idle readings of 11 % (H200) and 37 % (A100 hot idle)",
    ),
    "cloud_billing_minimum_s": (CLOUD_BILLING_MINIMUM_S, "AWS per-second billing, 60 s minimum"),
    "idle_release_minutes": (IDLE_RELEASE_MINUTES, "Ray cluster launcher idle_timeout_minutes"),
    "checkpoint_interval_hours": (CHECKPOINT_INTERVAL_HOURS, "ASSUMPTION: hourly checkpoints"),
    "restart_overhead_minutes": (RESTART_OVERHEAD_MINUTES, "ASSUMPTION: new instance + reload"),
    "checkpoint_write_gb_per_s": (
        CHECKPOINT_WRITE_GB_PER_S,
        "ASSUMPTION: one copy of a job's model state written to object storage at 1 GB/s",
    ),
    "financing_annual_rate": (
        FINANCING_ANNUAL_RATE,
        "CoreWeave 10-Q Q2 2025: OEM financing 9-10 %",
    ),
    "financing_term_months": (FINANCING_TERM_MONTHS, "GPU sale-leasebacks run 36-60 months"),
    "gpu_failures_per_1000_gpu_days": (
        GPU_FAILURES_PER_1000_GPU_DAYS,
        "Llama 3 cluster: GPU-attributed interruptions, 16,384 H100",
    ),
    "repair_days": (REPAIR_DAYS, "the RMA: reseller replacement lead time 2-4 weeks, short end"),
    "response_days": (
        VENDOR_RESPONSE_DAYS,
        "ASSUMPTION: a support contract's next-business-day part (reseller terms), over a week",
    ),
    "node_repair_days": (NODE_REPAIR_DAYS, "NCSA Delta: 19 h of node downtime (one example)"),
    "drain_hours": (DRAIN_HOURS, "ASSUMPTION: the other jobs reach their hourly checkpoint"),
    "swap_hours": (SWAP_HOURS, "ASSUMPTION: within a 24x7x4 on-site contract's 4 h"),
    "bare_metal_billing_increment_s": (BARE_METAL_BILLING_INCREMENT_S, "rented by the hour"),
    "partial_upfront_fraction": (PARTIAL_UPFRONT_FRACTION, "AWS: at least half upfront"),
    "backfill_depth": (BACKFILL_DEPTH, "Slurm bf_max_job_test default"),
}
