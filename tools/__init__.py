"""Harnesses the tests and the benchmarks share, never imported by the app or the engine.

dashboard_server  `start_server`, `serving`, `Server`, `ServerError`, `free_port`, `healthy`, `resident_mb`,
                  `memory_budget_mb`, MEMORY_BUDGET_MB, MEMORY_PER_SESSION_MB: the dashboard as a server process
                  (`streamlit run app.py` on a loopback port), started and stopped from a test or a benchmark
"""

__all__: list[str] = []
