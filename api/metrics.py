"""Prometheus text exposition of the service's counters, latencies and queue gauges (no client library)."""

from __future__ import annotations

import threading
import time
from collections import defaultdict

#: Upper bounds (seconds) of the request latency histogram.
BUCKETS: tuple[float, ...] = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _labels(**kw: str) -> str:
    inner = ",".join(f'{k}="{str(v).replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
                     for k, v in kw.items())
    return "{" + inner + "}" if inner else ""


class Metrics:
    """Thread-safe request and job counters of one server process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.started = time.time()
        self.requests: dict[tuple[str, str, int], int] = defaultdict(int)
        self.latency_counts: dict[str, list[int]] = defaultdict(lambda: [0] * (len(BUCKETS) + 1))
        self.latency_sum: dict[str, float] = defaultdict(float)
        self.submitted: dict[str, int] = defaultdict(int)
        self.refused: dict[str, int] = defaultdict(int)

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one finished request."""
        with self._lock:
            self.requests[(method, route, status)] += 1
            counts = self.latency_counts[route]
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    counts[i] += 1
                    break
            else:
                counts[-1] += 1
            self.latency_sum[route] += seconds

    def job_submitted(self, kind: str) -> None:
        """Count an accepted job."""
        with self._lock:
            self.submitted[kind] += 1

    def job_refused(self, reason: str) -> None:
        """Count a refused job (queue_full, ...)."""
        with self._lock:
            self.refused[reason] += 1

    def render(self, jobs: dict[str, int], queue_limit: int, workers: int, workers_alive: int,
               restarts: int) -> str:
        """The exposition text, with the job-store gauges passed in."""
        out: list[str] = []

        def family(name: str, kind: str, about: str) -> None:
            out.append(f"# HELP {name} {about}")
            out.append(f"# TYPE {name} {kind}")

        with self._lock:
            family("seed3d_http_requests_total", "counter", "HTTP requests by method, route and status.")
            for (method, route, status), n in sorted(self.requests.items()):
                out.append(f"seed3d_http_requests_total{_labels(method=method, route=route, status=str(status))} {n}")
            family("seed3d_http_request_duration_seconds", "histogram", "HTTP request latency by route.")
            for route, counts in sorted(self.latency_counts.items()):
                acc = 0
                for bound, n in zip((*BUCKETS, float("inf")), counts, strict=True):
                    acc += n
                    le = "+Inf" if bound == float("inf") else repr(bound)
                    out.append(f"seed3d_http_request_duration_seconds_bucket{_labels(route=route, le=le)} {acc}")
                out.append(f"seed3d_http_request_duration_seconds_sum{_labels(route=route)} "
                           f"{self.latency_sum[route]:.6f}")
                out.append(f"seed3d_http_request_duration_seconds_count{_labels(route=route)} {acc}")
            family("seed3d_jobs_submitted_total", "counter", "Jobs accepted by this server process, by kind.")
            for kind, n in sorted(self.submitted.items()):
                out.append(f"seed3d_jobs_submitted_total{_labels(kind=kind)} {n}")
            family("seed3d_jobs_refused_total", "counter", "Jobs refused by this server process, by reason.")
            for reason, n in sorted(self.refused.items()):
                out.append(f"seed3d_jobs_refused_total{_labels(reason=reason)} {n}")
        family("seed3d_jobs", "gauge", "Jobs in the store by status.")
        for status, n in jobs.items():
            out.append(f"seed3d_jobs{_labels(status=status)} {n}")
        family("seed3d_queue_limit", "gauge", "Most jobs queued or running at once.")
        out.append(f"seed3d_queue_limit {queue_limit}")
        family("seed3d_workers", "gauge", "Worker slots configured.")
        out.append(f"seed3d_workers {workers}")
        family("seed3d_workers_alive", "gauge", "Worker slots with a live worker.")
        out.append(f"seed3d_workers_alive {workers_alive}")
        family("seed3d_worker_restarts_total", "counter", "Workers restarted after dying.")
        out.append(f"seed3d_worker_restarts_total {restarts}")
        family("seed3d_uptime_seconds", "gauge", "Seconds since this server process started.")
        out.append(f"seed3d_uptime_seconds {time.time() - self.started:.3f}")
        return "\n".join(out) + "\n"
