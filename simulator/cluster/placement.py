"""Jobs placed on servers: which GPUs of which server a gang job takes.

A job of up to one server's GPUs runs inside one server; a larger job takes whole free servers
plus one server for the remainder. Servers are tried in order, first fit (Slurm's default
``select/cons_tres`` order without topology, and Starburst's placement). A pool would start a
job whenever enough GPUs are free anywhere; on servers the free GPUs may be scattered so that
none can hold it: *fragmentation*. :class:`Servers` keeps the free GPUs per server and counts
the GPU-hours left idle that way (:attr:`Servers.stranded_gpu_h`).

A GPU that fails leaves its server (its count of free GPUs may go below zero while a job still
runs on it; the job's GPUs come back to the server when it ends, paying the debt), and comes
back when repaired. Capacity changes name their server; a delivery adds whole new servers.

First fit is found without scanning the servers: for each count of free GPUs the servers that
have exactly that many are one bit set each in an integer (bit ``s`` for server ``s``), so "the
first server with at least ``need`` free" is the lowest bit of the union of the counts from
``need`` up, a few integer operations whatever the number of servers.
"""

from __future__ import annotations

Allocation = list[tuple[int, int]]  # (server, GPUs taken)


class Servers:
    """Free GPUs per server of ``size`` GPUs each."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a server has at least one GPU")
        self.size = size
        self.free: list[int] = []
        self.out: list[int] = []  # GPUs out of service (failed, in repair) per server
        self.total_free = 0
        self.in_debt = 0  # servers with a failed GPU still under a job (free below zero)
        self.down: dict[int, int] = {}  # servers down whole: GPUs to give back when up
        self.down_gpu_h = 0.0  # GPU-hours of servers down whole
        self._down_since: dict[int, float] = {}
        self.stranded_gpu_h = 0.0
        self._stranded = 0  # GPUs idle by fragmentation since _since
        self._since = 0.0
        # with[v]: bit s set when server s has exactly v free GPUs (1 <= v <= size)
        self.with_free = [0] * (size + 1)

    def _moved(self, server: int, before: int, after: int) -> None:
        """Server ``server``'s free GPUs went from ``before`` to ``after`` (the index)."""
        bit, at = 1 << server, self.with_free
        if before > 0:
            at[before] ^= bit
        if after > 0:
            at[after] |= bit

    def add_servers(self, gpus: int) -> None:
        """A delivery: ``gpus`` / size new servers, every GPU free."""
        n, rest = divmod(gpus, self.size)
        if rest:
            raise ValueError(f"{gpus} GPUs are not whole servers of {self.size}")
        first = len(self.free)
        self.free.extend([self.size] * n)
        self.out.extend([0] * n)
        self.total_free += gpus
        self.with_free[self.size] |= ((1 << n) - 1) << first

    def change(self, server: int, gpus: int, now: float = 0.0) -> int:
        """GPUs leaving (negative: a failure) or coming back to (a repair) ``server``; the
        change in free GPUs (none while the server is down whole: they come back with it)."""
        if server in self.down:
            self._count_down(server, now)
            self.down[server] += gpus
            self.out[server] -= gpus
            return 0
        before = self.free[server]
        self.free[server] += gpus
        self.out[server] -= gpus
        self.total_free += gpus
        self.in_debt += (self.free[server] < 0) - (before < 0)
        self._moved(server, before, self.free[server])
        return gpus

    def server_down(self, server: int, now: float) -> int:
        """The whole server fails (its jobs already stopped): its free GPUs leave; how many."""
        gone = self.free[server]
        self.down[server] = gone
        self._down_since[server] = now
        self.free[server] = 0
        self.total_free -= gone
        self._moved(server, gone, 0)
        return gone

    def server_up(self, server: int, now: float) -> int:
        """The server is back with the GPUs in service: how many."""
        self._count_down(server, now)
        back = self.down.pop(server)
        del self._down_since[server]
        self.free[server] = back
        self.total_free += back
        self._moved(server, 0, back)
        return back

    def _count_down(self, server: int, now: float) -> None:
        self.down_gpu_h += self.down[server] * (now - self._down_since[server])
        self._down_since[server] = now

    def room(self) -> tuple[int, int]:
        """The most GPUs free on one server, and how many servers are wholly free."""
        at = self.with_free
        most = next((v for v in range(self.size, 0, -1) if at[v]), 0)
        if not most and self.free:
            most = max(self.free)  # none free anywhere: the largest count (0, or a debt)
        return most, at[self.size].bit_count()

    def _at_least(self, need: int) -> int:
        """The servers with at least ``need`` free GPUs, as bits."""
        at, bits = self.with_free, 0
        for v in range(max(need, 1), self.size + 1):
            bits |= at[v]
        return bits

    def may_hold(self, need: int, room: tuple[int, int]) -> bool:
        """False when ``place(need)`` surely finds nothing, given ``room()`` (a quick test)."""
        most, whole = room
        return need <= most if need <= self.size else need // self.size <= whole

    def place(self, need: int, free: list[int] | None = None) -> Allocation | None:
        """Where a job of ``need`` GPUs would run now (first fit), or None if nowhere; on
        ``free`` (a copy, for looking ahead) instead of the servers' own counts."""
        if free is None:
            return self.place_here(need)
        f, size = free, self.size
        if need <= size:
            for s, n in enumerate(f):
                if n >= need:
                    return [(s, need)]
            return None
        whole, rest = divmod(need, size)
        taken: Allocation = []
        for s, n in enumerate(f):
            if n == size:
                taken.append((s, size))
                if len(taken) == whole:
                    break
        if len(taken) < whole:
            return None
        if rest:
            used = {s for s, _ in taken}
            part = next((s for s, n in enumerate(f) if n >= rest and s not in used), None)
            if part is None:
                return None
            taken.append((part, rest))
        return taken

    def place_here(self, need: int) -> Allocation | None:
        """``place`` on the servers' own counts, by the index (the same first fit)."""
        size = self.size
        if need <= size:
            bits = self._at_least(need)
            return [((bits & -bits).bit_length() - 1, need)] if bits else None
        whole, rest = divmod(need, size)
        left = self.with_free[size]
        if left.bit_count() < whole:
            return None
        taken: Allocation = []
        for _ in range(whole):
            low = left & -left
            taken.append((low.bit_length() - 1, size))
            left ^= low
        if rest:
            used = self.with_free[size] ^ left
            bits = self._at_least(rest) & ~used
            if not bits:
                return None
            taken.append(((bits & -bits).bit_length() - 1, rest))
        return taken

    def take(self, alloc: Allocation) -> None:
        free = self.free
        for s, n in alloc:
            before = free[s]
            free[s] = before - n
            self.total_free -= n
            self._moved(s, before, before - n)

    def release(self, alloc: Allocation) -> None:
        free = self.free
        for s, n in alloc:
            before = free[s]
            if before < 0 <= before + n:
                self.in_debt -= 1
            free[s] = before + n
            self.total_free += n
            self._moved(s, before, before + n)

    def free_gpus(self) -> int:
        """GPUs free now (a server in debt counts none, not fewer than none)."""
        if self.in_debt:
            return sum(n for n in self.free if n > 0)
        return self.total_free

    def note(self, now: float, blocked_need: int | None) -> None:
        """After a scheduling pass at ``now``: the job at the head of the queue needs
        ``blocked_need`` GPUs and could not be placed (None: nobody waits, or the head
        started). If a pool of the same free GPUs would have started it, those free GPUs are
        idle by fragmentation until the next pass."""
        if self._stranded:
            self.stranded_gpu_h += self._stranded * (now - self._since)
        elif blocked_need is None:
            return  # none stranded before or now: nothing to count (the common pass)
        self._since = now
        free = self.free_gpus()
        self._stranded = free if blocked_need is not None and free >= blocked_need else 0

    def close(self, horizon_h: float) -> float:
        """The GPU-hours idle by fragmentation up to the horizon."""
        for server in self.down:
            self._count_down(server, horizon_h)
        self.note(horizon_h, None)
        return self.stranded_gpu_h
