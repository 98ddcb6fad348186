"""What the engine runs on rather than game logic: the compiled cores' builds, cache and loading
(cores.py, which engine/__init__.py configures numba with before anything imports it) and small
statistics for timings (stats.py). Imports nothing else of the engine."""
