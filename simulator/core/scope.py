"""What the model leaves out, said once: the HTML and Markdown reports list it, and
docs/MODEL.md's "Left out" section holds the same lines (a test keeps them equal)."""

from __future__ import annotations

LEFT_OUT: tuple[str, ...] = (
    "Income tax: a loss carried forward (and the 80 % limit on using it); profit is taken to"
    " absorb every deduction the year it arises.",
    "Software licences, and the cost of people waiting for GPUs (waits are reported, not priced).",
    "Failures of the network beyond a rack (a spine switch, a cable) that cut servers off from"
    " each other.",
    "Network topology within a cluster: a job on several servers runs at the inter-node link's"
    " speed whichever servers it gets.",
    "A cluster of mixed GPU generations with a refresh or placed as a pool.",
    "A China region (AWS quotes it in CNY) reported in a currency other than CNY: its prices"
    " convert at the reporting currency's rate only; the bundled snapshot has no China prices"
    " (live or cached prices only).",
    "A quota on a fleet, on shared instances or on spot; interruptions of shared instances.",
    "The free first hour some third parties claim for spot instances AWS interrupts (no AWS"
    " source).",
    "Regional storage and egress prices: us-east-1's are applied everywhere.",
    "Savings Plan or reserved rates outside us-east-1 and us-west-2 when offline.",
    "Carbon: hourly grid intensity (annual averages are used), market-based accounting"
    " (renewable purchases, PPAs), and the energy of networks, storage and data transfer.",
)
