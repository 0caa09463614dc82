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

    def add_servers(self, gpus: int) -> None:
        """A delivery: ``gpus`` / size new servers, every GPU free."""
        n, rest = divmod(gpus, self.size)
        if rest:
            raise ValueError(f"{gpus} GPUs are not whole servers of {self.size}")
        self.free.extend([self.size] * n)
        self.out.extend([0] * n)
        self.total_free += gpus

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
        return gpus

    def server_down(self, server: int, now: float) -> int:
        """The whole server fails (its jobs already stopped): its free GPUs leave; how many."""
        gone = self.free[server]
        self.down[server] = gone
        self._down_since[server] = now
        self.free[server] = 0
        self.total_free -= gone
        return gone

    def server_up(self, server: int, now: float) -> int:
        """The server is back with the GPUs in service: how many."""
        self._count_down(server, now)
        back = self.down.pop(server)
        del self._down_since[server]
        self.free[server] = back
        self.total_free += back
        return back

    def _count_down(self, server: int, now: float) -> None:
        self.down_gpu_h += self.down[server] * (now - self._down_since[server])
        self._down_since[server] = now

    def room(self) -> tuple[int, int]:
        """The most GPUs free on one server, and how many servers are wholly free."""
        return max(self.free, default=0), self.free.count(self.size)

    def may_hold(self, need: int, room: tuple[int, int]) -> bool:
        """False when ``place(need)`` surely finds nothing, given ``room()`` (a quick test)."""
        most, whole = room
        return need <= most if need <= self.size else need // self.size <= whole

    def place(self, need: int, free: list[int] | None = None) -> Allocation | None:
        """Where a job of ``need`` GPUs would run now (first fit), or None if nowhere; on
        ``free`` (a copy, for looking ahead) instead of the servers' own counts."""
        f = self.free if free is None else free
        size = self.size
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

    def take(self, alloc: Allocation) -> None:
        for s, n in alloc:
            self.free[s] -= n
            self.total_free -= n

    def release(self, alloc: Allocation) -> None:
        for s, n in alloc:
            if self.free[s] < 0 <= self.free[s] + n:
                self.in_debt -= 1
            self.free[s] += n
            self.total_free += n

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
        self.stranded_gpu_h += self._stranded * (now - self._since)
        self._since = now
        free = self.free_gpus()
        self._stranded = free if blocked_need is not None and free >= blocked_need else 0

    def close(self, horizon_h: float) -> float:
        """The GPU-hours idle by fragmentation up to the horizon."""
        for server in self.down:
            self._count_down(server, horizon_h)
        self.note(horizon_h, None)
        return self.stranded_gpu_h
